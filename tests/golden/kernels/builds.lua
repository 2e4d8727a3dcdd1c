-- builds.lua: a variant of two builds under one launcher (the kernel's
-- builds): short rows run "short", 64 elements a program and one warp,
-- the others "long", 256 elements a program; the launcher tests the
-- short build's k:runs_when first.
local tile = require "tile"
return tile.kernel {
  name = "builds",
  config = { BLOCK = 256, threads = 256 },
  builds = function(v, target)
    return { { "short", { BLOCK = 64, threads = target == "gfx942" and 64 or 32 } }, { "long", {} } }
  end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), alpha = tile.scalar("f32") }
  end,
  body = function(k, p, c)
    if c.BLOCK < 256 then k:runs_when(p.N:le(4096), "rows of 4096 or fewer") end
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) * p.alpha)
  end,
}

-- builds.lua: Y = alpha * X in two builds under one launcher.
--
-- `builds` makes the variant two builds, each its config overlay: "short"
-- (512 elements a program, 64 threads) and "long" (the config as it is).
-- gen writes both into scale_builds.c with one launcher, scale_builds,
-- that runs the first build whose k:runs_when holds for the call's N,
-- else the last: here "short" for N up to 4096, "long" past it.
local tile = require "tile"

return tile.kernel {
  name = "scale_builds",
  doc = "Y = alpha * X over vectors of length N, in a build for short vectors and one for long.",
  config = { BLOCK = 4096, threads = 256 },
  builds = function(v, target)
    return { { "short", { BLOCK = 512, threads = 64 } }, { "long", {} } }
  end,
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), alpha = tile.scalar("f32") }
  end,
  body = function(k, p, c)
    if c.BLOCK == 512 then k:runs_when(p.N:le(4096), "vectors of 4096 elements or fewer") end
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), p.alpha * k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

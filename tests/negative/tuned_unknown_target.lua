-- expect: tests/negative/tuned/unknown_target.lua:3: error: unknown target 'sm_90' (targets: sm80, sm90a, gfx90a, gfx942, gfx1100, c)
-- args: --target sm80 --tuned tests/negative/tuned/unknown_target.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_unknown_target",
  variants = { dtype = { "f32", "bf16" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/tuned/float.lua:5: error: tuned config BLOCK = 512.0: config BLOCK of tuned_float is a whole number, so the value must be one too
-- args: --target c --tuned tests/negative/tuned/float.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_float",
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

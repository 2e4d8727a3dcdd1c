-- expect: tests/negative/tuned/wrong_type.lua:6: error: tuned config BLOCK = "512": config BLOCK of tuned_wrong_type is a whole number, so the value must be one too
-- args: --target sm80 --tuned tests/negative/tuned/wrong_type.lua
local tile = require "tile"
return tile.kernel {
  name = "tuned_wrong_type",
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

-- axpy.lua: Y = alpha * X + Y, in f32, f16 and bf16.
--
-- One kernel file, three variants: gen writes axpy_f32, axpy_f16 and
-- axpy_bf16.  Loads of f16/bf16 are widened to f32, the arithmetic is f32,
-- and the store rounds once to the tensor's dtype.
local tile = require "tile"

return tile.kernel {
  name = "axpy",
  doc = "Y = alpha * X + Y over vectors of length N; f16 and bf16 are computed in f32.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BLOCK = 2048, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { "N" }),
      alpha = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK })):cast("f32")
    local y = k:load(p.Y:tile({ i }, { c.BLOCK })):cast("f32")
    k:store(p.Y:tile({ i }, { c.BLOCK }), p.alpha * x + y)
  end,
}

-- bias_gelu.lua: fused bias + GELU, Y[m, n] = gelu(X[m, n] + B[n]).
--
-- GELU is the exact one, x/2 * (1 + erf(x / sqrt(2))), as torch's default.
-- Programs tile Y in BM x BN blocks; the bias row is loaded once per block
-- and broadcast down the rows.
local tile = require "tile"

return tile.kernel {
  name = "bias_gelu",
  doc = "Fused Y = gelu(X + B) with B broadcast over the rows of X [M, N].",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BM = 8, BN = 512, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local x = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local b = k:load(p.B:tile({ bn }, { c.BN })):cast("f32")
    local h = x + b
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), 0.5 * h * (1 + tile.erf(h * 0.7071067811865476)))
  end,
}

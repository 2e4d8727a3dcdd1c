-- scale_bias.lua (golden): Y = alpha * X + B on a 2-D tile, B a row broadcast
-- down the rows.  Covers: 2-D views with masking at both edges, a rank-1 row
-- loaded once per block and broadcast, a scalar parameter, casts, variants.
local tile = require "tile"

return tile.kernel {
  name = "scale_bias",
  doc = "Y[m, n] = alpha * X[m, n] + B[n].",
  variants = { dtype = { "f32", "bf16" } },
  config = { BM = 4, BN = 256, threads = 128 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
      alpha = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local x = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local b = k:load(p.B:tile({ bn }, { c.BN })):cast("f32")
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), p.alpha * x + b)
  end,
}

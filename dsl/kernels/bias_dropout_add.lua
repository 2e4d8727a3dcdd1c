-- bias_dropout_add.lua: Y[m, n] = R[m, n] + dropout(X[m, n] + B[n], p), the
-- residual branch of a transformer block in training.
--
-- Dropout keeps an element where tile.rand(seed, offset + m * N + n) < 1 - p
-- (Philox4x32-10, docs/dsl.md) and scales it by 1 / (1 - p), as
-- F.dropout does; the mask is never stored: a backward pass makes it again
-- from the same seed and offset.  Programs tile Y in BM x BN blocks; the
-- bias row is loaded once per block.  f16 and bf16 compute in f32 and round
-- once, on the store.
local tile = require "tile"

return tile.kernel {
  name = "bias_dropout_add",
  doc = "Y = R + dropout(X + B, p) over [M, N] (B [N] broadcast over the rows): an element is kept, times "
     .. "1 / (1 - p), where tile.rand(seed, offset + m * N + n) < 1 - p; 0 <= p < 1.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BM = 4, BN = 1024, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      R = tile.tensor(v.dtype, { "M", "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
      p = tile.scalar("f32"),
      seed = tile.scalar("i64"),
      offset = tile.scalar("i64"),
    }
  end,
  body = function(k, p, c)
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local h = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN })):cast("f32") + k:load(p.B:tile({ bn }, { c.BN })):cast("f32")
    local r = k:load(p.R:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local row = (k:iota({ c.BM, c.BN }, 1) + bm * c.BM):cast("i64")
    local col = (k:iota({ c.BM, c.BN }, 2) + bn * c.BN):cast("i64")
    local keep = tile.rand(p.seed, row * p.N + col + p.offset):lt(1 - p.p)
    local scale = 1 / (1 - p.p)
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), r + tile.where(keep, h * scale, 0))
  end,
}

-- packed.lua: sequences of different lengths packed into one tensor, each
-- read and written through X:rows (bounds read from memory).
--
-- Sequence b is the rows CU[b] .. CU[b + 1] - 1 of X and Y (its first
-- maxlen); Y's rows of sequence b are X's minus the mean of the
-- sequence's first row.  One
-- program per (block of BM rows, sequence), over MAXLEN rows a sequence:
-- a view of X:rows(lo, hi) counts its offsets from lo and masks the rows
-- outside [lo, hi), so a block past a sequence's end reads and writes
-- nothing, and the rows of the next sequence are never touched.
local tile = require "tile"

return tile.kernel {
  name = "packed",
  doc = "Y[t, :] = X[t, :] - mean(X[CU[b], :]) for the rows t of each sequence b = [CU[b], CU[b + 1]).",
  config = { BM = 16, D = 64, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "T", c.D }),
      Y = tile.tensor("f32", { "T", c.D }),
      CU = tile.tensor("i32", { "B1" }),     -- B + 1 offsets
      maxlen = tile.scalar("i32"),
    }
  end,
  body = function(k, p, c)
    local blk, b = k:grid(tile.cdiv(p.maxlen, c.BM), p.B1 - 1)
    local lo = k:load(p.CU:at({ b }))
    local hi = lo + tile.min(k:load(p.CU:at({ b + 1 })) - lo, p.maxlen)   -- at most maxlen rows
    local Xs, Ys = p.X:rows(lo, hi), p.Y:rows(lo, hi)   -- row 0 of Xs is X's row lo
    local first = k:load(Xs:view({ 0, 0 }, { 1, c.D }))
    local mean = k:reduce_sum(first, 2) * (1 / c.D)
    local x = k:load(Xs:tile({ blk, 0 }, { c.BM, c.D }))
    k:store(Ys:tile({ blk, 0 }, { c.BM, c.D }), x - mean)
  end,
}

-- rows_ring.lua (golden): packed sequences through X:rows.  Sequence b is
-- the rows CU[b] .. CU[b + 1] - 1 of X and Y (cumulative offsets read with
-- X:at); each program sums the sequence's BM-row blocks of X into shared
-- memory through a pipelined loop (a cp.async ring on sm80) and writes the
-- column sums to every row of its block of Y.  Covers: the bounds of
-- X:rows in a copy into a stage ring (the interior test and the zero-fill
-- of the edge chunks), in a store, and in a scalar X:at of a rows tensor.
local tile = require "tile"

return tile.kernel {
  name = "rows_ring",
  doc = "Y[t, :] = column sums of X over the rows of t's sequence, for the first BM rows of each; FIRST[b] = X[CU[b], 0].",
  config = { BM = 16, D = 64, stages = 2, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "T", c.D }),
      Y = tile.tensor("f32", { "T", c.D }),
      CU = tile.tensor("i32", { "B1" }),
      FIRST = tile.tensor("f32", { "B1" }),
    }
  end,
  body = function(k, p, c)
    local b = k:grid(p.B1 - 1)
    local lo, hi = k:load(p.CU:at({ b })), k:load(p.CU:at({ b + 1 }))
    local Xs, Ys = p.X:rows(lo, hi), p.Y:rows(lo, hi)
    local xs = k:shared("f32", { c.BM, c.D })
    local acc = k:fragment("f32", { 1, c.D }, 0)
    k:pipelined(0, tile.cdiv(hi - lo, c.BM), c.stages, function(i)
      k:copy(Xs:tile({ i, 0 }, { c.BM, c.D }), xs)
      local x = k:fragment("f32", { c.BM, c.D })
      k:copy(xs, x)
      k:assign(acc, acc + k:reduce_sum(x, 1))
    end)
    k:store(Ys:tile({ 0, 0 }, { c.BM, c.D }), acc + k:fragment("f32", { c.BM, c.D }, 0))
    k:store(p.FIRST:at({ b }), k:load(Xs:at({ 0, 0 })))
  end,
}

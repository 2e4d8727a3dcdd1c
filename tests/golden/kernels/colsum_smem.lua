-- colsum_smem.lua (golden): S[n] = column sums of X [M, N] over BM-row
-- blocks staged through shared memory, and RS[m, bn] = the sum of row m
-- over program bn's BN columns.  Covers: a shared tile, global -> shared and
-- shared -> register copies, barriers between them in a loop, reductions
-- along both axes of a 2-D tile whose threads hold several rows, k:fill, a
-- rank-1 store and a [BM, 1] column store.
local tile = require "tile"

return tile.kernel {
  name = "colsum_smem",
  doc = "S[n] = sum over m of X[m, n]; RS[m, b] = sum of X[m, n] over the b-th BN columns.",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function(v)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      S = tile.tensor("f32", { "N" }),
      RS = tile.tensor("f32", { "M", "NB" }),
    }
  end,
  body = function(k, p, c)
    local bn = k:grid(tile.cdiv(p.N, c.BN))
    local xs = k:shared("f32", { c.BM, c.BN })
    local acc = k:fragment("f32", { 1, c.BN })
    k:fill(acc, 0)
    local x = k:fragment("f32", { c.BM, c.BN })
    k:serial(0, tile.cdiv(p.M, c.BM), function(i)
      k:copy(p.X:tile({ i, bn }, { c.BM, c.BN }), xs)
      k:copy(xs, x)
      k:assign(acc, acc + k:reduce_sum(x, 1))
      k:store(p.RS:tile({ i, bn }, { c.BM, 1 }), k:reduce_sum(x, 2))
    end)
    k:store(p.S:tile({ bn }, { c.BN }), acc)
  end,
}

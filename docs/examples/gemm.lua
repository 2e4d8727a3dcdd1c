-- gemm.lua: C = A @ B for f32 matrices of any size, one 64 x 64 tile of C per program.
local tile = require "tile"

return tile.kernel {
  name = "gemm",
  config = { BM = 64, BN = 64, BK = 16, stages = 3, threads = 128, group = 4 },
  params = function(v, c)
    return {
      A = tile.tensor("f32", { "M", "K" }),
      B = tile.tensor("f32", { "K", "N" }),
      C = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local rows, cols = tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN)
    local bm, bn = tile.grouped(k:grid(rows * cols), rows, cols, c.group)
    local As = k:shared("f32", { c.BM, c.BK })
    local Bs = k:shared("f32", { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)   -- masked at the edges
      k:copy(p.B:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc)
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

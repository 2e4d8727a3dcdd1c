-- odd_gemm.lua (golden): C = A @ B, f16 in, f32 accumulate, one [64, 160]
-- tile a program: a tile side that is a multiple of 8 but not a power of
-- two.  Covers: the warp grid (the squarest, 1 x 4 warps of [64, 40], is
-- not whole mma.sync n16 pairs, so 2 x 2 of [32, 80]), B's [32, 160] shared
-- tile (20 16-byte chunks a row: swizzled in groups of 4, keyed on r / 2 % 4)
-- and its copy (the threads take 4 of a row's 20 chunks, each 5 of them).
local tile = require "tile"

return tile.kernel {
  name = "odd_gemm",
  doc = "C [M, N] = A [M, K] @ B [K, N]; f32 accumulation.",
  config = { BM = 64, BN = 160, BK = 32, stages = 2, threads = 128 },
  params = function()
    return {
      A = tile.tensor("f16", { "M", "K" }),
      B = tile.tensor("f16", { "K", "N" }),
      C = tile.tensor("f16", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("f16", { c.BM, c.BK })
    local Bs = k:shared("f16", { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc)
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

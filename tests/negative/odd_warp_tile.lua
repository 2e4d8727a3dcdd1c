-- expect: tests/negative/odd_warp_tile.lua:23: error: the warp tile [48, 88] (accumulator [192, 176] over 4 x 2 warps) is not a multiple of the mma.sync m16n8k16 tile [16, 16] on sm80; change the tile sizes or gemm warps
-- A [192, 176] accumulator over 8 warps: no warp grid gives whole [16, 16]
-- mma.sync tiles (176 = 16 x 11 takes the warps down M only, and 192 / 8 = 24).
local tile = require "tile"
return tile.kernel {
  name = "odd_warp_tile",
  config = { BM = 192, BN = 176, BK = 32, threads = 256 },
  params = function(v)
    return {
      A = tile.tensor("f16", { "M", "K" }),
      B = tile.tensor("f16", { "N", "K" }),
      C = tile.tensor("f16", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("f16", { c.BM, c.BK })
    local Bs = k:shared("f16", { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), 2, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

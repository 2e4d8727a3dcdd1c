-- expect: tests/negative/gemm_k_step_fp8_mfma.lua:18: error: the gemm's K tile (8) is not a multiple of the MFMA 32x32x16 fp8 K step (16) on gfx942
-- args: --target gfx942
local tile = require "tile"
return tile.kernel {
  name = "gemm_k_step_fp8_mfma",
  config = { BM = 64, BN = 64, BK = 8, stages = 2, threads = 256 },
  params = function(v)
    return { A = tile.tensor("fp8e4m3", { "M", "K" }), B = tile.tensor("fp8e4m3", { "N", "K" }), C = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("fp8e4m3", { c.BM, c.BK })
    local Bs = k:shared("fp8e4m3", { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

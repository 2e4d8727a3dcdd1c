-- expect: tests/negative/gemm_smem_stages.lua:11: error: the kernel needs 262144 bytes of shared memory, over the 163 KB a block gets on sm80 (biggest: a [128, 64] bf16 tile in 8 stages, 131072 bytes); make the tiles smaller or use fewer stages
local tile = require "tile"
return tile.kernel {
  name = "gemm_smem_stages",
  config = { BM = 128, BN = 128, BK = 64, stages = 8, threads = 256 },
  params = function(v)
    return { A = tile.tensor("bf16", { "M", "K" }), B = tile.tensor("bf16", { "K", "N" }), C = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("bf16", { c.BM, c.BK })
    local Bs = k:shared("bf16", { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc, {})
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

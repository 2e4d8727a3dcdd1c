-- hostile: gemms with odd shapes, transposes and warp grids
local tile = require "tile"
return tile.kernel {
  name = "gemm_odd",
  variants = { dtype = { "f16", "bf16", "f32" } },
  config = { BM = 64, BN = 32, BK = 32, threads = 64 },
  params = function(v)
    return { A = tile.tensor(v.dtype, { "M", "K" }), B = tile.tensor(v.dtype, { "N", "K" }), C = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local m, n = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local a = k:shared(p.A.dtype, { c.BM, c.BK })
    local b = k:shared(p.A.dtype, { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:serial(0, tile.cdiv(p.K, c.BK), function(kk)
      k:copy(p.A:tile({ m, kk }, { c.BM, c.BK }), a)
      k:copy(p.B:tile({ n, kk }, { c.BN, c.BK }), b)
      k:gemm(a, b, acc, { transpose_b = true, warps = { 2, 1 } })
    end)
    k:store(p.C:tile({ m, n }, { c.BM, c.BN }), acc)
  end,
}

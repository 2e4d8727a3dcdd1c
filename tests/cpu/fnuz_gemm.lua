-- fnuz_gemm.lua: C = (A @ B^T) * scale, A [M, K] and B [N, K] of an FNUZ
-- fp8 dtype (variant dtype), C f32: a gemm on FNUZ operands as a kernel on
-- AMD writes it (torch.float8_e4m3fnuz / float8_e5m2fnuz tensors, B as
-- torch._scaled_mm takes it).  On gfx942 MFMA fp8 / bf8 reads the bytes as
-- they are; elsewhere each operand is converted as it is read (mma.sync's
-- f16 pairs, or f32 multiply-adds).  Checked by tests/cpu/fnuz_gemm.c on
-- the c target and every emulated GPU target (tests/emu/drivers.sh).
local tile = require "tile"

return tile.kernel {
  name = "fnuz_gemm",
  doc = "C[M, N] f32 = (A[M, K] @ B[N, K]^T) * scale, A and B fp8e4m3fnuz or fp8e5m2fnuz.",
  variants = { dtype = { "fp8e4m3fnuz", "fp8e5m2fnuz" } },
  config = { BM = 64, BN = 64, BK = 64, stages = 2, threads = 256 },
  params = function(v)
    return {
      A = tile.tensor(v.dtype, { "M", "K" }),
      B = tile.tensor(v.dtype, { "N", "K" }),
      C = tile.tensor("f32", { "M", "N" }),
      scale = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c, v)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared(v.dtype, { c.BM, c.BK })
    local Bs = k:shared(v.dtype, { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc * p.scale)
  end,
}

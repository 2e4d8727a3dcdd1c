-- matmul_fp8.lua: C = (A @ B^T) * scale_a * scale_b, A [M, K] and B [N, K]
-- fp8e4m3 (B as torch._scaled_mm takes it: column-major [K, N], i.e. its
-- transpose [N, K] row-major), C bf16.
--
-- One program per [BM, BN] tile of C, in grouped order (tile.grouped).  The
-- K loop is pipelined: the copies of the next stages - 1 [BM, BK] and
-- [BN, BK] byte slices are in flight while k:gemm works on this one; the
-- gemm reads its fp8 operands from shared memory, converting each to f32
-- exactly, and accumulates in f32.  The scales multiply the f32
-- accumulator once, then one rounding to bf16:
--   scale = tensor: scale_a, scale_b f32 scalars (per-tensor scaling);
--   scale = row:    scale_a [M, 1] and scale_b [1, N] f32 tensors, one
--                   scale per row of A and per column of C (torch's rowwise).
local tile = require "tile"

return tile.kernel {
  name = "matmul_fp8",
  doc = "C[M, N] bf16 = (A[M, K] @ B[N, K]^T) * scale_a * scale_b, A and B fp8e4m3; f32 accumulation.",
  variants = { scale = { "tensor", "row" } },
  config = { BM = 64, BN = 64, BK = 64, stages = 2, threads = 256, group_m = 8 },
  params = function(v)
    local ps = {
      A = tile.tensor("fp8e4m3", { "M", "K" }),
      B = tile.tensor("fp8e4m3", { "N", "K" }),
      C = tile.tensor("bf16", { "M", "N" }),
    }
    if v.scale == "tensor" then
      ps.scale_a, ps.scale_b = tile.scalar("f32"), tile.scalar("f32")
    else
      ps.scale_a, ps.scale_b = tile.tensor("f32", { "M", 1 }), tile.tensor("f32", { 1, "N" })
    end
    return ps
  end,
  body = function(k, p, c, v)
    local BM, BN, BK = c.BM, c.BN, c.BK
    local pid = k:grid(tile.cdiv(p.M, BM) * tile.cdiv(p.N, BN))
    local bm, bn = tile.grouped(pid, tile.cdiv(p.M, BM), tile.cdiv(p.N, BN), c.group_m)
    local As = k:shared("fp8e4m3", { BM, BK })
    local Bs = k:shared("fp8e4m3", { BN, BK })
    local acc = k:fragment("f32", { BM, BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { BM, BK }), As)
      k:copy(p.B:tile({ bn, kt }, { BN, BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    if v.scale == "tensor" then
      k:assign(acc, acc * (p.scale_a * p.scale_b))
    else
      local sa = k:load(p.scale_a:tile({ bm, 0 }, { BM, 1 }))
      local sb = k:load(p.scale_b:tile({ 0, bn }, { 1, BN }))
      k:assign(acc, acc * sa * sb)
    end
    k:store(p.C:tile({ bm, bn }, { BM, BN }), acc)
  end,
}

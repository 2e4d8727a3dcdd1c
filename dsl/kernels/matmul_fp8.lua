-- matmul_fp8.lua: C = (A @ B^T) * scale_a * scale_b, A [M, K] and B [N, K]
-- fp8e4m3 (B as torch._scaled_mm takes it: column-major [K, N], i.e. its
-- transpose [N, K] row-major), C bf16.
--
-- One program per [BM, BN] tile of C, in grouped order (tile.grouped).  The
-- K loop is pipelined: the copies of the next stages - 1 [BM, BK] and
-- [BN, BK] byte slices are in flight while k:gemm works on this one; the
-- gemm reads its fp8 operands from shared memory, converting each to f32
-- exactly, and accumulates in f32.  On sm90a the gemm is wgmma m64nNk32 on
-- the fp8 bytes, whose tensor cores keep their sums to fewer bits than f32
-- (PTX ISA: the fp8 accumulation is "implementation defined"; measured:
-- torch._scaled_mm's use_fast_accum = True errs the same): so, as
-- torch._scaled_mm by default, each K step's products go into a fresh
-- accumulator, added to acc in f32 (variant fast_accum = false); with
-- fast_accum = true the tensor cores' accumulator runs over all of K
-- (faster, less exact; sm90a only).  The scales multiply the f32
-- accumulator once, then one rounding to bf16:
--   scale = tensor: scale_a, scale_b f32 scalars (per-tensor scaling);
--   scale = row:    scale_a [M, 1] and scale_b [1, N] f32 tensors, one
--                   scale per row of A and per column of C (torch's rowwise).
local tile = require "tile"

return tile.kernel {
  name = "matmul_fp8",
  doc = "C[M, N] bf16 = (A[M, K] @ B[N, K]^T) * scale_a * scale_b, A and B fp8e4m3; f32 accumulation.",
  variants = { scale = { "tensor", "row" }, fast_accum = { false, true } },
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
      if k.target == "sm90a" and not v.fast_accum then   -- a K step's sum, added in f32
        local part = k:fragment("f32", { BM, BN }, 0)
        k:gemm(As, Bs, part, { transpose_b = true })
        k:assign(acc, acc + part)
      else
        k:gemm(As, Bs, acc, { transpose_b = true })
      end
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
  -- sm90a: warp-specialized, two consumer warpgroups, a K step of 128 bytes
  -- (one 128-byte swizzle row); fast_accum: the f16 matmul's [128, 256]
  -- tile (a warpgroup's [64, 256], wgmma m64n256k32), 4 stages of 48 KB;
  -- else [128, 128], whose two accumulators a thread fit its registers,
  -- 5 stages of 32 KB (H200: 1.05x torch._scaled_mm's fast accumulation
  -- at 4096^3 for the first, ... for the second; bench/results)
  variant_config = function(v, target)
    if target == "sm90a" and v.fast_accum then return { BM = 128, BN = 256, BK = 128, stages = 4, threads = 256 } end
    if target == "sm90a" then return { BM = 128, BN = 128, BK = 128, stages = 5, threads = 256 } end
  end,
  -- fast_accum is a choice of sm90a's fp8 tensor cores; elsewhere the sums are f32
  unsupported = function(v, target)
    if v.fast_accum and target ~= "sm90a" then return "fast_accum is sm90a's (wgmma); the sums here are f32" end
  end,
}

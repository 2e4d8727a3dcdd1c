-- matmul.lua: C = act(alpha * op(A) @ op(B) + beta * C0 + bias), batched.
--
-- One program per [BM, BN] tile of C, in grouped order (tile.grouped).  The
-- K loop is pipelined: while the matrix instruction works on one [BM, BK]
-- slice of A and [BK, BN] slice of B in shared memory, the copies of the
-- next stages - 1 slices are in flight.  The epilogue runs on the f32
-- accumulator where the instruction left it: scale, beta * C0 (read only
-- when beta != 0, so C0 may alias C), bias, activation, one rounding.
-- op = N or T per operand (variant `layout`: nn, nt, tn, tt); every matrix
-- has a batch stride and a leading dimension (row stride) of its own.
-- dtype tf32: f32 matrices, whose products the tensor cores take rounded
-- to tf32 (10-bit mantissa) where the target has them; f32: exact f32.
local tile = require "tile"

local SQRT1_2 = 0.70710678118654752
local acts = {
  none = function(x) return x end,
  relu = function(x) return tile.max(x, 0) end,
  gelu = function(x) return 0.5 * x * (1 + tile.erf(x * SQRT1_2)) end,
  silu = function(x) return x / (1 + tile.exp(-x)) end,
}

return tile.kernel {
  name = "matmul",
  doc = "C = act(alpha * op(A) @ op(B) + beta * C0 + bias) for a batch of matrices; f32 accumulation.",
  variants = {
    dtype = { "f16", "bf16", "f32", "tf32" },
    layout = { "nn", "nt", "tn", "tt" },
    epilogue = { "none", "bias", "bias_relu", "bias_gelu", "bias_silu" },
  },
  config = { BM = 128, BN = 256, BK = 64, stages = 3, threads = 256, group_m = 8 },
  -- runtime/tune.lua's search space: block tile, K step, pipeline depth, block size
  tune = {
    space = { BM = { 64, 128, 256 }, BN = { 64, 128, 256 }, BK = { 32, 64 }, stages = { 2, 3, 4 },
              threads = { 128, 256 } },
    -- the stage ring within 227 KB (sm90's opt-in; gen rejects what the
    -- target cannot hold), and at most 128 accumulators a thread
    constraint = function(c) return (c.BM + c.BN) * c.BK * 2 * c.stages <= 227 * 1024 and c.BM * c.BN // c.threads <= 128 end,
    shapes = { { batch = 1, M = 4096, N = 4096, K = 4096 } },
    check_shapes = { { batch = 1, M = 67, N = 67, K = 67 }, { batch = 2, M = 300, N = 257, K = 131 } },
    scalars = { alpha = 1, beta = 0 },
    flops = function(s) return 2 * s.batch * s.M * s.N * s.K end,
  },
  params = function(v)
    local ta, tb = v.layout:sub(1, 1) == "t", v.layout:sub(2, 2) == "t"
    local dt = v.dtype == "tf32" and "f32" or v.dtype   -- the matrices' type
    local ps = {   -- C0 first, so that every layout's sizes read batch, M, N, K
      C0 = tile.tensor(dt, { "batch", "M", "N" }, { "sc", "ldc", 1 }),
      A = tile.tensor(dt, ta and { "batch", "K", "M" } or { "batch", "M", "K" }, { "sa", "lda", 1 }),
      B = tile.tensor(dt, tb and { "batch", "N", "K" } or { "batch", "K", "N" }, { "sb", "ldb", 1 }),
      C = tile.tensor(dt, { "batch", "M", "N" }, { "sc", "ldc", 1 }),
      alpha = tile.scalar("f32"),
      beta = tile.scalar("f32"),
    }
    if v.epilogue ~= "none" then ps.bias = tile.tensor(dt, { "N" }) end
    return ps
  end,
  body = function(k, p, c, v)
    local ta, tb = v.layout:sub(1, 1) == "t", v.layout:sub(2, 2) == "t"
    local BM = c.BM
    -- half the registers per warp tile on wave32, for tf32 by mma.sync (operand words and their rounding), and for tf32
    -- wgmma on sm90a (wg32, K step 32) but nt and tt without a bias (full width spilled 4-212 bytes; nn: BM 256 instead)
    local dt, wg32 = v.dtype == "tf32" and "f32" or v.dtype, v.dtype == "tf32" and k.target == "sm90a"
    local BN = (k.target == "gfx1100" or (v.dtype == "tf32" and (not wg32 or v.epilogue ~= "none" or v.layout == "nn" or v.layout == "tn"))) and c.BN // 2 or c.BN
    local BK = wg32 and c.BK // 2 or dt == "f32" and c.BK // 4 or c.BK   -- f32 takes twice the bytes, and (but tf32) no tensor cores
    -- CDNA: half the K step, so that the LDS double buffer of the
    -- pipelined loop (2 x (BM + BN) x BK x 2 bytes) fits in 64 KB
    if (k.target == "gfx90a" or k.target == "gfx942") and dt ~= "f32" then BK = BK // 2 end
    local pid, b = k:grid(tile.cdiv(p.M, BM) * tile.cdiv(p.N, BN), p.batch)
    local bm, bn = tile.grouped(pid, tile.cdiv(p.M, BM), tile.cdiv(p.N, BN), c.group_m)
    local As = k:shared(dt, ta and { BK, BM } or { BM, BK })
    local Bs = k:shared(dt, tb and { BN, BK } or { BK, BN })
    local acc = k:fragment("f32", { BM, BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, BK), c.stages, function(kt)
      k:copy(ta and p.A:tile({ b, kt, bm }, { 1, BK, BM }) or p.A:tile({ b, bm, kt }, { 1, BM, BK }), As)
      k:copy(tb and p.B:tile({ b, bn, kt }, { 1, BN, BK }) or p.B:tile({ b, kt, bn }, { 1, BK, BN }), Bs)
      k:gemm(As, Bs, acc, { transpose_a = ta, transpose_b = tb, tf32 = v.dtype == "tf32" })
    end)
    k:assign(acc, acc * p.alpha)
    k:when(p.beta:ne(0), function()
      k:assign(acc, acc + p.beta * k:load(p.C0:tile({ b, bm, bn }, { 1, BM, BN })):cast("f32"))
    end)
    if v.epilogue ~= "none" then
      local act = acts[v.epilogue:match("^bias_(%a+)$") or "none"]
      local bias = k:load(p.bias:tile({ bn }, { BN })):cast("f32")
      k:assign(acc, act(acc + bias))
    end
    k:store(p.C:tile({ b, bm, bn }, { 1, BM, BN }), acc)
  end,
  -- f32 (multiply-adds) with the GELU epilogue on sm90a: 2 stages, where 3
  -- spilled 8 bytes (ptxas, the layouts with A transposed: tn, tt); tf32 nn,
  -- tn and tt on sm90a (an operand's words in registers): 4 stages, 1-13%
  -- faster than 3 on the H200 at 128 x 128; nn without a bias 256 x 128
  -- (the swapped operands: 256 rows are the instruction's N; 0.87-1.10x
  -- cuBLAS tf32 against 0.74-0.96x at 128 x 128)
  variant_config = function(v, target)
    if v.dtype == "f32" and v.epilogue == "bias_gelu" and target == "sm90a" then return { stages = 2 } end
    if v.dtype == "tf32" and v.layout == "nn" and v.epilogue == "none" and target == "sm90a" then return { stages = 4, BM = 256 } end
    if v.dtype == "tf32" and v.layout ~= "nt" and target == "sm90a" then return { stages = 4 } end
  end,
}

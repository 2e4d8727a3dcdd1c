-- gemm_tf32_wide.lua (tests): gemm_tf32.lua's GEMM (C = leaky_relu(op(A) @
-- op(B), slope), f32 matrices in tf32 products, an operand stored MN-major)
-- on sm90a's wide tiles, where each consumer thread holds 128 accumulators:
-- "nn" (B [K, N]) 256 x 128, "tt" (A [K, M], B [N, K]) 128 x 256.  There
-- the words of wgmma's A go through fewer register slots (pass/plan.c,
-- Stmt.roll: one for nn's swapped operands, two for tt), each rewritten
-- once the wgmma that last read it is done.  Other targets run 128 x 128.
-- tests/emu checks it against float64, tests/gpu on the device.
local tile = require "tile"

return tile.kernel {
  name = "gemm_tf32_wide",
  doc = "C [M, N] = leaky_relu(op(A) @ op(B), slope), f32 in tf32 products: A [M, K] (n) or [K, M] (t), B [K, N] (n) "
        .. "or [N, K] (t); f32 accumulation.",
  variants = { layout = { "nn", "tt" } },
  config = { BM = 128, BN = 128, BK = 32, stages = 4, threads = 256, group_m = 8 },
  variant_config = function(v, target)
    if target ~= "sm90a" then return nil end
    return v.layout == "nn" and { BM = 256 } or { BN = 256 }
  end,
  params = function(v)
    local ta, tb = v.layout:sub(1, 1) == "t", v.layout:sub(2, 2) == "t"
    return {
      C = tile.tensor("f32", { "M", "N" }),   -- first, so that every layout's sizes read M, N, K
      A = tile.tensor("f32", ta and { "K", "M" } or { "M", "K" }),
      B = tile.tensor("f32", tb and { "N", "K" } or { "K", "N" }),
      slope = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c, v)
    local ta, tb = v.layout:sub(1, 1) == "t", v.layout:sub(2, 2) == "t"
    local tm, tn = tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN)
    local pid = k:grid(tm * tn)
    local bm, bn = tile.grouped(pid, tm, tn, c.group_m)
    local As = k:shared("f32", ta and { c.BK, c.BM } or { c.BM, c.BK })
    local Bs = k:shared("f32", tb and { c.BN, c.BK } or { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(ta and p.A:tile({ kt, bm }, { c.BK, c.BM }) or p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(tb and p.B:tile({ bn, kt }, { c.BN, c.BK }) or p.B:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc, { transpose_a = ta, transpose_b = tb, tf32 = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), tile.where(acc:gt(0), acc, acc * p.slope))
  end,
}

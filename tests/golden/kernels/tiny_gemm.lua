-- tiny_gemm.lua (golden): C = A @ B^T + bias, f16 in, f32 accumulate, one
-- [64, 64] tile a program.  Covers: k:gemm with a transposed operand (the
-- target's matrix instruction, swizzled shared tiles), a two-stage
-- k:pipelined loop (a cp.async ring on sm80), the accumulator layout,
-- --explain's gemm and pipeline lines, and a copy into shared memory of a
-- tile smaller than the block (the bias row: its first 16 threads copy it),
-- made before the loop (on sm80 a lead-in: cp.async, landing with the first
-- stage) and read back after it in the accumulator's layout.
local tile = require "tile"

return tile.kernel {
  name = "tiny_gemm",
  doc = "C [M, N] = A [M, K] @ B [N, K]^T + bias [1, N]; f32 accumulation.",
  config = { BM = 64, BN = 64, BK = 32, stages = 2, threads = 128 },
  params = function()
    return {
      A = tile.tensor("f16", { "M", "K" }),
      B = tile.tensor("f16", { "N", "K" }),
      bias = tile.tensor("f32", { 1, "N" }),
      C = tile.tensor("f16", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("f16", { c.BM, c.BK })
    local Bs = k:shared("f16", { c.BN, c.BK })
    local bias_s = k:shared("f32", { 1, c.BN })
    k:copy(p.bias:tile({ 0, bn }, { 1, c.BN }), bias_s)
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    local bias = k:fragment("f32", { 1, c.BN })
    k:copy(bias_s, bias)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc + bias)
  end,
}

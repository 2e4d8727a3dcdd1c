-- gemm_colsum.lua (tests): a GEMM with fewer than 64 rows a tile and a
-- reduction over them: C = A @ B^T and, per tile of 16 rows, the sums of
-- C's columns over those rows, S [T, N] (T = ceil(M / 16)).  On sm90a the
-- 16-row tile runs wgmma with the operands swapped (docs/dsl.md, "Fewer
-- rows than 64"), whose accumulator holds a column's values in other lanes
-- than the mma.sync layout does: the reduction must follow it.  tests/emu
-- checks both outputs against float64.
local tile = require "tile"

return tile.kernel {
  name = "gemm_colsum",
  doc = "C [M, N] = A [M, K] @ B [N, K]^T; S [T, N]: column sums of C over each tile of 16 rows.",
  variants = { dtype = { "f16", "bf16" } },
  config = { BM = 16, BN = 64, BK = 64, stages = 3, threads = 128, group_m = 8 },
  params = function(v)
    return {
      A = tile.tensor(v.dtype, { "M", "K" }),
      B = tile.tensor(v.dtype, { "N", "K" }),
      C = tile.tensor(v.dtype, { "M", "N" }),
      S = tile.tensor("f32", { "T", "N" }),
    }
  end,
  body = function(k, p, c, v)
    local tm, tn = tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN)
    local pid = k:grid(tm * tn)
    local bm, bn = tile.grouped(pid, tm, tn, c.group_m)
    local As = k:shared(v.dtype, { c.BM, c.BK })
    local Bs = k:shared(v.dtype, { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
    k:store(p.S:tile({ bm, bn }, { 1, c.BN }), k:reduce_sum(acc, 1))
  end,
}

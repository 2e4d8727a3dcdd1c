-- gemm_xt.lua (tests): a GEMM written the way a user writes one, not
-- matmul.lua: C = X^T W, X stored [K, M] (M samples of K features, one a
-- column), W [K, N], both contiguous, on a 16-row tile for a few samples.
-- On sm90a gen runs it on the swapped operands (wgmma reads X's [K, 16]
-- tile through its transpose bit); where M = 1, X's bytes are one row of
-- K contiguous elements, and the launcher runs the kernel's row twin,
-- which copies them as [1, K] rows.  Nothing in it names a target or asks
-- for either.  tests/emu checks it against float64.
local tile = require "tile"

return tile.kernel {
  name = "gemm_xt",
  doc = "C [M, N] = X [K, M]^T @ W [K, N]; f32 accumulation.",
  variants = { dtype = { "f16", "bf16" } },
  config = { BM = 16, BN = 64, BK = 128, stages = 4, threads = 128, group_m = 8 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "K", "M" }),
      W = tile.tensor(v.dtype, { "K", "N" }),
      C = tile.tensor(v.dtype, { "M", "N" }),
    }
  end,
  body = function(k, p, c, v)
    local tm, tn = tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN)
    local pid = k:grid(tm * tn)
    local bm, bn = tile.grouped(pid, tm, tn, c.group_m)
    local Xs = k:shared(v.dtype, { c.BK, c.BM })
    local Ws = k:shared(v.dtype, { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.X:tile({ kt, bm }, { c.BK, c.BM }), Xs)
      k:copy(p.W:tile({ kt, bn }, { c.BK, c.BN }), Ws)
      k:gemm(Xs, Ws, acc, { transpose_a = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

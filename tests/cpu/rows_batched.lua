-- rows_batched.lua (a test kernel, not shipped): Y[b, lo:hi] = X[b, lo:hi] @ W
-- for each batch b, the rows [lo, hi) read from a device tensor (LH), the
-- store through Y:rows(lo, hi) with a batch index: on sm90a a TMA store of
-- a 3-D tensor whose warpgroups with rows outside [lo, hi) write the rows
-- inside themselves, offset and tested in the batch dim
-- (lower/store_staged.c, rows_clipped; copy.c, ltL_fixed_dim).  Checked by
-- tests/cpu/rows_batched.c on every target (tests/emu/drivers.sh).
local tile = require "tile"

return tile.kernel {
  name = "rows_batched",
  doc = "Y[b, lo:hi] = X[b, lo:hi] @ W for every batch b, lo = LH[0], hi = LH[1]; other rows of Y not written.",
  config = { BM = 128, BN = 128, BK = 64, stages = 3, threads = 256 },
  params = function()
    return {
      X = tile.tensor("bf16", { "B", "T", "K" }),
      W = tile.tensor("bf16", { "K", "N" }),
      LH = tile.tensor("i32", { 2 }),
      Y = tile.tensor("bf16", { "B", "T", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn, b = k:grid(tile.cdiv(p.T, c.BM), tile.cdiv(p.N, c.BN), p.B)
    local lo, hi = k:load(p.LH:at({ 0 })), k:load(p.LH:at({ 1 }))
    local As = k:shared("bf16", { c.BM, c.BK })
    local Bs = k:shared("bf16", { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.X:view({ b, lo + bm * c.BM, kt * c.BK }, { 1, c.BM, c.BK }), As)
      k:copy(p.W:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc)
    end)
    k:store(p.Y:rows(lo, hi):view({ b, bm * c.BM, bn * c.BN }, { 1, c.BM, c.BN }), acc)
  end,
}

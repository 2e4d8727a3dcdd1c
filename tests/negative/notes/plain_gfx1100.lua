-- note: tests/negative/notes/plain_gfx1100.lua:16: note: k:pipelined's stages = 2 has no effect on gfx1100: it has neither cp.async nor the register prefetch; the loop runs one tile at a time
-- args: --target gfx1100
-- RDNA3 has neither cp.async nor the register prefetch: the loop runs plainly.
local tile = require "tile"
return tile.kernel {
  name = "plain_gfx1100",
  config = { BM = 64, BN = 64, BK = 32, stages = 2, threads = 256 },
  params = function()
    return { A = tile.tensor("f16", { "M", "K" }), B = tile.tensor("f16", { "N", "K" }), C = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("f16", { c.BM, c.BK })
    local Bs = k:shared("f16", { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

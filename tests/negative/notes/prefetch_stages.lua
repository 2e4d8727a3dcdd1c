-- note: tests/negative/notes/prefetch_stages.lua:16: note: k:pipelined's stages = 3 has no effect on gfx942: without cp.async, iteration i + 1's copies go through registers into a double buffer, as with stages = 2
-- args: --target gfx942
-- One gemm with 3 stages on CDNA: the register prefetch's double buffer, as with 2.
local tile = require "tile"
return tile.kernel {
  name = "prefetch_stages",
  config = { BM = 64, BN = 64, BK = 32, stages = 3, threads = 256 },
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

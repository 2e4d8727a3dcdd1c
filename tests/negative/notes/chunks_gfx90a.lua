-- note: tests/negative/notes/chunks_gfx90a.lua:16: note: k:pipelined's stages = 2 has no effect on gfx90a: without cp.async, a loop's copies go through registers only in 16-byte chunks a thread, and line 17's copy has smaller ones; the loop runs one tile at a time
-- args: --target gfx90a
-- Copies of 2 f32 columns a row on CDNA: not in 16-byte chunks, so no register prefetch.
local tile = require "tile"
return tile.kernel {
  name = "chunks_gfx90a",
  config = { BM = 64, BN = 64, BK = 2, stages = 2, threads = 256 },
  params = function()
    return { A = tile.tensor("f32", { "M", "K" }), B = tile.tensor("f32", { "N", "K" }), C = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("f32", { c.BM, c.BK })
    local Bs = k:shared("f32", { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

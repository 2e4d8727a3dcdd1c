-- note: tests/negative/notes/tf32_gfx90a.lua:19: note: k:gemm's tf32 = true has no effect on gfx90a: it has no tf32 matrix instruction; the f32 gemm runs as multiply-adds (FMA), in full f32
-- args: --target gfx90a
-- tf32 on a target without a tf32 instruction: multiply-adds in f32.
local tile = require "tile"
return tile.kernel {
  name = "tf32_gfx90a",
  config = { BM = 64, BN = 64, BK = 32, stages = 2, threads = 256 },
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
      k:gemm(As, Bs, acc, { transpose_b = true, tf32 = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

-- note: tests/negative/notes/pipelined_two_gemms.lua:23: note: k:pipelined's stages = 3 has no effect on gfx90a: without cp.async, a loop's copies go through registers only when its work is one gemm, and this one's is not; the loop runs one tile at a time
-- args: --target gfx90a
-- Two gemms in a pipelined body on CDNA: the loop runs unpipelined, and
-- both variants say so in one note.
local tile = require "tile"
return tile.kernel {
  name = "two_gemms",
  variants = { dtype = { "f16", "bf16" } },
  config = { BM = 64, BN = 64, BK = 32, stages = 3, threads = 256 },
  params = function(v)
    return {
      A = tile.tensor(v.dtype, { "M", "K" }), B = tile.tensor(v.dtype, { "N", "K" }),
      D = tile.tensor(v.dtype, { "N", "K" }), C = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c, v)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared(v.dtype, { c.BM, c.BK })
    local Bs = k:shared(v.dtype, { c.BN, c.BK })
    local Ds = k:shared(v.dtype, { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    local acc2 = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:copy(p.D:tile({ bn, kt }, { c.BN, c.BK }), Ds)
      k:gemm(As, Bs, acc, { transpose_b = true })
      k:gemm(As, Ds, acc2, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc + acc2)
  end,
}

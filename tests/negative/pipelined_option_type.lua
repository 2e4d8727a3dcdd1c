-- expect: tests/negative/pipelined_option_type.lua:14: error: k:pipelined option copies_first is true or false
local tile = require "tile"
return tile.kernel {
  name = "pipelined_option_type",
  config = { BM = 128, BN = 128, BK = 32, stages = 3, threads = 256 },
  params = function(v)
    return { A = tile.tensor("bf16", { "M", "K" }), B = tile.tensor("bf16", { "K", "N" }), C = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("bf16", { c.BM, c.BK })
    local Bs = k:shared("bf16", { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, { copies_first = 1 }, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc)
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc)
  end,
}

-- hostile: a pipelined loop with the most stages, an empty range and a copy-less body
local tile = require "tile"
return tile.kernel {
  name = "pipelined_odd",
  config = { BM = 32, BK = 32, threads = 64, STAGES = 8 },
  params = function(v) return { A = tile.tensor("f16", { "M", "K" }), C = tile.tensor("f32", { "M", "K" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.M, c.BM))
    local s = k:shared("f16", { c.BM, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BK }, 0)
    k:pipelined(0, 0, c.STAGES, function(kk)
      k:copy(p.A:tile({ i, kk }, { c.BM, c.BK }), s)
      local f = k:fragment("f16", { c.BM, c.BK })
      k:copy(s, f)
      k:assign(acc, acc + f:cast("f32"))
    end)
    k:store(p.C:tile({ i, 0 }, { c.BM, c.BK }), acc)
  end,
}

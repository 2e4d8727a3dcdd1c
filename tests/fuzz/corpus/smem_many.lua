-- hostile: many shared tiles and stages near the shared-memory limit
local tile = require "tile"
return tile.kernel {
  name = "smem_many",
  config = { BM = 64, BK = 32, threads = 128, TILES = 12 },
  params = function(v) return { A = tile.tensor("f16", { "M", "K" }), C = tile.tensor("f32", { "M", "K" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.M, c.BM))
    local acc = k:fragment("f32", { c.BM, c.BK }, 0)
    for t = 1, c.TILES do
      local s = k:shared("f16", { c.BM, c.BK })
      k:copy(p.A:tile({ i, 0 }, { c.BM, c.BK }), s)
      local f = k:fragment("f16", { c.BM, c.BK })
      k:copy(s, f)
      k:assign(acc, acc + f:cast("f32"))
    end
    k:store(p.C:tile({ i, 0 }, { c.BM, c.BK }), acc)
  end,
}

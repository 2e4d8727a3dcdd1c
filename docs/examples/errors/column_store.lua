-- column_store.lua: a [BM, 1] column stored into a 1-dim tensor (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "column_store",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      S = tile.tensor("f32", { "M" }),
    }
  end,
  body = function(k, p, c)
    local bm = k:grid(tile.cdiv(p.M, 8))
    local x = k:load(p.X:tile({ bm, 0 }, { 8, c.BLOCK }))
    k:store(p.S:tile({ bm }, { 8 }), k:reduce_sum(x, 2))
  end,
}

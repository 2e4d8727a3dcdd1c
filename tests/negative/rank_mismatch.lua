-- expect: tests/negative/rank_mismatch.lua:11: error: rank mismatch: X has 1 dims, but tile got 2 indices and 2 extents
local tile = require "tile"
return tile.kernel {
  name = "rank_mismatch",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i, 0 }, { 1, c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}

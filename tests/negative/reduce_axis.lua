-- expect: tests/negative/reduce_axis.lua:11: error: reduction axis must be 1 or 2 for a 2-dim tile, not 3
local tile = require "tile"
return tile.kernel {
  name = "reduce_axis",
  config = { BC = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "R", "C" }), Y = tile.tensor("f32", { "R" }) }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local s = k:reduce_sum(k:load(p.X:tile({ row, 0 }, { 1, c.BC })), 3)
    k:store(p.Y:tile({ row }, { 1 }), s)
  end,
}

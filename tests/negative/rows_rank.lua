-- expect: tests/negative/rows_rank.lua:12: error: L:rows needs a tensor of 2 dims or more (its rows: the dim before the last)
local tile = require "tile"
return tile.kernel {
  name = "rows_rank",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), L = tile.tensor("i32", { "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local lo = k:load(p.L:at({ i }))
    local x = k:load(p.L:rows(lo, lo + 1):tile({ 0 }, { c.BN }))
    k:store(p.Y:tile({ i, 0 }, { 1, c.BN }), x)
  end,
}

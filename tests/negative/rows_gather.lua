-- expect: tests/negative/rows_gather.lua:12: error: the rows of X:rows(lo, hi) are not gathered; gather from X itself
local tile = require "tile"
return tile.kernel {
  name = "rows_gather",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), L = tile.tensor("i32", { "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local lo = k:load(p.L:at({ i }))
    local x = k:load(p.X:rows(lo, p.N):view({ k:iota({ 8, 1 }, 1), 0 }, { 8, c.BN }))
    k:store(p.Y:tile({ i, 0 }, { 1, c.BN }), x)
  end,
}

-- expect: tests/negative/rows_twice.lua:12: error: X:rows(lo, hi) is called on a tensor that is already rows of X
local tile = require "tile"
return tile.kernel {
  name = "rows_twice",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), L = tile.tensor("i32", { "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local lo = k:load(p.L:at({ i }))
    local x = k:load(p.X:rows(lo, p.N):rows(0, 1):tile({ 0, 0 }, { 1, c.BN }))
    k:store(p.Y:tile({ i, 0 }, { 1, c.BN }), x)
  end,
}

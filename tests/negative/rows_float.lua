-- expect: tests/negative/rows_float.lua:12: error: rows' hi must be an integer, not 2.5
local tile = require "tile"
return tile.kernel {
  name = "rows_float",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), L = tile.tensor("i32", { "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local lo = k:load(p.L:at({ i }))
    local x = k:load(p.X:rows(lo, 2.5):tile({ 0, 0 }, { 1, c.BN }))
    k:store(p.Y:tile({ i, 0 }, { 1, c.BN }), x)
  end,
}

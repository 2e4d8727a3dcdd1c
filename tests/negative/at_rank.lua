-- expect: tests/negative/at_rank.lua:12: error: rank mismatch: I has 1 dims, but at got 2 indices
local tile = require "tile"
return tile.kernel {
  name = "at_rank",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local x = k:load(p.X:tile({ i, 0 }, { 1, c.BN }))
    local r = k:load(p.I:at({ i, 0 }))
    k:store(p.Y:tile({ i, 0 }, { 1, c.BN }), x)
  end,
}

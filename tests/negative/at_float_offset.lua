-- expect: tests/negative/at_float_offset.lua:12: error: a view offset must be an i32 scalar, not f32
local tile = require "tile"
return tile.kernel {
  name = "at_float_offset",
  config = { BN = 128, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local x = k:load(p.X:tile({ i, 0 }, { 1, c.BN }))
    local r = k:load(p.I:at({ i })); x = k:load(p.X:view({ r, 0 }, { 1, c.BN }))
    k:store(p.Y:tile({ i, 0 }, { 1, c.BN }), x)
  end,
}

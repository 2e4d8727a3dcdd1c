-- expect: tests/negative/tile_too_large.lua:11: error: a tile of shape [65536, 16384] has 1073741824 elements; a tile has at most 16777216 (2^24)
local tile = require "tile"
-- a [65536, 16384] tile: over 2^24 elements

return tile.kernel {
  name = "tile_too_large",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local s = k:shared("f32", { 65536, 16384 })
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

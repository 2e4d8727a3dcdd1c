-- expect: tests/negative/non_pow2.lua:11: error: tile dims are powers of two or multiples of 8 (got 100); the edges of a tensor are masked, so round the tile up
local tile = require "tile"
return tile.kernel {
  name = "non_pow2",
  config = { BLOCK = 100, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x * 2)
  end,
}

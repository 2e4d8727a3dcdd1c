-- expect: tests/negative/unknown_method.lua:12: error: a tile value has no field or method 'frobnicate'
local tile = require "tile"
return tile.kernel {
  name = "unknown_method",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local y = x:frobnicate()
    k:store(p.Y:tile({ i }, { c.BLOCK }), y)
  end,
}

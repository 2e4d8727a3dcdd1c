-- expect: tests/negative/nil_index.lua:11: error: attempt to index a nil value (field 'Z')
local tile = require "tile"
return tile.kernel {
  name = "nil_index",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.Z:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}

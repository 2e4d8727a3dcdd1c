-- expect: tests/negative/undefined_global_write.lua:11: error: assignment to undefined global 'x'; declare it with local
local tile = require "tile"
return tile.kernel {
  name = "undefined_global_write",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}

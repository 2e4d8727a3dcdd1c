-- expect: tests/negative/missing_return.lua:14: error: the file must end with: return tile.kernel { ... }
local tile = require "tile"
-- the kernel table is built but never returned to gen
local kernel = tile.kernel {
  name = "missing_return",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

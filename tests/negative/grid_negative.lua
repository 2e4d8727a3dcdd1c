-- expect: tests/negative/grid_negative.lua:12: error: k:grid's extent 1 is -5; a grid has at least one program along each axis
local tile = require "tile"
-- k:grid(-5) was accepted

return tile.kernel {
  name = "grid_negative",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(-5)
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

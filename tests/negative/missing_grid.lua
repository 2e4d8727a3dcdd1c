-- expect: tests/negative/missing_grid.lua:9: error: the body never called k:grid(...): say how many programs (blocks) run
local tile = require "tile"
return tile.kernel {
  name = "missing_grid",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    k:store(p.Y:tile({ 0 }, { c.BLOCK }), k:load(p.X:tile({ 0 }, { c.BLOCK })))
  end,
}

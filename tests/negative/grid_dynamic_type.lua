-- expect: tests/negative/grid_dynamic_type.lua:9: error: k:grid's dynamic is a boolean (true: blocks take the programs as they free up)
local tile = require "tile"
return tile.kernel {
  name = "grid_dynamic_type",
  params = function()
    return { X = tile.tensor("f32", { "N", 128 }), Y = tile.tensor("f32", { "N", 128 }) }
  end,
  body = function(k, p)
    local i = k:grid(p.N, { dynamic = 1 })
    k:store(p.Y:tile({ i, 0 }, { 1, 128 }), k:load(p.X:tile({ i, 0 }, { 1, 128 })))
  end,
}

-- expect: tests/negative/grid_dynamic_one_a_block.lua:9: error: k:grid's dynamic = true hands a persistent grid's programs out; it does not go with persistent = false
local tile = require "tile"
return tile.kernel {
  name = "grid_dynamic_one_a_block",
  params = function()
    return { X = tile.tensor("f32", { "N", 128 }), Y = tile.tensor("f32", { "N", 128 }) }
  end,
  body = function(k, p)
    local i = k:grid(p.N, { persistent = false, dynamic = true })
    k:store(p.Y:tile({ i, 0 }, { 1, 128 }), k:load(p.X:tile({ i, 0 }, { 1, 128 })))
  end,
}

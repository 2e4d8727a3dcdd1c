-- expect: tests/negative/grid_option_type.lua:9: error: k:grid's persistent is a boolean (false: one program a block)
local tile = require "tile"
return tile.kernel {
  name = "grid_option_type",
  params = function()
    return { X = tile.tensor("f32", { "N", 128 }), Y = tile.tensor("f32", { "N", 128 }) }
  end,
  body = function(k, p)
    local i = k:grid(p.N, { persistent = 0 })
    k:store(p.Y:tile({ i, 0 }, { 1, 128 }), k:load(p.X:tile({ i, 0 }, { 1, 128 })))
  end,
}

-- expect: tests/negative/grid_option_key.lua:9: error: k:grid's options table takes only persistent and dynamic (booleans), not persist
local tile = require "tile"
return tile.kernel {
  name = "grid_option_key",
  params = function()
    return { X = tile.tensor("f32", { "N", 128 }), Y = tile.tensor("f32", { "N", 128 }) }
  end,
  body = function(k, p)
    local i = k:grid(p.N, { persist = false })
    k:store(p.Y:tile({ i, 0 }, { 1, 128 }), k:load(p.X:tile({ i, 0 }, { 1, 128 })))
  end,
}

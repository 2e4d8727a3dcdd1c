-- expect: tests/negative/shape_mismatch.lua:17: error: shape mismatch in +: [8, 256] and [4, 256]; dims must be equal or 1 to broadcast
local tile = require "tile"
return tile.kernel {
  name = "shape_mismatch",
  config = { threads = 256 },
  params = function(v)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      Y = tile.tensor("f32", { "M", "N" }),
      Z = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.M, 8))
    local x = k:load(p.X:tile({ i, 0 }, { 8, 256 }))
    local y = k:load(p.Y:tile({ i, 0 }, { 4, 256 }))
    k:store(p.Z:tile({ i, 0 }, { 8, 256 }), x + y)
  end,
}

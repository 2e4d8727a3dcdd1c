-- two_shapes.lua: register tiles of two unrelated shapes (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "two_shapes",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      Y = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local bm = k:grid(tile.cdiv(p.M, 2))
    local x = k:load(p.X:tile({ bm, 0 }, { 2, 256 }))
    local y = k:load(p.X:tile({ bm, 0 }, { 2, 128 }))
    k:store(p.Y:tile({ bm, 0 }, { 2, 256 }), x)
    k:store(p.Y:tile({ bm, 0 }, { 2, 128 }), y)
  end,
}

-- small_tile.lua: a tile with fewer elements than threads (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "small_tile",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, 32))
    local x = k:load(p.X:tile({ i }, { 32 }))
    k:store(p.Y:tile({ i }, { 32 }), x)
  end,
}

-- when_tile.lua: k:when on a tile (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "when_tile",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:when(x:gt(0), function()
      k:store(p.Y:tile({ i }, { c.BLOCK }), x)
    end)
  end,
}

-- scope.lua: a value made inside a loop used after it (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "scope",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "R", "C" }),
      Y = tile.tensor("f32", { "R", "C" }),
    }
  end,
  body = function(k, p, c)
    local row = k:grid(p.R)
    local last
    k:serial(0, tile.cdiv(p.C, c.BLOCK), function(j)
      last = k:load(p.X:tile({ row, j }, { 1, c.BLOCK }))
    end)
    k:store(p.Y:tile({ row, 0 }, { 1, c.BLOCK }), last)
  end,
}

-- typo.lua: a misspelt method name (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "typo",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:laod(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}

-- expect: tests/negative/undefined_global_dsl.lua:12: error: undefined global 'exp'; declare it with local, or use tile.exp if you meant the DSL
local tile = require "tile"
return tile.kernel {
  name = "undefined_global_dsl",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), exp(x))
  end,
}

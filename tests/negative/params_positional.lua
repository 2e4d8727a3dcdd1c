-- expect: tests/negative/params_positional.lua:7: error: params keys are parameter names (identifiers), e.g. { X = tile.tensor("f32", {"N"}) }
local tile = require "tile"
-- params returns a list instead of name = declaration
return tile.kernel {
  name = "params_positional",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return { tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

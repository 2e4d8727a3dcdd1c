-- expect: tests/negative/config_key_not_name.lua:4: error: variant and config keys are names
local tile = require "tile"
-- a config key that is no name
return tile.kernel {
  name = "config_key_not_name",
  config = { BLOCK = 256, threads = 256, [1] = 2 },
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

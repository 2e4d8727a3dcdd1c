-- expect: tests/negative/config_float.lua:4: error: variant and config values are whole numbers, strings or booleans, not 0.5
local tile = require "tile"
-- a config value that is a float
return tile.kernel {
  name = "config_float",
  config = { BLOCK = 256, threads = 256, scale = 0.5 },
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

-- expect: tests/negative/config_threads_string.lua:4: error: config threads must be a whole number, not "256"
local tile = require "tile"
-- config threads is a string
return tile.kernel {
  name = "config_threads_string",
  config = { BLOCK = 256, threads = "256" },
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

-- expect: tests/negative/config_not_table.lua:4: error: config is a table of name = value
local tile = require "tile"
-- config is a number
return tile.kernel {
  name = "config_not_table",
  config = 256,
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

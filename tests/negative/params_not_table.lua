-- expect: tests/negative/params_not_table.lua:7: error: params must return a table of tile.tensor / tile.scalar declarations, not nil
local tile = require "tile"
-- params returns nothing
return tile.kernel {
  name = "params_not_table",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    local unused = tile.tensor("f32", { "N" })
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

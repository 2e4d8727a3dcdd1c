-- expect: tests/negative/params_plain_table.lua:7: error: params.Y must be tile.tensor(...) or tile.scalar(...)
local tile = require "tile"
-- a params entry that is a table but no declaration (gen crashed on it)
return tile.kernel {
  name = "params_plain_table",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }), Y = {} }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

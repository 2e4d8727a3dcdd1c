-- expect: tests/negative/dim_not_identifier.lua:9: error: tensor X's size name '1N' is not a C identifier; use a name like "N"
local tile = require "tile"
-- a tensor size whose name is no C identifier
return tile.kernel {
  name = "dim_not_identifier",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "1N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

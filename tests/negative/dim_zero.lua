-- expect: tests/negative/dim_zero.lua:9: error: tensor X's dim 1 is 0; a tensor dim is a name like "N" or a positive whole number
local tile = require "tile"
-- a tensor dim of 0
return tile.kernel {
  name = "dim_zero",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { 0 }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

-- expect: tests/negative/unused_tensor.lua:10: error: tensor W is declared but never loaded or stored
local tile = require "tile"
return tile.kernel {
  name = "unused_tensor",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
      W = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

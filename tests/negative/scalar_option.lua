-- expect: tests/negative/scalar_option.lua:7: error: tile.scalar has no option 'positiv' (options: positive = true)
local tile = require "tile"
return tile.kernel {
  name = "scalar_option",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), t = tile.scalar("f32", { positiv = true }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) * p.t)
  end,
}

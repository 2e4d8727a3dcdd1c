-- expect: tests/negative/scalar_options.lua:7: error: tile.scalar's options are a table: { positive = true }, not boolean
local tile = require "tile"
return tile.kernel {
  name = "scalar_options",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), t = tile.scalar("f32", true) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) * p.t)
  end,
}

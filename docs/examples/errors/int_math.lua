-- int_math.lua: exp of an i32 tile (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "int_math",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      I = tile.tensor("i32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local n = k:load(p.I:tile({ i }, { c.BLOCK }))
    k:store(p.Y:tile({ i }, { c.BLOCK }), tile.exp(n))
  end,
}

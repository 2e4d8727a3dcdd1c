-- not_pow2.lua: a tile dim that is neither a power of two nor a multiple of 8 (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "not_pow2",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, 100))
    local x = k:load(p.X:tile({ i }, { 100 }))
    k:store(p.Y:tile({ i }, { 100 }), x)
  end,
}

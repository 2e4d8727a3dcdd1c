-- assign_dtype.lua: an f32 value assigned to an f16 fragment (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "assign_dtype",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f16", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local h = k:fragment("f16", { c.BLOCK })
    k:assign(h, k:load(p.X:tile({ i }, { c.BLOCK })))
    k:store(p.Y:tile({ i }, { c.BLOCK }), h)
  end,
}

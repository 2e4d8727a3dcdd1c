-- require_io.lua: a kernel file that asks for another module (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "require_io",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local io = require "io"
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

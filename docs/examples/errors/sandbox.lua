-- sandbox.lua: a kernel file that reads the environment (gen rejects this file; see docs/dsl.md, "Errors").
local tile = require "tile"

return tile.kernel {
  name = "sandbox",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local home = os.getenv("HOME")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

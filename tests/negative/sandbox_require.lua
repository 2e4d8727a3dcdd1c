-- expect: tests/negative/sandbox_require.lua:3: error: kernel files may only require "tile", not "os"
local tile = require "tile"
local os = require "os"
return tile.kernel {
  name = "sandbox_require",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

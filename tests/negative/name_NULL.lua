-- expect: tests/negative/name_NULL.lua:5: error: kernel name 'NULL' is a C, C++, CUDA or HIP name; the launcher and its header take the name: pick another, e.g. "NULL_kernel"
local tile = require "tile"
-- a kernel named NULL: its launcher and header would not compile

return tile.kernel {
  name = "NULL",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/name_memcpy.lua:5: error: kernel name 'memcpy' is a C, C++, CUDA or HIP name; the launcher and its header take the name: pick another, e.g. "memcpy_kernel"
local tile = require "tile"
-- a kernel named memcpy: its launcher and header would not compile

return tile.kernel {
  name = "memcpy",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/param_name_reserved.lua:8: error: parameter name 'memcpy' is a C, C++, CUDA or HIP name; rename it
local tile = require "tile"
-- a parameter named memcpy would shadow the function the kernel calls

return tile.kernel {
  name = "param_name_reserved",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { memcpy = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.memcpy:tile({ i }, { c.BLOCK })))
  end,
}

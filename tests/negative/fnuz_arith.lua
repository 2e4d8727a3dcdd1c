-- expect: tests/negative/fnuz_arith.lua:12: error: * takes no fp8e5m2fnuz value: fp8 values are stored, cast or fed to k:gemm; cast it first with :cast("f32")
local tile = require "tile"
return tile.kernel {
  name = "fnuz_arith",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { X = tile.tensor("fp8e5m2fnuz", { "N" }), O = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    k:store(p.O:tile({ i }, { c.BLOCK }), x * 2)
  end,
}

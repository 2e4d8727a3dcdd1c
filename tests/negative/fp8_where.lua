-- expect: tests/negative/fp8_where.lua:12: error: where takes no fp8e4m3 value: fp8 values are stored, cast or fed to k:gemm; cast it first with :cast("f32")
local tile = require "tile"
return tile.kernel {
  name = "fp8_where",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { E = tile.tensor("fp8e4m3", { "N" }), O = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local e = k:load(p.E:tile({ i }, { c.BLOCK }))
    k:store(p.O:tile({ i }, { c.BLOCK }), tile.where(p.N:gt(3), e, 0))
  end,
}

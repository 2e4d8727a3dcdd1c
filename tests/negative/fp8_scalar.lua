-- expect: tests/negative/fp8_scalar.lua:7: error: scalar parameters are f32, i32, i64 or u32
local tile = require "tile"
return tile.kernel {
  name = "fp8_scalar",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { O = tile.tensor("f32", { "N" }), s = tile.scalar("fp8e4m3") }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.O:tile({ i }, { c.BLOCK }), p.s:cast("f32"))
  end,
}

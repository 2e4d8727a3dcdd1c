-- expect: tests/negative/fnuz_scalar.lua:7: error: scalar parameters are f32, i32, i64 or u32
local tile = require "tile"
return tile.kernel {
  name = "fnuz_scalar",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { O = tile.tensor("f32", { "N" }), s = tile.scalar("fp8e4m3fnuz") }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.O:tile({ i }, { c.BLOCK }), p.s:cast("f32"))
  end,
}

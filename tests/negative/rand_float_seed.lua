-- expect: tests/negative/rand_float_seed.lua:12: error: the number 0.5 cannot be an i32 operand; write an integer
local tile = require "tile"
return tile.kernel {
  name = "rand_float_seed",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { Q = tile.tensor("i32", { "N" }), O = tile.tensor("f32", { "N" }), seed = tile.scalar("i64") }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local q = k:load(p.Q:tile({ i }, { c.BLOCK }))
    k:store(p.O:tile({ i }, { c.BLOCK }), tile.rand(0.5, q))
  end,
}

-- expect: tests/negative/sin_int.lua:14: error: sin needs a float operand, not i32; cast it with :cast("f32")
local tile = require "tile"
return tile.kernel {
  name = "sin_int",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { Q = tile.tensor("i32", { "N" }), W = tile.tensor("u32", { "N" }), L = tile.tensor("i64", { "N" }),
             O = tile.tensor("f32", { "N" }), P = tile.tensor("i32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local q, w, l = k:load(p.Q:tile({ i }, { c.BLOCK })), k:load(p.W:tile({ i }, { c.BLOCK })), k:load(p.L:tile({ i }, { c.BLOCK }))
    local x = q:cast("f32") + w:cast("f32") + l:cast("f32")
    k:store(p.O:tile({ i }, { c.BLOCK }), tile.sin(q)); k:store(p.P:tile({ i }, { c.BLOCK }), q)
  end,
}

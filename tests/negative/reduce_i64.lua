-- expect: tests/negative/reduce_i64.lua:14: error: reductions take f32, f16, bf16 or i32 values, not i64
local tile = require "tile"
return tile.kernel {
  name = "reduce_i64",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { Q = tile.tensor("i32", { "N" }), W = tile.tensor("u32", { "N" }), L = tile.tensor("i64", { "N" }),
             O = tile.tensor("f32", { "N" }), P = tile.tensor("i32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local q, w, l = k:load(p.Q:tile({ i }, { c.BLOCK })), k:load(p.W:tile({ i }, { c.BLOCK })), k:load(p.L:tile({ i }, { c.BLOCK }))
    local x = q:cast("f32") + w:cast("f32") + l:cast("f32")
    k:store(p.P:tile({ i }, { c.BLOCK }), q + k:reduce_sum(l):cast("i32")); k:store(p.O:tile({ i }, { c.BLOCK }), x)
  end,
}

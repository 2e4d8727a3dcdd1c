-- intops.lua: i32 tensors, k:iota, integer arithmetic and casts.
local tile = require "tile"

return tile.kernel {
  name = "intops",
  doc = "Integer operations on Q [N] (Q >= 0) and element indices.",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return {
      Q = tile.tensor("i32", { "N" }),
      O = tile.tensor("i32", { 6, "N" }),
      F = tile.tensor("f32", { 2, "N" }),
      shift = tile.scalar("i32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local q = k:load(p.Q:tile({ i }, { c.BLOCK }))
    local pos = k:iota({ c.BLOCK }) + i * c.BLOCK       -- each element's index in Q
    k:store(p.O:tile({ 0, i }, { 1, c.BLOCK }), pos)
    k:store(p.O:tile({ 1, i }, { 1, c.BLOCK }), q // 7 + p.shift)
    k:store(p.O:tile({ 2, i }, { 1, c.BLOCK }), q % 7)
    k:store(p.O:tile({ 3, i }, { 1, c.BLOCK }), tile.min(tile.max(q, pos), 1000))
    k:store(p.O:tile({ 4, i }, { 1, c.BLOCK }), tile.abs(q - 500) * 2)
    k:store(p.O:tile({ 5, i }, { 1, c.BLOCK }), (q:cast("f32") * -0.75):cast("i32"))
    k:store(p.F:tile({ 0, i }, { 1, c.BLOCK }), tile.cast(q, "f32") / 3)
    k:store(p.F:tile({ 1, i }, { 1, c.BLOCK }), q:cast("f32") * p.shift)   -- i32 scalar meets f32
  end,
}

-- types.lua: i64 and u32 values, bit operations and shifts, more math, and
-- rounding with :cast.
local tile = require "tile"

return tile.kernel {
  name = "types",
  doc = "Integer and math operations on int64 labels L, uint32 words W and bf16 X, each [N].",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return {
      L = tile.tensor("i64", { "N" }),
      W = tile.tensor("u32", { "N" }),
      X = tile.tensor("bf16", { "N" }),
      I = tile.tensor("i64", { 3, "N" }),
      H = tile.tensor("u32", { 4, "N" }),
      F = tile.tensor("f32", { 6, "N" }),
      first = tile.scalar("i64"),
      mask = tile.scalar("u32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local lab = k:load(p.L:tile({ i }, { c.BLOCK }))
    local w = k:load(p.W:tile({ i }, { c.BLOCK }))
    k:store(p.I:tile({ 0, i }, { 1, c.BLOCK }), lab * p.N + p.first)   -- the i32 size meets i64 as i64
    k:store(p.I:tile({ 1, i }, { 1, c.BLOCK }), tile.where(lab:lt(0), -100, lab // 3))
    k:store(p.I:tile({ 2, i }, { 1, c.BLOCK }), (lab << 20) >> 4 | 7)
    k:store(p.H:tile({ 0, i }, { 1, c.BLOCK }), (w ~ 0x9E3779B9) * 2654435761)   -- u32 wraps modulo 2^32
    k:store(p.H:tile({ 1, i }, { 1, c.BLOCK }), (w << 13 | w >> 19) & p.mask)     -- a rotation
    k:store(p.H:tile({ 2, i }, { 1, c.BLOCK }), ~w >> (w & 31))                   -- a count known at run time
    k:store(p.H:tile({ 3, i }, { 1, c.BLOCK }), lab:cast("u32"))                  -- the low 32 bits
    local x = w:cast("f32") / 4294967296                                            -- in [0, 1]
    k:store(p.F:tile({ 0, i }, { 1, c.BLOCK }), tile.sin(x * 6) + x:cos())
    k:store(p.F:tile({ 1, i }, { 1, c.BLOCK }), tile.sigmoid(x * 8 - 4))
    k:store(p.F:tile({ 2, i }, { 1, c.BLOCK }), x ^ 1.5 + tile.pow(x, 3))
    k:store(p.F:tile({ 3, i }, { 1, c.BLOCK }), (x * 10 - 5):floor():abs())
    k:store(p.F:tile({ 4, i }, { 1, c.BLOCK }), lab:cast("f32"))
    local s = k:load(p.X:tile({ i }, { c.BLOCK })) + 1   -- bf16, holding the f32 sum
    k:store(p.F:tile({ 5, i }, { 1, c.BLOCK }), s:cast("bf16") - s)                -- rounded here: the error
  end,
}

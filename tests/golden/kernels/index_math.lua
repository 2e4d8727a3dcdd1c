-- index_math.lua (golden): integer and boolean math on i32 tiles.  Covers:
-- i32 tensors, iota along both axes of a 2-D tile, // and % on sizes and
-- indices, comparisons combined with both/either/negate, where, min, max,
-- abs, casts between i32 and f32, views with explicit strides (a column
-- stride that is not 1 too), max in a grid extent (the launcher's int64
-- arithmetic), and
-- a Lua generation-time loop that unrolls.
local tile = require "tile"

return tile.kernel {
  name = "index_math",
  doc = "Elementwise integer math with explicit strides.",
  config = { BM = 8, BN = 32, threads = 64, terms = 3 },
  params = function(v)
    return {
      A = tile.tensor("i32", { "M", "N" }),
      O = tile.tensor("i32", { "M", "N" }, { "so_m", 1 }),
      F = tile.tensor("f32", { "M", "N" }, { "sf_m", "sf_n" }),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.max(tile.cdiv(p.M, c.BM), 1), tile.cdiv(p.N, c.BN))
    local a = k:load(p.A:tile({ bm, bn }, { c.BM, c.BN }), -1)
    local r = k:iota({ c.BM, c.BN }, 1) + bm * c.BM
    local q = k:iota({ c.BM, c.BN }, 2) + bn * c.BN
    local acc = a
    for t = 1, c.terms do                      -- unrolled at generation time
      acc = acc + (r * t) % (p.N // 2 + 1)
    end
    local edge = tile.either(r:eq(0), q:ge(p.N - 1))
    local keep = tile.both(tile.negate(edge), a:ne(0))
    local o = tile.where(keep, tile.min(tile.max(acc, -100), 100), tile.abs(a))
    k:store(p.O:tile({ bm, bn }, { c.BM, c.BN }), o)
    k:store(p.F:view({ bm * c.BM, bn * c.BN }, { c.BM, c.BN }), o:cast("f32") * 0.5)
  end,
}

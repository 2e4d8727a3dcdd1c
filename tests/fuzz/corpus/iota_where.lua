-- hostile: iota on every axis, comparisons of bools, where with scalars on both sides
local tile = require "tile"
return tile.kernel {
  name = "iota_where",
  config = { BR = 4, BC = 64, threads = 64 },
  params = function(v) return { Y = tile.tensor("i32", { "M", "N" }) } end,
  body = function(k, p, c)
    local r, q = k:grid(tile.cdiv(p.M, c.BR), tile.cdiv(p.N, c.BC))
    local a, b, d = k:iota({ c.BR, c.BC }, 1), k:iota({ c.BR, c.BC }, 2), k:iota({ c.BC })
    local e = tile.where(tile.both(a:lt(b), tile.either(a:eq(0), b:ne(3))), a * b, -1)
    k:store(p.Y:tile({ r, q }, { c.BR, c.BC }), e + d - tile.where(a:eq(b), a, b))
  end,
}

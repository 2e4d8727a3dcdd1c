-- paged.lua: a paged cache read through a block table (scalars read from
-- memory).
--
-- Y[b, s, :] = K[BT[b, s / P] * P + s % P, :] for the positions s below
-- the sequence's length L[b], and 0 past it.  One program a page: the
-- page's number and the sequence's length are loaded as scalars with X:at,
-- then used as a view offset and as a mask's limit.  A page number outside
-- K (a -1 for "no page") reads zeros.
local tile = require "tile"

return tile.kernel {
  name = "paged",
  doc = "Y[b, s, :] = K[BT[b, s / P] * P + s % P, :] for s < L[b], else 0.",
  config = { P = 16, D = 64, threads = 128 },
  params = function(v, c)
    return {
      K = tile.tensor("f32", { "NK", c.D }),        -- NK / P pages of P rows
      BT = tile.tensor("i32", { "B", "NP" }),       -- block table: a page number per page of a sequence
      L = tile.tensor("i32", { "B" }),              -- each sequence's length
      Y = tile.tensor("f32", { "B", "S", c.D }),
    }
  end,
  body = function(k, p, c)
    local j, b = k:grid(p.NP, p.B)
    local page = k:load(p.BT:at({ b, j }))          -- an i32 scalar
    local len = k:load(p.L:at({ b }))
    local x = k:load(p.K:view({ page * c.P, 0 }, { c.P, c.D }))
    local s = k:iota({ c.P, 1 }, 1) + j * c.P       -- each row's position
    k:store(p.Y:view({ b, j * c.P, 0 }, { 1, c.P, c.D }), tile.where(s:lt(len), x, 0))
  end,
}

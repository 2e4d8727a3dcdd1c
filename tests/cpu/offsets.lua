-- offsets.lua: view offsets that int math would overflow (tests/cpu/offsets.c
-- runs it under UBSan and ASan): a scalar parameter near INT_MAX or
-- INT_MIN as a row and a column offset, a constant at INT_MAX, and an
-- offset read from memory times a page size.
local tile = require "tile"

return tile.kernel {
  name = "offsets",
  config = { BM = 4, BN = 64, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "M", "N" }),
      P = tile.tensor("i32", { "B" }),
      o = tile.scalar("i32"),
      Y = tile.tensor("f32", { "M", "N" }),
      Z = tile.tensor("f32", { "M", "N" }),
      W = tile.tensor("f32", { "M", "N" }),
    }
  end,
  body = function(k, p, c)
    local b = k:grid(p.B)
    local x = k:load(p.X:view({ p.o, p.o }, { c.BM, c.BN }), 7)
    k:store(p.Y:view({ b * c.BM, 0 }, { c.BM, c.BN }), x)
    k:store(p.Y:view({ p.o, 2147483647 }, { c.BM, c.BN }), x)   -- all outside Y: dropped
    local page = k:load(p.P:at({ b }))
    local z = k:load(p.X:view({ page * 65536, 0 }, { c.BM, c.BN }), 5)
    k:store(p.Z:view({ b * c.BM, 0 }, { c.BM, c.BN }), z)
    k:store(p.W:view({ page * 65536, 0 }, { c.BM, c.BN }), z)
  end,
}

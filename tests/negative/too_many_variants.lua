-- expect: tests/negative/too_many_variants.lua:4: error: more than 256 variants; pick some with -D, or split the kernel
local tile = require "tile"
-- 17 x 17 variants, over the 256 gen writes
return tile.kernel {
  name = "too_many_variants",
  config = { BLOCK = 256, threads = 256 },
  variants = { a = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }, b = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 } },
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

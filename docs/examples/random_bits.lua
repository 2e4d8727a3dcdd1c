-- random_bits.lua: counter-based random numbers (Philox4x32-10).
local tile = require "tile"

return tile.kernel {
  name = "random_bits",
  doc = "Uniform numbers U [N] and raw words B [N] of stream seed, at offsets first, first + 1, ...",
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      U = tile.tensor("f32", { "N" }),
      B = tile.tensor("u32", { "N" }),
      seed = tile.scalar("i64"),
      first = tile.scalar("i64"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local at = (k:iota({ c.BLOCK }) + i * c.BLOCK):cast("i64") + p.first   -- each element's offset
    k:store(p.U:tile({ i }, { c.BLOCK }), tile.rand(p.seed, at))           -- f32 in [0, 1)
    k:store(p.B:tile({ i }, { c.BLOCK }), tile.randint(p.seed, at))        -- the u32 word
  end,
}

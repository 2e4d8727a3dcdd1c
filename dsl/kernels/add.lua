-- add.lua: elementwise Z = X + Y over vectors of any length.
--
-- Each program handles BLOCK consecutive elements; the last one is masked.
-- f16 and bf16 are added in f32 and rounded once, on the store.
local tile = require "tile"

return tile.kernel {
  name = "add",
  doc = "Elementwise Z = X + Y over vectors of any length.",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BLOCK = 4096, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { "N" }),
      Z = tile.tensor(v.dtype, { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local y = k:load(p.Y:tile({ i }, { c.BLOCK }))
    k:store(p.Z:tile({ i }, { c.BLOCK }), x + y)
  end,
}

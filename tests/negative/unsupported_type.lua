-- expect: tests/negative/unsupported_type.lua:8: error: unsupported returned number; it returns nil where the target runs the variant, else a string saying why not
-- unsupported returns neither nil nor a string
local tile = require "tile"
return tile.kernel {
  name = "unsupported_type",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  unsupported = function(v, target) return 1 end,
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/unsupported_field.lua:4: error: unsupported is a function(v, target), e.g. function(v, target) if v.hdim == "d256" then return "why" end end
-- unsupported is a table, not a function
local tile = require "tile"
return tile.kernel {
  name = "unsupported_field",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  unsupported = { f16 = "no" },
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/variants_not_table.lua:4: error: variants is a table of name = { values }
local tile = require "tile"
-- variants is a string
return tile.kernel {
  name = "variants_not_table",
  config = { BLOCK = 256, threads = 256 },
  variants = "f32",
  params = function(v, c)
    return { X = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

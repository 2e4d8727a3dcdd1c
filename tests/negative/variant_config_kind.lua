-- expect: tests/negative/variant_config_kind.lua:8: error: variant_config(variant_config_kind_f32).BLOCK = big: config BLOCK is a whole number, so the value must be one too
-- variant_config gives a value of another kind
local tile = require "tile"
return tile.kernel {
  name = "variant_config_kind",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  variant_config = function(v, target) return { BLOCK = "big" } end,
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

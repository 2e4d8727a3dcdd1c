-- expect: tests/negative/variant_config_key.lua:8: error: variant_config(variant_config_key_f32).BLOK: config has no 'BLOK'; only the values config names can change
-- variant_config sets a key config does not have
local tile = require "tile"
return tile.kernel {
  name = "variant_config_key",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  variant_config = function(v, target) return { BLOK = 128 } end,
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

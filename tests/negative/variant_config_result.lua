-- expect: tests/negative/variant_config_result.lua:8: error: variant_config returned string for variant_config_result_f32; it returns nil or a table of config values, e.g. { threads = 256 }
-- variant_config returns a string
local tile = require "tile"
return tile.kernel {
  name = "variant_config_result",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  variant_config = function(v, target) return "BLOCK=128" end,
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/unknown_kernel_field.lua:3: error: tile.kernel has no field 'configs' (fields: name, doc, variants, config, target_config, tuned_as, unsupported, variant_config, builds, params, body, tune)
local tile = require "tile"
return tile.kernel {
  name = "unknown_kernel_field",
  configs = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, 256))
    k:store(p.Y:tile({ i }, { 256 }), k:load(p.X:tile({ i }, { 256 })))
  end,
}

-- expect: tests/negative/handle_other_variant.lua:13: error: tensor X belongs to variant handle_other_variant_f32, not to handle_other_variant_f16 being built now: a variant's body uses the values of its own params and body (keep no values in variables outside body)
local tile = require "tile"
-- a tensor kept from the first variant's params, used in the second variant's body
local kept
return tile.kernel {
  name = "handle_other_variant",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    kept = kept or p.X
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(kept:tile({ i }, { c.BLOCK })))
  end,
}

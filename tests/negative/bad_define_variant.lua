-- expect: tests/negative/bad_define_variant.lua:9: error: unknown dtype 'f64'; use "f32", "f16", "bf16", "i32", "i64", "u32", "fp8e4m3", "fp8e5m2", "fp8e4m3fnuz" or "fp8e5m2fnuz"
-- args: --target gfx942 -D dtype=f64
local tile = require "tile"
return tile.kernel {
  name = "bad_define_variant",
  variants = { dtype = { "f32", "bf16" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/unknown_dtype.lua:7: error: unknown dtype 'f64'; use "f32", "f16", "bf16", "i32", "i64", "u32", "fp8e4m3", "fp8e5m2", "fp8e4m3fnuz" or "fp8e5m2fnuz"
local tile = require "tile"
return tile.kernel {
  name = "unknown_dtype",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f64", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/params_dtype_reassigned.lua:8: error: params.W.dtype is table; a tensor is "f32", "f16", "bf16", "i32", "i64", "u32", "fp8e4m3", "fp8e5m2", "fp8e4m3fnuz" or "fp8e5m2fnuz"
local tile = require "tile"
-- a tensor's dtype changed after tile.tensor checked it
return tile.kernel {
  name = "params_dtype_reassigned",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    local W = tile.tensor("f32", { "N" })
    W.dtype = { "f32" }
    return { W = W, Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.W:tile({ i }, { c.BLOCK })))
  end,
}

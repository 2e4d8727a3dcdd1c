-- expect: tests/negative/param_clash_size.lua:10: error: parameter name 'N' is taken by a tensor size declared at line 9; a tensor's sizes and strides are launcher parameters already (p.N): drop this parameter or rename it
local tile = require "tile"
-- a scalar parameter named like a tensor size, which is a parameter already
return tile.kernel {
  name = "param_clash_size",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      N = tile.scalar("i32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

-- expect: tests/negative/param_c_keyword.lua:10: error: parameter name 'float' is a C, C++, CUDA or HIP name; rename it
local tile = require "tile"
-- a parameter named like a C keyword
return tile.kernel {
  name = "param_c_keyword",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      float = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

-- expect: tests/negative/dim_clash_scalar.lua:10: error: tensor X's size name 'N' is taken by the scalar parameter declared at line 9; rename one of them
local tile = require "tile"
-- a tensor size named like an earlier scalar parameter
return tile.kernel {
  name = "dim_clash_scalar",
  config = { BLOCK = 256, threads = 256 },
  params = function(v, c)
    return {
      N = tile.scalar("i32"),
      X = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.X:tile({ i }, { c.BLOCK }), 0)
  end,
}

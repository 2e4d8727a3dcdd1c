-- expect: tests/negative/dtype_mismatch_add.lua:16: error: dtype mismatch in +: f32 and bf16; cast one side with :cast("f32")
local tile = require "tile"
return tile.kernel {
  name = "dtype_mismatch_add",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("bf16", { "N" }),
      Z = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x, y = k:load(p.X:tile({ i }, { c.BLOCK })), k:load(p.Y:tile({ i }, { c.BLOCK }))
    k:store(p.Z:tile({ i }, { c.BLOCK }), x + y)
  end,
}

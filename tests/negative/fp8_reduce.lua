-- expect: tests/negative/fp8_reduce.lua:12: error: reductions take f32, f16, bf16 or i32 values, not fp8e4m3
local tile = require "tile"
return tile.kernel {
  name = "fp8_reduce",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { E = tile.tensor("fp8e4m3", { "N" }), O = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local e = k:load(p.E:tile({ i }, { c.BLOCK }))
    k:store(p.O:tile({ i }, { c.BLOCK }), k:reduce_max(e:cast("f32"), 1) + k:reduce_sum(e))
  end,
}

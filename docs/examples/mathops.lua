-- mathops.lua: the unary math of the DSL, one output row per function.
local tile = require "tile"

return tile.kernel {
  name = "mathops",
  doc = "Y[f, n] = f(X[n]) for ten functions f.",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 64 },
  params = function(v, c)
    return {
      X = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { 10, "N" }),   -- a fixed first dim
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }), 1):cast("f32")
    local a = tile.abs(x)
    local results = {
      tile.exp(x), tile.exp2(x), tile.log(a), tile.sqrt(a), tile.rsqrt(a),
      tile.tanh(x), tile.erf(x), a, -x,
      x:tanh():abs():sqrt(),                 -- the same functions as methods
    }
    for f, y in ipairs(results) do           -- a Lua loop: ten stores, unrolled by gen
      k:store(p.Y:tile({ f - 1, i }, { 1, c.BLOCK }), y)
    end
  end,
}

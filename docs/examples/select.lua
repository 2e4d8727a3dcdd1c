-- select.lua: binary arithmetic, comparisons, logic and where, elementwise.
local tile = require "tile"

return tile.kernel {
  name = "select",
  doc = "Y[r, n] = the r-th binary operation on A[n] and B[n].",
  variants = { dtype = { "f32", "bf16" } },
  config = { BLOCK = 512, threads = 128 },
  params = function(v, c)
    return {
      A = tile.tensor(v.dtype, { "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { 14, "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local a = k:load(p.A:tile({ i }, { c.BLOCK }), 1):cast("f32")
    local b = k:load(p.B:tile({ i }, { c.BLOCK }), 1):cast("f32")
    local out = {
      a + b, a - b, a * b, a / b,
      tile.max(a, b), a:min(b),
      a:add(b):mul(0.5):sub(b):div(2):max(-1),                 -- methods
      tile.where(a:lt(b), a, b * 2),
      tile.where(tile.both(a:gt(0), tile.ge(b, 0)), 1, 0),
      tile.where(tile.negate(a:gt(0):both(b:ge(0))), 1, 0),
      tile.where(tile.either(tile.lt(a, -1), b:le(-1)), 1, 0),
      tile.where(a:lt(-1):either(tile.le(b, -1)), 2, 0),
      tile.where(a:eq(b), 2, 0) + tile.where(tile.ne(a, b):negate(), 1, 0),
      a:ge(b):cast("f32") + tile.gt(a, b):cast("f32") + tile.where(tile.eq(a, b), 10, 0),
    }
    for r, y in ipairs(out) do
      k:store(p.Y:tile({ r - 1, i }, { 1, c.BLOCK }), y)
    end
  end,
}

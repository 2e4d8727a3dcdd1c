-- expect: tests/negative/serial_bound_huge.lua:12: error: the loop end 1099511627776 is out of the i32 range (-2^31 to 2^31 - 1)
local tile = require "tile"
-- 2^40 as a loop bound overflowed the int loop of the generated code

return tile.kernel {
  name = "serial_bound_huge",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local f = k:fragment("f32", { c.BLOCK }, 0)
    k:serial(0, 2^40, function(j) k:assign(f, f + k:load(p.X:tile({ j }, { c.BLOCK }))) end)
    k:store(p.Y:tile({ i }, { c.BLOCK }), f)
  end,
}

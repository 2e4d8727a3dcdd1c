-- vadd.lua: Z = X + Y for f32 vectors of any length N.
--
-- One program handles BLOCK consecutive elements; the last program's tile
-- runs past N, and the load and the store are masked there.
local tile = require "tile"

return tile.kernel {
  name = "vadd",
  doc = "Z = X + Y over f32 vectors of length N.",
  config = { BLOCK = 1024, threads = 128 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
      Z = tile.tensor("f32", { "N" }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))       -- programs 0 .. cdiv(N, BLOCK) - 1
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))   -- elements past N read as 0
    local y = k:load(p.Y:tile({ i }, { c.BLOCK }))
    k:store(p.Z:tile({ i }, { c.BLOCK }), x + y)     -- elements past N are not written
  end,
}

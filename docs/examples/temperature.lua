-- temperature.lua: Y = X / temp, logits cooled by a temperature.
--
-- The temperature is declared positive: the launcher refuses temp <= 0
-- (and NaN) with its invalid-value error instead of dividing by it.
local tile = require "tile"

return tile.kernel {
  name = "temperature",
  doc = "Y = X / temp over vectors of length N, for temp > 0.",
  config = { BLOCK = 1024, threads = 256 },
  params = function(v, c)
    return {
      X = tile.tensor("f32", { "N" }),
      Y = tile.tensor("f32", { "N" }),
      temp = tile.scalar("f32", { positive = true }),
    }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })) / p.temp)
  end,
}

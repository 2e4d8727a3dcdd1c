-- expect: tests/negative/resident_not_bool.lua:3: error: config resident must be true or false, not 1
local tile = require "tile"
return tile.kernel {
  name = "resident_not_bool",
  config = { BC = 1024, threads = 128, resident = 1 },
  params = function()
    return { X = tile.tensor("f32", { "R", "C" }), Y = tile.tensor("f32", { "R", "C" }) }
  end,
  body = function(k, p, c)
    local r = k:grid(p.R)
    k:serial(0, tile.cdiv(p.C, c.BC), function(j)
      k:store(p.Y:tile({ r, j }, { 1, c.BC }), k:load(p.X:tile({ r, j }, { 1, c.BC })))
    end)
  end,
}

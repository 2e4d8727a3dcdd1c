-- hostile: i32 arithmetic at its edges: constants near 2^31, division and modulo by constants, negative steps
local tile = require "tile"
return tile.kernel {
  name = "int_edges",
  config = { BLOCK = 256, threads = 256, BIG = 2147483647 },
  params = function(v) return { X = tile.tensor("i32", { "N" }), Y = tile.tensor("i32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    local y = (x + c.BIG) // 7 % 3 - (-2147483647 - 1) // 2
    k:serial(0, p.N, 2147483647, function(j) k:store(p.Y:tile({ i }, { c.BLOCK }), y * j) end)
  end,
}

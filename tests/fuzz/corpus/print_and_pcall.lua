-- hostile: print of every kind of value, pcall around every builder call that may fail
local tile = require "tile"
return tile.kernel {
  name = "print_and_pcall",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local x = k:load(p.X:tile({ i }, { c.BLOCK }))
    print(x, p.X, k, c, p.N, x.shape, tile)
    local ok = pcall(function() return x + "1" end)
    ok = pcall(tile.exp, "x")
    k:store(p.Y:tile({ i }, { c.BLOCK }), x)
  end,
}

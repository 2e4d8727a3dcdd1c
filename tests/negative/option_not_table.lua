-- expect: tests/negative/option_not_table.lua:13: error: k:load's options are a table such as { mask = m, cache = "stream" }, not string
local tile = require "tile"
return tile.kernel {
  name = "option_not_table",
  config = { BM = 16, BN = 64, threads = 128 },
  params = function()
    return { X = tile.tensor("f32", { "N", "C" }), I = tile.tensor("i32", { "N", 1 }), Y = tile.tensor("f32", { "N", "C" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(p.N)
    local ids = k:load(p.I:tile({ i, 0 }, { c.BM, 1 }))
    local x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }))
    x = k:load(p.X:tile({ i, 0 }, { c.BM, c.BN }), 0, "stream")
    k:store(p.Y:tile({ i, 0 }, { c.BM, c.BN }), x)
  end,
}

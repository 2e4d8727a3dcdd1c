-- expect: tests/negative/table_move_huge.lua:4: error: the kernel file ran for over 400 million Lua steps (an endless loop?)
local tile = require "tile"
-- table.move loops in C: its length counts as steps
table.move({}, 1, 2^50, 2)
return tile.kernel {
  name = "table_move_huge",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

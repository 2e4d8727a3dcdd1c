-- expect: tests/negative/require_pid.lua:11: error: k:require's condition may read only sizes, strides and scalars (the launcher checks it before the grid runs), not program ids, loop indices or loaded values
local tile = require "tile"
-- a launcher precondition cannot read the program id

return tile.kernel {
  name = "require_pid",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:require(i:lt(p.N), "i below N")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/require_false.lua:11: error: k:require(false, ...): the kernel could never run (never)
local tile = require "tile"
-- a precondition that is false as written

return tile.kernel {
  name = "require_false",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:require(false, "never")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

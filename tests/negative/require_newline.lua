-- expect: tests/negative/require_newline.lua:11: error: k:require's text must be one line of printable characters
local tile = require "tile"
-- words that would break the launcher's comment

return tile.kernel {
  name = "require_newline",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:require(p.s:gt(0), "a\nb")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

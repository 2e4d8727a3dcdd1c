-- expect: tests/negative/export_text.lua:11: error: k:export takes (name, value, "what it is"), e.g. k:export("workspace_rows", p.B * 64, "rows of Ws a call needs")
local tile = require "tile"
-- k:export without its text

return tile.kernel {
  name = "export_text",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:export("rows", p.N * 2)
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

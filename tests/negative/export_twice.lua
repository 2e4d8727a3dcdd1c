-- expect: tests/negative/export_twice.lua:11: error: k:export 'rows' is exported already (line 11)
local tile = require "tile"
-- two exports of one name

return tile.kernel {
  name = "export_twice",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:export("rows", p.N, "rows"); k:export("rows", p.N, "rows")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/export_float.lua:11: error: k:export's value must be an i32 scalar, not f32
local tile = require "tile"
-- an exported value is an integer

return tile.kernel {
  name = "export_float",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("f32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:export("rows", p.s * 2, "rows")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

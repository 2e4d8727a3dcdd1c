-- expect: tests/negative/export_name.lua:11: error: k:export's name 'two rows' is not an identifier (a letter, then letters, digits and _): the function is <launcher>_<name>
local tile = require "tile"
-- an export named like a variable of the generated code

return tile.kernel {
  name = "export_name",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:export("two rows", p.N, "rows")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

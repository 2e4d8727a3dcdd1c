-- expect: tests/negative/name_lt_prefix.lua:5: error: kernel name 'lt_add' starts with lt_, which is reserved for the generated code's own names; pick another, e.g. "my_lt_add"
local tile = require "tile"
-- lt_ names are the generated code's own

return tile.kernel {
  name = "lt_add",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- expect: tests/negative/runs_when_program_id.lua:12: error: k:runs_when's condition may read only sizes, strides and scalars (the launcher tests it before the grid runs), not program ids, loop indices or loaded values
local tile = require "tile"
return tile.kernel {
  name = "runs_when_program_id",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "small", { B = 64, threads = 64 } }, { "large", {} } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.B))
    if c.B == 64 then k:runs_when(i:le(4), "the first programs") end
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

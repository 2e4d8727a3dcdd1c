-- expect: tests/negative/builds_unknown_key.lua:6: error: builds(builds_unknown_key).small.BLOCK: config has no 'BLOCK'; only the values config names can change
local tile = require "tile"
return tile.kernel {
  name = "builds_unknown_key",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "small", { BLOCK = 64 } }, { "large", {} } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)

    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

-- expect: tests/negative/builds_bad_name.lua:6: error: builds(builds_bad_name)[1] is { "name", { config values } }, the name 1 to 16 lower-case letters and digits; e.g. function(v, target) return { { "rows16", { BM = 16 } }, { "rows64", {} } } end
local tile = require "tile"
return tile.kernel {
  name = "builds_bad_name",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "Small", { B = 64 } }, { "large", {} } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)

    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

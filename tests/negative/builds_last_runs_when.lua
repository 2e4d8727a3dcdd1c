-- expect: tests/negative/builds_last_runs_when.lua:11: error: build large is the last of builds_last_runs_when's builds, which runs wherever no other does: it takes no k:runs_when
local tile = require "tile"
return tile.kernel {
  name = "builds_last_runs_when",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "small", { B = 64, threads = 64 } }, { "large", {} } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    k:runs_when(p.N:le(4096), "short rows")
    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

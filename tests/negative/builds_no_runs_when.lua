-- expect: tests/negative/builds_no_runs_when.lua:10: error: build small is not the last of builds_no_runs_when's builds: its body says the sizes it runs for with k:runs_when(cond, "what")
local tile = require "tile"
return tile.kernel {
  name = "builds_no_runs_when",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "small", { B = 64, threads = 64 } }, { "large", {} } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)

    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

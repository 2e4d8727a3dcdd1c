-- expect: tests/negative/runs_when_twice.lua:11: error: k:runs_when is said once a build (line 11 said it)
local tile = require "tile"
return tile.kernel {
  name = "runs_when_twice",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "small", { B = 64, threads = 64 } }, { "large", {} } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    if c.B == 64 then k:runs_when(p.N:le(4096), "short rows"); k:runs_when(p.N:le(64), "shorter") end
    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

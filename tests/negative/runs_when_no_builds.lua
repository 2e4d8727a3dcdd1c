-- expect: tests/negative/runs_when_no_builds.lua:11: error: k:runs_when belongs to a build of the kernel's builds (builds = function(v, target) return { { "rows16", { BM = 16 } }, { "rows64", {} } } end); this variant has none
local tile = require "tile"
return tile.kernel {
  name = "runs_when_no_builds",
  config = { B = 256, threads = 256 },

  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    k:runs_when(p.N:le(4096), "short rows")
    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

-- expect: tests/negative/builds_one.lua:6: error: builds returned a list of 1 for builds_one; it returns nil or an array of 2 to 16 { "name", { config values } }, e.g. function(v, target) return { { "rows16", { BM = 16 } }, { "rows64", {} } } end
local tile = require "tile"
return tile.kernel {
  name = "builds_one",
  config = { B = 256, threads = 256 },
  builds = function(v, target) return { { "small", { B = 64 } } } end,
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)

    local i = k:grid(tile.cdiv(p.N, c.B))
    k:store(p.Y:tile({ i }, { c.B }), k:load(p.X:tile({ i }, { c.B })))
  end,
}

-- expect: tests/negative/gc_finalizer.lua:4: error: metatables in kernel files cannot have __gc (a finalizer would run out of reach of the time limit)
local tile = require "tile"
-- a __gc finalizer runs where no hook counts steps: it must not get in
setmetatable({}, { __gc = function() while true do end end })
local t = {}
for j = 1, 1e7 do t[j % 100] = {} end
return tile.kernel {
  name = "gc_finalizer",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

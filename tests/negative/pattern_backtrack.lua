-- expect: tests/negative/pattern_backtrack.lua:4: error: string.find: the pattern "a*a*a*a*a*a*a*a*a*a*a*a*b" may take over 10^8 steps on a string of 3000 bytes (each * + - can try every length); use fewer repetitions or a shorter string
local tile = require "tile"
-- Lua's pattern matcher runs in C, out of reach of the step limit: this search would take hours
local r = ("a"):rep(3000):find(("a*"):rep(12) .. "b")
return tile.kernel {
  name = "pattern_backtrack",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

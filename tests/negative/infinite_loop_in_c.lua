-- expect: tests/negative/infinite_loop_in_c.lua:5: error: generating ran for over 10 s of CPU time (an endless loop, or a library call that does not end?)
local tile = require "tile"
-- utf8.len of a 300 MB string runs in C; called over and over, the CPU-time limit stops it
local s = ("x"):rep(3e8)
for _ = 1, 1e9 do utf8.len(s) end
return tile.kernel {
  name = "cpu_time_limit",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

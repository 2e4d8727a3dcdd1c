-- expect: tests/negative/infinite_loop_pcall.lua:5: error: the kernel file ran for over 400 million Lua steps (an endless loop?)
local tile = require "tile"
-- pcall must not be able to swallow the step limit: gen has to stop this too
local function spin() while true do end end
while true do pcall(spin) end
return tile.kernel {
  name = "infinite_loop_pcall",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

-- hostile: reaching for what the sandbox leaves out, and changing what it protects
local tile = require "tile"
local tries = {}
for _, f in ipairs { function() return getmetatable("").__index end, function() return getmetatable(_G) end,
  function() return setmetatable(_G, {}) end, function() return rawget(_G, "os") end,
  function() return require("os") end, function() return string.dump(print) end } do
  tries[#tries + 1] = pcall(f)
end
rawset(_G, "leaked", tries)
tile.max = function(a, b) return a end
return tile.kernel {
  name = "sandbox_escape",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), tile.max(k:load(p.X:tile({ i }, { c.BLOCK })), 0))
  end,
}

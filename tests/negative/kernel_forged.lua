-- expect: tests/negative/kernel_forged.lua:5: error: the file must end with: return tile.kernel { ... }
local tile = require "tile"
-- a table that looks like what tile.kernel returns, built by hand

return { name = "kernel_forged", params = function() return {} end, body = function(k) k:grid(1) end }

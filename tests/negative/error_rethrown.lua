-- expect: tests/negative/error_rethrown.lua:4: error: deep
local tile = require "tile"
-- a message caught and raised again with error(e) gets a position each time; one is shown
local function f(n) if n == 0 then error("deep") end local ok, e = pcall(f, n - 1) error(e) end
f(50)
return tile.kernel {
  name = "error_rethrown",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

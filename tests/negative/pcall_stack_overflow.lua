-- expect: tests/negative/pcall_stack_overflow.lua:5: error: the kernel file ran for over 400 million Lua steps (an endless loop?)
local tile = require "tile"
-- each stack overflow caught by pcall grows and drops a stack of a million slots: its time counts as steps
-- (the recursion and the loop on one line: the limit may strike in either)
local function f() return f() + 1 end for _ = 1, 1e6 do pcall(f) end
return tile.kernel {
  name = "pcall_stack_overflow",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

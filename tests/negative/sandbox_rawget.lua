-- expect: tests/negative/sandbox_rawget.lua:4: error: attempt to index a nil value (local 'os')
local tile = require "tile"
local os = rawget(_G, "os")
os.execute("touch /tmp/luatile_pwned")
return tile.kernel {
  name = "sandbox_rawget",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

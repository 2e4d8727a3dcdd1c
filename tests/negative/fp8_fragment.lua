-- expect: tests/negative/fp8_fragment.lua:12: error: a fragment cannot be fp8e4m3: fp8 values are stored, not computed on; keep an f32 fragment and cast when storing
local tile = require "tile"
return tile.kernel {
  name = "fp8_fragment",
  config = { BLOCK = 128, threads = 64 },
  params = function(v, c)
    return { E = tile.tensor("fp8e4m3", { "N" }), O = tile.tensor("f32", { "N" }) }
  end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local e = k:load(p.E:tile({ i }, { c.BLOCK }))
    local f = k:fragment("fp8e4m3", { c.BLOCK }, 0)
    k:store(p.O:tile({ i }, { c.BLOCK }), e:cast("f32"))
  end,
}

-- expect: tests/negative/smem_too_large.lua:11: error: the kernel needs 262144 bytes of shared memory, over the 163 KB a block gets on sm80 (biggest: a [256, 256] f32 tile, 262144 bytes); make the tiles smaller or use fewer stages
local tile = require "tile"
return tile.kernel {
  name = "smem_too_large",
  config = { BM = 256, BN = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "M", "N" }), Y = tile.tensor("f32", { "M", "N" }) }
  end,
  body = function(k, p, c)
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local xs = k:shared("f32", { c.BM, c.BN })
    k:copy(p.X:tile({ bm, bn }, { c.BM, c.BN }), xs)
    local x = k:fragment("f32", { c.BM, c.BN })
    k:copy(xs, x)
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), x)
  end,
}

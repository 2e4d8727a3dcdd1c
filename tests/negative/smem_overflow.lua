-- expect: tests/negative/smem_overflow.lua:11: error: the kernel needs 2684354560 bytes of shared memory, over the 163 KB a block gets on sm80 (biggest: a [4096, 4096] f32 tile, 67108864 bytes); make the tiles smaller or use fewer stages
local tile = require "tile"
-- 40 shared [4096, 4096] f32 tiles: 2.7 GB, which overflowed the int the sizes were added in

return tile.kernel {
  name = "smem_overflow",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    for _ = 1, 40 do k:shared("f32", { 4096, 4096 }) end
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

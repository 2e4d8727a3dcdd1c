-- expect: tests/negative/name_variant_reserved.lua:5: error: variant name 'uint32_t' is a C, C++, CUDA or HIP name; the launcher and its header take the name: change the kernel name or the variant values
local tile = require "tile"
-- kernel uint32 with variant value t makes the variant name uint32_t

return tile.kernel {
  name = "uint32",
  variants = { kind = { "t" } },
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

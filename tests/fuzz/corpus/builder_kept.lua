-- hostile: the builder k kept from one variant and called in the next one's variant_config and params
local tile = require "tile"
local kept
return tile.kernel {
  name = "builder_kept",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 256, threads = 256 },
  variant_config = function(v, target) if kept then pcall(kept.grid, kept, 1) end end,
  params = function(v)
    if kept then pcall(kept.fragment, kept, "f32", { 256 }) end
    return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) }
  end,
  body = function(k, p, c)
    kept = k
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

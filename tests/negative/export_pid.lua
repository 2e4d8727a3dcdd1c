-- expect: tests/negative/export_pid.lua:11: error: k:export's value is an integer scalar of sizes, strides, scalars and k:sm_count() (the function computes it before any call), not of program ids, loop indices or loaded values
local tile = require "tile"
-- an exported value cannot read the program id

return tile.kernel {
  name = "export_pid",
  config = { BLOCK = 256, threads = 256 },
  params = function(v) return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), s = tile.scalar("i32") } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:export("rows", i * 2, "rows")
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}

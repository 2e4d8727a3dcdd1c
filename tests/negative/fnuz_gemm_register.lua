-- expect: tests/negative/fnuz_gemm_register.lua:14: error: k:gemm takes f16, bf16, f32 or (shared tiles) fp8 operands, not fp8e4m3fnuz from registers (copy the fp8 tensor to a k:shared tile)
-- args: --target gfx942
local tile = require "tile"
return tile.kernel {
  name = "fnuz_gemm_register",
  config = { threads = 256 },
  params = function(v, c)
    return { A = tile.tensor("fp8e4m3fnuz", { 64, 32 }), C = tile.tensor("f32", { 64, 64 }) }
  end,
  body = function(k, p, c)
    local Bs = k:shared("fp8e4m3fnuz", { 64, 32 })
    local acc = k:fragment("f32", { 64, 64 }, 0)
    k:copy(p.A:tile({ 0, 0 }, { 64, 32 }), Bs)
    k:gemm(k:load(p.A:tile({ 0, 0 }, { 64, 32 })), Bs, acc, { transpose_b = true })
    k:store(p.C:tile({ 0, 0 }, { 64, 64 }), acc)
  end,
}

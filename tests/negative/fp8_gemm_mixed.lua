-- expect: tests/negative/fp8_gemm_mixed.lua:15: error: k:gemm: the gemms of a kernel share one instruction; line 14's operands are f16, these fp8e4m3 (all fp8 or none)
local tile = require "tile"
return tile.kernel {
  name = "fp8_gemm_mixed",
  config = { threads = 128 },
  params = function(v, c)
    return { A = tile.tensor("fp8e4m3", { 64, 32 }), B = tile.tensor("f16", { 32, 64 }), H = tile.tensor("f16", { 64, 32 }),
             C = tile.tensor("f32", { 64, 64 }) }
  end,
  body = function(k, p, c)
    local As, Hs, Bs = k:shared("fp8e4m3", { 64, 32 }), k:shared("f16", { 64, 32 }), k:shared("f16", { 32, 64 })
    local acc = k:fragment("f32", { 64, 64 }, 0)
    k:copy(p.A:tile({ 0, 0 }, { 64, 32 }), As); k:copy(p.H:tile({ 0, 0 }, { 64, 32 }), Hs); k:copy(p.B:tile({ 0, 0 }, { 32, 64 }), Bs)
    k:gemm(Hs, Bs, acc)
    k:gemm(As, As, acc, { transpose_b = true })
    k:store(p.C:tile({ 0, 0 }, { 64, 64 }), acc)
  end,
}

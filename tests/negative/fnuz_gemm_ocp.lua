-- expect: tests/negative/fnuz_gemm_ocp.lua:13: error: k:gemm: the operands are fp8e4m3fnuz and fp8e4m3, an FNUZ and an OCP fp8; convert one as it is copied to its shared tile: k:copy(k:load(view):cast("fp8e4m3fnuz"), tile)
local tile = require "tile"
return tile.kernel {
  name = "fnuz_gemm_ocp",
  config = { threads = 256 },
  params = function(v, c)
    return { A = tile.tensor("fp8e4m3fnuz", { 64, 64 }), B = tile.tensor("fp8e4m3", { 64, 64 }), C = tile.tensor("f32", { 64, 64 }) }
  end,
  body = function(k, p, c)
    local As, Bs = k:shared("fp8e4m3fnuz", { 64, 64 }), k:shared("fp8e4m3", { 64, 64 })
    local acc = k:fragment("f32", { 64, 64 }, 0)
    k:copy(p.A:tile({ 0, 0 }, { 64, 64 }), As); k:copy(p.B:tile({ 0, 0 }, { 64, 64 }), Bs)
    k:gemm(As, Bs, acc, { transpose_b = true })
    k:store(p.C:tile({ 0, 0 }, { 64, 64 }), acc)
  end,
}

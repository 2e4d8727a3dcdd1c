-- fnuz_gemm.lua (golden): C = (A @ B^T) * scale on AMD's FNUZ fp8, A and B
-- e4m3fnuz, C e5m2fnuz.  Covers: the FNUZ dtypes' prologue
-- (templates/fp8_fnuz_dtypes.h, and no OCP-to-FNUZ map), gfx942's MFMA
-- fp8 on the bytes as they are (no fresh K-tile sum, no times 4), sm80's
-- mma.sync on the bytes converted to f16 pairs, c's multiply-adds on
-- them converted to f32, --explain's operand dtype, and the saturating
-- conversion of the f32 result as it is stored.
local tile = require "tile"

return tile.kernel {
  name = "fnuz_gemm",
  doc = "C [M, N] e5m2fnuz = (A [M, K] @ B [N, K]^T) * scale, A and B e4m3fnuz; f32 accumulation.",
  config = { BM = 64, BN = 64, BK = 64, threads = 256 },
  params = function()
    return {
      A = tile.tensor("fp8e4m3fnuz", { "M", "K" }),
      B = tile.tensor("fp8e4m3fnuz", { "N", "K" }),
      C = tile.tensor("fp8e5m2fnuz", { "M", "N" }),
      scale = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local As = k:shared("fp8e4m3fnuz", { c.BM, c.BK })
    local Bs = k:shared("fp8e4m3fnuz", { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:serial(0, tile.cdiv(p.K, c.BK), function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), acc * p.scale)
  end,
}

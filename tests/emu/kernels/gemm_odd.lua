-- gemm_odd.lua (tests): a GEMM written the way a user writes one, with tile
-- sides that are multiples of 8 but not powers of two: C = leaky_relu(A @ B)
-- with B stored [K, N] (layout nn) or [N, K] (nt, A @ B^T).  Three tiles:
-- "n192" (128 x 192: on sm90a wgmma n192, B's [64, 192] tile stored as
-- three 64-column panels where it is [K, N]; the copies' threads take 8 of
-- the 24 chunks of a row and repeat 3 times), "n208" (128 x 208: wgmma
-- n208 from a K-major B; a B stored [K, N] is not whole 128-byte swizzle
-- rows, so mma.sync with warps down M only, 16 x 208 each) and "m192"
-- (192 x 128: two warpgroups across N, each three m64 blocks).  gen
-- picks the instruction, the warp grid and the schedule; tests/emu checks
-- it against float64 on every target, tests/gpu on the device.
local tile = require "tile"

return tile.kernel {
  name = "gemm_odd",
  doc = "C [M, N] = leaky_relu(A [M, K] @ op(B), slope), B [K, N] (nn) or [N, K] (nt); f32 accumulation.",
  variants = { layout = { "nn", "nt" }, tile = { "n192", "n208", "m192" } },
  config = { BM = 128, BN = 192, BK = 64, stages = 3, threads = 256, group_m = 8 },
  variant_config = function(v)
    if v.tile == "n208" then return { BN = 208 } end
    if v.tile == "m192" then return { BM = 192, BN = 128 } end
  end,
  params = function(v)
    return {
      A = tile.tensor("bf16", { "M", "K" }),
      B = tile.tensor("bf16", v.layout == "nt" and { "N", "K" } or { "K", "N" }),
      C = tile.tensor("bf16", { "M", "N" }),
      slope = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c, v)
    local nt = v.layout == "nt"
    local tm, tn = tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN)
    local pid = k:grid(tm * tn)
    local bm, bn = tile.grouped(pid, tm, tn, c.group_m)
    local As = k:shared("bf16", { c.BM, c.BK })
    local Bs = k:shared("bf16", nt and { c.BN, c.BK } or { c.BK, c.BN })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(nt and p.B:tile({ bn, kt }, { c.BN, c.BK }) or p.B:tile({ kt, bn }, { c.BK, c.BN }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = nt })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), tile.where(acc:gt(0), acc, acc * p.slope))
  end,
}

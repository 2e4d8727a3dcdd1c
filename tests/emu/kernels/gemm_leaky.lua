-- gemm_leaky.lua (tests): a GEMM written the way a user writes one, not
-- matmul.lua: C = leaky_relu(A @ B^T) with the user's own activation (a
-- slope given at run time), B stored [N, K], programs in grouped order.
-- Three tile shapes: "tall" (256 x 128: each of the two warpgroups takes 128
-- rows, two m64 blocks of wgmma), "wide" (64 x 256: the warpgroups split
-- N, 128 columns each) and "one" (64 x 128, 128 threads: one consumer
-- warpgroup, its tile out by TMA stores through one staging tile).  "wide" asks
-- for a dynamic grid (k:grid's dynamic = true: on sm90a its persistent blocks take
-- the tiles from a counter as they free up).  Nothing in it names a target: gen picks the
-- instruction, the warp grid and the loop's schedule.  tests/emu checks it
-- against float64, tests/gpu on the device.
local tile = require "tile"

return tile.kernel {
  name = "gemm_leaky",
  doc = "C [M, N] = leaky_relu(A [M, K] @ B [N, K]^T, slope); f32 accumulation.",
  variants = { dtype = { "f16", "bf16" }, tile = { "tall", "wide", "one" } },
  config = { BM = 256, BN = 128, BK = 64, stages = 3, threads = 256, group_m = 8, dynamic = false },
  variant_config = function(v)
    if v.tile == "wide" then return { BM = 64, BN = 256, dynamic = true } end
    if v.tile == "one" then return { BM = 64, BN = 128, threads = 128 } end
  end,
  params = function(v)
    return {
      A = tile.tensor(v.dtype, { "M", "K" }),
      B = tile.tensor(v.dtype, { "N", "K" }),
      C = tile.tensor(v.dtype, { "M", "N" }),
      slope = tile.scalar("f32"),
    }
  end,
  body = function(k, p, c, v)
    local tm, tn = tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN)
    local pid = k:grid(tm * tn, { dynamic = c.dynamic })
    local bm, bn = tile.grouped(pid, tm, tn, c.group_m)
    local As = k:shared(v.dtype, { c.BM, c.BK })
    local Bs = k:shared(v.dtype, { c.BN, c.BK })
    local acc = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.A:tile({ bm, kt }, { c.BM, c.BK }), As)
      k:copy(p.B:tile({ bn, kt }, { c.BN, c.BK }), Bs)
      k:gemm(As, Bs, acc, { transpose_b = true })
    end)
    k:store(p.C:tile({ bm, bn }, { c.BM, c.BN }), tile.where(acc:gt(0), acc, acc * p.slope))
  end,
}

-- swiglu.lua (tests): a GEMM written the way a user writes one, not
-- matmul.lua: the SwiGLU of an MLP, Y = silu(X @ W1) * (X @ W3), two gemms
-- over the same X tile into two accumulators, one pipelined K loop, the
-- activation fused into the store.  Nothing in it names a target: gen
-- picks the instruction, the warp grid and the loop's schedule (on sm90a:
-- wgmma, two warpgroups of [64, 128]; TMA copies into an mbarrier ring
-- with a producer warpgroup).  tests/emu checks it against float64,
-- tests/gpu on the device.
local tile = require "tile"

return tile.kernel {
  name = "swiglu",
  doc = "Y [M, N] = silu(X [M, K] @ W1 [K, N]) * (X @ W3 [K, N]); f32 accumulation.",
  variants = { dtype = { "f16", "bf16" } },
  config = { BM = 128, BN = 128, BK = 64, stages = 3, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "K" }),
      W1 = tile.tensor(v.dtype, { "K", "N" }),
      W3 = tile.tensor(v.dtype, { "K", "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
    }
  end,
  body = function(k, p, c, v)
    local bm, bn = k:grid(tile.cdiv(p.M, c.BM), tile.cdiv(p.N, c.BN))
    local Xs = k:shared(v.dtype, { c.BM, c.BK })
    local W1s = k:shared(v.dtype, { c.BK, c.BN })
    local W3s = k:shared(v.dtype, { c.BK, c.BN })
    local gate = k:fragment("f32", { c.BM, c.BN }, 0)
    local up = k:fragment("f32", { c.BM, c.BN }, 0)
    k:pipelined(0, tile.cdiv(p.K, c.BK), c.stages, function(kt)
      k:copy(p.X:tile({ bm, kt }, { c.BM, c.BK }), Xs)
      k:copy(p.W1:tile({ kt, bn }, { c.BK, c.BN }), W1s)
      k:copy(p.W3:tile({ kt, bn }, { c.BK, c.BN }), W3s)
      k:gemm(Xs, W1s, gate)
      k:gemm(Xs, W3s, up)
    end)
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), gate / (1 + tile.exp(-gate)) * up)
  end,
}

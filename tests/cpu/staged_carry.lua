-- staged_carry.lua: a register operand staged in shared memory for wgmma
-- beside a 3-stage ring (tests/cpu/staged_carry.c, run by
-- tests/emu/drivers.sh).  On sm90a the block's two warpgroups split O's
-- columns, so bf16(S) reaches O += P V through a staging tile both read
-- whole (pass/mma.c); the next iteration overwrites that tile with its own
-- S, so the wgmmas of O += P V must not stay in flight across the loop's
-- back edge unless a barrier follows their wait (pass/plan.c).  Variant
-- top issues the ring's copies at the body's top (copies_first); turns
-- after S = Q K^T, which the warpgroups then take in turns (SCHED_TURNS).
--
-- O[r, :] = the sum over key blocks j of bf16(Q[r, :] K_j^T) V_j.
local tile = require "tile"

return tile.kernel {
  name = "staged_carry",
  doc = "O[r, :] = the sum over key blocks j of bf16(Q[r, :] K_j^T) V_j.",
  variants = { refill = { "top", "turns" } },
  config = { BM = 64, BN = 32, D = 128, threads = 256, stages = 3 },
  params = function(v, c)
    return {
      Q = tile.tensor("bf16", { "M", c.D }),
      K = tile.tensor("bf16", { "L", c.D }),
      V = tile.tensor("bf16", { "L", c.D }),
      O = tile.tensor("f32", { "M", c.D }),
    }
  end,
  body = function(k, p, c, v)
    local bm = k:grid(tile.cdiv(p.M, c.BM))
    local Qs = k:shared("bf16", { c.BM, c.D })
    local Ks = k:shared("bf16", { c.BN, c.D })
    local Vs = k:shared("bf16", { c.BN, c.D })
    local o = k:fragment("f32", { c.BM, c.D }, 0)
    k:copy(p.Q:tile({ bm, 0 }, { c.BM, c.D }), Qs)
    k:pipelined(0, tile.cdiv(p.L, c.BN), c.stages, { copies_first = v.refill == "top" }, function(j)
      k:copy(p.K:tile({ j, 0 }, { c.BN, c.D }), Ks)
      k:copy(p.V:tile({ j, 0 }, { c.BN, c.D }), Vs)
      local s = k:fragment("f32", { c.BM, c.BN }, 0)
      k:gemm(Qs, Ks, s, { transpose_b = true })
      k:gemm(s:cast("bf16"), Vs, o)
    end)
    k:store(p.O:tile({ bm, 0 }, { c.BM, c.D }), o)
  end,
}

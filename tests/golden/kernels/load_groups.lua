-- load_groups.lua (golden): the loads of a step issued together
-- (gen/pass/issue.c, lower/copy.c ltL_issue).  Covers: two matrix loads of
-- two vectors a thread and a bias row between them, issued into one array
-- before any is converted (CUDA only: the other targets print each load
-- as before); a second group in a loop's body after a store (its own
-- array, lt_raw2); a load whose view reads a value the step made (a row
-- offset loaded from memory) left out of the group of the loads around it.
local tile = require "tile"

return tile.kernel {
  name = "load_groups",
  doc = "Y = X + B + R over [M, N]; then S[m, :] = sum over j of the [8, 256] tiles P[m, j-th] * Q[m, j-th]; then Z = X[O[bm] + rows of the tile] + 2 * R (O's row offset made in that step).",
  variants = { dtype = { "bf16" } },
  config = { BM = 8, BN = 256, threads = 128 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      R = tile.tensor(v.dtype, { "M", "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
      P = tile.tensor(v.dtype, { "M", "K" }),
      Q = tile.tensor(v.dtype, { "M", "K" }),
      S = tile.tensor("f32", { "M", "N" }),
      Z = tile.tensor(v.dtype, { "M", "N" }),
      O = tile.tensor("i32", { "T" }),
    }
  end,
  body = function(k, p, c)
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local x = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local b = k:load(p.B:tile({ bn }, { c.BN })):cast("f32")
    local r = k:load(p.R:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), x + b + r)
    local s = k:fragment("f32", { c.BM, c.BN }, 0)
    k:serial(0, tile.cdiv(p.K, c.BN), function(j)
      local a = k:load(p.P:tile({ bm, j }, { c.BM, c.BN })):cast("f32")
      local q = k:load(p.Q:tile({ bm, j }, { c.BM, c.BN })):cast("f32")
      k:assign(s, s + a * q)
    end)
    k:store(p.S:tile({ bm, bn }, { c.BM, c.BN }), s)
    local y = k:load(p.Y:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local o = k:load(p.O:at({ bm }))
    local z = k:load(p.X:tile({ o, bn }, { c.BM, c.BN })):cast("f32")   -- reads o: not in y's group
    local r2 = k:load(p.R:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    k:store(p.Z:tile({ bm, bn }, { c.BM, c.BN }), z + y * 2 + r2)
  end,
}

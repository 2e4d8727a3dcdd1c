-- cross_entropy.lua: softmax cross-entropy over rows of logits, with the
-- label's logit gathered by index, ignore_index and label smoothing.
--
-- forward:   for each row r of X [N, V] with label t = T[r]:
--              LSE[r]  = log(sum_c exp(X[r, c]))
--              Loss[r] = LSE[r] - (1 - eps) * X[r, t] - eps / V * sum_c X[r, c]
--            and Loss[r] = 0 where t == ignore (LSE is written for every row).
--            One program a row: BC-wide chunks with a running max and a
--            rescaled running sum (online softmax), a running sum of the
--            logits for the smoothing term, and X[r, t] read as one scalar
--            (X:at) at the label: vocabularies of any size (256K: 64 chunks).
-- backward:  dX[r, c] = dL[r] * (exp(X[r, c] - LSE[r]) - eps / V - (1 - eps) * [c == t]),
--            0 where t == ignore; dL [N, 1] is the gradient of each row's
--            loss (for a mean: 1 / the rows not ignored).
-- A label outside [0, V) that is not `ignore` reads X[r, t] as 0 (torch
-- raises an error there); no access leaves X.  T is declared [N, 1] (a
-- torch [N] tensor is passed as is), int32, or int64 in the i64 variants
-- (PyTorch's label dtype; ignore is then int64 too); sums are in f32.
local tile = require "tile"
local LOG2E = 1.4426950408889634
local LN2 = 0.6931471805599453

return tile.kernel {
  name = "cross_entropy",
  doc = "Softmax cross-entropy of rows of logits: forward Loss, LSE; backward dX (ignore_index, label smoothing).",
  variants = { dtype = { "f32", "f16", "bf16" }, pass = { "fwd", "bwd" }, i64 = { false, true } },
  config = { BC = 4096, threads = 256 },
  params = function(v, c)
    local p = {
      X = tile.tensor(v.dtype, { "N", "V" }),
      T = tile.tensor(v.i64 and "i64" or "i32", { "N", 1 }),
      ignore = tile.scalar(v.i64 and "i64" or "i32"),
      eps = tile.scalar("f32"),
    }
    if v.pass == "fwd" then
      p.Loss = tile.tensor("f32", { "N", 1 })
      p.LSE = tile.tensor("f32", { "N", 1 })
    else
      p.LSEin = tile.tensor("f32", { "N", 1 })
      p.dL = tile.tensor("f32", { "N", 1 })
      p.dX = tile.tensor(v.dtype, { "N", "V" })
    end
    return p
  end,
  body = function(k, p, c, v)
    local r = k:grid(p.N)
    local nchunks = tile.cdiv(p.V, c.BC)
    local t = k:load(p.T:at({ r, 0 }))                        -- the label, a scalar
    local col = k:iota({ 1, c.BC }, 2)
    if v.pass == "fwd" then
      local m = k:fragment("f32", { 1, 1 }, -math.huge)       -- running max
      local s = k:fragment("f32", { 1, 1 }, 0)                -- sum of exp(x - m)
      local sx = k:fragment("f32", { 1, 1 }, 0)               -- sum of x
      k:serial(0, nchunks, function(j)
        local inside = (col + j * c.BC):lt(p.V)
        local x = k:load(p.X:tile({ r, j }, { 1, c.BC }), -math.huge, { cache = "keep" }):cast("f32")
        local m_new = tile.max(m, k:reduce_max(x, 2))
        k:assign(s, s * tile.exp2((m - m_new) * LOG2E) + k:reduce_sum(tile.exp2((x - m_new) * LOG2E), 2))
        k:assign(m, m_new)
        k:assign(sx, sx + k:reduce_sum(tile.where(inside, x, 0), 2))
      end)
      local xt = k:load(p.X:at({ r, t })):cast("f32")         -- the label's logit (0 outside X)
      local lse = m + tile.log(s)
      local loss = lse - (1 - p.eps) * xt - p.eps / p.V:cast("f32") * sx
      k:store(p.LSE:tile({ r, 0 }, { 1, 1 }), lse)
      k:store(p.Loss:tile({ r, 0 }, { 1, 1 }), tile.where(t:eq(p.ignore), 0, loss))
    else
      local lse = k:load(p.LSEin:at({ r, 0 }))
      local dl = tile.where(t:eq(p.ignore), 0, k:load(p.dL:at({ r, 0 })))
      local smooth = p.eps / p.V:cast("f32")
      k:serial(0, nchunks, function(j)
        local cj = col + j * c.BC
        local x = k:load(p.X:tile({ r, j }, { 1, c.BC }), -math.huge, { cache = "stream" }):cast("f32")
        local g = tile.exp2((x - lse) * LOG2E) - smooth - tile.where((v.i64 and cj:cast("i64") or cj):eq(t), 1 - p.eps, 0)
        k:store(p.dX:tile({ r, j }, { 1, c.BC }), g * dl, { cache = "stream" })
      end)
    end
  end,
}

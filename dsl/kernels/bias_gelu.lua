-- bias_gelu.lua: fused bias + GELU, Y[m, n] = gelu(X[m, n] + B[n]).
--
-- GELU is the exact one, x * Phi(x) = x/2 * (1 + erf(x / sqrt(2))), as torch's
-- default.  f32 calls erf (it moves twice the bytes an element and runs at
-- copy speed with it).  The 16-bit variants compute Phi without it, in
-- about half the instructions (erf takes two polynomials and an exponential
-- behind a branch): Phi(x) is 1 - q for x >= 0 and q for x < 0, where
-- q = erfc(|x| / sqrt(2)) / 2 = 2^(P(t) - x^2 / (2 ln 2)) and P is a degree-7
-- polynomial in t = min(|x|, 5.5) fitted to log2(q) + x^2 / (2 ln 2), a smooth
-- function (bench/gelu_fit.py prints the fit and its error).  Checked in f32
-- arithmetic against float64 over [-9, 9]: at most 4.8e-7 off, and at most
-- 1e-4 relative wherever |gelu(x)| > 1e-4, far inside a bf16 or f16 rounding.
-- Programs tile Y in BM x BN blocks; the bias row is loaded once per block
-- and broadcast down the rows.
local tile = require "tile"

-- P's coefficients, constant term first (bench/gelu_fit.py)
local P = { -0.999999642, -1.15112519, 0.262305915, -0.0529987104, 0.00777067337,
            -0.000651096751, 1.12683356e-05, 1.57627073e-06 }
local HALF_LOG2E = 0.7213475204444817   -- 1 / (2 ln 2)

return tile.kernel {
  name = "bias_gelu",
  doc = "Fused Y = gelu(X + B) with B broadcast over the rows of X [M, N].",
  variants = { dtype = { "f32", "f16", "bf16" } },
  config = { BM = 8, BN = 512, threads = 256 },
  params = function(v)
    return {
      X = tile.tensor(v.dtype, { "M", "N" }),
      B = tile.tensor(v.dtype, { "N" }),
      Y = tile.tensor(v.dtype, { "M", "N" }),
    }
  end,
  body = function(k, p, c, v)
    local bn, bm = k:grid(tile.cdiv(p.N, c.BN), tile.cdiv(p.M, c.BM))
    local x = k:load(p.X:tile({ bm, bn }, { c.BM, c.BN })):cast("f32")
    local b = k:load(p.B:tile({ bn }, { c.BN })):cast("f32")
    local h = x + b
    if v.dtype == "f32" then
      k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), 0.5 * h * (1 + tile.erf(h * 0.7071067811865476)))
    else   -- Phi as above: r = P(t) by Horner's rule, q, then 1 - q or q by h's sign
      local t = tile.min(tile.abs(h), 5.5)
      local r = P[#P]
      for i = #P - 1, 1, -1 do r = r * t + P[i] end
      local q = tile.exp2(r - h * h * HALF_LOG2E)
      k:store(p.Y:tile({ bm, bn }, { c.BM, c.BN }), h * tile.where(h:ge(0), 1 - q, q))
    end
  end,
}

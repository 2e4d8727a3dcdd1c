--[[
data.lua: host arrays for the tuner's checks (LuaJIT FFI).

A tensor's host copy is kept twice: `raw`, an FFI array in the tensor's own
dtype (the bytes uploaded to the device), and `val`, a double array of the
same values for references and comparisons.  Random values are drawn so
that they are exact in the dtype (k / 2048 for f16, k / 256 for bf16,
k / 65536 for f32, k never 0), so no rounding step is needed on the way in;
outputs are decoded from their dtype bits (f16 / bf16 and non-finite f32
by hand).
]]
local ffi = require "ffi"
local bit = require "bit"

local M = {}

M.bytes = { f32 = 4, f16 = 2, bf16 = 2, i32 = 4, bool = 1 }
M.ctype = { f32 = "float", f16 = "uint16_t", bf16 = "uint16_t", i32 = "int32_t", bool = "uint8_t" }

-- Default tolerances: |got - want| <= atol * scale + rtol * |want|, where
-- scale is max(1, max |want|) over the output.
M.tolerance = {
  f32 = { rtol = 1e-4, atol = 1e-5 },
  f16 = { rtol = 1e-2, atol = 1e-3 },
  bf16 = { rtol = 4e-2, atol = 1e-2 },
  i32 = { rtol = 0, atol = 0 },
  bool = { rtol = 0, atol = 0 },
}

local pun = ffi.new("union { float f; uint32_t u; }")

-- Bits of an f16 value x that is exact in f16 and normal (as drawn here).
local function f16_bits(x)
  pun.f = x
  local u = pun.u
  local sign = bit.band(bit.rshift(u, 16), 0x8000)
  local e = bit.band(bit.rshift(u, 23), 0xFF) - 112
  local m = bit.band(bit.rshift(u, 13), 0x3FF)
  return bit.bor(sign, bit.lshift(e, 10), m)
end

-- Value of f16 bits h (subnormals, infinities and NaN included).
local function f16_value(h)
  local s = bit.band(h, 0x8000) ~= 0 and -1 or 1
  local e = bit.band(bit.rshift(h, 10), 31)
  local m = bit.band(h, 1023)
  if e == 0 then return s * m * 2 ^ -24 end
  if e == 31 then return m == 0 and s * math.huge or 0 / 0 end
  return s * (1 + m / 1024) * 2 ^ (e - 15)
end

-- Bits of a bf16 value exact in bf16: the high half of its f32 bits.
local function bf16_bits(x)
  pun.f = x
  return bit.rshift(pun.u, 16)
end

-- Value of f32 bits u.  NaN and infinities are built in Lua: LuaJIT
-- 2.1.0-beta3 turns some NaN payloads read from a float into non-numbers
-- (NaN tagging), so a poisoned float must never be read as a float.
local function f32_value(u)
  if bit.band(u, 0x7F800000) == 0x7F800000 then
    if bit.band(u, 0x7FFFFF) ~= 0 then return 0 / 0 end
    return bit.band(u, 0x80000000) ~= 0 and -math.huge or math.huge
  end
  pun.u = u
  return pun.f
end

local function bf16_value(h)
  return f32_value(bit.lshift(h, 16))
end

M.f16_bits, M.f16_value, M.bf16_bits, M.bf16_value = f16_bits, f16_value, bf16_bits, bf16_value
M.f32_value = f32_value

-- A random non-zero integer in [-lim, lim].
local function nonzero(lim)
  local k = math.random(1, lim)
  return math.random() < 0.5 and -k or k
end

-- New host tensor of n elements of dtype with random values; scale widens
-- the range (values lie in [-scale, scale]).
function M.random(dtype, n, scale)
  scale = scale or 1
  local raw = ffi.new(M.ctype[dtype] .. "[?]", n)
  local val = ffi.new("double[?]", n)
  for i = 0, n - 1 do
    local x
    if dtype == "f32" then
      x = nonzero(65536) / 65536 * scale
      raw[i] = x
      x = raw[i]
    elseif dtype == "f16" then
      x = nonzero(2048) / 2048
      raw[i] = f16_bits(x)
    elseif dtype == "bf16" then
      x = nonzero(256) / 256
      raw[i] = bf16_bits(x)
    elseif dtype == "i32" then
      x = nonzero(100)
      raw[i] = x
    else
      x = math.random(0, 1)
      raw[i] = x
    end
    val[i] = x
  end
  return { dtype = dtype, n = n, raw = raw, val = val, bytes = n * M.bytes[dtype] }
end

-- New host tensor of n elements to download into (poisoned with 0xFF).
function M.empty(dtype, n)
  local raw = ffi.new(M.ctype[dtype] .. "[?]", n)
  ffi.fill(raw, n * M.bytes[dtype], 0xFF)
  return { dtype = dtype, n = n, raw = raw, val = ffi.new("double[?]", n), bytes = n * M.bytes[dtype] }
end

-- Fills t.val from t.raw (after a download).
function M.decode(t)
  local raw, val = t.raw, t.val
  if t.dtype == "f16" then
    for i = 0, t.n - 1 do val[i] = f16_value(raw[i]) end
  elseif t.dtype == "bf16" then
    for i = 0, t.n - 1 do val[i] = bf16_value(raw[i]) end
  elseif t.dtype == "f32" then
    local bits = ffi.cast("uint32_t *", raw)
    for i = 0, t.n - 1 do val[i] = f32_value(bits[i]) end
  else
    for i = 0, t.n - 1 do val[i] = tonumber(raw[i]) end
  end
  return t
end

--[[ Compares got.val to want.val; returns true, or false and one line that
names the first element outside tolerance, the largest error and how many
elements are off or NaN.  tol = { rtol, atol }. ]]
function M.compare(got, want, tol)
  local n, g, w = want.n, got.val, want.val
  local scale = 1
  for i = 0, n - 1 do
    local a = math.abs(w[i])
    if a > scale and a < math.huge then scale = a end
  end
  local atol = tol.atol * scale
  local bad, nan, first, worst, worst_i = 0, 0, nil, 0, 0
  for i = 0, n - 1 do
    local d = math.abs(g[i] - w[i])
    if g[i] ~= g[i] and w[i] == w[i] then
      nan = nan + 1
      bad = bad + 1
      first = first or i
    elseif d > atol + tol.rtol * math.abs(w[i]) then
      bad = bad + 1
      first = first or i
      if d > worst then worst, worst_i = d, i end
    end
  end
  if bad == 0 then return true end
  return false, string.format("%d of %d elements off (%d NaN: unwritten or invalid); first [%d] = %.6g, want %.6g%s",
    bad, n, nan, first, g[first], w[first],
    worst > 0 and string.format("; worst [%d] off by %.3g", worst_i, worst) or "")
end

return M

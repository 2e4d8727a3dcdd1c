--[[
test_binding.lua: checks of the LuaJIT binding (runtime/luatile.lua) and of
the tuner's pure-Lua parts, one line per check (PASS / FAIL / SKIP).

  luajit tests/runtime/test_binding.lua BUILD_DIR

BUILD_DIR holds scale.so, built from fixtures/scale.c (run.sh builds it),
and optionally scale_cuda.so / scale_hip.so.  Inputs are random and non-zero,
sizes ragged, outputs poisoned with 0xFF bytes before every launch.
]]
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "../../runtime/?.lua;" .. package.path

local ffi = require "ffi"
local bdir = arg[1] or "build/runtime/t"

local function pass(name) print("PASS " .. name) end
local function fail(name, why) print("FAIL " .. name .. ": " .. tostring(why):gsub("\n", " ")) end
local function skip(name, why) print("SKIP " .. name .. ": " .. tostring(why):gsub("\n", " ")) end

-- Runs fn as one check: it returns nothing (pass), or a failure text; an
-- error inside it is a failure too, not a crash of the whole file.
local function check(name, fn)
  local ok, res = pcall(fn)
  if not ok then fail(name, "raised " .. tostring(res))
  elseif res then fail(name, res)
  else pass(name) end
end

local ok_lt, lt = pcall(require, "luatile")
if not ok_lt then
  fail("binding_load", lt)
  return
end
pass("binding_load")

local data = require "tune.data"
math.randomseed(7)

local dev = assert(lt.open("cpu"))

check("binding_device_info", function()
  if lt.count("cpu") ~= 1 then return "count(cpu) ~= 1" end
  if dev.backend ~= "cpu" or dev.name == "" or not (dev.cache_bytes > 0) then
    return string.format("backend %s name '%s' cache %s", dev.backend, dev.name, tostring(dev.cache_bytes))
  end
end)

check("binding_open_errors", function()
  local d, msg, code = lt.open("tpu")
  if d or code ~= lt.C.LT_ERR_INVALID or not msg:find("tpu") then return "tpu: " .. tostring(msg) end
  d, msg, code = lt.open("cpu", 5)
  if d or code ~= lt.C.LT_ERR_NO_DEVICE or not msg:find("no CPU device 5") then return "cpu 5: " .. tostring(msg) end
end)

check("binding_roundtrip", function()
  for _, n in ipairs({ 1, 13, 1001, 65537 }) do
    local src = data.random("f32", n)
    local a = assert(dev:alloc(n * 4))
    local b = assert(dev:alloc(n * 4))
    assert(b:fill(0xFF))
    assert(a:upload(src.raw))
    assert(b:copy_from(a))
    local back = data.empty("f32", n)
    assert(b:download(back.raw))
    data.decode(back)
    for i = 0, n - 1 do
      if back.val[i] ~= src.val[i] then return string.format("n %d: [%d] %g ~= %g", n, i, back.val[i], src.val[i]) end
    end
    assert(a:free())
    assert(b:free())
  end
end)

check("binding_memory_errors", function()
  local buf, msg, code = dev:alloc(0)
  if buf or code ~= lt.C.LT_ERR_INVALID then return "alloc(0): " .. tostring(msg) end
end)

local scale_so = bdir .. "/scale.so"
local scale_h = lt.slurp(here .. "fixtures/scale.h")

check("binding_module_errors", function()
  local m, msg, code = dev:load(bdir .. "/does-not-exist.so")
  if m or code ~= lt.C.LT_ERR_LOAD or not msg:find("does%-not%-exist") then return "missing: " .. tostring(msg) end
  m, msg, code = dev:load(here .. "fixtures/scale.c")
  if m or code ~= lt.C.LT_ERR_LOAD then return "not a library: " .. tostring(msg) end
  m = assert(dev:load(scale_so))
  local p
  p, msg, code = m:symbol("no_such_launcher")
  if p or code ~= lt.C.LT_ERR_SYMBOL or not msg:find("no_such_launcher") then return "symbol: " .. tostring(msg) end
  local f
  f, msg = m:launcher("lt_scale_f32", "int other(void);")
  if f or not msg:find("no prototype") then return "launcher without prototype: " .. tostring(msg) end
  m:unload()
end)

check("binding_parse_header", function()
  local sig = assert(lt.parse_header(scale_h))
  local kinds = {}
  for i, p in ipairs(sig.params) do kinds[i] = p.name .. ":" .. p.kind end
  local got = table.concat(kinds, " ")
  if sig.name ~= "lt_scale_f32" or got ~= "X:input Y:output N:int a:float stream:stream" then
    return sig.name .. " " .. got
  end
  local g = assert(lt.parse_header([[
#include <stdint.h>
/* comment */ int k_f16(const void *A, void *B, int M, int64_t A_stride0, float eps, void *stream);]]))
  kinds = {}
  for i, p in ipairs(g.params) do kinds[i] = p.kind end
  if table.concat(kinds, ",") ~= "input,output,int,int64,float,stream" then return table.concat(kinds, ",") end
end)

-- Launches scale through the FFI on device d and checks the result.
local function launch_check(d, so)
  local m = assert(d:load(so))
  local f = assert(m:launcher("lt_scale_f32", scale_h))
  local n, pad = 1003, 11
  local x = data.random("f32", n)
  local X = assert(d:alloc(n * 4))
  local Y = assert(d:alloc((n + pad) * 4))
  assert(X:upload(x.raw))
  assert(Y:fill(0xFF))
  local rc = f(X.ptr, Y.ptr, n, 1.5, nil)
  if rc ~= 0 then return "launch returned " .. rc .. ": " .. d:launch_error(rc) end
  assert(d:sync())
  local y = data.empty("f32", n + pad)
  assert(Y:download(y.raw))
  data.decode(y)
  for i = 0, n - 1 do
    if math.abs(y.val[i] - 1.5 * x.val[i]) > 1e-6 * math.abs(x.val[i]) then
      return string.format("Y[%d] = %g, want %g", i, y.val[i], 1.5 * x.val[i])
    end
  end
  for i = n, n + pad - 1 do
    if y.val[i] == y.val[i] then return "Y past the end was written" end
  end
  rc = f(nil, nil, n, 1.0, nil)
  if rc == 0 then return "NULL pointers accepted" end
  -- timing through lt_bench, rotating two buffer pairs
  local X2, Y2 = assert(d:alloc(n * 4)), assert(d:alloc(n * 4))
  local calls = 0
  local res, err = d:bench(function(i)
    calls = calls + 1
    if i % 2 == 0 then return f(X.ptr, Y.ptr, n, 1.5, nil) end
    return f(X2.ptr, Y2.ptr, n, 1.5, nil)
  end, 2, 15)
  if not res then return "bench: " .. err end
  if not (res.median_ms > 0 and res.min_ms <= res.median_ms and res.median_ms <= res.max_ms and res.reps == 15
          and calls == 17) then
    return string.format("bench median %g min %g max %g reps %d calls %d", res.median_ms, res.min_ms,
      res.max_ms, res.reps, calls)
  end
  local bad, berr, bcode = d:bench(function(i) return i == 3 and f(nil, nil, n, 1.0, nil) or 0 end, 1, 5)
  if bad or bcode ~= lt.C.LT_ERR_LAUNCH or not berr:find("call 3") then return "failing bench: " .. tostring(berr) end
  m:unload()
end

check("binding_launch_and_bench", function() return launch_check(dev, scale_so) end)

check("binding_gc_order", function()
  -- drop a device, its buffers and a module together: finalizers may run in
  -- any order and the C reference counts must keep that safe
  for _ = 1, 20 do
    local d = assert(lt.open("cpu"))
    local bufs = {}
    for j = 1, 5 do bufs[j] = assert(d:alloc(1000 + j)) end
    local m = assert(d:load(scale_so))
    assert(m:symbol("lt_scale_f32"))
    d, bufs, m = nil, nil, nil
    collectgarbage()
  end
  local d = assert(lt.open("cpu"))
  local b = assert(d:alloc(64))
  d:close()
  assert(b:fill(1))   -- the buffer still holds the device
  assert(b:free())
  collectgarbage()
end)

for _, be in ipairs({ { "cuda", "CUDA", "scale_cuda.so" }, { "hip", "HIP", "scale_hip.so" } }) do
  local name, label, so = be[1], be[2], be[3]
  local n, why = lt.count(name)
  if n and n > 0 then
    skip("binding_" .. name .. "_absent_is_clean", "a device is present")
    local d = assert(lt.open(name))
    if io.open(bdir .. "/" .. so, "rb") then
      check("binding_" .. name .. "_launch_and_bench", function() return launch_check(d, bdir .. "/" .. so) end)
    else
      skip("binding_" .. name .. "_launch_and_bench", so .. " was not built")
    end
  else
    check("binding_" .. name .. "_absent_is_clean", function()
      local d, msg, code = lt.open(name)
      if d then return "opened a device" end
      if n == 0 and (code ~= lt.C.LT_ERR_NO_DEVICE or not msg:find(label)) then return msg end
      if not n and code ~= lt.C.LT_ERR_NO_RUNTIME then return msg end
    end)
    skip("binding_" .. name .. "_launch_and_bench", "no " .. label .. " device (" .. tostring(why or "") .. ")")
  end
end

check("tune_data_codecs", function()
  for _, dt in ipairs({ "f16", "bf16", "f32", "i32" }) do
    local t = data.random(dt, 4000)
    local back = data.decode({ dtype = dt, n = t.n, raw = t.raw, val = ffi.new("double[?]", t.n) })
    for i = 0, t.n - 1 do
      if t.val[i] == 0 then return dt .. ": drew a zero" end
      if back.val[i] ~= t.val[i] then return string.format("%s [%d]: %g decodes to %g", dt, i, t.val[i], back.val[i]) end
    end
  end
  for _, dt in ipairs({ "f16", "bf16", "f32" }) do
    local p = data.decode(data.empty(dt, 3))
    if p.val[1] == p.val[1] then return dt .. ": poison did not decode to NaN" end
  end
  if data.f16_value(0x3C00) ~= 1 or data.f16_value(0x0001) ~= 2 ^ -24 or data.f16_value(0xFC00) ~= -math.huge then
    return "f16 special values"
  end
end)

check("tune_data_compare", function()
  local want = data.random("f32", 100)
  local got = data.random("f32", 100)
  for i = 0, 99 do got.val[i] = want.val[i] * (1 + 1e-6) end
  if not data.compare(got, want, data.tolerance.f32) then return "equal arrays compared unequal" end
  got.val[42] = want.val[42] + 0.5
  got.val[7] = 0 / 0
  local ok, why = data.compare(got, want, data.tolerance.f32)
  if ok or not why:find("2 of 100") or not why:find("1 NaN") or not why:find("%[7%]") then return tostring(why) end
end)

check("tune_harness_plan", function()
  local harness = require "tune.harness"
  local v = { params = {
    X = { kind = "tensor", dtype = "f16", shape = { "R", "C" }, strides = { "sx", 1 } },
    Y = { kind = "tensor", dtype = "f32", shape = { "R", 8 } } } }
  local sig = assert(lt.parse_header(
    "int k(const void *X, void *Y, int R, int C, int64_t sx, float eps, void *stream);"))
  local plan = assert(harness.plan(v, sig, { R = 5, C = 7 }, { eps = 0.25 }))
  local vals = {}
  for i = 3, 6 do vals[#vals + 1] = tostring(plan.args[i].value) end
  if table.concat(vals, ",") ~= "5,7,7,0.25" then return "args " .. table.concat(vals, ",") end
  if plan.bytes ~= 5 * 7 * 2 + 5 * 8 * 4 then return "bytes " .. plan.bytes end
  local p2, err = harness.plan(v, sig, { R = 5 })
  if p2 or not err:find("no size C") then return "missing size: " .. tostring(err) end
  if harness.rotation(plan, 1e6) < 2 or harness.rotation({ bytes = 1e9 }, 1e6) ~= 1 then return "rotation" end
end)

check("tune_softmax_reference", function()
  local reference = require "tune.reference"
  local x = data.random("f32", 6)
  local plan = { inputs = { { name = "X", n = 6, dims = { 2, 3 }, dtype = "f32" } },
                 outputs = { { name = "Y", n = 6, dims = { 2, 3 }, dtype = "f32" } } }
  local outs = assert(reference.run_lua("softmax", nil, plan, { X = x }, {}, {}))
  for r = 0, 1 do
    local s, m = 0, -math.huge
    for c = 0, 2 do m = math.max(m, x.val[r * 3 + c]) end
    for c = 0, 2 do s = s + math.exp(x.val[r * 3 + c] - m) end
    for c = 0, 2 do
      local want = math.exp(x.val[r * 3 + c] - m) / s
      if math.abs(outs.Y.val[r * 3 + c] - want) > 1e-12 then return "softmax value" end
    end
  end
end)

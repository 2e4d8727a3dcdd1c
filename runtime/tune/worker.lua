--[[
worker.lua: checks and times built configs, in a process of its own.

The tuner (tune.lua) writes a job file and starts `luajit tune.lua --worker
FILE`; the worker opens the device, and for each item prints "start ID",
checks the module at every check shape against the reference, times it if
correct, writes the result to DIR/ID.lua and prints "done ID".  A kernel
that crashes the process, or a GPU fault that leaves the context unusable
(CUDA errors are sticky), thus costs one config: the tuner marks the item
that started without finishing as crashed and starts a new worker for the
rest.  After any launch or device failure the worker exits by itself for
the same reason.  A failure to open the device prints "fatal MESSAGE".
]]
local lt = require "luatile"
local probe = require "tune.probe"
local data = require "tune.data"
local harness = require "tune.harness"
local reference = require "tune.reference"
local build = require "tune.build"

local M = {}

-- Reference outputs of one variant at one check shape, computed once per
-- worker; returns { ins, outs } or { err }.
local function reference_outputs(J, st, v, shape, ci, plan)
  local key = v.name .. "|" .. probe.shape_text(shape)
  if st.refs[key] then return st.refs[key] end
  math.randomseed(J.seed * 1000 + ci)
  local ins = harness.random_inputs(plan)
  local outs, err
  if J.ref_kind ~= "c" then
    outs, err = reference.run_lua(J.ref_kind, st.ref_fn, plan, ins, shape, v.values)
  else
    local job = J.ref_jobs[v.name]
    if not job or job.status ~= "ok" then
      err = "the target-c reference did not build (" .. (job and job.status or "?") .. ": " ..
            (job and job.log or "") .. ")"
    else
      st.cpu = st.cpu or assert(lt.open("cpu"))
      local mod, merr = st.cpu:load(job.so)
      if not mod then err = merr else
        local fn, sig = mod:launcher(v.name, lt.slurp(job.header) or "")
        if not fn then err = "reference: " .. tostring(sig) else
          local rplan, perr = harness.plan(v, sig, shape, J.scalars)
          local h, herr
          if rplan then h, herr = harness.new(st.cpu, fn, rplan, 1) end
          if not h then err = perr or herr else
            h:upload(ins)
            h:poison(1)
            local rc = h:launch(1)
            if rc ~= 0 then err = "the target-c reference failed: " .. st.cpu:launch_error(rc)
            else outs, err = h:outputs(1) end
            h:free()
          end
        end
        mod:unload()
      end
    end
  end
  local entry = { ins = ins, outs = outs, err = err }
  st.refs[key] = entry
  return entry
end

-- Checks one module at every check shape; nil, or stage and reason.
local function check(J, st, item, v, fn, sig)
  local dev = st.dev
  for ci, shape in ipairs(item.checks) do
    local plan, perr = harness.plan(v, sig, shape, J.scalars)
    if not plan then return "shape", perr end
    local ref = reference_outputs(J, st, v, shape, ci, plan)
    if ref.err then return "reference", ref.err end
    local h, herr = harness.new(dev, fn, plan, 1)
    if not h then return "alloc", herr end
    local ok, err = h:upload(ref.ins)
    if ok then ok, err = h:poison(1) end
    if not ok then h:free() return "device", err end
    local rc = h:launch(1)
    if rc ~= 0 then h:free() return "launch", dev:launch_error(rc) .. " at " .. probe.shape_text(shape) end
    local sok, serr = dev:sync()
    if not sok then h:free() return "launch", serr end
    local outs, oerr = h:outputs(1)
    h:free()
    if not outs then return "device", oerr end
    for _, t in ipairs(plan.outputs) do
      local tol = J.tolerance and J.tolerance[t.dtype] or data.tolerance[t.dtype]
      local good, why = data.compare(outs[t.name], ref.outs[t.name], tol)
      if not good then return "wrong", t.name .. " at " .. probe.shape_text(shape) .. ": " .. why end
    end
  end
  return nil
end

-- Times one correct module at the tuned shape: a result table, or nil,
-- stage and reason.  Without --reps, a short first run sizes the count to
-- about 0.3 s (5 to 100 repetitions).
local function time(J, st, item, v, fn, sig)
  local dev = st.dev
  local plan, perr = harness.plan(v, sig, item.shape, J.scalars)
  if not plan then return nil, "shape", perr end
  local sets = harness.rotation(plan, dev.cache_bytes, J.backend == "cpu" and 2 ^ 30 or 2 ^ 31)
  local h, herr = harness.new(dev, fn, plan, sets)
  if not h then return nil, "alloc", herr end
  math.randomseed(J.seed * 1000 + 999)
  local ok, err = h:upload(harness.random_inputs(plan))
  if not ok then h:free() return nil, "device", err end
  local launch = function(i) return h:launch(i % sets + 1) end
  local warmup, reps = J.warmup, J.reps
  if not reps then
    local est, eerr = dev:bench(launch, 1, 3)
    if not est then h:free() return nil, "launch", eerr end
    reps = math.max(5, math.min(100, math.floor(300 / math.max(est.median_ms, 1e-3))))
    warmup = warmup or math.max(2, math.min(20, math.floor(reps / 5)))
  end
  local res, berr = dev:bench(launch, warmup or 10, reps)
  h:free()
  if not res then return nil, "launch", berr end
  local bytes = v.bytes[item.si] or plan.bytes
  return {
    median_ms = res.median_ms, min_ms = res.min_ms, max_ms = res.max_ms, reps = res.reps,
    sets = sets, gbps = bytes / (res.median_ms * 1e6),
    tflops = v.flops[item.si] and v.flops[item.si] / (res.median_ms * 1e9) or nil,
  }
end

-- One item: load, check, time, unload.  Returns the result table.
local function run_item(J, st, item)
  local v = J.variants[item.variant]
  local mod, merr = st.dev:load(item.so)
  if not mod then return { status = "load", why = merr } end
  local res
  local fn, sig = mod:launcher(item.variant, lt.slurp(item.header) or "")
  if not fn then res = { status = "header", why = tostring(sig) } else
    local stage, why = check(J, st, item, v, fn, sig)
    if stage then res = { status = stage, why = why } else
      local t, tstage, twhy = time(J, st, item, v, fn, sig)
      if t then t.status = "ok"; res = t else res = { status = tstage, why = twhy } end
    end
  end
  mod:unload()
  return res
end

-- Entry point: `luajit tune.lua --worker FILE` (see the top of the file).
function M.main(path)
  local text = assert(lt.slurp(path), "cannot read " .. path)
  local J = assert(load(text, "job", "t", {}))()
  local st = { refs = {} }
  local err
  st.dev, err = lt.open(J.backend, J.device)
  if not st.dev then
    io.write("fatal ", (tostring(err):gsub("\n", " ")), "\n")
    io.flush()
    os.exit(1)
  end
  if J.ref_kind == "function" then
    local kt = probe.load_kernel(J.kernel)
    st.ref_fn = kt and kt.tune and kt.tune.reference
  end
  for _, item in ipairs(J.items) do
    io.write("start ", item.id, "\n")
    io.flush()
    local res = run_item(J, st, item)
    build.write(J.results .. "/" .. item.id .. ".lua", "return " .. probe.serialize(res) .. "\n")
    io.write("done ", item.id, "\n")
    io.flush()
    if res.status == "launch" or res.status == "device" then os.exit(3) end
  end
  os.exit(0)
end

return M

--[[
tune.lua: the autotuner.

  luajit runtime/tune.lua dsl/kernels/softmax.lua --target c --shape R=4096,C=4096

1. Reads the kernel file's `tune` table (tune/probe.lua): the search space,
   the constraint that prunes it, the shapes.  --space KEY=a,b replaces one
   key's values, so a quick run can try two or three configs.
2. For every variant and surviving config, generates the variant with gen
   (-D KEY=VALUE) and compiles it into a module, several at a time
   (tune/build.lua).  A config that does not generate or compile is reported
   and skipped.
3. Checks every built config on random inputs against the reference
   (tune/reference.lua) at ragged check shapes with poisoned outputs, then
   times the correct ones at the tuned shape (median of N after warm-up,
   rotating copies of the inputs; runtime lt_bench).
4. Prints a ranked table per variant and shape and writes the winner to the
   tuned-config file (tune/cache.lua), which gen reads for that target,
   device and shape bucket.

Every result is cached under a hash of what it depends on (kernel text,
gen binary, config, target, compiler version, device name, shape), so a
second identical run builds and times nothing and says so.

Exit status: 0 when every variant and shape has a winner, 1 when one has
none or the run could not start (no device, no gen), 2 for a usage error.
]]

-- find the runtime's Lua modules next to this file
local here = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./")
package.path = here .. "?.lua;" .. package.path

local lt = require "luatile"
local probe = require "tune.probe"
local build = require "tune.build"
local cache = require "tune.cache"
local data = require "tune.data"
local harness = require "tune.harness"
local reference = require "tune.reference"
local report = require "tune.report"

local TUNER_VERSION = "1"   -- part of every result key: bump when checks change
local ROOT = lt.root

local USAGE = [[
usage: luajit runtime/tune.lua KERNEL.lua --target T [--shape K=V,...] [options]
  --target T           c, sm80, sm90a, gfx90a, gfx942, gfx1100 ...
  --shape K=V,...      shape to tune for (repeatable; default: tune.shapes)
  --space KEY=a,b,...  replace the values of one tune.space key (repeatable)
  --variant NAME       tune only this variant (repeatable; default: all)
  --check-shape K=V,.. shape to check results on (repeatable; default:
                       tune.check_shapes, else ragged shapes made from --shape)
  --device N           device index (default 0)
  --jobs N             parallel builds (default: number of cores)
  --warmup N --reps N  timing repetitions (default: fitted to ~0.3 s per config)
  --max-configs N      try at most N configs per variant (after pruning)
  --out FILE           tuned-config file (default: KERNEL_DIR/../tuned/NAME.lua)
  --cache DIR          result cache (default: build/tune/cache)
  --work DIR           build folder (default: build/tune/work)
  --no-cache           neither read nor write the cache
  --gen PATH           gen binary (default: $LT_GEN, else build/gen)
  --arch A             compiler GPU arch (default: the device's, else the target's)
  --build-only         generate and compile only (no device needed)
  --seed N             random seed of the check inputs (default 1)
]]

-- Prints a message and exits with code.
local function die(code, fmt, ...)
  io.stderr:write("tune: ", string.format(fmt, ...), "\n")
  os.exit(code)
end

-- Command line -> options table; exits 2 on a usage error.
local function parse_args(argv)
  local o = { shapes = {}, space = {}, variants = {}, checks = {}, device = 0, seed = 1 }
  local i = 1
  local function val(name)
    local v = argv[i + 1]
    if not v then die(2, "%s needs a value\n%s", name, USAGE) end
    i = i + 2
    return v
  end
  local function num(name)
    local v = tonumber(val(name))
    if not v or v < 0 or v ~= math.floor(v) then die(2, "%s needs a whole number", name) end
    return v
  end
  while i <= #argv do
    local a = argv[i]
    if a == "--target" then o.target = val(a)
    elseif a == "--shape" or a == "--check-shape" then
      local s, err = probe.parse_shape(val(a))
      if not s then die(2, "%s", err) end
      table.insert(a == "--shape" and o.shapes or o.checks, s)
    elseif a == "--space" then
      local k, vals = probe.parse_space(val(a))
      if not k then die(2, "%s", vals) end
      o.space[k] = vals
    elseif a == "--variant" then o.variants[val(a)] = true
    elseif a == "--device" then o.device = num(a)
    elseif a == "--jobs" then o.jobs = num(a)
    elseif a == "--warmup" then o.warmup = num(a)
    elseif a == "--reps" then o.reps = num(a)
    elseif a == "--max-configs" then o.max_configs = num(a)
    elseif a == "--seed" then o.seed = num(a)
    elseif a == "--out" then o.out = val(a)
    elseif a == "--cache" then o.cache = val(a)
    elseif a == "--work" then o.work = val(a)
    elseif a == "--gen" then o.gen = val(a)
    elseif a == "--arch" then o.arch = val(a)
    elseif a == "--no-cache" then o.no_cache = true; i = i + 1
    elseif a == "--build-only" then o.build_only = true; i = i + 1
    elseif a == "-h" or a == "--help" then io.write(USAGE) os.exit(0)
    elseif a:sub(1, 1) == "-" then die(2, "unknown option %s\n%s", a, USAGE)
    elseif o.kernel then die(2, "one kernel file at a time (%s and %s)", o.kernel, a)
    else o.kernel = a; i = i + 1 end
  end
  if not o.kernel or not o.target then die(2, "need a kernel file and --target\n%s", USAGE) end
  if not build.ext(o.target) then die(2, "unknown target '%s'", o.target) end
  if o.reps and o.reps < 1 then die(2, "--reps must be at least 1") end
  return o
end

-- A Lua 5.4 interpreter for the probe (the dialect of kernel files), or nil.
local function find_lua54()
  local env = os.getenv("LT_LUA54")
  if env and env ~= "" then return env end
  for _, c in ipairs({ "lua5.4", "lua54" }) do
    if build.have(c) then return c end
  end
  local out, ok = build.capture("lua -v")
  if ok and out:match("Lua 5%.4") then return "lua" end
  return nil
end

-- The kernel file's declarations: through Lua 5.4 when there is one,
-- else loaded in this LuaJIT.  Exits 1 on a bad file.
local function run_probe(o)
  local lua54 = find_lua54()
  if lua54 then
    local cmd = { build.quote(lua54), build.quote(here .. "tune/probe.lua"), build.quote(o.kernel) }
    for _, s in ipairs(o.shapes) do
      cmd[#cmd + 1] = "--shape " .. build.quote(probe.shape_text(s))
    end
    for _, k in ipairs(probe.sorted_keys(o.space)) do
      local vals = {}
      for j, v in ipairs(o.space[k]) do vals[j] = probe.value_text(v) end
      cmd[#cmd + 1] = "--space " .. build.quote(k .. "=" .. table.concat(vals, ","))
    end
    local out, ok = build.capture(table.concat(cmd, " "))
    if not ok then die(1, "%s", (out:gsub("^error: ", ""):gsub("\n$", ""))) end
    local fn = load(out, "probe", "t", {})
    local okp, info = pcall(fn or error)
    if not okp or type(info) ~= "table" then die(1, "cannot read the probe's answer:\n%s", out) end
    return info
  end
  local info, err = probe.probe(o.kernel, { shapes = o.shapes, space = o.space })
  if not info then
    die(1, "%s\n(no Lua 5.4 interpreter found for kernel files; set LT_LUA54 or install lua5.4)", err)
  end
  return info
end

-- The shapes results are checked on: given, declared, or derived from the
-- tuned shape (every size cut to 67, and the shape itself when small, else
-- every size cut to 1031: ragged against usual tile sizes).
local function check_shapes(o, info, shape)
  if #o.checks > 0 then return o.checks end
  if type(info.check_shapes) == "table" and #info.check_shapes > 0 then return info.check_shapes end
  local small, mid, prod = {}, {}, 1
  for k, v in pairs(shape) do
    small[k] = math.min(v, 67)
    mid[k] = math.min(v, 1031)
    prod = prod * v
  end
  if prod <= 2 ^ 22 then mid = shape end
  local list = { small }
  if probe.shape_text(mid) ~= probe.shape_text(small) then list[2] = mid end
  return list
end

-- Number of cores, for --jobs.
local function cores()
  local out, ok = build.capture("getconf _NPROCESSORS_ONLN")
  return ok and tonumber(out:match("%d+")) or 2
end

-- Absolute form of a path (the build scripts run in their own folders).
local function abspath(p)
  if p:sub(1, 1) == "/" then return p end
  local dir, base = p:match("^(.*)/([^/]*)$")
  if not dir then dir, base = ".", p end
  local out, ok = build.capture("cd " .. build.quote(dir) .. " && pwd")
  if not ok then return p end
  return out:gsub("\n$", "") .. "/" .. base
end

local o = parse_args(arg)
o.kernel = abspath(o.kernel)
local info = run_probe(o)
local kname = info.name
if #info.shapes == 0 then die(2, "no shape: give --shape K=V,... or tune.shapes in %s", o.kernel) end

-- gen, its hash, the kernel's hash, the toolchain
local gen = o.gen or os.getenv("LT_GEN")
if not gen or gen == "" then gen = ROOT .. "build/gen" end
gen = abspath(gen)
local gen_hash = cache.hash_file(gen)
if not gen_hash then die(1, "no gen at %s (build it, or pass --gen / set LT_GEN)", gen) end
local kernel_hash = assert(cache.hash_file(o.kernel))
local toolchain, terr = build.toolchain(o.target)
if not toolchain then die(1, "%s", terr) end
local c_toolchain = o.target == "c" and toolchain or build.toolchain("c")

-- the device
local dev, device_name
local backend = assert(lt.backend_for_target(o.target))
if o.build_only then
  device_name = "build-only"
else
  local err
  dev, err = lt.open(backend, o.device)
  if not dev then
    die(1, "cannot open %s device %d: %s\n(--build-only builds without a device)", backend, o.device, err)
  end
  device_name = dev.name
end
local arch = o.arch or (dev and dev.arch ~= "" and dev.arch) or nil
if arch and o.target == "sm90a" and arch == "sm_90" then arch = "sm_90a" end
local compile = build.compiler(o.target, arch)

local work = abspath(o.work or (ROOT .. "build/tune/work"))
local cache_dir = o.cache or (ROOT .. "build/tune/cache")
local out_file = o.out or ((o.kernel:match("^(.*)/[^/]*$") or ".") .. "/../tuned/" .. kname .. ".lua")

-- variants to tune
local variants = {}
for _, v in ipairs(info.variants) do
  if next(o.variants) == nil or o.variants[v.name] then variants[#variants + 1] = v end
end
if #variants == 0 then
  local names = {}
  for _, v in ipairs(info.variants) do names[#names + 1] = v.name end
  die(2, "no such variant (the kernel has: %s)", table.concat(names, ", "))
end

-- a custom reference function needs the kernel loaded here
local ref_fn
if info.reference == "function" then
  local kt, err = probe.load_kernel(o.kernel)
  if kt then ref_fn = kt.tune.reference
  else io.stderr:write("tune: tune.reference is a function, but LuaJIT cannot load ", o.kernel,
                       " (", err, "); checking against target c instead\n") end
end
local ref_kind = reference.kind(info, ref_fn ~= nil)

-- -D list for a config and a variant
local function defines(config, v)
  local d = {}
  for _, k in ipairs(probe.sorted_keys(config)) do d[#d + 1] = k .. "=" .. probe.value_text(config[k]) end
  for _, k in ipairs(probe.sorted_keys(v.values)) do d[#d + 1] = k .. "=" .. probe.value_text(v.values[k]) end
  return d
end

print(string.format("tuning %s (%s) for target %s on %s", kname, o.kernel, o.target, device_name))
print(string.format("  toolchain: %s", toolchain))
print(string.format("  reference: %s", ref_kind == "c" and "the variant generated for target c, default config"
  or ref_kind == "function" and "tune.reference in the kernel file" or ("built-in " .. ref_kind)))

-- every (variant, config) job and (variant, config, shape) result key
local jobs, results, missing, total = {}, {}, {}, 0
for _, v in ipairs(variants) do
  local configs = v.configs
  if o.max_configs and #configs > o.max_configs then
    local cut = {}
    for i = 1, o.max_configs do cut[i] = configs[i] end
    configs = cut
  end
  v.tried = configs
  print(string.format("  %s: %d configs%s", v.name, #configs,
    #v.pruned > 0 and string.format(" (%d pruned by the constraint)", #v.pruned) or ""))
  for _, c in ipairs(configs) do
    local ctext = probe.config_text(c)
    local jkey = cache.hash(table.concat({ TUNER_VERSION, kernel_hash, gen_hash, toolchain, o.target,
      arch or "", v.name, ctext }, "\n"))
    local job = { dir = work .. "/" .. kname .. "-" .. jkey, gen = gen, kernel = o.kernel,
                  target = o.target, variant = v.name, defines = defines(c, v), compile = compile,
                  config = c, ctext = ctext, v = v }
    jobs[#jobs + 1] = job
    for si, shape in ipairs(info.shapes) do
      local checks = check_shapes(o, info, shape)
      local ctexts = {}
      for i, s in ipairs(checks) do ctexts[i] = probe.shape_text(s) end
      local rkey = cache.hash(table.concat({ jkey, device_name, probe.shape_text(shape),
        table.concat(ctexts, ";"), ref_kind, o.seed, probe.serialize(info.tolerance or {}),
        o.build_only and "build-only" or "", o.warmup or "", o.reps or "" }, "\n"))
      local r = { job = job, shape = shape, si = si, key = rkey, checks = checks }
      results[#results + 1] = r
      total = total + 1
      local hit = not o.no_cache and cache.get(cache_dir, rkey)
      if hit then
        r.res, r.cached = hit, true
      else
        missing[#missing + 1] = r
        job.needed = true
      end
    end
  end
end

-- build what is missing, plus the target-c reference modules
local ref_jobs = {}
local todo = {}
for _, job in ipairs(jobs) do
  if job.needed then
    build.prepare(job)
    todo[#todo + 1] = job
  end
end
if ref_kind == "c" and #missing > 0 and not o.build_only then
  local need = {}
  for _, r in ipairs(missing) do need[r.job.v.name] = r.job.v end
  for name, v in pairs(need) do
    local d = defines({}, v)
    local rkey = cache.hash(table.concat({ TUNER_VERSION, kernel_hash, gen_hash, c_toolchain or "", "c",
      name, "reference" }, "\n"))
    local job = { dir = work .. "/" .. kname .. "-ref-" .. rkey, gen = gen, kernel = o.kernel,
                  target = "c", variant = name, defines = d, compile = build.compiler("c"),
                  ctext = "reference", v = v }
    build.prepare(job)
    ref_jobs[name] = job
    todo[#todo + 1] = job
  end
end

if #missing == 0 then
  print(string.format("cache: all %d results are in the cache (%s); nothing to build or time", total, cache_dir))
else
  if #missing < total then
    print(string.format("cache: %d of %d results from the cache", total - #missing, total))
  end
  local started = os.time()
  build.run(todo, o.jobs or cores(), function(done, n, job)
    report.progress("building", done, n, job and (job.variant .. " " .. job.ctext .. ": " .. (job.status or "")))
  end)
  print(string.format("  built %d modules in %d s", #todo, os.time() - started))
end

-- reference outputs per (variant, check shape), computed once
local ref_cache = {}
local cpu_dev
local function reference_outputs(v, shape, ci, sig_for_c, plan)
  local key = v.name .. "|" .. probe.shape_text(shape)
  if ref_cache[key] then return ref_cache[key] end
  math.randomseed(o.seed * 1000 + ci)
  local ins = harness.random_inputs(plan)
  local outs, err
  if ref_kind ~= "c" then
    outs, err = reference.run_lua(ref_kind, ref_fn, plan, ins, shape, v.values)
  else
    local job = ref_jobs[v.name]
    if not job or job.status ~= "ok" then
      err = "the target-c reference did not build (" .. (job and job.status or "?") .. ": " ..
            (job and job.log or "") .. ")"
    else
      cpu_dev = cpu_dev or assert(lt.open("cpu"))
      local mod, merr = cpu_dev:load(job.so)
      if not mod then err = merr else
        local hdr = lt.slurp(job.header)
        local fn, sig = mod:launcher(v.name, hdr or "")
        if not fn then err = "reference: " .. tostring(sig) else
          local rplan, perr = harness.plan(v, sig, shape, info.scalars)
          local h = rplan and harness.new(cpu_dev, fn, rplan, 1)
          if not h then err = perr or "reference: cannot allocate" else
            h:upload(ins)
            h:poison(1)
            local rc = h:launch(1)
            if rc ~= 0 then err = "the target-c reference failed: " .. cpu_dev:launch_error(rc)
            else outs, err = h:outputs(1) end
            h:free()
          end
        end
        mod:unload()
      end
    end
  end
  local entry = { ins = ins, outs = outs, err = err }
  ref_cache[key] = entry
  return entry
end

-- check one built config at every check shape; nil or (stage, why)
local function check(r, mod, fn, sig)
  for ci, shape in ipairs(r.checks) do
    local plan, perr = harness.plan(r.job.v, sig, shape, info.scalars)
    if not plan then return "shape", perr end
    local ref = reference_outputs(r.job.v, shape, ci, sig, plan)
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
      local tol = info.tolerance and info.tolerance[t.dtype] or data.tolerance[t.dtype]
      local good, why = data.compare(outs[t.name], ref.outs[t.name], tol)
      if not good then return "wrong", t.name .. " at " .. probe.shape_text(shape) .. ": " .. why end
    end
  end
  return nil
end

-- time one correct config at its shape; result fields or (nil, stage, why)
local function time(r, fn, sig)
  local plan, perr = harness.plan(r.job.v, sig, r.shape, info.scalars)
  if not plan then return nil, "shape", perr end
  local sets = harness.rotation(plan, dev.cache_bytes, backend == "cpu" and 2 ^ 30 or 2 ^ 31)
  local h, herr = harness.new(dev, fn, plan, sets)
  if not h then return nil, "alloc", herr end
  math.randomseed(o.seed * 1000 + 999)
  local ok, err = h:upload(harness.random_inputs(plan))
  if not ok then h:free() return nil, "device", err end
  local launch = function(i) return h:launch(i % sets + 1) end
  local warmup, reps = o.warmup, o.reps
  if not reps then
    local est, eerr = dev:bench(launch, 1, 3)
    if not est then h:free() return nil, "launch", eerr end
    reps = math.max(5, math.min(100, math.floor(300 / math.max(est.median_ms, 1e-3))))
    warmup = warmup or math.max(2, math.min(20, math.floor(reps / 5)))
  end
  local res, berr = dev:bench(launch, warmup or 10, reps)
  h:free()
  if not res then return nil, "launch", berr end
  local si = r.si
  local bytes = r.job.v.bytes[si] or plan.bytes
  return {
    median_ms = res.median_ms, min_ms = res.min_ms, max_ms = res.max_ms, reps = res.reps,
    sets = sets, gbps = bytes / (res.median_ms * 1e6),
    tflops = r.job.v.flops[si] and r.job.v.flops[si] / (res.median_ms * 1e9) or nil,
  }
end

-- check and time everything missing
if #missing > 0 then
  local done, n = 0, 0
  for _, r in ipairs(missing) do
    if r.job.status == "ok" then n = n + 1 end
  end
  if not o.build_only and n > 0 then report.progress("timing", 0, n) end
  for _, r in ipairs(missing) do
    local job = r.job
    local res = { status = job.status or "gen", why = job.log }
    if job.status == "ok" and not o.build_only then
      local mod, merr = dev:load(job.so)
      if not mod then res = { status = "load", why = merr } else
        local fn, sig = mod:launcher(job.variant, lt.slurp(job.header) or "")
        if not fn then res = { status = "header", why = tostring(sig) } else
          local stage, why = check(r, mod, fn, sig)
          if stage then res = { status = stage, why = why } else
            local t, tstage, twhy = time(r, fn, sig)
            if t then t.status = "ok"; res = t else res = { status = tstage, why = twhy } end
          end
        end
        mod:unload()
      end
    elseif job.status == "ok" then
      res = { status = "built", why = job.so }
    end
    res.config = job.ctext
    r.res = res
    if not o.no_cache then cache.put(cache_dir, r.key, res) end
    if job.status == "ok" and not o.build_only then
      done = done + 1
      report.progress("timing", done, n, job.variant .. " " .. job.ctext .. ": " .. res.status)
    end
  end
end

-- tables and winners
local all_won = true
for _, v in ipairs(variants) do
  for si, shape in ipairs(info.shapes) do
    local rows = {}
    for _, r in ipairs(results) do
      if r.job.v == v and r.si == si then
        local res = r.res
        rows[#rows + 1] = { config = r.job.ctext, status = res.status, why = res.why,
          median_ms = res.median_ms, gbps = res.gbps, tflops = res.tflops, cached = r.cached,
          cfg = r.job.config }
      end
    end
    print("")
    local best = report.table(string.format("%s  shape %s  (%s, %s)", v.name, probe.shape_text(shape),
      o.target, device_name), rows)
    if o.build_only then
      -- nothing is timed: no winner to record
    elseif best then
      local entry = { target = o.target, device = device_name, variant = v.name,
        bucket = cache.bucket(shape), shape = probe.shape_text(shape), config = best.cfg,
        median_ms = best.median_ms, gbps = best.gbps, tflops = best.tflops,
        toolchain = toolchain, kernel_hash = kernel_hash }
      local ok, err = cache.write_tuned(out_file, kname, entry)
      if ok then print(string.format("  best: %s -> %s", best.config, out_file))
      else print("  best: " .. best.config .. " (cannot write " .. out_file .. ": " .. tostring(err) .. ")") end
    else
      all_won = false
    end
  end
end
if o.build_only then
  for _, r in ipairs(results) do
    if r.res.status ~= "built" then all_won = false end
  end
end
os.exit(all_won and 0 or 1)

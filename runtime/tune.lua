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
   rotating copies of the inputs; runtime lt_bench).  This runs in worker
   processes (tune/worker.lua), so a kernel that crashes, or leaves the GPU
   context broken, fails alone.
4. Prints a ranked table per variant and shape and writes the winner to the
   tuned-config file (tune/cache.lua); gen takes its config as the defaults
   for that target, device, variant and shape bucket (gen/lua/tuned.c).  The
   tuner's own gen runs pass --no-tuned: a config is exactly its -D list.

Every result is cached under a hash of what it depends on (kernel text,
gen binary, config, target, compiler version, device name, shape), so a
second identical run builds and times nothing and says so.

Exit status: 0 when every variant and shape has a winner, recorded in the
tuned-config file; 1 when one has none, a winner could not be recorded, or
the run could not start (no device, no gen); 2 for a usage error.
]]

-- find the runtime's Lua modules next to this file
local here = (debug.getinfo(1, "S").source:match("^@(.*/)") or "./")
package.path = here .. "?.lua;" .. package.path

local lt = require "luatile"
local probe = require "tune.probe"
local build = require "tune.build"
local cache = require "tune.cache"
local reference = require "tune.reference"
local report = require "tune.report"

if arg[1] == "--worker" then
  require("tune.worker").main(arg[2])
end

local TUNER_VERSION = "2"   -- part of every result key: bump when checks change (2: spills on the own arch)
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
    local cmd = { build.quote(lua54), build.quote(here .. "tune/probe.lua"), build.quote(o.kernel),
                  "--target " .. build.quote(o.target) }
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
  local info, err = probe.probe(o.kernel, { shapes = o.shapes, space = o.space, target = o.target })
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
local own_check, own_arch = build.own_arch_check(o.target, arch)

local work = o.work or (ROOT .. "build/tune/work")
os.execute("mkdir -p " .. build.quote(work))
work = abspath(work)
local cache_dir = o.cache or (ROOT .. "build/tune/cache")
local kdir = o.kernel:match("^(.*)/[^/]*$") or "."
local out_file = o.out or ((kdir:match("^(.*)/[^/]*$") or ".") .. "/tuned/" .. kname .. ".lua")

-- variants to tune
local variants = {}
for _, v in ipairs(info.variants) do
  if next(o.variants) == nil or o.variants[v.name] then variants[#variants + 1] = v end
end
if #variants == 0 then
  local names = {}
  for _, v in ipairs(info.variants) do names[#names + 1] = v.name end
  for _, l in ipairs(info.left_out or {}) do
    if o.variants[l.name] then die(2, "%s is unsupported on %s: %s", l.name, o.target, l.why) end
  end
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
for _, l in ipairs(info.left_out or {}) do
  print(string.format("  left out: %s (unsupported on %s: %s)", l.name, o.target, l.why))
end
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
                  own_check = own_check, own_arch = own_arch,
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

-- check and time what is missing, in worker processes (tune/worker.lua)
local function run_workers(items)
  local n = #items
  if n == 0 then return end
  local tmp = os.tmpname()   -- a unique name, so concurrent runs do not share a folder
  os.remove(tmp)
  local rdir = work .. "/results-" .. tmp:match("([^/]*)$")
  os.execute("mkdir -p " .. build.quote(rdir))
  local vtab = {}
  for _, v in ipairs(variants) do
    vtab[v.name] = { name = v.name, params = v.params, values = v.values, flops = v.flops, bytes = v.bytes }
  end
  local refs = {}
  for name, job in pairs(ref_jobs) do
    refs[name] = { so = job.so, header = job.header, status = job.status, log = job.log }
  end
  local byid, pending, done = {}, {}, 0
  for i, r in ipairs(items) do
    r.id = i
    byid[i] = r
    pending[#pending + 1] = r
  end
  local luajit = arg[-1] or "luajit"
  -- The worker sees only the chosen GPU, as its device 0: a CUDA module
  -- links its own (static) CUDA runtime, whose current device is 0, so the
  -- runtime's device and the module's must both be device 0.
  local wenv, wdevice = "", o.device
  local var = backend == "cuda" and "CUDA_VISIBLE_DEVICES" or backend == "hip" and "HIP_VISIBLE_DEVICES"
  if var then
    local ids = {}
    for id in (os.getenv(var) or ""):gmatch("[^,]+") do ids[#ids + 1] = id end
    wenv = var .. "=" .. build.quote(ids[o.device + 1] or tostring(o.device)) .. " "
    wdevice = 0
  end
  report.progress("timing", 0, n)
  while #pending > 0 do
    local list = {}
    for i, r in ipairs(pending) do
      list[i] = { id = r.id, so = r.job.so, header = r.job.header, variant = r.job.variant,
                  shape = r.shape, checks = r.checks, si = r.si }
    end
    local J = { backend = backend, device = wdevice, seed = o.seed, warmup = o.warmup, reps = o.reps,
                ref_kind = ref_kind, kernel = o.kernel, scalars = info.scalars, tolerance = info.tolerance,
                variants = vtab, ref_jobs = refs, items = list, results = rdir }
    local jfile = rdir .. "/job.lua"
    build.write(jfile, "return " .. probe.serialize(J) .. "\n")
    local log = rdir .. "/worker.log"
    local p = io.popen(wenv .. build.quote(luajit) .. " " .. build.quote(here .. "tune.lua") .. " --worker " ..
                       build.quote(jfile) .. " 2>>" .. build.quote(log))
    local started, fatal
    for line in p:lines() do
      local s = tonumber(line:match("^start (%d+)$") or "")
      local d = tonumber(line:match("^done (%d+)$") or "")
      if s then started = s end
      if line:match("^fatal ") then fatal = line:sub(7) end
      if d and byid[d] then
        local r = byid[d]
        local fn = loadfile(rdir .. "/" .. d .. ".lua", "t", {})
        r.res = fn and fn() or { status = "worker", why = "no result file" }
        started = nil
        done = done + 1
        report.progress("timing", done, n, r.job.variant .. " " .. r.job.ctext .. ": " .. r.res.status)
      end
    end
    p:close()
    if started and byid[started] and not byid[started].res then
      local f = io.open(log, "rb")
      local tail = f and f:read("*a"):match("([^\n]*)\n?$") or ""
      if f then f:close() end
      byid[started].res = { status = "crash", why = "the check process died" ..
        (tail ~= "" and (": " .. tail) or " (a fault in the kernel, or a signal)") }
      done = done + 1
      report.progress("timing", done, n, byid[started].job.ctext .. ": crash")
    end
    local rest = {}
    for _, r in ipairs(pending) do
      if not r.res then rest[#rest + 1] = r end
    end
    if #rest == #pending then   -- no progress at all: give up on the rest
      for _, r in ipairs(rest) do
        r.res = { status = "worker", why = fatal or "the check process did not start (see " .. log .. ")" }
      end
      rest = {}
    end
    pending = rest
  end
  local keep = false
  for _, r in ipairs(items) do keep = keep or r.res.status == "crash" or r.res.status == "worker" end
  if keep then print("  worker log: " .. rdir .. "/worker.log")
  else os.execute("rm -rf " .. build.quote(rdir)) end
end

if #missing > 0 then
  local items = {}
  for _, r in ipairs(missing) do
    local job = r.job
    if job.status == "ok" and not o.build_only then
      items[#items + 1] = r
    elseif job.status == "ok" then
      r.res = { status = "built", why = job.so }
    else
      r.res = { status = job.status or "gen", why = job.log }
    end
  end
  run_workers(items)
  for _, r in ipairs(missing) do
    r.res.config = r.job.ctext
    -- a worker that died or a tool that did not run says nothing about the config
    if not o.no_cache and r.res.status ~= "worker" and not r.res.status:match("^setup") then
      cache.put(cache_dir, r.key, r.res)
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
      if ok then
        print(string.format("  best: %s -> %s", best.config, out_file))
        if err then print("  (" .. err .. ")") end
        if entry.alternative then print("  kept its alternative: " .. probe.config_text(entry.alternative)) end
        if entry.off_grid then print("  kept its off_grid: " .. entry.off_grid) end
      else
        print("  best: " .. best.config .. " (not recorded: " .. tostring(err) .. ")")
        all_won = false
      end
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

--[[
build.lua: generates and compiles the tuner's variants in parallel.

Each job is one (variant, config) pair in a folder of its own: a small sh
script runs gen with -D for every config and variant key (so gen writes
only that variant) and --no-tuned (a job's config is exactly its -D list,
whatever the tuned-config file holds, and a broken one cannot fail it), and then the target's compiler with -shared, and writes
one word to `status`: ok, gen (gen rejected the config: exit 1), missing
(gen wrote no file for the variant), compile, spill (nvcc built it but
ptxas -v reports register spills: slow, and tests/compile rejects it),
serialized (ptxas serialized its wgmmas: the same),
or setup-gen / setup-compile
when the tool itself did not run (gen exited otherwise, e.g. 127 when a
library it needs is missing; the compiler was not found or was killed):
those say nothing about the config, so the tuner does not cache them.  Logs stay in the folder (gen.log, cc.log).  The
scripts run under `xargs -P JOBS`; each prints "done DIR" when it ends,
which drives the progress bar.  A folder whose status is already ok is not
built again (folder names are hashes of everything the build depends on).
]]
local M = {}

-- Single-quotes a string for sh.
local function q(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
M.quote = q

-- Whole output of a shell command (stderr included), and whether it exited 0.
function M.capture(cmd)
  local p = io.popen(cmd .. " 2>&1; echo \"::rc=$?\"")
  local out = p:read("*a")
  p:close()
  local rc = tonumber(out:match("::rc=(%d+)%s*$"))
  return out:gsub("::rc=%d+%s*$", ""), rc == 0
end

-- Whether a command is on PATH (or an existing file).
function M.have(cmd)
  local _, ok = M.capture("command -v " .. q(cmd) .. " >/dev/null")
  return ok
end

-- Extension of generated files per target.
function M.ext(target)
  if target == "c" then return "c" end
  if target:match("^sm") then return "cu" end
  if target:match("^gfx") then return "hip" end
  return nil
end

-- nvcc's options for GPU architecture a (sm_80, sm_90a, ...): sm_90a
-- (wgmma) by -gencode, as nvcc 13.0's -arch=sm_90a also runs a plain sm_90
-- pass that rejects wgmma.
local function nvcc_arch(a)
  local flag = a:match("a$") and ("-gencode=arch=compute_" .. a:sub(4) .. ",code=" .. a) or ("-arch=" .. a)
  return (os.getenv("LT_NVCC") or "nvcc") .. " -O3 " .. flag .. " -Xptxas -v"
end

--[[ The compile command for a target, as a format with %s for source and
output; arch overrides the GPU architecture (nvcc -arch / --offload-arch). ]]
function M.compiler(target, arch)
  if target == "c" then
    return (os.getenv("CC") or "cc") .. " -O2 -std=c11 -fPIC -shared %s -o %s -lm"
  elseif target:match("^sm") then
    local a = arch and arch ~= "" and arch or ("sm_" .. target:match("^sm(%w+)"))
    return nvcc_arch(a) .. " -Xcompiler -fPIC -shared %s -o %s"
  elseif target:match("^gfx") then
    local a = arch and arch ~= "" and arch or target
    return (os.getenv("LT_HIPCC") or "hipcc") .. " -O3 --offload-arch=" .. a .. " -fPIC -shared %s -o %s"
  end
  return nil
end

--[[ The spill check on the target's own architecture when the compile
above builds for another one (an sm80 variant tuned on an sm_90 GPU, whose
ptxas allocates registers differently; tests/compile checks sm_80): a
format with %s for source and output, and that architecture; or nil when
there is none to do. ]]
function M.own_arch_check(target, arch)
  if not target:match("^sm") or not arch or arch == "" then return nil end
  local own = "sm_" .. target:match("^sm(%w+)")
  if arch == own then return nil end
  return nvcc_arch(own) .. " -cubin %s -o %s", own
end

-- One line naming the compiler and its version (part of the cache key).
function M.toolchain(target)
  local cmd = M.compiler(target, nil):match("^(%S+)")
  local out, ok = M.capture(q(cmd) .. " --version")
  if not ok then return nil, cmd .. " --version failed: " .. out:match("[^\n]*") end
  local lines = {}
  for line in out:gmatch("[^\n]+") do
    if line:match("%d+%.%d+") then lines[#lines + 1] = line end
  end
  return cmd .. ": " .. table.concat(lines, " | ")
end

-- Writes text to path; true or nil, message.
function M.write(path, text)
  local f, err = io.open(path, "wb")
  if not f then return nil, err end
  f:write(text)
  f:close()
  return true
end

-- First line of a file, or nil.
function M.first_line(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local l = f:read("*l")
  f:close()
  return l
end

--[[ Writes job.sh into job.dir.  job = { dir, gen, kernel, target, variant,
defines = { "K=V" ... }, compile (format from M.compiler), and own_check,
own_arch (from M.own_arch_check) or nil }. ]]
function M.prepare(job)
  local ext = M.ext(job.target)
  local src = job.dir .. "/src/" .. job.variant .. "." .. ext
  local so = job.dir .. "/" .. job.variant .. ".so"
  local d = {}
  for _, kv in ipairs(job.defines) do d[#d + 1] = "-D " .. q(kv) end
  local script = table.concat({
    "# one tuner job: generate " .. job.variant .. " with " .. table.concat(job.defines, " "),
    "cd " .. q(job.dir) .. " || exit 0",
    "rm -rf src status",
    q(job.gen) .. " " .. q(job.kernel) .. " --target " .. q(job.target) .. " -o src --no-tuned " ..
      table.concat(d, " ") .. " >gen.log 2>&1 || { [ $? = 1 ] && echo gen >status || echo setup-gen >status; exit 0; }",
    "test -f " .. q(src) .. " || { echo missing >status; exit 0; }",
    string.format(job.compile, q(src), q(so)) .. " >cc.log 2>&1 || { [ $? -ge 126 ] && echo setup-compile >status || echo compile >status; exit 0; }",
    -- ptxas on the target's own architecture too, its report after a line "as ARCH:"
    job.own_check and "echo 'as " .. job.own_arch .. ":' >>cc.log; " .. string.format(job.own_check, q(src), "own.cubin") ..
      " >>cc.log 2>&1 || { echo compile >status; exit 0; }" or "true",
    -- a config whose registers spill (ptxas -v) is left out: it is slow, and the compile tests reject it
    "grep -qE '[1-9][0-9]* bytes spill stores' cc.log && { echo spill >status; exit 0; }",
    -- so is one whose wgmmas ptxas serializes (it keeps their accumulators safe that way: slow)
    "grep -q 'wgmma.mma_async instructions are serialized' cc.log && { echo serialized >status; exit 0; }",
    "echo ok >status",
    "",
  }, "\n")
  os.execute("mkdir -p " .. q(job.dir))
  M.write(job.dir .. "/job.sh", script)
  job.so = so
  job.header = job.dir .. "/src/" .. job.variant .. ".h"
end

--[[ Runs the jobs, `jobs` at a time; calls progress(done, total, job) as each
ends.  Sets job.status (ok / gen / missing / compile / spill / serialized / setup-gen / setup-compile) and job.log (the
first error line) on every job. ]]
function M.run(list, jobs, progress)
  local todo, byname = {}, {}
  for _, job in ipairs(list) do
    if M.first_line(job.dir .. "/status") == "ok" and io.open(job.so, "rb") then
      job.status, job.reused = "ok", true
    else
      todo[#todo + 1] = job
      byname[job.dir] = job
    end
  end
  local done = #list - #todo
  if progress then progress(done, #list) end
  if #todo > 0 then
    local lst = os.tmpname()
    local dirs = {}
    for _, job in ipairs(todo) do dirs[#dirs + 1] = job.dir end
    M.write(lst, table.concat(dirs, "\0") .. "\0")
    local cmd = "xargs -0 -P " .. jobs .. " -n 1 sh -c 'sh \"$0/job.sh\"; echo \"done $0\"' <" .. q(lst)
    local p = io.popen(cmd)
    for line in p:lines() do
      local dir = line:match("^done (.*)$")
      local job = dir and byname[dir]
      if job then
        done = done + 1
        job.status = M.first_line(dir .. "/status") or "gen"
        if progress then progress(done, #list, job) end
      end
    end
    p:close()
    os.remove(lst)
  end
  for _, job in ipairs(list) do
    job.status = job.status or M.first_line(job.dir .. "/status") or "gen"
    if job.status ~= "ok" then
      local cc = job.status:match("compile$") or job.status == "spill" or job.status == "serialized"
      local log = cc and "/cc.log" or "/gen.log"
      local f = io.open(job.dir .. log, "rb")
      local text = f and f:read("*a") or ""
      if f then f:close() end
      job.log = text:match("[^\n]*error[^\n]*") or text:match("[^\n]+") or "(no output)"
      local prefix = job.dir .. "/src/"
      if job.log:sub(1, #prefix) == prefix then job.log = job.log:sub(#prefix + 1) end
      if job.status == "missing" then job.log = "gen wrote no " .. job.variant .. "." .. M.ext(job.target) end
      if job.status == "spill" then
        local at, _, spill = text:find("([1-9]%d* bytes spill stores[^\n]*)")
        local mark, _, own = text:find("\nas (sm_%w+):\n")
        job.log = "register spills (ptxas" .. (mark and at and at > mark and ", as " .. own or "") .. "): " ..
          (spill or "")
      elseif job.status == "serialized" then
        job.log = "ptxas: " .. (text:match("(wgmma.mma_async instructions are serialized due to [%a %-]+)") or "")
      end
    end
  end
end

return M

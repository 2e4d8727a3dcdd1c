--[[
luatile.lua: the LuaJIT FFI binding of the luatile runtime (runtime/luatile.h).

It passes the header's declarations (the text between its ffi-begin and
ffi-end markers, comments dropped) to one ffi.cdef, loads libluatile.so and
wraps the C handles in Lua objects whose memory the garbage collector frees
(ffi.gc calls lt_device_close, lt_module_unload, lt_free).  The C side counts
references, so the order in which finalizers run does not matter.

The library is looked for at $LT_RUNTIME_LIB, else build/runtime/libluatile.so
under the repository that holds this file; when it is missing, it is built
there with runtime/build.sh (a C compiler is all that needs).

Calls that can fail return nil, a message and the lt_status code, as io.open
does; nothing raises an error except misuse of the Lua API itself.

  local lt = require "luatile"
  local dev = assert(lt.open("cpu"))
  local mod = assert(dev:load("build/x/softmax.so"))
  local f = assert(mod:launcher("softmax_f32", io.open("build/x/softmax_f32.h"):read("a")))
  f(X.ptr, Y.ptr, R, C, nil)
]]
local ffi = require "ffi"

local M = {}

-- Directory of this file, with a trailing slash ("" when run from it).
local function here()
  local src = debug.getinfo(1, "S").source
  local dir = src:sub(1, 1) == "@" and src:sub(2):match("^(.*/)") or nil
  return dir or "./"
end
M.dir = here()
M.root = M.dir .. "../"

-- Reads a whole file; nil and a message if it cannot.
local function slurp(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local s = f:read("*a")
  f:close()
  return s
end
M.slurp = slurp

-- Drops C comments and preprocessor lines from header text.
local function strip_c(text)
  text = text:gsub("/%*.-%*/", " "):gsub("//[^\n]*", "")
  local out = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if not line:match("^%s*#") then out[#out + 1] = line end
  end
  return table.concat(out, "\n")
end
M.strip_c = strip_c

-- The runtime's declarations, from the header next to this file.
local header = assert(slurp(M.dir .. "luatile.h"))
local decls = header:match("/%* ffi%-begin %*/(.-)/%* ffi%-end %*/")
assert(decls, "luatile.h: no ffi-begin / ffi-end markers")
ffi.cdef(strip_c(decls))

-- Opens libluatile.so, building it first when it is not there.
local function load_library()
  local path = os.getenv("LT_RUNTIME_LIB")
  if path and path ~= "" then return ffi.load(path) end
  path = M.root .. "build/runtime/libluatile.so"
  if not io.open(path, "rb") then
    local cmd = string.format("sh '%sbuild.sh' '%sbuild/runtime' >&2", M.dir, M.root)
    local ok = os.execute(cmd)
    if ok ~= 0 and ok ~= true then error("luatile: building the runtime failed: " .. cmd) end
  end
  return ffi.load(path)
end
local C = load_library()
M.C = C

M.CPU, M.CUDA, M.HIP = C.LT_BACKEND_CPU, C.LT_BACKEND_CUDA, C.LT_BACKEND_HIP

-- nil, "status name: detail", status for a failed call.
local function fail(st)
  local detail = ffi.string(C.lt_error_detail())
  local msg = ffi.string(C.lt_status_string(st))
  if detail ~= "" then msg = msg .. ": " .. detail end
  return nil, msg, tonumber(st)
end

-- Backend number from a name ("cpu", "c", "cuda", "hip") or a number.
local function backend_of(b)
  if type(b) == "number" then return b end
  local out = ffi.new("int[1]")
  local st = C.lt_backend_parse(tostring(b or "cpu"), out)
  if st ~= 0 then return fail(st) end
  return out[0]
end
M.backend_of = backend_of

-- Backend for a gen target name: c -> cpu, sm* -> cuda, gfx* -> hip.
function M.backend_for_target(target)
  if target == "c" then return "cpu" end
  if target:match("^sm") then return "cuda" end
  if target:match("^gfx") then return "hip" end
  return nil, "unknown target '" .. tostring(target) .. "'"
end

function M.status_string(st) return ffi.string(C.lt_status_string(st)) end

-- Number of devices of a backend, or nil, message, status.
function M.count(backend)
  local b, err, code = backend_of(backend)
  if not b then return nil, err, code end
  local n = ffi.new("int[1]")
  local st = C.lt_device_count(b, n)
  if st ~= 0 then return fail(st) end
  return n[0], ffi.string(C.lt_error_detail())
end

local Device = {}
Device.__index = Device
local Buffer = {}
Buffer.__index = Buffer
local Module = {}
Module.__index = Module

-- Opens a device: lt.open("cpu"), lt.open("cuda", 1).
function M.open(backend, index)
  local b, err, code = backend_of(backend)
  if not b then return nil, err, code end
  local out = ffi.new("lt_device*[1]")
  local st = C.lt_device_open(b, index or 0, out)
  if st ~= 0 then return fail(st) end
  local h = ffi.gc(out[0], C.lt_device_close)
  local info = ffi.new("lt_device_info")
  C.lt_device_info_get(h, info)
  return setmetatable({
    h = h,
    backend = ffi.string(C.lt_backend_name(info.backend)),
    index = info.index,
    name = ffi.string(info.name),
    arch = ffi.string(info.arch),
    cache_bytes = tonumber(info.cache_bytes),
  }, Device)
end

-- Closes now instead of at collection (later calls on it are invalid).
function Device:close()
  if self.h then
    C.lt_device_close(ffi.gc(self.h, nil))
    self.h = nil
  end
end

function Device:sync()
  local st = C.lt_device_sync(self.h)
  if st ~= 0 then return fail(st) end
  return true
end

function Device:launch_error(code)
  return ffi.string(C.lt_launch_error_string(self.h, code))
end

-- Device memory of `bytes` bytes, freed when the Buffer is collected.
function Device:alloc(bytes)
  local out = ffi.new("void*[1]")
  local st = C.lt_malloc(self.h, bytes, out)
  if st ~= 0 then return fail(st) end
  local dh = self.h
  local ptr = ffi.gc(out[0], function(p) C.lt_free(dh, p) end)
  -- dh, not self.h: the buffer stays usable after dev:close()
  return setmetatable({ ptr = ptr, bytes = bytes, dev = self, dh = dh }, Buffer)
end

-- Copies n bytes (default: all) from host memory `src` into the buffer.
function Buffer:upload(src, n)
  local st = C.lt_copy_to_device(self.dh, self.ptr, src, n or self.bytes)
  if st ~= 0 then return fail(st) end
  return true
end

-- Copies n bytes (default: all) of the buffer into host memory `dst`.
function Buffer:download(dst, n)
  local st = C.lt_copy_to_host(self.dh, dst, self.ptr, n or self.bytes)
  if st ~= 0 then return fail(st) end
  return true
end

-- Copies another buffer of the same device into this one.
function Buffer:copy_from(other, n)
  local st = C.lt_copy_on_device(self.dh, self.ptr, other.ptr, n or self.bytes)
  if st ~= 0 then return fail(st) end
  return true
end

-- Sets every byte to `byte` (0xFF poisons float outputs with NaN).
function Buffer:fill(byte)
  local st = C.lt_memset(self.dh, self.ptr, byte, self.bytes)
  if st ~= 0 then return fail(st) end
  return true
end

function Buffer:free()
  if self.ptr then
    local st = C.lt_free(self.dh, ffi.gc(self.ptr, nil))
    self.ptr = nil
    if st ~= 0 then return fail(st) end
  end
  return true
end

-- Loads a module (shared library of launchers) for this device.
function Device:load(path)
  local out = ffi.new("lt_module*[1]")
  local st = C.lt_module_load(self.h, path, out)
  if st ~= 0 then return fail(st) end
  return setmetatable({ h = ffi.gc(out[0], C.lt_module_unload), dev = self, path = path }, Module)
end

function Module:unload()
  if self.h then
    C.lt_module_unload(ffi.gc(self.h, nil))
    self.h = nil
  end
end

-- The launcher's address as void*, or nil, message, status.
function Module:symbol(name)
  local out = ffi.new("void*[1]")
  local st = C.lt_module_symbol(self.h, name, out)
  if st ~= 0 then return fail(st) end
  return out[0]
end

--[[ Parses a generated header (or any C header with one prototype):
returns { name = "softmax_f32", ret = "int", params = { {name, type, kind} },
proto = "int (*)(...)" }.  kind is "input" (const void *), "output" (void *),
"stream" (a last void * named stream), "int", "int64", "float" or "double".
want picks the prototype by name when the text has several. ]]
function M.parse_header(text, want)
  local body = strip_c(text):gsub('extern%s*"C"%s*{', ""):gsub("}", "")
  for ret, name, args in body:gmatch("([%w_]+)%s+([%w_]+)%s*(%b())%s*;") do
    if not want or name == want then
      local params = {}
      local list = args:sub(2, -2)
      if not list:match("^%s*void%s*$") then
        for p in (list .. ","):gmatch("%s*([^,]-)%s*,") do
          local pname = p:match("([%w_]+)$")
          local ptype = p:sub(1, #p - #pname):gsub("%s+$", "")
          local compact = ptype:gsub("%s+", "")
          local kind
          if compact == "constvoid*" or compact == "voidconst*" then kind = "input"
          elseif compact == "void*" then kind = "output"
          elseif compact == "int" or compact == "int32_t" then kind = "int"
          elseif compact == "int64_t" or compact == "longlong" then kind = "int64"
          elseif compact == "float" then kind = "float"
          elseif compact == "double" then kind = "double"
          else kind = "other" end
          params[#params + 1] = { name = pname, type = ptype, kind = kind }
        end
        local last = params[#params]
        if last and last.kind == "output" and last.name == "stream" then last.kind = "stream" end
      end
      local types = {}
      for i, p in ipairs(params) do types[i] = p.type end
      return { name = name, ret = ret, params = params,
               proto = ret .. " (*)(" .. table.concat(types, ", ") .. ")" }
    end
  end
  return nil, "no prototype" .. (want and (" of " .. want) or "") .. " in header"
end

-- A callable launcher: the symbol cast to the header's prototype.  header
-- is the header's text, or a table from parse_header.  The function pointer
-- does not keep the module loaded: hold on to the Module while using it.
function Module:launcher(name, header)
  local sig = header
  if type(header) == "string" then
    local err
    sig, err = M.parse_header(header, name)
    if not sig then return nil, err end
  end
  local p, err, code = self:symbol(name)
  if not p then return nil, err, code end
  local ok, ct = pcall(ffi.typeof, sig.proto)
  if not ok then return nil, "bad prototype " .. sig.proto .. ": " .. tostring(ct) end
  -- the caller keeps the Module alive while it calls the launcher
  return ffi.cast(ct, p), sig
end

local bench_ct = ffi.typeof("lt_bench_fn")

-- Runs lt_bench over a Lua function fn(iter) -> status (0 = ok).  The C loop
-- calls back into Lua, which LuaJIT only allows from interpreted code, hence
-- jit.off on this function.
local function bench(self, fn, warmup, reps)
  local cb = ffi.cast(bench_ct, function(_, iter) return fn(iter) or 0 end)
  local res = ffi.new("lt_bench_result")
  local st = C.lt_bench(self.h, cb, nil, warmup or 10, reps or 50, res)
  cb:free()
  if st ~= 0 then return fail(st) end
  return { median_ms = res.median_ms, min_ms = res.min_ms, max_ms = res.max_ms,
           mean_ms = res.mean_ms, reps = res.reps }
end
jit.off(bench)
Device.bench = bench

return M

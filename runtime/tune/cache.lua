--[[
cache.lua: the tuner's result cache, hashes, and the tuned-config file.

A result is stored as one small Lua file per key, in the cache folder; the
key is a 64-bit FNV-1a hash (16 hex digits) of every input the result
depends on: the kernel file's text, gen's binary, the variant and config,
the target, the compiler's version line, the device name, the shape and the
check settings.  Failed configs are cached too (a compile error stays one
for the same inputs); --no-cache ignores the folder.

The tuned-config file is a Lua table, `return { kernel = ..., entries =
{ ... } }`, one entry per (target, device, variant, shape bucket); writing a
result replaces the entry with the same four and keeps the others.  A bucket
rounds every size up to a power of two ("C=4096,R=4096").
]]
local bit = require "bit"
local probe = require "tune.probe"

local M = {}

local PRIME = 0x100000001b3ULL
local BASIS = 0xcbf29ce484222325ULL

-- 16 hex digits of FNV-1a 64 over the string.
function M.hash(s)
  local h = BASIS
  for i = 1, #s do
    h = bit.bxor(h, s:byte(i)) * PRIME
  end
  return bit.tohex(h)
end

-- Hash of a file's bytes, or nil, message.
function M.hash_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local s = f:read("*a")
  f:close()
  return M.hash(s)
end

-- Cached result for a key, or nil.
function M.get(dir, key)
  local f = io.open(dir .. "/" .. key .. ".lua", "rb")
  if not f then return nil end
  local text = f:read("*a")
  f:close()
  local fn = load(text, "cache", "t", {})
  if not fn then return nil end
  local ok, res = pcall(fn)
  return ok and type(res) == "table" and res or nil
end

-- Stores a result (a table of plain values) under key.
function M.put(dir, key, result)
  os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
  local tmp = dir .. "/" .. key .. ".tmp"
  local f = io.open(tmp, "wb")
  if not f then return nil end
  f:write("return ", probe.serialize(result), "\n")
  f:close()
  os.rename(tmp, dir .. "/" .. key .. ".lua")
  return true
end

-- Shape bucket: every size rounded up to a power of two.
function M.bucket(shape)
  local b = {}
  for k, v in pairs(shape) do
    local p = 1
    while p < v do p = p * 2 end
    b[k] = p
  end
  return probe.shape_text(b)
end

-- Reads a tuned-config file: an empty one when there is no file; nil,
-- message when the file is there but is not a tuned-config file (so that
-- writing never drops what a broken file holds).
function M.read_tuned(path, kernel)
  local f = io.open(path, "rb")
  if not f then return { kernel = kernel, entries = {} } end
  local text = f:read("*a")
  f:close()
  local fn, err = load(text, "=" .. path, "t", {})
  if fn then
    local ok, t = pcall(fn)
    if ok and type(t) == "table" and type(t.entries) == "table" then return t end
    err = ok and "it does not return { entries = { ... } }" or tostring(t)
  end
  return nil, string.format("%s is not a tuned-config file (%s); fix or remove it", path, err)
end

-- The fields of an entry that the tuner does not search but an author
-- writes (docs/runtime.md): a re-tuned entry keeps the one it replaces.
local KEPT = { "off_grid", "alternative" }

-- Does the alternative alt (config keys laid over config) leave config as
-- it is?  gen refuses such an alternative.
local function same_config(config, alt)
  for k, v in pairs(alt) do
    if config[k] ~= v then return false end
  end
  return true
end

--[[ Records the winner: entry = { target, device, variant, bucket, shape,
config, median_ms, ... }; replaces an entry with the same target, device,
variant and bucket, keeping that entry's off_grid and alternative (KEPT):
the tuner times one config at the shapes it is given, not the shapes of the
bucket that the alternative or the off_grid bucket runs, so it has nothing
to replace them with.  An alternative that the new config makes the same
config is dropped (gen refuses it).  Entries are kept sorted so the file
diffs well.  Returns true, or nil, message (an existing file that does not
load is left as it is), and, where it dropped an alternative, a note. ]]
function M.write_tuned(path, kernel, entry)
  local t, terr = M.read_tuned(path, kernel)
  if not t then return nil, terr end
  local kept, note = {}, nil
  for _, e in ipairs(t.entries) do
    if not (e.target == entry.target and e.device == entry.device and e.variant == entry.variant
            and e.bucket == entry.bucket) then
      kept[#kept + 1] = e
    else
      for _, f in ipairs(KEPT) do
        if entry[f] == nil then entry[f] = e[f] end
      end
    end
  end
  if type(entry.alternative) == "table" and type(entry.config) == "table"
     and same_config(entry.config, entry.alternative) then
    note = "alternative " .. probe.config_text(entry.alternative) .. " dropped: it is the new config"
    entry.alternative = nil
  end
  kept[#kept + 1] = entry
  table.sort(kept, function(a, b)
    local ka = table.concat({ a.target, a.device, a.variant, a.bucket }, "\1")
    local kb = table.concat({ b.target, b.device, b.variant, b.bucket }, "\1")
    return ka < kb
  end)
  t.kernel = kernel
  t.entries = kept
  local dir = path:match("^(.*)/[^/]*$")
  if dir then os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'") end
  local f, err = io.open(path .. ".tmp", "wb")
  if not f then return nil, err end
  f:write("-- Tuned configs of kernel ", kernel, ", written by runtime/tune.lua.\n",
          "-- gen uses the entry whose target, device, variant and shape bucket match;\n",
          "-- -D on gen's command line still wins (docs/runtime.md, \"How gen uses the\n",
          "-- tuned-config file\").  Re-run the tuner to update.\n",
          "return ", probe.serialize(t), "\n")
  f:close()
  local ok, rerr = os.rename(path .. ".tmp", path)
  if not ok then return nil, rerr end
  return true, note
end

return M

--[[
probe.lua: reads a kernel file's declarations for the tuner, without gen.

The kernel file is run with a stand-in `tile` module whose tile.kernel
returns its table unchanged and whose tile.tensor / tile.scalar return plain
descriptors, so the tuner sees the kernel's name, variants, config, the
tensors params(v, c) declares (dtype and shape per variant), and the `tune`
table: the search space, the constraint, the shapes, and optional check
shapes, tolerances, flops / bytes functions and reference.  The body is
never called.

It runs under Lua 5.4 (the language gen embeds, so `//` and integer
semantics match gen) or LuaJIT; the tuner prefers a Lua 5.4 interpreter
and falls back to loading the file in-process.

As a script: lua5.4 probe.lua KERNEL [--shape K=V,...]... [--space K=a,b]...
prints `return { ... }` (the table M.probe returns) on stdout; on a bad
file it prints "error: ..." on stderr and exits 1.
]]
local M = {}

-- Globals a kernel file may use (the same set gen's sandbox offers).
local SAFE = { "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber",
  "tostring", "type", "rawequal", "rawget", "rawlen", "rawset", "setmetatable",
  "getmetatable", "xpcall", "string", "table", "math", "utf8", "print" }

-- The stand-in tile module: declarations are recorded, everything else is
-- a harmless no-op (the body, where the real operations live, is not run).
local function stub_tile()
  local seq = 0
  local tile = {}
  function tile.tensor(dtype, shape, strides)
    seq = seq + 1
    return { lt_param = "tensor", dtype = dtype, shape = shape, strides = strides, seq = seq }
  end
  function tile.scalar(dtype)
    seq = seq + 1
    return { lt_param = "scalar", dtype = dtype, seq = seq }
  end
  function tile.kernel(t) return t end
  function tile.cdiv(a, b) return math.floor((a + b - 1) / b) end
  function tile.max(a, b) return math.max(a, b) end
  function tile.min(a, b) return math.min(a, b) end
  return setmetatable(tile, { __index = function() return function() end end })
end

-- Sorted keys of a table (string keys only).
local function sorted_keys(t)
  local keys = {}
  for k in pairs(t or {}) do
    if type(k) == "string" then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end
M.sorted_keys = sorted_keys

-- The text gen uses for a config or variant value (-D and variant names).
local function value_text(v)
  if type(v) == "number" then
    if v == math.floor(v) then return string.format("%d", v) end
    return tostring(v)
  end
  return tostring(v)
end
M.value_text = value_text

-- "K=V,K=V" -> { K = V } with whole-number values; nil, message if bad.
function M.parse_shape(text)
  local shape = {}
  for item in (text .. ","):gmatch("([^,]*),") do
    if item ~= "" then
      local k, v = item:match("^%s*([%a_][%w_]*)%s*=%s*(%d+)%s*$")
      if not k then return nil, "bad shape item '" .. item .. "' (want NAME=NUMBER)" end
      shape[k] = tonumber(v)
    end
  end
  return shape
end

-- "K=a,b,c" -> "K", { a, b, c } with numbers, booleans or strings.
function M.parse_space(text)
  local k, list = text:match("^%s*([%a_][%w_]*)%s*=(.*)$")
  if not k then return nil, "bad --space '" .. text .. "' (want KEY=v1,v2,...)" end
  local vals = {}
  for item in (list .. ","):gmatch("%s*([^,]-)%s*,") do
    if item ~= "" then
      if item:match("^%-?%d+$") then vals[#vals + 1] = tonumber(item)
      elseif item == "true" then vals[#vals + 1] = true
      elseif item == "false" then vals[#vals + 1] = false
      else vals[#vals + 1] = item end
    end
  end
  if #vals == 0 then return nil, "--space " .. k .. " has no values" end
  return k, vals
end

-- Shape text in sorted key order: "C=1000,R=37".
function M.shape_text(shape)
  local parts = {}
  for _, k in ipairs(sorted_keys(shape)) do parts[#parts + 1] = k .. "=" .. value_text(shape[k]) end
  return table.concat(parts, ",")
end

-- Config text in sorted key order: "BC=1024 threads=128".
function M.config_text(c, keys)
  local parts = {}
  for _, k in ipairs(keys or sorted_keys(c)) do parts[#parts + 1] = k .. "=" .. value_text(c[k]) end
  return table.concat(parts, " ")
end

-- Every combination of the lists in `space` (keys in sorted order, the last
-- key varying fastest), each overlaid on a copy of `base`.
local function combinations(space, base)
  local keys = sorted_keys(space)
  local out, idx = {}, {}
  for i = 1, #keys do idx[i] = 1 end
  while true do
    local c = {}
    for k, v in pairs(base) do c[k] = v end
    for i, k in ipairs(keys) do c[k] = space[k][idx[i]] end
    out[#out + 1] = c
    local i = #keys
    while i >= 1 do
      idx[i] = idx[i] + 1
      if idx[i] <= #space[keys[i]] then break end
      idx[i] = 1
      i = i - 1
    end
    if i < 1 then break end
  end
  return out
end

-- Runs the kernel file with the stub; returns its kernel table or nil, err.
function M.load_kernel(path)
  local env = {}
  for _, k in ipairs(SAFE) do env[k] = _G[k] end
  env.print = function(...) io.stderr:write(table.concat({ ... }, "\t"), "\n") end
  local tile = stub_tile()
  env.require = function(name)
    if name == "tile" then return tile end
    error("kernel files can only require \"tile\"", 2)
  end
  env._G = env
  local fn, err = loadfile(path, "t", env)
  if not fn then return nil, err end
  local ok, kt = pcall(fn)
  if not ok then return nil, tostring(kt) end
  if type(kt) ~= "table" or type(kt.name) ~= "string" then
    return nil, path .. ": the file must end with: return tile.kernel { name = ..., ... }"
  end
  return kt
end

-- Descriptors of params(v, c) as plain data: { X = { kind = "tensor",
-- dtype = "f32", shape = { "R", "C" }, strides = nil } ... }.
local function describe_params(kt, v, c)
  local p = kt.params(v, c)
  local out = {}
  for name, d in pairs(p) do
    if type(d) == "table" and d.lt_param == "tensor" then
      local shape, strides = {}, nil
      for i, s in ipairs(d.shape) do shape[i] = s end
      if d.strides then
        strides = {}
        for i, s in ipairs(d.strides) do strides[i] = s end
      end
      out[name] = { kind = "tensor", dtype = d.dtype, shape = shape, strides = strides, seq = d.seq }
    elseif type(d) == "table" and d.lt_param == "scalar" then
      out[name] = { kind = "scalar", dtype = d.dtype, seq = d.seq }
    end
  end
  return out
end

-- The config a variant starts from on target (nil: config alone), as gen
-- resolves it with --no-tuned: config, then target_config's entry for the
-- target, then variant_config(v, target).  The space's values replace its
-- keys; the other keys keep these (sm80 d256 dK/dV: 1 stage, not config's 2).
local function variant_base(kt, config, v, target)
  local base = {}
  for k, val in pairs(config) do base[k] = val end
  if not target then return base end
  local tc = type(kt.target_config) == "table" and kt.target_config[target]
  if type(tc) == "table" then for k, val in pairs(tc) do base[k] = val end end
  local vc = type(kt.variant_config) == "function" and kt.variant_config(v, target)
  if type(vc) == "table" then for k, val in pairs(vc) do base[k] = val end end
  return base
end

-- Appends variant v (values), named vname, to info.variants: its tensors,
-- the configs of the space that pass tune.constraint, its flops and bytes.
-- Returns an error message when params(v, c) fails.
local function add_variant(info, kt, tune, config, space, shapes, v, vname, vdesc)
  local c0 = {}
  for k, val in pairs(config) do c0[k] = val end
  for k, val in pairs(v) do c0[k] = val end
  local ok, params = pcall(describe_params, kt, v, c0)
  if not ok then return "params(" .. vname .. "): " .. tostring(params) end
  local entry = { name = vname, values = v, desc = table.concat(vdesc, " "), params = params,
                  configs = {}, pruned = {}, flops = {}, bytes = {} }
  for _, c in ipairs(combinations(space, config)) do
    local full = {}
    for k, val in pairs(c) do full[k] = val end
    for k, val in pairs(v) do full[k] = val end
    local keep, why = true, nil
    if type(tune.constraint) == "function" then
      local okc, res = pcall(tune.constraint, full, shapes[1] or {})
      if not okc then keep, why = false, "constraint raised: " .. tostring(res)
      elseif not res then keep, why = false, "constraint" end
    end
    if keep then entry.configs[#entry.configs + 1] = c
    else entry.pruned[#entry.pruned + 1] = { config = c, why = why } end
  end
  for i, s in ipairs(shapes) do
    if type(tune.flops) == "function" then
      local okf, f = pcall(tune.flops, s, v)
      if okf and type(f) == "number" then entry.flops[i] = f end
    end
    if type(tune.bytes) == "function" then
      local okb, b = pcall(tune.bytes, s, v)
      if okb and type(b) == "number" then entry.bytes[i] = b end
    end
  end
  info.variants[#info.variants + 1] = entry
end

--[[ The tuner's view of a kernel file.  opts.shapes: list of shape tables
(default: tune.shapes); opts.space: { KEY = { values } } replacing those
keys of tune.space; opts.target: leave out the variants the kernel's
unsupported(v, target) refuses (info.left_out: name and why).  Returns a table or nil, message. ]]
function M.probe(path, opts)
  opts = opts or {}
  local kt, err = M.load_kernel(path)
  if not kt then return nil, err end
  local tune = type(kt.tune) == "table" and kt.tune or {}
  local config = {}
  for k, v in pairs(kt.config or {}) do config[k] = v end
  local vars = kt.variants or {}
  local vkeys = sorted_keys(vars)

  local space = {}
  for k, vals in pairs(tune.space or {}) do space[k] = vals end
  for k, vals in pairs(opts.space or {}) do space[k] = vals end
  for _, k in ipairs(sorted_keys(space)) do
    if config[k] == nil then
      return nil, string.format("%s: tune space key '%s' is not a config key of %s (it has: %s)",
        path, k, kt.name, table.concat(sorted_keys(config), ", "))
    end
    if type(space[k]) ~= "table" or #space[k] == 0 then
      return nil, string.format("%s: tune space '%s' must be a non-empty list", path, k)
    end
  end

  local shapes = opts.shapes
  if not shapes or #shapes == 0 then
    shapes = {}
    for i, s in ipairs(tune.shapes or {}) do shapes[i] = s end
  end

  local info = {
    name = kt.name, file = path, config = config, vkeys = vkeys, space = space,
    shapes = shapes, variants = {}, left_out = {}, check_shapes = tune.check_shapes,
    tolerance = tune.tolerance, scalars = tune.scalars,
    reference = type(tune.reference) == "function" and "function" or tune.reference,
  }

  -- each variant: gen's name, its values, tensors, configs that pass
  local vspace = {}
  for _, k in ipairs(vkeys) do vspace[k] = vars[k] end
  for _, v in ipairs(combinations(vspace, {})) do
    local vname, vdesc = kt.name, {}
    for _, k in ipairs(vkeys) do
      local t = value_text(v[k])
      if v[k] == true then vname = vname .. "_" .. k
      elseif v[k] ~= false then vname = vname .. "_" .. t end
      vdesc[#vdesc + 1] = k .. "=" .. t
    end
    local why = opts.target and type(kt.unsupported) == "function" and kt.unsupported(v, opts.target)
    if type(why) == "string" then
      info.left_out[#info.left_out + 1] = { name = vname, why = why }
    else
      local err = add_variant(info, kt, tune, variant_base(kt, config, v, opts.target), space, shapes, v, vname, vdesc)
      if err then return nil, err end
    end
  end
  return info
end



-- Lua source for a value made of tables, strings, numbers and booleans
-- (functions become nil); keys sorted so the text is stable.
local function serialize(v, indent)
  indent = indent or ""
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t == "number" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then return string.format("%d", v) end
    if v ~= v then return "0/0" end
    if v == math.huge or v == -math.huge then return v > 0 and "1/0" or "-1/0" end
    return string.format("%.10g", v)
  end
  if t == "boolean" then return tostring(v) end
  if t ~= "table" then return "nil" end
  local parts, n = {}, #v
  for i = 1, n do parts[#parts + 1] = serialize(v[i], indent .. "  ") end
  local keys = {}
  for k in pairs(v) do
    if type(k) == "string" then keys[#keys + 1] = k
    elseif type(k) == "number" and (k < 1 or k > n or k ~= math.floor(k)) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local ks = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or ("[" .. serialize(k) .. "]")
    parts[#parts + 1] = ks .. " = " .. serialize(v[k], indent .. "  ")
  end
  if #parts == 0 then return "{}" end
  return "{\n" .. indent .. "  " .. table.concat(parts, ",\n" .. indent .. "  ") .. ",\n" .. indent .. "}"
end
M.serialize = serialize

-- Command-line use (see the top of the file).
local function main(argv)
  local path, opts = nil, { shapes = {}, space = {} }
  local i = 1
  while i <= #argv do
    local a = argv[i]
    if a == "--shape" then
      local s, err = M.parse_shape(argv[i + 1] or "")
      if not s then io.stderr:write("error: ", err, "\n") os.exit(1) end
      opts.shapes[#opts.shapes + 1] = s
      i = i + 2
    elseif a == "--target" then
      opts.target = argv[i + 1]
      i = i + 2
    elseif a == "--space" then
      local k, vals = M.parse_space(argv[i + 1] or "")
      if not k then io.stderr:write("error: ", vals, "\n") os.exit(1) end
      opts.space[k] = vals
      i = i + 2
    else
      path = a
      i = i + 1
    end
  end
  if not path then io.stderr:write("usage: probe.lua KERNEL [--target T] [--shape K=V,...] [--space K=a,b]\n") os.exit(2) end
  local info, err = M.probe(path, opts)
  if not info then io.stderr:write("error: ", err, "\n") os.exit(1) end
  io.write("return ", serialize(info), "\n")
end

if arg and arg[0] and arg[0]:match("probe%.lua$") and not package.loaded["tune.probe"] then
  main(arg)
end

return M

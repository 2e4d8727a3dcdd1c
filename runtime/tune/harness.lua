--[[
harness.lua: runs one compiled variant at one shape on a device.

The launcher's header (parsed by luatile.parse_header) gives the argument
order and which pointers are inputs (const void *) and outputs (void *);
the kernel file's params (from probe.lua) give each tensor's dtype and
dims.  From the shape the harness computes every size, the contiguous value
of every explicit stride, and each tensor's element count; scalars take
tune.scalars[name] or a fixed value (0.5, or 1 for an int).

For timing it keeps `sets` copies of every tensor on the device and the
launch for iteration i uses copy i % sets, so a small problem is not timed
out of a warm cache.
]]
local data = require "tune.data"

local M = {}
local H = {}
H.__index = H

-- Size of a dim: a literal number or the shape's value for its name.
local function dim_value(d, shape, tname)
  if type(d) == "number" then return d end
  local v = shape[d]
  if not v then return nil, string.format("the shape gives no size %s (tensor %s)", d, tname) end
  return v
end

--[[ Works out the argument plan: for each header parameter, what to pass.
Returns a plan table or nil, message.  vinfo: the probe's variant entry;
sig: parse_header's result; shape: { NAME = size }; scalars: optional. ]]
function M.plan(vinfo, sig, shape, scalars)
  local plan = { args = {}, tensors = {}, inputs = {}, outputs = {}, bytes = 0 }
  local strides = {}   -- stride parameter name -> value
  for tname, p in pairs(vinfo.params) do
    if p.kind == "tensor" then
      local dims, n = {}, 1
      for j, d in ipairs(p.shape) do
        local v, err = dim_value(d, shape, tname)
        if not v then return nil, err end
        dims[j] = v
        n = n * v
      end
      if p.strides then
        local acc = 1
        for j = #dims, 1, -1 do
          if type(p.strides[j]) == "string" then strides[p.strides[j]] = acc end
          acc = acc * dims[j]
        end
      end
      plan.tensors[tname] = { name = tname, dtype = p.dtype, dims = dims, n = n,
                              bytes = n * data.bytes[p.dtype] }
    end
  end
  for i, prm in ipairs(sig.params) do
    local a
    if prm.kind == "input" or prm.kind == "output" then
      local t = plan.tensors[prm.name]
      if not t then return nil, "header parameter " .. prm.name .. " is no tensor of the kernel file" end
      t.role = prm.kind
      table.insert(prm.kind == "input" and plan.inputs or plan.outputs, t)
      plan.bytes = plan.bytes + t.bytes
      a = { kind = "tensor", tensor = t }
    elseif prm.kind == "stream" then
      a = { kind = "stream" }
    elseif prm.kind == "int" and shape[prm.name] then
      a = { kind = "value", value = shape[prm.name] }
    elseif prm.kind == "int64" and strides[prm.name] then
      a = { kind = "value", value = strides[prm.name] }
    elseif prm.kind == "int" or prm.kind == "int64" then
      local s = scalars and scalars[prm.name]
      if s == nil and vinfo.params[prm.name] == nil then
        return nil, "the shape gives no size " .. prm.name
      end
      a = { kind = "value", value = s or 1 }
    elseif prm.kind == "float" or prm.kind == "double" then
      a = { kind = "value", value = scalars and scalars[prm.name] or 0.5 }
    else
      return nil, "cannot pass parameter '" .. prm.type .. " " .. prm.name .. "'"
    end
    plan.args[i] = a
  end
  return plan
end

--[[ Device buffers for a plan: `sets` copies of every tensor.  Returns a
harness or nil, message.  fn is the launcher (Module:launcher). ]]
function M.new(dev, fn, plan, sets)
  local h = setmetatable({ dev = dev, fn = fn, plan = plan, sets = {}, stream = nil }, H)
  for s = 1, sets or 1 do
    local set = {}
    for name, t in pairs(plan.tensors) do
      if t.role then
        local buf, err = dev:alloc(t.bytes)
        if not buf then h:free() return nil, "allocating " .. name .. ": " .. err end
        set[name] = buf
      end
    end
    h.sets[s] = set
  end
  -- argument vectors, one per set, so a launch only indexes a table
  h.argv = {}
  for s, set in ipairs(h.sets) do
    local av = {}
    for i, a in ipairs(plan.args) do
      if a.kind == "tensor" then av[i] = set[a.tensor.name].ptr
      elseif a.kind == "stream" then av[i] = nil
      else av[i] = a.value end
    end
    h.argv[s] = av
  end
  h.nargs = #plan.args
  return h
end

-- Releases the device buffers now.
function H:free()
  for _, set in ipairs(self.sets) do
    for _, buf in pairs(set) do buf:free() end
  end
  self.sets = {}
end

-- Uploads host inputs (name -> data.random tensor) into every set.
function H:upload(inputs)
  for _, set in ipairs(self.sets) do
    for name, t in pairs(inputs) do
      if set[name] then
        local ok, err = set[name]:upload(t.raw, t.bytes)
        if not ok then return nil, "upload " .. name .. ": " .. err end
      end
    end
  end
  return true
end

-- Fills every output of set s with 0xFF bytes (NaN for floats).
function H:poison(s)
  for _, t in ipairs(self.plan.outputs) do
    local ok, err = self.sets[s or 1][t.name]:fill(0xFF)
    if not ok then return nil, err end
  end
  return true
end

-- Calls the launcher on set s; returns its status (0 = ok).
function H:launch(s)
  local a = self.argv[s or 1]
  return self.fn(unpack(a, 1, self.nargs))
end

-- Downloads and decodes the outputs of set s: name -> host tensor.
function H:outputs(s)
  local out = {}
  for _, t in ipairs(self.plan.outputs) do
    local host = data.empty(t.dtype, t.n)
    local ok, err = self.sets[s or 1][t.name]:download(host.raw, t.bytes)
    if not ok then return nil, "download " .. t.name .. ": " .. err end
    out[t.name] = data.decode(host)
  end
  return out
end

-- Random host inputs for a plan: name -> data.random tensor.
function M.random_inputs(plan)
  local ins = {}
  for _, t in ipairs(plan.inputs) do ins[t.name] = data.random(t.dtype, t.n) end
  return ins
end

-- How many sets to rotate through: enough that all sets together are
-- twice the device cache, at most 16 and at most `cap` bytes in all.
function M.rotation(plan, cache_bytes, cap)
  local per = math.max(plan.bytes, 1)
  local n = math.ceil(2 * cache_bytes / per)
  n = math.max(1, math.min(n, 16, math.floor((cap or 2 ^ 30) / per)))
  return n
end

return M

--[[
reference.lua: the answers a tuned variant is checked against.

Three kinds, tried in this order:
  1. a function in the kernel file, tune.reference(ins, outs, shape, v),
     usable when the tuner could load the file itself (LuaJIT); ins and outs
     map tensor names to { val = double array (0-based), n, dims, dtype },
     and the function fills outs[name].val;
  2. a built-in for a kernel the project ships, chosen by tune.reference =
     "softmax" or by the kernel's name: softmax over the last dim;
  3. otherwise the same variant generated for target c with the default
     config, compiled with cc and run on the CPU backend (the c target is
     checked against naive references in the project's own tests).
All compute in double; outputs are compared with data.compare.
]]
local data = require "tune.data"

local M = {}

-- Y = softmax(X) over the last dim, for one input and one output of the
-- same shape; nil, why when the variant does not look like that.
function M.softmax(ins, outs)
  local xi, yo
  for _, t in pairs(ins) do
    if xi then return nil, "softmax reference: more than one input" end
    xi = t
  end
  for _, t in pairs(outs) do
    if yo then return nil, "softmax reference: more than one output" end
    yo = t
  end
  if not xi or not yo or xi.n ~= yo.n then return nil, "softmax reference: want X and Y of one shape" end
  local cols = xi.dims[#xi.dims]
  local rows = xi.n / cols
  local x, y = xi.val, yo.val
  for r = 0, rows - 1 do
    local base = r * cols
    local m = -math.huge
    for c = 0, cols - 1 do
      if x[base + c] > m then m = x[base + c] end
    end
    local s = 0
    for c = 0, cols - 1 do
      local e = math.exp(x[base + c] - m)
      y[base + c] = e
      s = s + e
    end
    for c = 0, cols - 1 do y[base + c] = y[base + c] / s end
  end
  return true
end

M.builtin = { softmax = M.softmax }

-- Which reference a kernel gets: "function", a built-in name, or "c".
function M.kind(info, has_function)
  if info.reference == "function" and has_function then return "function" end
  if type(info.reference) == "string" and M.builtin[info.reference] then return info.reference end
  if info.reference == nil and M.builtin[info.name] then return info.name end
  return "c"
end

--[[ Host outputs of plan filled by a Lua reference: ins are data tensors
(data.random), returns name -> tensor with .val set, or nil, message. ]]
function M.run_lua(kind, fn, plan, ins, shape, values)
  local tin, tout = {}, {}
  for _, t in ipairs(plan.inputs) do
    local h = ins[t.name]
    tin[t.name] = { val = h.val, n = t.n, dims = t.dims, dtype = t.dtype }
  end
  for _, t in ipairs(plan.outputs) do
    local h = data.empty(t.dtype, t.n)
    for i = 0, t.n - 1 do h.val[i] = 0 / 0 end
    h.dims = t.dims
    tout[t.name] = h
  end
  local f = kind == "function" and fn or M.builtin[kind]
  local ok, res, why = pcall(f, tin, tout, shape, values)
  if not ok then return nil, "reference raised: " .. tostring(res) end
  if (res == nil or res == false) and why then return nil, why end
  return tout
end

return M

-- tile.lua: the DSL prelude, compiled into gen.  A kernel file gets this
-- module from `require "tile"`.  It only gives names to the operations that
-- gen implements in C (gen/lua/); see docs/dsl.md for the language.
local core = ...
local tile = {}

-- declarations for params()
tile.tensor = core.tensor          -- tile.tensor(dtype, shape [, strides])
tile.scalar = core.scalar          -- tile.scalar(dtype): a launcher argument
tile.kernel = core.kernel          -- tile.kernel { name, variants, config, params, body }

-- elementwise math on values (tiles or scalars)
for _, name in ipairs { "exp", "exp2", "log", "sqrt", "rsqrt", "tanh", "erf", "abs", "negate",
                        "sin", "cos", "sigmoid", "floor" } do
  tile[name] = function(x) return core.unary(name, x) end
end
for _, name in ipairs { "lt", "le", "gt", "ge", "eq", "ne", "both", "either", "pow", "rand", "randint" } do
  tile[name] = function(a, b) return core.binary(name, a, b) end
end
tile.where = core.where            -- where(cond, a, b)
tile.cast = core.cast              -- cast(x, dtype), same as x:cast(dtype)

-- max and min work on Lua numbers at generation time and on values at run time
function tile.max(a, b)
  if type(a) == "number" and type(b) == "number" then return math.max(a, b) end
  return core.binary("max", a, b)
end
function tile.min(a, b)
  if type(a) == "number" and type(b) == "number" then return math.min(a, b) end
  return core.binary("min", a, b)
end

-- ceil(a / b) for sizes: numbers or i32 scalars
function tile.cdiv(a, b) return (a + b - 1) // b end

-- The (row, column) tile of program pid in grouped order: programs go down
-- `group` tile rows before moving one tile column right, so neighbouring
-- programs share rows of A and columns of B in the L2 cache.
-- rows, cols: tiles along M and N.
function tile.grouped(pid, rows, cols, group)
  local width = group * cols              -- programs per group of tile rows
  local first = pid // width * group      -- the group's first tile row
  -- rows - first is at least one; the max says so to the generator, which
  -- then knows the tile row is not negative (no bounds check below zero)
  local height = tile.min(tile.max(rows - first, 1), group)
  return first + pid % width % height, pid % width // height
end

return tile

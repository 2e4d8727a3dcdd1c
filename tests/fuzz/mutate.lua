-- tests/fuzz/mutate.lua: one mutant of a kernel file, for tests/fuzz/run.sh.
--
--   lua5.4 tests/fuzz/mutate.lua SEED INDEX OUT FILE...
--
-- Picks one of the FILEs and applies 1 to 4 mutations to its text (mostly
-- one or two), chosen
-- by a random generator seeded from SEED and INDEX (so mutant INDEX of a
-- seed is the same on every run), and writes the result to OUT.  Prints
-- one line: the file it started from and the mutations.  The mutations
-- know a little Lua and a little of the DSL: numbers become boundary
-- values, strings become names gen must refuse or escape, DSL methods and
-- operators are swapped, lines deleted, doubled and swapped, snippets of
-- the other files spliced in, bytes flipped.

local seed, index, out = tonumber(arg[1]), tonumber(arg[2]), arg[3]
local files = { table.unpack(arg, 4) }
assert(seed and index and out and #files > 0, "usage: mutate.lua SEED INDEX OUT FILE...")
math.randomseed(seed * 1000003 + index)
local R = math.random

local function pick(t) return t[R(#t)] end

local function read(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local numbers = {
  "0", "-1", "1", "2", "3", "7", "17", "31", "33", "63", "96", "100", "127", "129", "255", "257", "1000", "1023",
  "1025", "4095", "4097", "65535", "65537", "1e9", "2^24", "2^24 + 1", "2^31 - 1", "2^31", "-2^31", "2^32 + 128",
  "2^40", "2^53 + 1", "9007199254740993", "math.maxinteger", "math.mininteger", "1e308", "-1e308", "math.huge",
  "-math.huge", "0/0", "-0.0", "0.5", "1.5", "3.25", "1e-40", "nil", "true", "{}", "\"7\"",
}

local strings = {
  "", "f64", "i64", "bool", "int", "__x", "lt_x", "memcpy", "NULL", "main", "size_t", "x y", "a-b", "1abc",
  "f32", "f16", "bf16", "i32", "N", "M", "K", "tid", "grid", "threadIdx", "cudaMalloc", "uint32_t", "float4",
  "*/", "/*", "a\\\\", "??/", "%s%n", "\\n\\r\\t", "\\27[31m", "\\0", "\\xff\\xfe", "é\\u{202E}", "sm80", "c",
  ("x"):rep(70), ("y"):rep(300), "d128", "d256", "true", "false",
}

local methods = {
  "grid", "fragment", "shared", "load", "store", "atomic_add", "copy", "fill", "assign", "reduce_sum",
  "reduce_max", "reduce_min", "iota", "serial", "pipelined", "when", "gemm", "tile", "view", "cast",
  "exp", "exp2", "log", "sqrt", "rsqrt", "tanh", "erf", "abs", "negate", "lt", "le", "gt", "ge", "eq", "ne",
  "both", "either", "max", "min", "shape", "dtype", "rank", "target", "warp",
}

local operators = { " + ", " - ", " * ", " / ", " // ", " % ", " .. ", " == ", " < ", " and ", " or " }

-- a few statements that poke at the sandbox and the builder, spliced in whole
local snippets = {
  "local _ = pcall(function() return k:grid(1) end)",
  "setmetatable(_G, nil)",
  "local t = setmetatable({}, { __index = function(t, key) return t[key] end })",
  "for _ = 1, 3 do pcall(error, { lt_error = \"x\\ny\" }) end",
  "local s = (\"ab\"):rep(100):gsub(\"(a*)*b\", \"%1\")",
  "tile.kernel = nil",
  "math = nil",
  "string.rep = function() return \"\" end",
  "error(\"\\27[2Jboom\\n\" .. (\"z\"):rep(5000))",
  "local co = coroutine and coroutine.create(print)",
  "print((\"w\"):rep(10))",
  "local big = {} for j = 1, 1000 do big[j] = j end table.sort(big, function(a, b) return a > b end)",
  "local u = utf8.char(0x202E, 0x2028, 0x7f)",
  "local f = load and load(\"return 1\")",
  "local ok, e = pcall(string.format, \"%99999d\", 1)",
  "assert(true, \"never\")",
  "local r = rawset(_G, \"late\", 1)",
  "select(\"#\", table.unpack({}, 1, 200))",
}

local function numbers_at(s)
  local at = {}
  for a, b in s:gmatch("()%f[%w_.]%d[%w.]*()") do at[#at + 1] = { a, b } end
  return at
end

local function strings_at(s)
  local at = {}
  for a, b in s:gmatch("()\"[^\"\n]*\"()") do at[#at + 1] = { a, b } end
  return at
end

local function lines_of(s)
  local t = {}
  for l in (s .. "\n"):gmatch("(.-)\n") do t[#t + 1] = l end
  if t[#t] == "" then t[#t] = nil end
  return t
end

local function replace_at(s, a, b, by) return s:sub(1, a - 1) .. by .. s:sub(b) end

local ops = {}

-- the lines a statement may go before: those that start one (so that most
-- splices still parse)
local function statement_lines(t)
  local at = {}
  for i, l in ipairs(t) do
    if i > 1 and (l:match("^%s*local ") or l:match("^%s*k:") or l:match("^%s*for ") or l:match("^%s*if ") or
                  l:match("^%s*return ")) then at[#at + 1] = i end
  end
  return at
end


function ops.number(s)
  local at = numbers_at(s)
  if #at == 0 then return s, nil end
  local p, v = pick(at), pick(numbers)
  return replace_at(s, p[1], p[2], v), "number " .. s:sub(p[1], p[2] - 1) .. " -> " .. v
end

function ops.string(s)
  local at = strings_at(s)
  if #at == 0 then return s, nil end
  local p, v = pick(at), pick(strings)
  return replace_at(s, p[1], p[2], "\"" .. v .. "\""), "string " .. s:sub(p[1], p[2] - 1) .. " -> \"" .. v .. "\""
end

function ops.method(s)
  local at = {}
  for a, b in s:gmatch("[:.]()[%a_][%w_]*()%s*%(") do at[#at + 1] = { a, b } end
  if #at == 0 then return s, nil end
  local p, v = pick(at), pick(methods)
  return replace_at(s, p[1], p[2], v), "method " .. s:sub(p[1], p[2] - 1) .. " -> " .. v
end

function ops.operator(s)
  local at = {}
  for a, b in s:gmatch("()%s[%+%-%*/%%]/?%s()") do at[#at + 1] = { a, b } end
  if #at == 0 then return s, nil end
  local p, v = pick(at), pick(operators)
  return replace_at(s, p[1], p[2], v), "operator -> " .. v
end

function ops.line(s)
  local t = lines_of(s)
  if #t < 3 then return s, nil end
  local at = statement_lines(t)
  local i, j, what = R(2, #t), R(2, #t), R(3)
  if #at > 1 and R(3) > 1 then i, j = pick(at), pick(at) end
  if what == 1 then
    table.remove(t, i)
    what = "delete line " .. i
  elseif what == 2 then
    table.insert(t, i, t[j])
    what = "copy line " .. j .. " to " .. i
  else
    t[i], t[j] = t[j], t[i]
    what = "swap lines " .. i .. " " .. j
  end
  return table.concat(t, "\n") .. "\n", what
end

function ops.splice(s)
  local t = lines_of(s)
  local at = statement_lines(t)
  local i = #at > 0 and R(3) > 1 and pick(at) or R(2, math.max(2, #t))
  local from, what
  if R(2) == 1 then
    from = pick(snippets)
    what = "snippet at " .. i
  else
    local other = lines_of(read(pick(files)))
    if #other == 0 then return s, nil end
    local a = R(#other)
    local b = math.min(#other, a + R(0, 4))
    from = table.concat(other, "\n", a, b)
    what = "lines " .. a .. "-" .. b .. " of another file at " .. i
  end
  table.insert(t, i, from)
  return table.concat(t, "\n") .. "\n", what
end

local keywords = {}
for w in ("and break do else elseif end false for function goto if in local nil not or repeat return then true until while")
    :gmatch("%a+") do keywords[w] = true end

function ops.ident(s)
  local ids = {}
  for w in s:gmatch("%f[%w_][%a_][%w_]*") do
    if not keywords[w] then ids[#ids + 1] = w end
  end
  if #ids < 2 then return s, nil end
  local from, to = pick(ids), pick(ids)
  local at = {}
  for a, b in s:gmatch("()%f[%w_]" .. from .. "%f[^%w_]()") do at[#at + 1] = { a, b } end
  local p = pick(at)
  return replace_at(s, p[1], p[2], to), "name " .. from .. " -> " .. to
end

function ops.byte(s)
  if #s == 0 then return s, nil end
  local i, what = R(#s), R(4)
  if what == 1 then
    return replace_at(s, i, i + 1, string.char(R(0, 255))), "byte " .. i
  elseif what == 2 then
    return replace_at(s, i, i, pick({ "(", ")", "{", "}", ",", "\"", "[[", "]]", "--", "\\", "\0", "\n" })), "insert at " .. i
  elseif what == 3 then
    return s:sub(1, i), "truncate at " .. i
  end
  return replace_at(s, i, i + R(0, 40), ""), "cut at " .. i
end

-- weights: the structure-aware mutations most, bytes least
local menu = {
  "number", "number", "number", "number", "string", "string", "string", "method", "method", "method",
  "operator", "line", "line", "line", "splice", "splice", "ident", "ident", "byte",
}

local src = pick(files)
local s = read(src)
local done = {}
for _ = 1, pick({ 1, 1, 1, 2, 2, 3, 4 }) do   -- mostly one or two: more mutants get past the front end
  local name = pick(menu)
  local t, what = ops[name](s)
  if what then
    s = t
    done[#done + 1] = what
  end
end
local f = assert(io.open(out, "wb"))
f:write(s)
f:close()
print(src .. ": " .. (#done > 0 and table.concat(done, "; ") or "unchanged"))

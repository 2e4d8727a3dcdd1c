-- tests/golden/share.lua: the tuned buckets of a variant that share a kernel
-- (gen/pass/share.c) run, byte for byte and names aside, the kernel gen
-- prints for them alone.
--
--   lua5.4 tests/golden/share.lua SHARED NOSHARE
--
-- SHARED is a source file as gen writes it, NOSHARE the same variant from
-- gen --no-share (a kernel for every bucket).  For every tuned bucket B of
-- SHARED's Configs list: the functions of the kernel B runs there (its
-- own, or the bucket's that its line names: "B: the config of A, whose
-- kernel it runs", or "B: CONFIG; the same code as A's, whose kernel it
-- runs") must equal B's own functions in NOSHARE, each side's
-- kernel name replaced by one word and the comments on which buckets a
-- kernel serves left out.  And no two kernels SHARED prints are equal that
-- way (a bucket that could have shared did).  A bucket's functions: its
-- cp.async twin and the twin's launcher, its kernel, its split twin and its
-- launcher, from the comment line above the first to the "}" of the last,
-- and nothing else in between.
--
-- Prints one line, "ok BUCKETS SHARED" (tuned buckets checked, of them
-- shared) or "none" (the file has no tuned buckets), and exits 0; or prints
-- what differs and exits 1.

local shared_path, alone_path = arg[1], arg[2]
if not shared_path or not alone_path then
  io.stderr:write("usage: lua5.4 tests/golden/share.lua SHARED NOSHARE\n")
  os.exit(2)
end

local function fail(msg)
  print(shared_path .. ": " .. msg)
  os.exit(1)
end

-- The lines of the file at path.
local function lines_of(path)
  local f = io.open(path, "rb")
  if not f then fail("cannot read " .. path) end
  local t = {}
  for l in f:read("a"):gmatch("([^\n]*)\n") do t[#t + 1] = l end
  f:close()
  return t
end

-- The Configs list of a file's head comment: buckets in order, and for each
-- the bucket whose kernel it runs (nil: its own).
local function configs(lines)
  local buckets, runs, on = {}, {}, false
  for _, l in ipairs(lines) do
    if l:find("^ %* Configs, one per tuned shape bucket") then on = true
    elseif on and not l:find("^ %*   ") then break
    elseif on then
      local b, rest = l:match("^ %*   ([^:]+): (.*)$")
      if not b then fail("a Configs line I cannot read: " .. l) end
      buckets[#buckets + 1] = b
      runs[b] = rest:match("^the config of (.-), whose kernel it runs$") or
        rest:match("; the same code as (.-)'s, whose kernel it runs$")
    end
  end
  return buckets, runs
end

-- The name of the function whose signature is line l, or nil.
local function fn_name(l)
  if l:find("^[ /#*{}]") or not l:find("%(") then return nil end
  return l:gsub("__launch_bounds__%b()", ""):match("([%w_]+)%(")
end

-- Is function name f one of kernel n's (its twin's, launchers', split's)?
local suffixes = { "", "_kernel", "_split_kernel", "_block", "_cp", "_cp_kernel", "_cp_split_kernel", "_cp_block" }
local function owns(n, f)
  for _, s in ipairs(suffixes) do if f == n .. s then return true end end
  return false
end

-- Kernel n's functions in lines, normalised (see the head comment).
local function region(lines, n, path)
  local first, last
  for i, l in ipairs(lines) do
    local f = l:find("^[^ ]") and lines[i + 1] == "{" and fn_name(l)
    if f and owns(n, f) then first = first or i; last = i end
  end
  if not first then fail("no function of kernel " .. n .. " in " .. path) end
  if lines[first - 1] and lines[first - 1]:find("^/%*.*%*/$") then first = first - 1 end
  local e = last + 1
  while lines[e] and lines[e] ~= "}" do e = e + 1 end
  if not lines[e] then fail("kernel " .. n .. "'s last function never ends in " .. path) end
  local out = {}
  for i = first, e do
    local l = lines[i]
    local f = l:find("^[^ ]") and lines[i + 1] == "{" and fn_name(l)
    if f and not owns(n, f) then fail("function " .. f .. " amid kernel " .. n .. "'s in " .. path) end
    l = l:gsub("%f[%w_]" .. n .. "%f[^%w]", "NAME"):gsub("%f[%w_]" .. n .. "_", "NAME_")
    l = l:gsub(" One config serves the tuned buckets [^:]*: this kernel runs them all%.", "")
    l = l:gsub(" %(alternative%)", ""):gsub(" %(alternative %d+%)", "")   -- (an entry's alternatives among the buckets named)
    l = l:gsub("%(the config tuned for [^)]*%)", "(the config tuned for BUCKETS)")
    out[#out + 1] = l
  end
  return table.concat(out, "\n")
end

local shared, alone = lines_of(shared_path), lines_of(alone_path)
local buckets, runs = configs(shared)
if #buckets == 0 then print("none") os.exit(0) end
local buckets2, runs2 = configs(alone)
if table.concat(buckets, " ") ~= table.concat(buckets2, " ") then fail("the two files list other buckets") end
for _, b in ipairs(buckets2) do
  if runs2[b] then fail("--no-share's file has bucket " .. b .. " run another's kernel") end
end
local launcher = shared_path:match("([^/]+)$"):match("^([^.]+)")
-- (an entry's alternative config, "B (alternative)": B's kernel name and "_alt"; "B (alternative 2)": "_alt2")
local function kname(b)
  local base, alt = b:match("^(.-) %(alternative ?(%d*)%)$")
  return launcher .. "_" .. (base or b):gsub("=", ""):gsub(",", "_") .. (alt and "_alt" .. alt or "")
end

local nshared, printed = 0, {}
for _, b in ipairs(buckets) do
  local a = runs[b] or b
  if runs[b] then
    nshared = nshared + 1
    if runs[a] then fail("bucket " .. b .. " runs " .. a .. "'s kernel, which is itself another's") end
  end
  local mine = region(alone, kname(b), alone_path)
  local theirs = region(shared, kname(a), shared_path)
  if theirs ~= mine then
    local x, y, i = {}, {}, 1
    for l in (theirs .. "\n"):gmatch("([^\n]*)\n") do x[#x + 1] = l end
    for l in (mine .. "\n"):gmatch("([^\n]*)\n") do y[#y + 1] = l end
    while x[i] == y[i] do i = i + 1 end
    fail(("bucket %s runs %s's kernel, which differs from its own (--no-share) at line %d of its functions: " ..
      "'%s' vs '%s'"):format(b, a, i, (x[i] or "(end)"):sub(1, 120), (y[i] or "(end)"):sub(1, 120)))
  end
  if not runs[b] then
    if printed[mine] then fail("buckets " .. printed[mine] .. " and " .. b .. " print the same kernel twice") end
    printed[mine] = b
  end
end
print(("ok %d %d"):format(#buckets, nshared))

--[[
report.lua: what the tuner prints: progress bars on stderr and the ranked
table on stdout.

On a terminal the bar redraws in place ("\r"); otherwise each step prints
one line, so logs stay readable.  The table lists the configs that passed,
fastest first, with the median time and the rate (GB/s from the bytes the
tensors occupy, TFLOP/s when the kernel's tune.flops gives a count), then
every config that failed with its stage and first error line (with
--build-only: every config that compiled, marked +).
]]
local M = {}

local tty
-- Whether stderr is a terminal (asked once).
local function is_tty()
  if tty == nil then
    local r = os.execute("test -t 2")
    tty = r == 0 or r == true
  end
  return tty
end

-- Draws a progress bar: label [#####.....] done/total (note).
function M.progress(label, done, total, note)
  local width = 24
  local fill = total > 0 and math.floor(width * done / total + 0.5) or width
  local line = string.format("%-9s [%s%s] %d/%d%s", label, string.rep("#", fill),
    string.rep(".", width - fill), done, total, note and ("  " .. note) or "")
  if is_tty() then
    io.stderr:write("\r\27[K", line, done >= total and "\n" or "")
  else
    io.stderr:write(line, "\n")
  end
  io.stderr:flush()
end

-- Pads or cuts s to width w (left-aligned).
local function pad(s, w)
  s = tostring(s)
  if #s > w then return s:sub(1, w - 1) .. "~" end
  return s .. string.rep(" ", w - #s)
end

--[[ Prints the ranked table of one (variant, shape).  rows: { config text,
status, median_ms, gbps, tflops, why, cached }.  Returns the winner row. ]]
function M.table(title, rows)
  local ok, built, bad = {}, {}, {}
  for _, r in ipairs(rows) do
    if r.status == "ok" then ok[#ok + 1] = r
    elseif r.status == "built" then built[#built + 1] = r
    else bad[#bad + 1] = r end
  end
  table.sort(ok, function(a, b) return a.median_ms < b.median_ms end)
  local cw = 10
  for _, r in ipairs(rows) do cw = math.max(cw, #r.config) end
  cw = math.min(cw, 72)
  local flops = false
  for _, r in ipairs(ok) do flops = flops or r.tflops ~= nil end
  print(title)
  print(string.format("  %4s  %s  %10s  %9s%s  %s", "rank", pad("config", cw), "median ms", "GB/s",
    flops and "  TFLOP/s" or "", "note"))
  for i, r in ipairs(ok) do
    print(string.format("  %4d  %s  %10.4f  %9.2f%s  %s", i, pad(r.config, cw), r.median_ms, r.gbps,
      flops and (r.tflops and string.format("  %7.2f", r.tflops) or "        -") or "",
      (i == 1 and "best" or string.format("x%.2f", r.median_ms / ok[1].median_ms)) ..
        (r.cached and " (cached)" or "")))
  end
  if #ok == 0 and #built == 0 then print("  (no config passed)") end
  for _, r in ipairs(built) do   -- --build-only: compiled, not run
    print(string.format("  %4s  %s  built: %s%s", "+", pad(r.config, cw), r.why or "", r.cached and " (cached)" or ""))
  end
  for _, r in ipairs(bad) do
    print(string.format("  %4s  %s  %s: %s%s", "-", pad(r.config, cw), r.status, r.why or "",
      r.cached and " (cached)" or ""))
  end
  return ok[1]
end

return M

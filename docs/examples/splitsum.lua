-- splitsum.lua: column sums of X [N, C], the rows cut into as many parts
-- as it takes to give the device's multiprocessors work (k:sm_count).
--
-- S splits of the row tiles, chosen by the launcher: 4 programs a
-- multiprocessor over the column tiles, at most one split a row tile.
-- Split s writes the sums of its rows into row s of W; the caller adds
-- W's first S rows (a second kernel would, in a real one).  S comes from
-- splitsum_rows(N, C), which the header declares (k:export): the caller
-- sizes W with it, and the launcher refuses a W with fewer rows.
local tile = require "tile"

return tile.kernel {
  name = "splitsum",
  doc = "Column sums of X in S row parts, S from the sizes and the device: W[s, :] = sum of part s's rows.",
  config = { BM = 32, BC = 64, threads = 64 },
  params = function(v, c)
    return { X = tile.tensor("f32", { "N", "C" }), W = tile.tensor("f32", { "WR", "C" }) }
  end,
  body = function(k, p, c)
    local nc, nt = tile.cdiv(p.C, c.BC), tile.cdiv(p.N, c.BM)
    local S = tile.min(nt, tile.cdiv(4 * k:sm_count(), nc))   -- the splits: run-time, the same in every program
    k:export("rows", S, "the rows of W a call writes (one a split)")
    k:require(p.WR:ge(S), "W has the rows splitsum_rows gives")
    local bc, s = k:grid(nc, S)
    local per = tile.cdiv(nt, S)   -- row tiles a split
    local acc = k:fragment("f32", { 1, c.BC }, 0)
    k:serial(s * per, tile.min(nt, (s + 1) * per), function(i)
      k:assign(acc, acc + k:reduce_sum(k:load(p.X:tile({ i, bc }, { c.BM, c.BC })), 1))
    end)
    k:store(p.W:tile({ s, bc }, { 1, c.BC }), acc)
  end,
}

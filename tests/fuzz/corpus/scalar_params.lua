-- hostile: scalar parameters used as loop bounds, grid extents, divisors and conditions
local tile = require "tile"
return tile.kernel {
  name = "scalar_params",
  config = { BLOCK = 256, threads = 256 },
  params = function(v)
    return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }), steps = tile.scalar("i32", { positive = true }),
             d = tile.scalar("i32"), eps = tile.scalar("f32") }
  end,
  body = function(k, p, c)
    local i = k:grid(p.steps)
    local acc = k:fragment("f32", { c.BLOCK }, p.eps)
    k:serial(p.d // p.steps, p.steps % p.d, function(j)
      k:when(j:lt(p.d), function() k:assign(acc, acc + k:load(p.X:tile({ j }, { c.BLOCK }))) end,
                        function() k:assign(acc, acc / p.eps) end)
    end)
    k:store(p.Y:tile({ i }, { c.BLOCK }), acc)
  end,
}

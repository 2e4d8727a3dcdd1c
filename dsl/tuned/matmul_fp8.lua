-- Tuned configs of kernel matmul_fp8, written by runtime/tune.lua.
-- gen uses the entry whose target, device, variant and shape bucket match;
-- -D on gen's command line still wins (docs/runtime.md, "How gen uses the
-- tuned-config file").  Re-run the tuner to update.
-- The sm90a entries (NVIDIA H200) were written from a sweep, not the tuner:
-- the fast_accum variants run 64 x 128 tiles, 6 stages and one consumer
-- warpgroup for M <= 64 (bucket M=64), every other M (bucket M=128) the
-- kernel's variant_config (bench/results/2026-11-25-h200-matmul_fp8-smallm.txt:
-- 0.95-0.98x use_fast_accum=True at M = 16 and 64, N = 28672, where the
-- 128 x 256 tiles ran 0.90x and 0.95x).  The f32-sum variants keep their
-- one config: a warpgroup working on each K tile's sum alone takes the
-- cp.async ring, no faster at M = 16 there.
return {
  entries = {
    {
      bucket = "M=64",
      config = {
        BK = 128,
        BM = 64,
        BN = 128,
        group_m = 8,
        stages = 6,
        threads = 128,
      },
      device = "NVIDIA H200",
      target = "sm90a",
      variant = "matmul_fp8_fast_accum_tensor",
    },
    {
      bucket = "M=128",
      config = {
        BK = 128,
        BM = 128,
        BN = 256,
        group_m = 8,
        stages = 4,
        threads = 256,
      },
      device = "NVIDIA H200",
      target = "sm90a",
      variant = "matmul_fp8_fast_accum_tensor",
    },
    {
      bucket = "M=64",
      config = {
        BK = 128,
        BM = 64,
        BN = 128,
        group_m = 8,
        stages = 6,
        threads = 128,
      },
      device = "NVIDIA H200",
      target = "sm90a",
      variant = "matmul_fp8_fast_accum_row",
    },
    {
      bucket = "M=128",
      config = {
        BK = 128,
        BM = 128,
        BN = 256,
        group_m = 8,
        stages = 4,
        threads = 256,
      },
      device = "NVIDIA H200",
      target = "sm90a",
      variant = "matmul_fp8_fast_accum_row",
    },
  },
}

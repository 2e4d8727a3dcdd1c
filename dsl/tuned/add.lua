-- Tuned configs of kernel add: for sm90a on NVIDIA H200, one entry a row-length
-- bucket, and the rule (device "any", for devices without entries), written by
-- bench/rowops_tune.py from bench/rowops_grid.py sweeps (bench/results/).
-- gen uses the entries whose target, device and variant match; the launcher
-- runs the bucket nearest the call's sizes (docs/runtime.md).
-- The bf16 and f16 configs (BLOCK=1024, one 16-byte vector a thread) are from
-- the A/B of 2026-11-25 (bench/results/2026-11-25-h200-rowops-add-ab.txt): the
-- sweep they replace had no config of one vector a thread.
return {
  kernel = "add",
  entries = {
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 1024,
        threads = 128,
      },
      device = "NVIDIA H200",
      gbps = 4364.0,
      shape = "N=128256",
      target = "sm90a",
      variant = "add_bf16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 1024,
        threads = 128,
      },
      device = "NVIDIA H200",
      gbps = 4352.0,
      shape = "N=128256",
      target = "sm90a",
      variant = "add_f16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 8192,
        threads = 1024,
      },
      device = "NVIDIA H200",
      gbps = 4354.6,
      shape = "N=128256",
      target = "sm90a",
      variant = "add_f32",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 1024,
        threads = 128,
      },
      device = "any",
      target = "sm80",
      variant = "add_bf16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 1024,
        threads = 128,
      },
      device = "any",
      target = "sm80",
      variant = "add_f16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 1024,
        threads = 128,
      },
      device = "any",
      target = "sm90a",
      variant = "add_bf16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 1024,
        threads = 128,
      },
      device = "any",
      target = "sm90a",
      variant = "add_f16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 16384,
        threads = 1024,
      },
      device = "any",
      target = "sm80",
      variant = "add_f32",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 16384,
        threads = 1024,
      },
      device = "any",
      target = "sm90a",
      variant = "add_f32",
    },
  },
}

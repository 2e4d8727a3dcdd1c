-- Tuned configs of kernel add: for sm90a on NVIDIA H200, one entry a row-length
-- bucket, and the rule (device "any", for devices without entries), written by
-- bench/rowops_tune.py from bench/rowops_grid.py sweeps (bench/results/).
-- gen uses the entries whose target, device and variant match; the launcher
-- runs the bucket nearest the call's sizes (docs/runtime.md).
return {
  kernel = "add",
  entries = {
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 2048,
        threads = 128,
      },
      device = "NVIDIA H200",
      gbps = 4158.6,
      shape = "N=128256",
      target = "sm90a",
      variant = "add_bf16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 2048,
        threads = 128,
      },
      device = "NVIDIA H200",
      gbps = 4120.7,
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
        BLOCK = 2048,
        threads = 128,
      },
      device = "any",
      target = "sm80",
      variant = "add_bf16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 2048,
        threads = 128,
      },
      device = "any",
      target = "sm80",
      variant = "add_f16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 2048,
        threads = 128,
      },
      device = "any",
      target = "sm90a",
      variant = "add_bf16",
    },
    {
      bucket = "N=134217728",
      config = {
        BLOCK = 2048,
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

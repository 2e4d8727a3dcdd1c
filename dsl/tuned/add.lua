-- Tuned configs of kernel add: for sm90a, one entry a row-length bucket
-- (bench/rowops_tune.py from a bench/rowops_grid.py sweep; bench/results/).
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
  },
}

-- Tuned configs of kernel layernorm, written by runtime/tune.lua.
-- gen uses the entry whose target, device, variant and shape bucket match;
-- -D on gen's command line still wins (docs/runtime.md, "How gen uses the
-- tuned-config file").  Re-run the tuner to update.
return {
  entries = {
    {
      bucket = "C=1024,R=65536",
      config = {
        BC = 1024,
        RB = 1,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2557.892316,
      kernel_hash = "e24d50aec7594a4c",
      median_ms = 0.1049440019,
      shape = "C=1024,R=65536",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "layernorm_bf16",
    },
    {
      bucket = "C=4096,R=32768",
      config = {
        BC = 1024,
        RB = 1,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2404.301502,
      kernel_hash = "e24d50aec7594a4c",
      median_ms = 0.2232960016,
      shape = "C=4096,R=32768",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "layernorm_bf16",
    },
    {
      bucket = "C=8192,R=8192",
      config = {
        BC = 4096,
        RB = 1,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2136.136563,
      kernel_hash = "e24d50aec7594a4c",
      median_ms = 0.1256639957,
      shape = "C=8192,R=8192",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "layernorm_bf16",
    },
  },
  kernel = "layernorm",
}

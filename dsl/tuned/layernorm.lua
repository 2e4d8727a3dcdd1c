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
        RB = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2581.507259,
      kernel_hash = "d6b8a5aebedbeea4",
      median_ms = 0.103984002,
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
      gbps = 2527.069729,
      kernel_hash = "d6b8a5aebedbeea4",
      median_ms = 0.2124480009,
      shape = "C=4096,R=32768",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "layernorm_bf16",
    },
    {
      bucket = "C=8192,R=8192",
      config = {
        BC = 2048,
        RB = 1,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2257.429561,
      kernel_hash = "d6b8a5aebedbeea4",
      median_ms = 0.1189119965,
      shape = "C=8192,R=8192",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "layernorm_bf16",
    },
  },
  kernel = "layernorm",
}

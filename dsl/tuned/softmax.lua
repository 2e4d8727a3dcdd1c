-- Tuned configs of kernel softmax, written by runtime/tune.lua.
-- gen uses the entry whose target, device, variant and shape bucket match;
-- -D on gen's command line still wins (docs/runtime.md, "How gen uses the
-- tuned-config file").  Re-run the tuner to update.
return {
  entries = {
    {
      bucket = "C=4096,R=4096",
      config = {
        BC = 4096,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2351.067312,
      kernel_hash = "ff41e2a6c9a42e90",
      median_ms = 0.02854399942,
      shape = "C=4096,R=4096",
      target = "sm80",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "softmax_bf16",
    },
    {
      bucket = "C=1024,R=65536",
      config = {
        BC = 1024,
        RB = 1,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2888.639125,
      kernel_hash = "36abdd4d78e447f8",
      median_ms = 0.09292799979,
      shape = "C=1024,R=65536",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "softmax_bf16",
    },
    {
      bucket = "C=16384,R=4096",
      config = {
        BC = 8192,
        RB = 1,
        threads = 512,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2421.304035,
      kernel_hash = "085217cc75df31d7",
      median_ms = 0.1108640023,
      shape = "C=16384,R=4096",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "softmax_bf16",
    },
    {
      bucket = "C=4096,R=32768",
      config = {
        BC = 4096,
        RB = 1,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2822.783895,
      kernel_hash = "36abdd4d78e447f8",
      median_ms = 0.1901919991,
      shape = "C=4096,R=32768",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "softmax_bf16",
    },
    {
      bucket = "C=8192,R=8192",
      config = {
        BC = 8192,
        RB = 1,
        threads = 512,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 2550.116507,
      kernel_hash = "36abdd4d78e447f8",
      median_ms = 0.1052639969,
      shape = "C=8192,R=8192",
      target = "sm90a",
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "softmax_bf16",
    },
  },
  kernel = "softmax",
}

-- Tuned configs of kernel attention_bwd_dq, written by runtime/tune.lua.
-- gen uses the entry whose target, device, variant and shape bucket match;
-- -D on gen's command line still wins (docs/runtime.md, "How gen uses the
-- tuned-config file").  Re-run the tuner to update.
return {
  entries = {
    {
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 64,
        BN = 64,
        stages = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 136.3771599,
      kernel_hash = "3e9be40e0906e50c",
      median_ms = 2.475791931,
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm80",
      tflops = 333.0787658,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "attention_bwd_dq_bf16_d128",
    },
    {
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 64,
        BN = 32,
        stages = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 107.9438595,
      kernel_hash = "3e9be40e0906e50c",
      median_ms = 3.127935886,
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm80",
      tflops = 263.6351098,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "attention_bwd_dq_bf16_d128_softcap",
    },
    {
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 64,
        BN = 128,
        stages = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 130.9442909,
      kernel_hash = "3e9be40e0906e50c",
      median_ms = 1.29726398,
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm80",
      tflops = 317.8357426,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "attention_bwd_dq_bf16_d64",
    },
    {
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 64,
        BN = 128,
        stages = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 88.50310186,
      kernel_hash = "3e9be40e0906e50c",
      median_ms = 1.919359982,
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm80",
      tflops = 214.8199735,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "attention_bwd_dq_bf16_d64_softcap",
    },
    {
      -- set by hand (2026-11-25): the 256-thread warp-specialized kernel, 128 query rows and 128 keys a
      -- step; bf16 on an H200, 0.87-0.95x the time of the tuner's 128-thread cp.async ring
      -- (bench/results/2026-11-25-h200-attention-bwd-dq-warpspec.txt)
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 128,
        BN = 128,
        stages = 2,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm90a",
      variant = "attention_bwd_dq_bf16_d128",
    },
    {
      -- set by hand (2026-11-26): the tuner's 128 query rows and 32 keys a step on a 3-stage cp.async
      -- ring (2 before); bf16 on an H200, 0.93-0.98x the dQ time of 2 stages at S 1K-16K
      -- (bench/results/2026-11-26-h200-attention-bwd-d256.txt)
      bucket = "B=4,Hkv=8,Hq=8,Sk=4096,Sq=4096",
      config = {
        BM = 128,
        BN = 32,
        stages = 3,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      shape = "B=4,Hkv=8,Hq=8,Sk=4096,Sq=4096",
      target = "sm90a",
      variant = "attention_bwd_dq_bf16_d256",
    },
    {
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 64,
        BN = 128,
        stages = 3,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 208.8899565,
      kernel_hash = "3e9be40e0906e50c",
      median_ms = 0.8131999969,
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm90a",
      tflops = 507.0300811,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "attention_bwd_dq_bf16_d64",
    },
    {
      -- set by hand (2026-11-25): the 256-thread warp-specialized kernel, 128 query rows and 128 keys a
      -- step; bf16 on an H200, 0.87-0.95x the time of the tuner's 128-thread cp.async ring
      -- (bench/results/2026-11-25-h200-attention-bwd-dq-warpspec.txt)
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 128,
        BN = 128,
        stages = 2,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm90a",
      variant = "attention_bwd_dq_f16_d128",
    },
    {
      -- set by hand (2026-11-26): the tuner's 128 query rows and 32 keys a step on a 3-stage cp.async
      -- ring (2 before); bf16 on an H200, 0.93-0.98x the dQ time of 2 stages at S 1K-16K
      -- (bench/results/2026-11-26-h200-attention-bwd-d256.txt)
      bucket = "B=4,Hkv=8,Hq=8,Sk=4096,Sq=4096",
      config = {
        BM = 128,
        BN = 32,
        stages = 3,
        threads = 256,
      },
      device = "NVIDIA H100 80GB HBM3",
      shape = "B=4,Hkv=8,Hq=8,Sk=4096,Sq=4096",
      target = "sm90a",
      variant = "attention_bwd_dq_f16_d256",
    },
    {
      bucket = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      config = {
        BM = 64,
        BN = 128,
        stages = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 202.4297271,
      kernel_hash = "3e9be40e0906e50c",
      median_ms = 0.8391520083,
      shape = "B=4,Hkv=16,Hq=16,Sk=4096,Sq=4096",
      target = "sm90a",
      tflops = 491.3494294,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "attention_bwd_dq_f16_d64",
    },
  },
  kernel = "attention_bwd_dq",
}

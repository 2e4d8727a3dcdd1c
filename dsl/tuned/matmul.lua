-- Tuned configs of kernel matmul, written by runtime/tune.lua.
-- gen uses the entry whose target, device, variant and shape bucket match;
-- -D on gen's command line still wins (docs/runtime.md, "How gen uses the
-- tuned-config file").  Re-run the tuner to update.
return {
  entries = {
    {
      bucket = "K=4096,M=4096,N=4096,batch=1",
      config = {
        BK = 64,
        BM = 128,
        BN = 128,
        group_m = 8,
        stages = 2,
        threads = 128,
      },
      device = "NVIDIA H100 80GB HBM3",
      gbps = 392.890632,
      kernel_hash = "ab035fbed1218d7c",
      median_ms = 0.3416160047,
      shape = "K=4096,M=4096,N=4096,batch=1",
      target = "sm80",
      tflops = 402.3200072,
      toolchain = "nvcc: Cuda compilation tools, release 13.0, V13.0.88 | Build cuda_13.0.r13.0/compiler.36424714_0",
      variant = "matmul_bf16_none_nn",
    },
  },
  kernel = "matmul",
}

-- the same target, device, variant and bucket twice: which one would win?
return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_duplicate_f32", bucket = "N=4096,M=64",
      config = { BLOCK = 512 } },
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_duplicate_f32", bucket = "M=64,N=4096",
      config = { BLOCK = 1024 } },
  },
}

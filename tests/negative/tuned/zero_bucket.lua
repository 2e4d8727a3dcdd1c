return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_zero_bucket_f32",
      bucket = "N=0", config = { BLOCK = 512 } },
  },
}

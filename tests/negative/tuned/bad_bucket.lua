return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_bad_bucket_f32",
      bucket = "N=1000,R=64", config = { BLOCK = 512 } },
  },
}

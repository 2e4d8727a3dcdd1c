return {
  kernel = "tuned_wrong_type",
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_wrong_type_f32", bucket = "N=4096",
      config = {
        BLOCK = "512",
        threads = 128,
      } },
  },
}

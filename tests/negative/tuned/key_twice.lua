return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_key_twice_f32", bucket = "N=4096", config = {
      BLOCK = 512,
      BLOCK = 1024,
    } },
  },
}

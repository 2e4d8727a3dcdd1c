return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_alternatives_item_f32", bucket = "N=1024", config = { BLOCK = 1024 } },
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_alternatives_item_f32", bucket = "N=4096", config = { BLOCK = 256 },
      alternative = { { BLOCK = 512 }, 5 } },
  },
}

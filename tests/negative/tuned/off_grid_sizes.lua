return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_off_grid_sizes_f32", bucket = "N=4096,R=64", config = { BLOCK = 512 },
      off_grid = "N=2048" },
  },
}

return {
  kernel = "tuned_float",
  entries = {
    { target = "c", device = "CPU", variant = "tuned_float_bf16", bucket = "N=1024",
      config = { threads = 1, BLOCK = 512.0 } },
  },
}

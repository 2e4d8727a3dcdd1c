return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_unfinished_string_f32",
      bucket = "N=4096, config = { BLOCK = 512 } },
  },
}

return {
  entries = {
    { target = "sm_90", device = "NVIDIA H200", variant = "tuned_unknown_target_f32", bucket = "N=4096",
      config = { BLOCK = 512 } },
  },
}

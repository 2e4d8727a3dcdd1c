-- a comma is missing after the bucket
return {
  kernel = "tuned_syntax",
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_syntax_f32", bucket = "N=4096"
      config = { BLOCK = 512 } },
  },
}

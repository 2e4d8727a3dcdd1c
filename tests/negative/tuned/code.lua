-- a tuned-config file is data: nothing in it runs
return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", variant = "tuned_code_f32", bucket = "N=4096",
      config = { BLOCK = math.floor(512.5) } },
  },
}

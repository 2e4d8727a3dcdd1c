return {
  entries = {
    { target = "sm80", device = "NVIDIA H200", bucket = "N=4096",
      config = { BLOCK = 512 } },
  },
}

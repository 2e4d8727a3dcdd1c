-- an entry for another target is checked too: the file is stale as a whole
return {
  kernel = "tuned_unknown_key",
  entries = {
    { target = "gfx942", device = "AMD Instinct MI300X", variant = "tuned_unknown_key_f32", bucket = "N=4096",
      config = { BLOK = 512, threads = 128 } },
  },
}

return {
  kernel = "softmax",
  entries = {},
}

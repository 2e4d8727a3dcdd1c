
/* The launcher's 64-bit max and min (host code): grid and workspace sizes
** from a max or min of sizes, computed without overflow. */
static inline __attribute__((unused)) int64_t lt_wide_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline __attribute__((unused)) int64_t lt_wide_min(int64_t a, int64_t b) { return a < b ? a : b; }

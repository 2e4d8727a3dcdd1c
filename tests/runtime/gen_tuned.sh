#!/usr/bin/env bash
# tests/runtime/gen_tuned.sh: how gen uses a tuned-config file (gen/lua/tuned.c),
# with hand-written files: which entry each variant gets (device, bucket,
# several: one kernel each, or one for buckets of the same code, and a dispatching launcher), what --list / --explain / the generated Config comment say, that the
# generated code is the code of that config, that -D wins, --no-tuned, byte
# stability, and a broken file at the default place.  The loop through the
# tuner itself is in run.sh (tune_loop_*).  Needs only gen (LT_GEN, default
# build/gen); prints PASS / FAIL lines (one SKIP when there is no gen) and
# exits 0.  Malformed files, one error each, are in tests/negative.
cd "$(dirname "$0")/../.." || exit 0
root=$(pwd)
gen=${LT_GEN:-build/gen}
case $gen in /*) ;; *) gen=$root/$gen ;; esac
W=$root/build/runtime/gen_tuned
rm -rf "$W"
mkdir -p "$W/k/kernels" "$W/k/tuned" "$W/plain/kernels"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $(echo "$2" | tr '\n' ' ' | cut -c1-400)"; }
# check NAME WHY: PASS when WHY is empty.
check() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }

if [ ! -x "$gen" ]; then
  echo "SKIP gen_tuned: no gen at $gen (set LT_GEN or build it: ./build.sh gen)"
  exit 0
fi

# A kernel with a config of every kind (whole number, boolean, string).
cat >"$W/k/kernels/tvadd.lua" <<'EOF'
local tile = require "tile"
return tile.kernel {
  name = "tvadd",
  variants = { dtype = { "f32", "f16" } },
  config = { BLOCK = 1024, threads = 128, unroll = false, note = "plain" },
  params = function(v) return { X = tile.tensor(v.dtype, { "N" }), Y = tile.tensor(v.dtype, { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    k:store(p.Y:tile({ i }, { c.BLOCK }), k:load(p.X:tile({ i }, { c.BLOCK })))
  end,
}
EOF
cp "$W/k/kernels/tvadd.lua" "$W/plain/kernels/tvadd.lua"   # the same kernel without a tuned file

# sm80: two devices; GPU A has two buckets.  gfx942: one device, two
# buckets of tvadd_f16.  gfx90a: three buckets (the launcher's order).
cat >"$W/k/tuned/tvadd.lua" <<'EOF'
-- written by hand for tests/runtime/gen_tuned.sh
return {
  kernel = "tvadd",
  entries = {
    { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 256 } },
    { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1048576",
      config = { BLOCK = 2048, threads = 256, unroll = true, note = "wide" }, median_ms = 0.5, gbps = 0/0 },
    { target = "sm80", device = "GPU B", variant = "tvadd_f32", bucket = "N=1048576", config = { BLOCK = 512 } },
    { target = "gfx942", device = "MI300X", variant = "tvadd_f16", bucket = "N=4096", config = { BLOCK = 512 } },
    { target = "gfx942", device = "MI300X", variant = "tvadd_f16", bucket = "N=65536", config = { BLOCK = 4096 } },
    { target = "gfx90a", device = "MI250", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 256 } },
    { target = "gfx90a", device = "MI250", variant = "tvadd_f32", bucket = "N=16", config = { BLOCK = 128 } },
    { target = "gfx90a", device = "MI250", variant = "tvadd_f32", bucket = "N=65536", config = { BLOCK = 512 } },
  },
}
EOF
cd "$W" || exit 0
K=k/kernels/tvadd.lua
F=k/tuned/tvadd.lua

# want_list NAME ARGS... -- LINE...: gen K --list ARGS prints each LINE.
want_list() {
  local name=$1
  shift
  local args=()
  while [ "$1" != "--" ]; do args+=("$1"); shift; done
  shift
  "$gen" "$K" --list "${args[@]}" >"$name.out" 2>"$name.err"
  local rc=$? why=
  [ $rc = 0 ] || why="status $rc: $(cat "$name.err"); "
  local l
  for l in "$@"; do grep -qxF -- "$l" "$name.out" || why+="no line '$l' in: $(cat "$name.out"); "; done
  check "$name" "$why"
}

want_list gen_tuned_buckets_listed --target sm80 --device "GPU A" -- \
  "  tvadd_f32  for N=1048576  config: BLOCK=2048 note=wide threads=256 unroll=true (tuned: $F, GPU A, N=1048576)" \
  "  tvadd_f32  for N=1024  config: BLOCK=256 note=plain threads=128 unroll=false (tuned: $F, GPU A, N=1024)" \
  "  tvadd_f16  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: $F has no entry for tvadd_f16 on sm80, GPU A)"
want_list gen_tuned_shape_bucket --target sm80 --device "GPU A" --shape N=1000 -- \
  "  tvadd_f32  config: BLOCK=256 note=plain threads=128 unroll=false (tuned: $F, GPU A, N=1024)"
want_list gen_tuned_shape_without_entry --target sm80 --device "GPU A" --shape N=5000 -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: $F has no entry for tvadd_f32 on sm80, GPU A, bucket N=8192)"
want_list gen_tuned_other_device --target sm80 --device "GPU B" -- \
  "  tvadd_f32  config: BLOCK=512 note=plain threads=128 unroll=false (tuned: $F, GPU B, N=1048576)"
want_list gen_tuned_two_devices_need_device --target sm80 -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: $F has sm80 entries for 2 devices (GPU A; GPU B); choose one with --device)"
want_list gen_tuned_unknown_device --target sm80 --device "GPU C" -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: $F has no entry for sm80 on GPU C)"
want_list gen_tuned_single_device --target gfx942 -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: $F has no entry for tvadd_f32 on gfx942, MI300X)" \
  "  tvadd_f16  for N=65536  config: BLOCK=4096 note=plain threads=128 unroll=false (tuned: $F, MI300X, N=65536)" \
  "  tvadd_f16  for N=4096  config: BLOCK=512 note=plain threads=128 unroll=false (tuned: $F, MI300X, N=4096)"
want_list gen_tuned_single_device_shape --target gfx942 --shape N=3000 -- \
  "  tvadd_f16  config: BLOCK=512 note=plain threads=128 unroll=false (tuned: $F, MI300X, N=4096)"
want_list gen_tuned_buckets_largest_first --target gfx90a -- \
  "  tvadd_f32  for N=65536  config: BLOCK=512 note=plain threads=128 unroll=false (tuned: $F, MI250, N=65536)" \
  "  tvadd_f32  for N=1024  config: BLOCK=256 note=plain threads=128 unroll=false (tuned: $F, MI250, N=1024)" \
  "  tvadd_f32  for N=16  config: BLOCK=128 note=plain threads=128 unroll=false (tuned: $F, MI250, N=16)"
want_list gen_tuned_no_entry_for_target --target c -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: $F has no entry for c)"
want_list gen_tuned_define_wins --target sm80 --device "GPU A" -D threads=64 -D unroll=false -- \
  "  tvadd_f32  for N=1048576  config: BLOCK=2048 note=wide threads=64 unroll=false (tuned: $F, GPU A, N=1048576; -D: threads unroll)" \
  "  tvadd_f32  for N=1024  config: BLOCK=256 note=plain threads=64 unroll=false (tuned: $F, GPU A, N=1024; -D: threads unroll)"
want_list gen_tuned_no_tuned --target sm80 --device "GPU A" --no-tuned -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults)"
want_list gen_tuned_list_summary -- \
  "  config: BLOCK=1024 note=plain threads=128 unroll=false" \
  "  tuned: $F, 8 entries: sm80 3, gfx90a 3, gfx942 2; --list --target T shows the config each variant gets"

# the code is the code of the chosen config: the same files as --no-tuned
# with that config as -D, but for the Config comment, which says where it
# came from (GPU B has one bucket, so one kernel)
why=
"$gen" "$K" --target sm80 --device "GPU B" -o code_tuned 2>code.err || why+="gen failed: $(cat code.err); "
"$gen" "$K" --target sm80 --no-tuned -D BLOCK=512 -o code_d 2>>code.err || why+="gen -D failed: $(cat code.err); "
want=" * Config: BLOCK=512 note=plain threads=128 unroll=false (tuned: $F, GPU B, N=1048576)."
grep -qxF -- "$want" code_tuned/tvadd_f32.cu || why+="no line '$want' in tvadd_f32.cu; "
diff <(grep -v '^ \* Config: ' code_tuned/tvadd_f32.cu) <(grep -v '^ \* Config: ' code_d/tvadd_f32.cu) >/dev/null ||
  why+="tvadd_f32.cu is not the -D code; "
cmp -s code_tuned/tvadd_f32.h code_d/tvadd_f32.h || why+="tvadd_f32.h differs; "
grep -q "512" code_tuned/tvadd_f32.cu || why+="BLOCK=512 not in the code; "
check gen_tuned_code_is_the_config "$why"

# several buckets: one kernel and one static launcher per bucket, each the
# code of its config, and one launcher that picks the nearest bucket
why=
"$gen" "$K" --target gfx90a -o disp 2>disp.err || why+="gen failed: $(cat disp.err); "
src=disp/tvadd_f32.hip
for b in N65536:512 N1024:256 N16:128; do
  n=${b%%:*} blk=${b#*:}
  grep -qxF "static int tvadd_f32_${n}(const void *X, void *Y, int N, void *stream)" $src || why+="no launcher for $n; "
  # the bucket's kernel is the -D code of its config, renamed
  "$gen" "$K" --target gfx90a --no-tuned -D BLOCK=$blk -o "disp_$n" 2>>disp.err || why+="gen -D BLOCK=$blk failed; "
  sed -n "/^\/\* One block/,/^}/p" "disp_$n/tvadd_f32.hip" | sed "s/tvadd_f32/tvadd_f32_$n/" >"want_$n"
  sed -n "/^\/\* One block (128 threads) of tvadd_f32_$n\. \*\//,/^}/p" $src >"got_$n"
  [ "$(wc -l <"want_$n")" -gt 10 ] && cmp -s "want_$n" "got_$n" || why+="the $n kernel is not the BLOCK=$blk code; "
done
# buckets of one size: a chain on it, each bucket up to the power of two
# halfway (in log2) to the next larger, ties to the larger: 2^4 and 2^10
# part at 2^6 (2^7 is 3 steps from both), 2^10 and 2^16 at 2^12
for l in "  if (N <= 64) return tvadd_f32_N16(X, Y, N, stream);" \
         "  if (N <= 4096) return tvadd_f32_N1024(X, Y, N, stream);" \
         "  return tvadd_f32_N65536(X, Y, N, stream);" \
         'extern "C" int tvadd_f32(const void *X, void *Y, int N, void *stream)'; do
  grep -qxF -- "$l" $src || why+="no line '$l'; "
done
grep -q "lt_bucket_distance" $src && why+="a distance function for buckets of one size; "
grep -qxF "int tvadd_f32(const void *X, void *Y, int N, void *stream);" disp/tvadd_f32.h || why+="header prototype; "
grep -q "tvadd_f32_N" disp/tvadd_f32.h && why+="the header names a bucket's launcher; "
check gen_tuned_dispatch "$why"

# buckets of one size that are not powers of two: each takes the sizes up
# to itself where the next lies within a power of two of it; 2048 and
# 65536 part at 2^13 as powers of two do; --shape takes the launcher's bucket
why=
cat >odd.lua <<'EOF'
return { kernel = "tvadd", entries = {
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 256 } },
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1536", config = { BLOCK = 512 } },
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=2048", config = { BLOCK = 1024 } },
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=65536", config = { BLOCK = 2048 } },
} }
EOF
"$gen" "$K" --target sm80 --tuned odd.lua -o odd 2>odd.err || why+="gen failed: $(cat odd.err); "
for l in "  if (N <= 1024) return tvadd_f32_N1024(X, Y, N, stream);" \
         "  if (N <= 1536) return tvadd_f32_N1536(X, Y, N, stream);" \
         "  if (N <= 8192) return tvadd_f32_N2048(X, Y, N, stream);" \
         "  return tvadd_f32_N65536(X, Y, N, stream);"; do
  grep -qxF -- "$l" odd/tvadd_f32.cu || why+="no line '$l'; "
done
[ "$(grep -c '^  if (N <= [1-9]\|^  return tvadd_f32_N' odd/tvadd_f32.cu)" = 4 ] || why+="not a chain of four; "
check gen_tuned_dispatch_not_powers_of_two "$why"
# buckets whose kernels are the same code share one (gen/pass/share.c):
# one config (N=1024 as N=16384), or configs apart only in a value the code
# never reads (note, N=4096); the Configs list says which of the two, the
# launcher sends all three to it, and gen --no-share prints each its own,
# which tests/golden/share.lua finds equal to the shared one, names aside
why=
cat >share.lua <<'EOF'
return { kernel = "tvadd", entries = {
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 256, note = "a" } },
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=4096", config = { BLOCK = 256, note = "b" } },
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=16384", config = { BLOCK = 256, note = "a" } },
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=65536", config = { BLOCK = 1024 } },
} }
EOF
"$gen" "$K" --target sm80 --tuned share.lua -o share 2>share.err || why+="gen failed: $(cat share.err); "
"$gen" "$K" --target sm80 --tuned share.lua --no-share -o share_alone 2>>share.err || why+="gen --no-share failed: $(cat share.err); "
for l in " *   N=4096: BLOCK=256 note=b threads=128 unroll=false (tuned: share.lua, GPU A, N=4096); the same code as N=16384's, whose kernel it runs" \
         " *   N=1024: the config of N=16384, whose kernel it runs" \
         "  if (N <= 1024) return tvadd_f32_N16384(X, Y, N, stream);" \
         "  if (N <= 4096) return tvadd_f32_N16384(X, Y, N, stream);" \
         "  if (N <= 16384) return tvadd_f32_N16384(X, Y, N, stream);" \
         "  return tvadd_f32_N65536(X, Y, N, stream);"; do
  grep -qxF -- "$l" share/tvadd_f32.cu || why+="no line '$l'; "
done
grep -q "of tvadd_f32_N16384\. One config serves the tuned buckets N=16384, N=4096 and N=1024: " share/tvadd_f32.cu ||
  why+="the shared kernel's comment does not name its buckets; "
[ "$(grep -c '_kernel(' share/tvadd_f32.cu)" = 2 ] || why+="not two kernels; "
[ "$(grep -c '_kernel(' share_alone/tvadd_f32.cu)" = 4 ] || why+="--no-share: not four kernels; "
r=$(lua5.4 "$root/tests/golden/share.lua" share/tvadd_f32.cu share_alone/tvadd_f32.cu 2>&1)
[ "$r" = "ok 4 2" ] || why+="tests/golden/share.lua: $r; "
check gen_tuned_share_same_code "$why"
want_list gen_tuned_shape_not_powers_of_two --target sm80 --tuned odd.lua --shape N=1200 -- \
  "  tvadd_f32  config: BLOCK=512 note=plain threads=128 unroll=false (tuned: odd.lua, GPU A, N=1536)"
want_list gen_tuned_shape_between_far_buckets --target sm80 --tuned odd.lua --shape N=8000 -- \
  "  tvadd_f32  config: BLOCK=1024 note=plain threads=128 unroll=false (tuned: odd.lua, GPU A, N=2048)"

# the rule: entries of device "any" name no device to choose; a variant takes
# them when the chosen device has no entry for it, or no device is chosen
cat >rule.lua <<'EOF'
return { kernel = "tvadd", entries = {
  { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 256 } },
  { target = "sm80", device = "any", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 512 } },
  { target = "sm80", device = "any", variant = "tvadd_f16", bucket = "N=64", config = { BLOCK = 64 } },
  { target = "sm80", device = "any", variant = "tvadd_f16", bucket = "N=4096", config = { BLOCK = 2048 } },
} }
EOF
want_list gen_tuned_rule_beside_a_device --target sm80 --tuned rule.lua -- \
  "  tvadd_f32  config: BLOCK=256 note=plain threads=128 unroll=false (tuned: rule.lua, GPU A, N=1024)" \
  "  tvadd_f16  for N=4096  config: BLOCK=2048 note=plain threads=128 unroll=false (rule: rule.lua, N=4096)" \
  "  tvadd_f16  for N=64  config: BLOCK=64 note=plain threads=128 unroll=false (rule: rule.lua, N=64)"
want_list gen_tuned_rule_for_another_device --target sm80 --tuned rule.lua --device "GPU C" -- \
  "  tvadd_f32  config: BLOCK=512 note=plain threads=128 unroll=false (rule: rule.lua, N=1024)" \
  "  tvadd_f16  for N=64  config: BLOCK=64 note=plain threads=128 unroll=false (rule: rule.lua, N=64)"
want_list gen_tuned_rule_not_for_other_targets --target gfx90a --tuned rule.lua -- \
  "  tvadd_f16  config: BLOCK=1024 note=plain threads=128 unroll=false (kernel defaults: rule.lua has no entry for gfx90a)"

# buckets of two sizes: a distance a bucket, the least sum wins (ties: the first)
why=
cat >"$W/k/kernels/tv2.lua" <<'EOF'
local tile = require "tile"
return tile.kernel {
  name = "tv2",
  config = { BR = 4, threads = 128 },
  params = function() return { X = tile.tensor("f32", { "R", "C" }), Y = tile.tensor("f32", { "R", "C" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.R, c.BR))
    k:store(p.Y:tile({ i, 0 }, { c.BR, 64 }), k:load(p.X:tile({ i, 0 }, { c.BR, 64 })))
  end,
}
EOF
cat >tv2tuned.lua <<'EOF'
return { kernel = "tv2", entries = {
  { target = "sm80", device = "GPU A", variant = "tv2", bucket = "C=64,R=4096", config = { BR = 8 } },
  { target = "sm80", device = "GPU A", variant = "tv2", bucket = "C=64,R=16", config = { BR = 2 } },
} }
EOF
"$gen" k/kernels/tv2.lua --target sm80 --tuned tv2tuned.lua -o tv2 2>tv2.err || why+="gen failed: $(cat tv2.err); "
for l in "  const int d0 = lt_bucket_distance(C, 6) + lt_bucket_distance(R, 12);   /* C=64,R=4096 */" \
         "  const int d1 = lt_bucket_distance(C, 6) + lt_bucket_distance(R, 4);   /* C=64,R=16 */" \
         "  if (d0 <= d1) return tv2_C64_R4096(X, Y, R, C, stream);" \
         "  return tv2_C64_R16(X, Y, R, C, stream);"; do
  grep -qxF -- "$l" tv2/tv2.cu 2>/dev/null || why+="no line '$l'; "
done
check gen_tuned_dispatch_two_sizes "$why"

# on the c target the dispatching launcher runs: each bucket's kernel
# copies X to Y, at sizes around both buckets (built with the C compiler here)
why=
cat >ctuned.lua <<'EOF'
return { kernel = "tvadd", entries = {
  { target = "c", device = "CPU", variant = "tvadd_f32", bucket = "N=64", config = { BLOCK = 16 } },
  { target = "c", device = "CPU", variant = "tvadd_f32", bucket = "N=8192", config = { BLOCK = 2048 } },
} }
EOF
"$gen" "$K" --target c --tuned ctuned.lua -o cdisp 2>cdisp.err || why+="gen failed: $(cat cdisp.err); "
mkdir -p cdisp
cat >cdisp/main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "tvadd_f32.h"
int main(void) {
  static const int ns[] = {1, 17, 64, 100, 3000, 8192, 10007};
  for (int i = 0; i < 7; i++) {
    int n = ns[i];
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    for (int j = 0; j < n; j++) x[j] = (float)(j * 7 % 13) - 6.5f, y[j] = 1e30f;
    if (tvadd_f32(x, y, n, NULL) != 0) return printf("N=%d: launcher error\n", n), 1;
    for (int j = 0; j < n; j++)
      if (y[j] != x[j]) return printf("N=%d: y[%d] = %g, want %g\n", n, j, y[j], x[j]), 1;
    free(x), free(y);
  }
  if (tvadd_f32(NULL, NULL, 5, NULL) == 0) return printf("a null pointer was accepted\n"), 1;
  return 0;
}
EOF
grep -qF "static int tvadd_f32_N64(" cdisp/tvadd_f32.c || why+="no N=64 launcher; "
if [ -z "$why" ]; then
  cc -std=c11 -O1 -Wall -Wextra -Icdisp cdisp/main.c cdisp/tvadd_f32.c -lm -o cdisp/run 2>cdisp.err ||
    why+="build failed: $(head -c 300 cdisp.err); "
  [ -z "$why" ] && { cdisp/run >cdisp.out 2>&1 || why+="run failed: $(cat cdisp.out); "; }
fi
check gen_tuned_dispatch_runs "$why"

# an entry's alternative config (tuned.c, emit/dispatch.c): a kernel of its
# own after the buckets', which the bucket's lines run where it leaves the
# busiest SM less work (programs an SM, rounded up, x the k:fragment's
# elements; on c one "SM"); the launcher runs on the c target at sizes
# where each of the four configs runs, and --list names the alternatives
why=
cat >"$W/k/kernels/tvfrag.lua" <<'EOF'
local tile = require "tile"
return tile.kernel {
  name = "tvfrag",
  config = { BLOCK = 1024, threads = 128 },
  params = function() return { X = tile.tensor("f32", { "N" }), Y = tile.tensor("f32", { "N" }) } end,
  body = function(k, p, c)
    local i = k:grid(tile.cdiv(p.N, c.BLOCK))
    local acc = k:fragment("f32", { 1, c.BLOCK }, 0)
    k:assign(acc, k:load(p.X:tile({ i }, { c.BLOCK })) * 2)
    k:store(p.Y:tile({ i }, { c.BLOCK }), acc)
  end,
}
EOF
cat >alttuned.lua <<'EOF'
return { kernel = "tvfrag", entries = {
  { target = "c", device = "CPU", variant = "tvfrag", bucket = "N=64", config = { BLOCK = 64 },
    alternative = { BLOCK = 16 } },
  { target = "c", device = "CPU", variant = "tvfrag", bucket = "N=8192", config = { BLOCK = 2048 },
    alternative = { BLOCK = 512 } },
  { target = "sm80", device = "GPU A", variant = "tvfrag", bucket = "N=64", config = { BLOCK = 256 } },
  { target = "sm80", device = "GPU A", variant = "tvfrag", bucket = "N=8192", config = { BLOCK = 2048 },
    alternative = { threads = 256 } },
} }
EOF
"$gen" k/kernels/tvfrag.lua --target c --tuned alttuned.lua -o calt 2>calt.err || why+="gen failed: $(cat calt.err); "
for l in "  if (N <= 512) {" \
         "    const int64_t work = ((((int64_t)N + 64 - 1) / 64) + sm_count - 1) / sm_count * 64;   /* 1 x 64, its largest k:fragment */" \
         "    const int64_t work_alt = ((((int64_t)N + 16 - 1) / 16) + sm_count - 1) / sm_count * 16;   /* 1 x 16, its largest k:fragment */" \
         "      return tvfrag_N64_alt(X, Y, N, stream);" \
         "  const int64_t work = ((((int64_t)N + 2048 - 1) / 2048) + sm_count - 1) / sm_count * 2048;   /* 1 x 2048, its largest k:fragment */" \
         "  if (work_alt < work)" \
         "    return tvfrag_N8192_alt(X, Y, N, stream);" \
         "  return tvfrag_N8192(X, Y, N, stream);"; do
  grep -qxF -- "$l" calt/tvfrag.c 2>/dev/null || why+="no line '$l'; "
done
grep -qF " * Runs the config tuned for the shape bucket nearest the sizes (2 buckets, 2 with an alternative config" \
  calt/tvfrag.h 2>/dev/null || why+="the header does not count the alternatives; "
mkdir -p calt
cat >calt/main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "tvfrag.h"
int main(void) {
  static const int ns[] = {1, 17, 64, 100, 600, 3000, 8192, 10007};   /* N=64's own and alt, N=8192's own and alt */
  for (int i = 0; i < 8; i++) {
    int n = ns[i];
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
    for (int j = 0; j < n; j++) x[j] = (float)(j * 7 % 13) - 6.5f, y[j] = 1e30f;
    if (tvfrag(x, y, n, NULL) != 0) return printf("N=%d: launcher error\n", n), 1;
    for (int j = 0; j < n; j++)
      if (y[j] != 2 * x[j]) return printf("N=%d: y[%d] = %g, want %g\n", n, j, y[j], 2 * x[j]), 1;
    free(x), free(y);
  }
  return 0;
}
EOF
if [ -z "$why" ]; then
  cc -std=c11 -O1 -Wall -Wextra -Icalt calt/main.c calt/tvfrag.c -lm -o calt/run 2>calt.err ||
    why+="build failed: $(head -c 300 calt.err); "
  [ -z "$why" ] && { calt/run >calt.out 2>&1 || why+="run failed: $(cat calt.out); "; }
fi
"$gen" k/kernels/tvfrag.lua --target sm80 --tuned alttuned.lua -o salt 2>salt.err || why+="sm80 gen failed: $(cat salt.err); "
for l in "  if (sm_err != cudaSuccess) return (int)sm_err;" \
         "  const int64_t work_alt = ((((int64_t)N + 2048 - 1) / 2048) + sm_count - 1) / sm_count * 2048;   /* 1 x 2048, its largest k:fragment */" \
         "  return tvfrag_N8192(X, Y, N, stream);"; do
  grep -qxF -- "$l" salt/tvfrag.cu 2>/dev/null || why+="sm80: no line '$l'; "
done
"$gen" k/kernels/tvfrag.lua --target c --tuned alttuned.lua --list >alist.out 2>&1 || why+="--list failed; "
grep -qxF "  tvfrag  for N=8192 (alternative)  config: BLOCK=512 threads=128 (tuned: alttuned.lua, CPU, N=8192 (alternative))" \
  alist.out || why+="--list: $(cat alist.out); "
check gen_tuned_alternative "$why"

# an entry with a list of alternatives: kernels _alt and _alt2, and the
# bucket's lines run the config of least work, ties to the first (the
# bucket's, then the list's order): on c (one "SM") N = 700 runs 768
# (1 x 768 against 1024 and 2048), N = 3000 512 (3072, tied with 768's,
# against 4096), N = 8192 2048 (all tie)
why=
cat >alts.lua <<'EOF'
return { kernel = "tvfrag", entries = {
  { target = "c", device = "CPU", variant = "tvfrag", bucket = "N=64", config = { BLOCK = 64 } },
  { target = "c", device = "CPU", variant = "tvfrag", bucket = "N=8192", config = { BLOCK = 2048 },
    alternative = { { BLOCK = 512 }, { BLOCK = 768 } } },
} }
EOF
"$gen" k/kernels/tvfrag.lua --target c --tuned alts.lua -o calts 2>calts.err || why+="gen failed: $(cat calts.err); "
for l in "  /* bucket N=8192: its config or one of its entry's 2 alternatives, whichever leaves the busiest" \
         "  ** multiprocessor least work: programs a multiprocessor, rounded up, x a program's tile (ties: the first, its own) */" \
         "  const int64_t work_alt2 = ((((int64_t)N + 768 - 1) / 768) + sm_count - 1) / sm_count * 768;   /* 1 x 768, its largest k:fragment */" \
         "  if (work_alt < work && work_alt <= work_alt2)" \
         "    return tvfrag_N8192_alt(X, Y, N, stream);" \
         "  if (work_alt2 < work)" \
         "    return tvfrag_N8192_alt2(X, Y, N, stream);" \
         "  return tvfrag_N8192(X, Y, N, stream);"; do
  grep -qxF -- "$l" calts/tvfrag.c 2>/dev/null || why+="no line '$l'; "
done
grep -qF " * Runs the config tuned for the shape bucket nearest the sizes (2 buckets, 1 with alternative configs, 2 in all," \
  calts/tvfrag.h 2>/dev/null || why+="the header does not count the alternatives: $(grep Runs calts/tvfrag.h); "
"$gen" k/kernels/tvfrag.lua --target c --tuned alts.lua --list >alts.out 2>&1 || why+="--list failed; "
grep -qxF "  tvfrag  for N=8192 (alternative 2)  config: BLOCK=768 threads=128 (tuned: alts.lua, CPU, N=8192 (alternative 2))" \
  alts.out || why+="--list: $(cat alts.out); "
if [ -z "$why" ]; then
  sed -e 's/{1, 17, 64, 100, 600, 3000, 8192, 10007}/{1, 64, 700, 1100, 3000, 5000, 8192, 10007}/' calt/main.c >calts/main.c
  cc -std=c11 -O1 -Wall -Wextra -Icalts calts/main.c calts/tvfrag.c -lm -o calts/run 2>calts.err ||
    why+="build failed: $(head -c 300 calts.err); "
  [ -z "$why" ] && { calts/run >calts.out 2>&1 || why+="run failed: $(cat calts.out); "; }
fi
check gen_tuned_alternatives "$why"

# a bucket that names something other than a size: one error at its line
printf 'return { kernel = "tvadd", entries = {\n  { target = "c", device = "CPU", variant = "tvadd_f32", bucket = "A=4,N=1024", config = { BLOCK = 16 } },\n  { target = "c", device = "CPU", variant = "tvadd_f32", bucket = "N=64", config = { BLOCK = 32 } },\n} }\n' >badbucket.lua
"$gen" "$K" --target c --tuned badbucket.lua -o bad_out >bad.out 2>bad.err
rc=$?
why=
[ $rc = 1 ] || why+="status $rc, want 1; "
[ "$(cat bad.err)" = "badbucket.lua:2: error: bucket A=4,N=1024 names A, which is not a size of tvadd_f32 (its sizes: N); a bucket names sizes only" ] ||
  why+="stderr is '$(cat bad.err)'; "
[ -e bad_out ] && why+="output left behind; "
check gen_tuned_bucket_not_a_size "$why"

# buckets tuned to one config: one kernel, no launcher choosing between copies of it
why=
printf 'return { kernel = "tvadd", entries = {\n  { target = "c", device = "CPU", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 64 } },\n  { target = "c", device = "CPU", variant = "tvadd_f32", bucket = "N=64", config = { BLOCK = 64 } },\n} }\n' >same.lua
"$gen" "$K" --target c --tuned same.lua -o same_out 2>same.err || why+="gen failed: $(cat same.err); "
src=same_out/tvadd_f32.c
[ "$(grep -c "^static void tvadd_f32.*_block(" $src 2>/dev/null)" = 1 ] || why+="not one kernel; "
grep -q "lt_bucket_distance" $src && why+="a bucket dispatcher; "
grep -qF " * Config: BLOCK=64 note=plain threads=128 unroll=false (tuned: same.lua, CPU, N=1024; the same for N=64)." $src ||
  why+="the header comment does not name both buckets: $(grep -m1 "Config" $src); "
check gen_tuned_one_config "$why"

why=
"$gen" "$K" --target sm80 --device "GPU A" --explain >explain.out 2>explain.err || why+="status $?: $(cat explain.err); "
grep -qxF "  config: BLOCK=2048 note=wide threads=256 unroll=true (tuned: $F, GPU A, N=1048576)" explain.out ||
  why+="no tuned config line; "
grep -qxF "  tuned for shape bucket N=1024: tvadd_f32 runs it for the sizes nearest it (1 of 2 configs)" explain.out ||
  why+="no bucket line; "
grep -qF "register tile [1, 2048]: 1 x 256 threads" explain.out || why+="the plan is not the tuned config's; "
[ "$(grep -c '^  config: ' explain.out)" = 3 ] || why+="not one config line per variant and bucket; "
check gen_tuned_explain "$why"

# without a tuned file, output and --explain are what they always were
why=
"$gen" plain/kernels/tvadd.lua --target sm80 -o plain_out 2>plain.err || why+="gen failed: $(cat plain.err); "
"$gen" "$K" --target sm80 --no-tuned -o notuned_out 2>>plain.err || why+="gen --no-tuned failed; "
diff -r plain_out notuned_out >/dev/null || why+="--no-tuned output differs from the kernel without a tuned file; "
grep -qxF " * Config: BLOCK=1024 note=plain threads=128 unroll=false." plain_out/tvadd_f32.cu ||
  why+="the Config comment changed; "
"$gen" plain/kernels/tvadd.lua --target sm80 --explain >plain_explain.out 2>>plain.err
grep -q "config:" plain_explain.out && why+="--explain has a config line without a tuned file; "
check gen_tuned_absent_file_changes_nothing "$why"

# every target generates with the file there (as build.sh does), and the
# bytes are the same from another folder with an absolute path
why=
mkdir -p elsewhere
for t in sm80 sm90a gfx90a gfx942 gfx1100 c; do
  "$gen" "$K" --target "$t" -o "all1/$t" 2>all.err || why+="$t failed: $(cat all.err); "
  (cd elsewhere && "$gen" "$W/$K" --target "$t" -o "$W/all2/$t") 2>all.err || why+="$t (absolute) failed; "
done
diff -r all1 all2 >/dev/null || why+="two runs differ: $(diff -r all1 all2 | head -c 200); "
grep -qF " *   N=65536: BLOCK=4096 note=plain threads=128 unroll=false (tuned: $F, MI300X, N=65536)" all1/gfx942/tvadd_f16.hip ||
  why+="gfx942 tvadd_f16 not tuned; "
grep -qF "(kernel defaults: $F has sm80 entries for 2 devices" all1/sm80/tvadd_f32.cu || why+="sm80 comment; "
check gen_tuned_all_targets_stable "$why"

# tuned_as: a variant without an entry takes the one tuned_as names (the
# other variant's, with its buckets and their dispatch); its own entry wins
mkdir -p ta/kernels ta/tuned
sed 's/  config = { BLOCK = 1024, threads = 128, unroll = false, note = "plain" },/&\n  tuned_as = { dtype = { f16 = "f32" } },/' \
  "$K" >ta/kernels/tvadd.lua
cat >ta/tuned/tvadd.lua <<'EOF2'
return {
  kernel = "tvadd",
  entries = {
    { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1024", config = { BLOCK = 256 } },
    { target = "sm80", device = "GPU A", variant = "tvadd_f32", bucket = "N=1048576", config = { BLOCK = 2048 } },
    { target = "gfx942", device = "MI300X", variant = "tvadd_f32", bucket = "N=4096", config = { BLOCK = 512 } },
    { target = "gfx942", device = "MI300X", variant = "tvadd_f16", bucket = "N=4096", config = { BLOCK = 128 } },
  },
}
EOF2
TF=ta/tuned/tvadd.lua
why=
"$gen" ta/kernels/tvadd.lua --list --target sm80 --device "GPU A" >ta_list.out 2>ta.err || why+="gen failed: $(cat ta.err); "
for l in "  tvadd_f16  for N=1048576  config: BLOCK=2048 note=plain threads=128 unroll=false (tuned: $TF, GPU A, N=1048576; tvadd_f32's entry, by tuned_as)" \
         "  tvadd_f16  for N=1024  config: BLOCK=256 note=plain threads=128 unroll=false (tuned: $TF, GPU A, N=1024; tvadd_f32's entry, by tuned_as)"; do
  grep -qxF -- "$l" ta_list.out || why+="no line '$l' in: $(cat ta_list.out); "
done
"$gen" ta/kernels/tvadd.lua --list --target gfx942 >ta_own.out 2>ta.err || why+="gen gfx942 failed: $(cat ta.err); "
l="  tvadd_f16  config: BLOCK=128 note=plain threads=128 unroll=false (tuned: $TF, MI300X, N=4096)"
grep -qxF -- "$l" ta_own.out || why+="own entry: no line '$l' in: $(cat ta_own.out); "
"$gen" ta/kernels/tvadd.lua --target sm80 --device "GPU A" -o ta_code 2>ta.err || why+="gen -o failed: $(cat ta.err); "
grep -qxF "static int tvadd_f16_N1024(const void *X, void *Y, int N, void *stream)" ta_code/tvadd_f16.cu ||
  why+="tvadd_f16 has no launcher for f32's bucket N=1024; "
check gen_tuned_tuned_as "$why"

# variant_config: over config and target_config, over an entry borrowed by
# tuned_as, under the variant's own entry and -D; unsupported: the variant
# is not generated for that target and --list says why
mkdir -p vc/kernels vc/tuned
sed 's/  tuned_as = { dtype = { f16 = "f32" } },/&\n  target_config = { gfx942 = { threads = 64 } },\n  variant_config = function(v, target) if v.dtype == "f16" then return { BLOCK = 64, threads = 256 } end end,\n  unsupported = function(v, target) if v.dtype == "f16" and target == "gfx1100" then return "no f16 here" end end,/' \
  ta/kernels/tvadd.lua >vc/kernels/tvadd.lua
cp ta/tuned/tvadd.lua vc/tuned/tvadd.lua
TF=vc/tuned/tvadd.lua
why=
grep -q "variant_config = function" vc/kernels/tvadd.lua || why+="the test kernel has no variant_config; "
"$gen" vc/kernels/tvadd.lua --list --target sm80 --device "GPU A" >vc_list.out 2>vc.err || why+="gen failed: $(cat vc.err); "
l="  tvadd_f16  config: BLOCK=64 note=plain threads=256 unroll=false (tuned: $TF, GPU A, N=1048576; tvadd_f32's entry, by tuned_as; variant_config: BLOCK threads; the same for N=1024)"
grep -qxF -- "$l" vc_list.out || why+="borrowed: no line '$l' in: $(cat vc_list.out); "
"$gen" vc/kernels/tvadd.lua --list --target gfx942 >vc_own.out 2>vc.err || why+="gen gfx942 failed: $(cat vc.err); "
for l in "  tvadd_f16  config: BLOCK=128 note=plain threads=256 unroll=false (tuned: $TF, MI300X, N=4096; variant_config: threads)" \
         "  tvadd_f32  config: BLOCK=512 note=plain threads=64 unroll=false (tuned: $TF, MI300X, N=4096)"; do
  grep -qxF -- "$l" vc_own.out || why+="own entry: no line '$l' in: $(cat vc_own.out); "
done
"$gen" vc/kernels/tvadd.lua --list --target gfx942 -D BLOCK=32 >vc_d.out 2>vc.err || why+="gen -D failed: $(cat vc.err); "
l="  tvadd_f16  config: BLOCK=32 note=plain threads=256 unroll=false (tuned: $TF, MI300X, N=4096; variant_config: threads; -D: BLOCK)"
grep -qxF -- "$l" vc_d.out || why+="-D: no line '$l' in: $(cat vc_d.out); "
"$gen" vc/kernels/tvadd.lua --target gfx1100 -o vc_code 2>vc.err || why+="gen gfx1100 failed: $(cat vc.err); "
[ -e vc_code/tvadd_f32.hip ] || why+="gfx1100 has no tvadd_f32; "
[ -e vc_code/tvadd_f16.hip ] || [ -e vc_code/tvadd_f16.h ] && why+="gfx1100 has the unsupported tvadd_f16; "
"$gen" vc/kernels/tvadd.lua --list --target gfx1100 >vc_un.out 2>vc.err || why+="gen --list gfx1100 failed; "
grep -qxF "  tvadd_f16  unsupported: no f16 here" vc_un.out || why+="--list does not say why: $(cat vc_un.out); "
check gen_tuned_variant_config "$why"

# a broken file at the default place: gen says where, --no-tuned ignores it
printf 'return {\n  entries = {\n    { target = "c", config = { BLOCK = 2 * 512 } },\n  },\n}\n' >"$F"
"$gen" "$K" --target c -o broken_out >broken.out 2>broken.err
rc=$?
why=
[ $rc = 1 ] || why+="status $rc, want 1; "
[ "$(cat broken.err)" = "$F:3: error: '}' or ',' expected near '*' (a tuned-config file holds only literals)" ] ||
  why+="stderr is '$(cat broken.err)'; "
[ -e broken_out ] && why+="output left behind; "
"$gen" "$K" --target c --no-tuned -o broken_out2 2>broken.err || why+="--no-tuned failed: $(cat broken.err); "
check gen_tuned_broken_default_file "$why"
exit 0

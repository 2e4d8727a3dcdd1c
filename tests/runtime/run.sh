#!/usr/bin/env bash
# tests/runtime/run.sh: checks of the runtime (runtime/), its LuaJIT binding
# and the autotuner.  Prints one line per check: "PASS name", "FAIL name:
# why" or "SKIP name: why" (GPU checks skip where there is no device), and
# always exits 0.  Everything is built under build/runtime/, never in the
# source tree.  LT_GEN names gen (default build/gen); without it the checks
# that need gen print SKIP.  About a minute on 2 cores.
cd "$(dirname "$0")/../.." || exit 0
root=$(pwd)
B=$root/build/runtime
T=$B/t
mkdir -p "$T"
gen=${LT_GEN:-build/gen}
case $gen in /*) ;; *) gen=$root/$gen ;; esac
fx=$root/tests/runtime/fixtures

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $(echo "$2" | tr '\n' ' ' | cut -c1-400)"; }
skip() { echo "SKIP $1: $2"; }

# --- the C library, -Wall -Wextra -Werror ---------------------------------
if out=$(sh runtime/build.sh "$B" 2>&1); then pass runtime_build; else
  fail runtime_build "$out"
  exit 0
fi

# --- fixture modules: scale.c for the CPU; the CUDA / HIP twins compile here
# (no GPU needed) and run only where a device is ---------------------------
cc -O2 -std=c11 -Wall -Wextra -Werror -fPIC -shared -I"$fx" "$fx/scale.c" -o "$T/scale.so" -lm 2>"$T/cc.log" ||
  fail fixture_cpu "$(cat "$T/cc.log")"
cuda_so=-
if command -v nvcc >/dev/null 2>&1; then
  if nvcc -O3 -arch=sm_80 -Xcompiler -fPIC -shared -I"$fx" "$fx/scale.cu" -o "$T/scale_cuda.so" >"$T/nvcc.log" 2>&1; then
    pass fixture_cuda_compiles; cuda_so=$T/scale_cuda.so
  else fail fixture_cuda_compiles "$(head -c 300 "$T/nvcc.log")"; fi
else skip fixture_cuda_compiles "no nvcc"; fi
hip_so=-
if command -v hipcc >/dev/null 2>&1; then
  if hipcc -O3 --offload-arch=gfx90a -fPIC -shared -I"$fx" "$fx/scale.hip" -o "$T/scale_hip.so" >"$T/hipcc.log" 2>&1; then
    pass fixture_hip_compiles; hip_so=$T/scale_hip.so
  else fail fixture_hip_compiles "$(head -c 300 "$T/hipcc.log")"; fi
else skip fixture_hip_compiles "no hipcc"; fi

# --- the C API ---------------------------------------------------------------
if cc -O1 -g -std=c11 -Wall -Wextra -Werror -Iruntime tests/runtime/test_runtime.c "$B/libluatile.a" \
     -ldl -lm -o "$T/test_runtime" 2>"$T/cc.log"; then
  "$T/test_runtime" "$T/scale.so" "$cuda_so" "$hip_so" 2>"$T/test_runtime.err" ||
    fail test_runtime "crashed (status $?): $(tail -c 300 "$T/test_runtime.err")"
else
  fail test_runtime_build "$(head -c 400 "$T/cc.log")"
fi

# --- the LuaJIT binding and the tuner's Lua parts ---------------------------
if ! command -v luajit >/dev/null 2>&1; then
  skip binding "no luajit"
  skip tune "no luajit"
  exit 0
fi
LT_RUNTIME_LIB=$B/libluatile.so luajit tests/runtime/test_binding.lua "$T" 2>"$T/binding.err" ||
  fail test_binding "crashed (status $?): $(tail -c 300 "$T/binding.err")"
export LT_RUNTIME_LIB=$B/libluatile.so

# --- the examples of docs/runtime.md (blocks after "<!-- test: NAME -->") ---
doc_block() {
  awk -v name="$1" '
    $0 == "<!-- test: " name " -->" { want = 1; next }
    want && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' docs/runtime.md
}
doc_block doc_example_c >"$T/doc_example.c"
if [ ! -s "$T/doc_example.c" ]; then fail doc_example_c "no such block in docs/runtime.md"
elif ! cc -std=c11 -Wall -Wextra -Werror -Iruntime "$T/doc_example.c" "$B/libluatile.a" -ldl \
      -o "$T/doc_example" 2>"$T/doc_c.log"; then fail doc_example_c "$(head -c 300 "$T/doc_c.log")"
else
  "$T/doc_example" "$T/scale.so" >"$T/doc_c.out" 2>&1
  if grep -q "^Y\[999\] = 3, median" "$T/doc_c.out" && grep -q "as expected: no launcher 'nope'" "$T/doc_c.out"
  then pass doc_example_c; else fail doc_example_c "$(head -c 300 "$T/doc_c.out")"; fi
fi
doc_block doc_example_lua >"$T/doc_example.lua"
SCALE_SO=$T/scale.so luajit "$T/doc_example.lua" >"$T/doc_lua.out" 2>&1
if grep -q "^Y\[999\] =.2000" "$T/doc_lua.out" && grep -q "^median" "$T/doc_lua.out" &&
   grep -q "no module file 'missing.so'.5" "$T/doc_lua.out"
then pass doc_example_lua; else fail doc_example_lua "$(head -c 300 "$T/doc_lua.out")"; fi
if [ -x "$gen" ] && [ -f dsl/kernels/softmax.lua ]; then
  doc_block doc_example_tune >"$T/doc_tune.sh"
  LT_GEN=$gen bash "$T/doc_tune.sh" >"$T/doc_tune.out" 2>"$T/doc_tune.err"
  rc=$?
  if [ $rc = 0 ] && grep -q "^  best: .* -> build/tuned/softmax.lua" "$T/doc_tune.out"
  then pass doc_example_tune; else fail doc_example_tune "status $rc: $(tail -c 300 "$T/doc_tune.out") $(tail -c 200 "$T/doc_tune.err")"; fi
else
  skip doc_example_tune "no gen at $gen"
fi

# --- runtime/bundle.sh: the interpreters copied for a machine without them --
if sh runtime/bundle.sh "$B/bundle" >"$T/bundle.log" 2>&1 &&
   env -i PATH="$B/bundle/bin:/usr/bin:/bin" LT_RUNTIME_LIB="$B/bundle/libluatile.so" luajit -e '
     package.path = "runtime/?.lua;" .. package.path
     assert(require("luatile").count("cpu") == 1)' >>"$T/bundle.log" 2>&1 &&
   env -i PATH="$B/bundle/bin:/usr/bin:/bin" lua5.4 -e 'assert(7 // 2 == 3)' >>"$T/bundle.log" 2>&1
then pass runtime_bundle; else fail runtime_bundle "$(tail -c 300 "$T/bundle.log")"; fi

# --- the tuner against fakegen (a stand-in for gen, target c) ---------------
W=$B/tune
rm -rf "$W"
mkdir -p "$W"
tune() { luajit runtime/tune.lua "$@" --cache "$W/cache" --work "$W/work"; }

tune >"$W/usage.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "usage:" "$W/usage.out"; then pass tune_usage; else
  fail tune_usage "status $rc: $(head -c 200 "$W/usage.out")"; fi

tune "$fx/tsoftmax.lua" --target c --gen "$fx/fakegen" --space NOPE=1,2 >"$W/badspace.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "NOPE" "$W/badspace.out" && grep -q "BC" "$W/badspace.out"; then pass tune_bad_space_key
else fail tune_bad_space_key "status $rc: $(head -c 300 "$W/badspace.out")"; fi

tune "$W/no-such-kernel.lua" --target c --gen "$fx/fakegen" >"$W/nokernel.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "no-such-kernel" "$W/nokernel.out"; then pass tune_missing_kernel
else fail tune_missing_kernel "status $rc: $(head -c 300 "$W/nokernel.out")"; fi

tune "$fx/tsoftmax.lua" --target c --gen "$W/no-gen" >"$W/nogen.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "no gen at" "$W/nogen.out"; then pass tune_missing_gen
else fail tune_missing_gen "status $rc: $(head -c 300 "$W/nogen.out")"; fi

if LT_CUDART=${LT_CUDART:-} luajit -e 'package.path="runtime/?.lua;"..package.path
    local n = require("luatile").count("cuda"); os.exit((n or 0) > 0 and 0 or 1)' 2>/dev/null; then
  skip tune_no_gpu_is_clean "a CUDA device is present"
else
  tune "$fx/tsoftmax.lua" --target sm80 --gen "$fx/fakegen" >"$W/nogpu.out" 2>&1
  rc=$?
  if [ $rc = 1 ] && grep -q "no CUDA device\|runtime not found" "$W/nogpu.out" && grep -q -- "--build-only" "$W/nogpu.out"
  then pass tune_no_gpu_is_clean; else fail tune_no_gpu_is_clean "status $rc: $(head -c 300 "$W/nogpu.out")"; fi
fi

# end to end: 3 good configs per variant plus ones that are wrong, do not
# compile, crash the process, or do not generate; all reported, none fatal
args=("$fx/tsoftmax.lua" --target c --gen "$fx/fakegen" --shape R=300,C=257
      --space BC=32,64,128 --space threads=32 --space bug=none,wrong,syntax,crash,gen --out "$W/tuned/tsoftmax.lua")
tune "${args[@]}" >"$W/run1.out" 2>"$W/run1.err"
rc=$?
why=
[ $rc = 0 ] || why="status $rc; "
grep -q "rank  config" "$W/run1.out" || why+="no ranked table; "
[ "$(grep -c ' best$' "$W/run1.out")" = 2 ] || why+="not one best row per variant; "
grep -q "bug=wrong threads=32 *wrong: Y at" "$W/run1.out" || why+="wrong config not reported; "
grep -q "bug=syntax threads=32 *compile: .*error" "$W/run1.out" || why+="compile failure not reported; "
grep -q "bug=gen threads=32 *gen: .*tsoftmax.lua:9: error" "$W/run1.out" || why+="gen failure not reported; "
grep -q "bug=crash threads=32 *crash: the check process died" "$W/run1.out" || why+="crash not reported; "
grep -q "^building  \[#*\] 30/30" "$W/run1.err" || why+="no build progress bar; "
grep -q "^timing    \[#*\] 18/18" "$W/run1.err" || why+="no timing progress bar; "
if [ -z "$why" ]; then pass tune_fakegen_ranked_table; else fail tune_fakegen_ranked_table "$why$(tail -c 300 "$W/run1.err")"; fi

if TUNED=$W/tuned/tsoftmax.lua luajit -e '
  local t = dofile(os.getenv("TUNED"))
  assert(t.kernel == "tsoftmax", "kernel name")
  assert(#t.entries == 2, "want 2 entries, got " .. #t.entries)
  for _, e in ipairs(t.entries) do
    assert(e.target == "c" and e.config.bug == "none" and e.median_ms > 0, "entry " .. e.variant)
    assert(e.bucket == "C=512,R=512" and e.shape == "C=257,R=300", "bucket " .. e.bucket)
  end' 2>"$W/tuned.err"
then pass tune_fakegen_tuned_file; else fail tune_fakegen_tuned_file "$(cat "$W/tuned.err")"; fi

start=$(date +%s%N)
tune "${args[@]}" >"$W/run2.out" 2>"$W/run2.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $rc = 0 ] && grep -q "cache: all 30 results are in the cache" "$W/run2.out" && ! grep -q building "$W/run2.err" \
   && [ $ms -lt 3000 ] && [ "$(grep -c '(cached)' "$W/run2.out")" = 30 ]; then
  pass tune_fakegen_cache_hit
else fail tune_fakegen_cache_hit "status $rc, ${ms} ms: $(head -c 300 "$W/run2.out")"; fi

# a new seed is a new key: those results are redone, the builds are reused
tune "${args[@]}" --seed 2 --variant tsoftmax_f32 >"$W/run3.out" 2>"$W/run3.err"
if grep -q "cache: 0 of 12\|built" "$W/run3.out" && ! grep -q "cache: all" "$W/run3.out" \
   && grep -q "^timing" "$W/run3.err"; then pass tune_fakegen_cache_key
else fail tune_fakegen_cache_key "$(head -c 300 "$W/run3.out")"; fi

# the other two kinds of reference: a Lua function in the kernel file, and
# the variant generated for target c with the default config
for kind in fn:"tune.reference in the kernel file" c:"the variant generated for target c"; do
  f=${kind%%:*}
  tune "$fx/tsoftmax_$f.lua" --target c --gen "$fx/fakegen" --space bug=none,wrong --variant tsoftmax_f16 \
    --out "$W/tuned/ref_$f.lua" >"$W/ref_$f.out" 2>"$W/ref_$f.err"
  rc=$?
  if [ $rc = 0 ] && grep -q "reference: ${kind#*:}" "$W/ref_$f.out" && [ "$(grep -c ' best$' "$W/ref_$f.out")" = 1 ] &&
     [ "$(grep -c 'bug=wrong threads=32 *wrong: Y at' "$W/ref_$f.out")" = 2 ]
  then pass "tune_reference_$f"; else fail "tune_reference_$f" "status $rc: $(tail -c 400 "$W/ref_$f.out")"; fi
done

# --- the tuner with the real gen: softmax, target c, a tiny space ---------
if [ ! -x "$gen" ]; then
  skip tune_gen_softmax "no gen at $gen (set LT_GEN or build it)"
  skip tune_gen_softmax_cache "no gen at $gen"
  skip tune_gen_build_only_sm80 "no gen at $gen"
  exit 0
fi
if [ ! -f dsl/kernels/softmax.lua ]; then
  skip tune_gen_softmax "no dsl/kernels/softmax.lua"
  exit 0
fi
# two or three configs: tune.space cut by --max-configs when the kernel has
# one, else two values of BC around its default
space=()
if ! grep -q "space" dsl/kernels/softmax.lua; then space=(--space BC=256,1024 --space threads=128); fi
gargs=(dsl/kernels/softmax.lua --target c --gen "$gen" --shape R=61,C=1500 --max-configs 3
       --variant softmax_f32 --variant softmax_bf16 "${space[@]}" --out "$W/tuned/softmax.lua")
tune "${gargs[@]}" >"$W/gen1.out" 2>"$W/gen1.err"
rc=$?
why=
[ $rc = 0 ] || why="status $rc; "
grep -q "rank  config" "$W/gen1.out" || why+="no ranked table; "
[ "$(grep -c ' best$' "$W/gen1.out")" = 2 ] || why+="not one best row per variant; "
grep -q "^  best: .* -> $W/tuned/softmax.lua" "$W/gen1.out" || why+="tuned file not written; "
TUNED=$W/tuned/softmax.lua luajit -e '
  local t = dofile(os.getenv("TUNED"))
  assert(t.kernel == "softmax" and #t.entries == 2)
  for _, e in ipairs(t.entries) do assert(e.target == "c" and next(e.config) and e.median_ms > 0) end' \
  2>/dev/null || why+="tuned file lacks the two entries; "
if [ -z "$why" ]; then pass tune_gen_softmax
else fail tune_gen_softmax "$why$(grep -v '^building\|^timing' "$W/gen1.out" | tail -c 400) $(tail -c 300 "$W/gen1.err")"; fi

start=$(date +%s%N)
tune "${gargs[@]}" >"$W/gen2.out" 2>"$W/gen2.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if [ $rc = 0 ] && grep -q "cache: all .* nothing to build or time" "$W/gen2.out" && [ $ms -lt 3000 ]; then
  pass tune_gen_softmax_cache
else fail tune_gen_softmax_cache "status $rc, ${ms} ms: $(head -c 300 "$W/gen2.out")"; fi

if command -v nvcc >/dev/null 2>&1; then
  tune dsl/kernels/softmax.lua --target sm80 --gen "$gen" --shape R=61,C=1500 --max-configs 1 \
    --variant softmax_f16 --build-only >"$W/sm80.out" 2>"$W/sm80.err"
  rc=$?
  if [ $rc = 0 ] && grep -q "built: .*softmax_f16.so" "$W/sm80.out"; then pass tune_gen_build_only_sm80
  else fail tune_gen_build_only_sm80 "status $rc: $(tail -c 300 "$W/sm80.out") $(tail -c 200 "$W/sm80.err")"; fi
else
  skip tune_gen_build_only_sm80 "no nvcc"
fi
exit 0

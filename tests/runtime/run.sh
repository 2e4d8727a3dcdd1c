#!/usr/bin/env bash
# tests/runtime/run.sh: checks of the runtime (runtime/), its LuaJIT binding
# and the autotuner.  Prints one line per check: "PASS name", "FAIL name:
# why" or "SKIP name: why" (GPU checks skip where there is no device), and
# always exits 0.  Everything is built under build/runtime/, never in the
# source tree.  LT_GEN names gen (default build/gen); without it the checks
# that need gen print SKIP.  How gen uses tuned-config files: gen_tuned.sh
# (hand-written files) and tune_loop_* below (tuner -> gen).  About a minute
# on 2 cores.
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

# --- gen and the tuned-config file, hand-written files (needs only gen) -----
bash tests/runtime/gen_tuned.sh

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
# the dispatching launcher quoted in the docs is out/sm90a's, line for line
doc_block doc_example_dispatch >"$T/doc_dispatch.c"
if [ "$(wc -l <"$T/doc_dispatch.c")" -gt 5 ] &&
   grep -qxF -f "$T/doc_dispatch.c" out/sm90a/layernorm_bf16.cu &&
   [ "$(grep -A"$(( $(wc -l <"$T/doc_dispatch.c") - 1 ))" -xF "$(head -1 "$T/doc_dispatch.c")" out/sm90a/layernorm_bf16.cu)" = "$(cat "$T/doc_dispatch.c")" ]
then pass doc_example_dispatch; else fail doc_example_dispatch "docs/runtime.md's block is not in out/sm90a/layernorm_bf16.cu"; fi
# and the bucket with an alternative config (the pick by waves), out/sm90a's matmul launcher's
doc_block doc_example_alternative >"$T/doc_alternative.c"
if [ "$(wc -l <"$T/doc_alternative.c")" -gt 5 ] &&
   [ "$(grep -A"$(( $(wc -l <"$T/doc_alternative.c") - 1 ))" -xF "$(head -1 "$T/doc_alternative.c")" out/sm90a/matmul_bf16_none_nn.cu)" = "$(cat "$T/doc_alternative.c")" ]
then pass doc_example_alternative; else fail doc_example_alternative "docs/runtime.md's block is not in out/sm90a/matmul_bf16_none_nn.cu"; fi
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
  rm -f build/tuned/softmax.lua   # the example's --out: a fresh file, one device
  LT_GEN=$gen bash "$T/doc_tune.sh" >"$T/doc_tune.out" 2>"$T/doc_tune.err"
  rc=$?
  if [ $rc = 0 ] && grep -q "^  best: .* -> build/tuned/softmax.lua" "$T/doc_tune.out"
  then pass doc_example_tune; else fail doc_example_tune "status $rc: $(tail -c 300 "$T/doc_tune.out") $(tail -c 200 "$T/doc_tune.err")"; fi
  # the next example reads that file (build/gen in the block stands for $gen)
  doc_block doc_example_gen_tuned | sed "s|^build/gen |'$gen' |" >"$T/doc_gen_tuned.sh"
  bash "$T/doc_gen_tuned.sh" >"$T/doc_gen_tuned.out" 2>&1
  rc=$?
  f=build/tuned/softmax.lua
  if [ $rc = 0 ] && [ -s "$T/doc_gen_tuned.sh" ] &&
     grep -qE "^  softmax_f32  config: BC=(256|1024) (RB=1 )?(keep_row=false )?(resident=false )?threads=128 \(tuned: $f, .*, C=2048,R=64\)$" "$T/doc_gen_tuned.out" &&
     grep -qE "^  softmax_f16  config: BC=4096 (RB=1 )?(keep_row=false )?(resident=false )?threads=256 \(kernel defaults: $f has no entry for softmax_f16 on c, " \
       "$T/doc_gen_tuned.out"
  then pass doc_example_gen_tuned; else fail doc_example_gen_tuned "status $rc: $(head -c 400 "$T/doc_gen_tuned.out")"; fi
else
  skip doc_example_tune "no gen at $gen"
  skip doc_example_gen_tuned "no gen at $gen"
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

# a variant the kernel's unsupported refuses on the target: left out, and
# asked for by --variant, a usage error that says why (before any build)
sed 's/^  name = "tsoftmax",/&\n  unsupported = function(v, target) if v.dtype == "f16" and target == "c" then return "no f16 here" end end,/' \
  "$fx/tsoftmax.lua" >"$W/tsoftmax_un.lua"
tune "$W/tsoftmax_un.lua" --target c --gen "$fx/fakegen" --variant tsoftmax_f16 >"$W/unsup.out" 2>&1
rc=$?
if grep -q "unsupported = function" "$W/tsoftmax_un.lua" && [ $rc = 2 ] &&
   grep -qF "tsoftmax_f16 is unsupported on c: no f16 here" "$W/unsup.out"; then pass tune_unsupported_variant
else fail tune_unsupported_variant "status $rc: $(head -c 300 "$W/unsup.out")"; fi

# the configs the tuner tries start from the config gen gives the variant
# on the target (config, target_config, variant_config): keys outside the
# space keep those values; only the space's keys vary
sed 's/^  name = "tsoftmax",/&\n  target_config = { c = { bug = "target" } },\n  variant_config = function(v, target) if v.dtype == "f16" then return { bug = "variant" } end end,/' \
  "$fx/tsoftmax.lua" >"$W/tsoftmax_vc.lua"
why=
if ! command -v lua5.4 >/dev/null; then why="no lua5.4"; else
  lua5.4 runtime/tune/probe.lua "$W/tsoftmax_vc.lua" --target c >"$W/probe_vc.lua" 2>"$W/probe_vc.err" || why="probe failed: $(cat "$W/probe_vc.err"); "
  cat >"$W/probe_vc_check.lua" <<'EOF2'
local t = dofile(arg[1])
local out = {}
for _, v in ipairs(t.variants) do
  local seen, ks = {}, {}
  for _, c in ipairs(v.configs) do seen[c.bug] = true end
  for k in pairs(seen) do ks[#ks + 1] = k end
  table.sort(ks)
  out[#out + 1] = v.name .. ":" .. table.concat(ks, ",") .. ":" .. #v.configs
end
print(table.concat(out, " "))
EOF2
  got=$(lua5.4 "$W/probe_vc_check.lua" "$W/probe_vc.lua" 2>&1)
  want="tsoftmax_f32:target:5 tsoftmax_f16:variant:5"
  [ "$got" = "$want" ] || why+="configs' bug values per variant: '$got', want '$want'; "
fi
if [ -z "$why" ]; then pass tune_probe_variant_base; else fail tune_probe_variant_base "$why"; fi

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

# a gen that cannot start says nothing about the configs: reported as
# setup-gen, and not cached (a second run, with a working gen, tunes)
nargs=("$fx/tsoftmax.lua" --target c --space BC=32,64 --space threads=32 --space bug=none --variant tsoftmax_f32
       --out "$W/tuned/nolib.lua" --gen "$fx/nolibgen")
NOLIB=1 tune "${nargs[@]}" >"$W/nolib1.out" 2>"$W/nolib1.err"
tune "${nargs[@]}" >"$W/nolib2.out" 2>"$W/nolib2.err"
rc=$?
if [ "$(grep -c 'setup-gen: .*liblua5.4' "$W/nolib1.out")" = 2 ] && [ $rc = 0 ] &&
   ! grep -q "cache: all" "$W/nolib2.out" && [ "$(grep -c ' best$' "$W/nolib2.out")" = 1 ]
then pass tune_setup_failure_not_cached
else fail tune_setup_failure_not_cached "status $rc: $(grep -m3 'BC=' "$W/nolib1.out") | $(tail -c 300 "$W/nolib2.out")"; fi

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

# --- the loop: what the tuner records is what gen generates next ----------
# A copy of softmax.lua in $L/k/kernels/ is tuned without --out, so the
# winners land in $L/k/tuned/softmax.lua, the default place, which a plain
# gen run then reads.  The space leaves out the kernel's own BC and threads,
# so a gen that ignored the file could not pass.
L=$W/loop
LK=$L/k/kernels/softmax.lua
LT=$L/k/tuned/softmax.lua
mkdir -p "$L/k/kernels"
cp dsl/kernels/softmax.lua "$LK"
defaults=$("$gen" "$LK" --list | sed -n 's/^  config: //p')   # "BC=4096 RB=1 threads=256"
dbc=$(echo "$defaults" | sed -n 's/.*BC=\([0-9]*\).*/\1/p')
dthreads=$(echo "$defaults" | sed -n 's/.*threads=\([0-9]*\).*/\1/p')
drb=$(echo "$defaults" | sed -n 's/.*RB=\([0-9]*\).*/\1/p')   # rows a program, when the kernel has it
dkeep=$(echo "$defaults" | sed -n 's/.*keep_row=\([a-z]*\).*/\1/p')   # keep_row, when the kernel has it
dres=$(echo "$defaults" | sed -n 's/.*resident=\([a-z]*\).*/\1/p')   # resident, when the kernel has it
rbspace=()
[ -n "$drb" ] && rbspace=(--space "RB=$drb")   # kept at the kernel's: only BC and threads move
bcs=()
for v in 256 512 1024; do [ "$v" != "$dbc" ] && bcs+=("$v"); done
lthreads=128
[ "$dthreads" = 128 ] && lthreads=64
space=(--space "BC=${bcs[0]},${bcs[1]}" --space "threads=$lthreads" "${rbspace[@]}")
tune "$LK" --target c --gen "$gen" --shape R=61,C=1500 "${space[@]}" --variant softmax_f32 --variant softmax_bf16 \
  >"$L/tune.out" 2>"$L/tune.err"
rc=$?
# the winners: "variant|config|bucket|device" per entry
TUNED=$LT luajit -e '
  package.path = "runtime/?.lua;" .. package.path
  local probe = require "tune.probe"
  local t = dofile(os.getenv("TUNED"))
  for _, e in ipairs(t.entries) do
    print(table.concat({ e.variant, probe.config_text(e.config), e.bucket, e.device }, "|"))
  end' >"$L/winners" 2>"$L/winners.err"
why=
[ $rc = 0 ] || why+="status $rc; "
[ "$(grep -c "^  best: .* -> $LT\$" "$L/tune.out")" = 2 ] || why+="not two winners written to the default place $LT; "
[ "$(grep -c '' "$L/winners")" = 2 ] || why+="want 2 entries in $LT: $(cat "$L/winners" "$L/winners.err"); "
[ -n "$dbc" ] && [ -n "$dthreads" ] || why+="cannot read the kernel's config from gen --list: '$defaults'; "
if [ -z "$why" ]; then pass tune_loop_writes_default_place
else fail tune_loop_writes_default_place "$why$(tail -c 300 "$L/tune.out") $(tail -c 200 "$L/tune.err")"; fi

# code_equal A B: the two generated files are equal but for the Config comment.
code_equal() { diff <(grep -v '^ \* Config: ' "$1") <(grep -v '^ \* Config: ' "$2") >/dev/null; }
# defines "BC=256 threads=128": the -D arguments of a config text.
defines() { local kv; for kv in $1; do printf -- '-D\n%s\n' "$kv"; done; }

why=
"$gen" "$LK" --target c -o "$L/g" 2>"$L/g.err" || why+="gen failed: $(cat "$L/g.err"); "
"$gen" "$LK" --target c --list >"$L/list.out" 2>>"$L/g.err" || why+="gen --list failed; "
while IFS='|' read -r v cfg bucket dev; do
  [ "$cfg" = "$defaults" ] && why+="$v: the winner $cfg is the kernel's own config, so this proves nothing; "
  want=" * Config: $cfg (tuned: k/tuned/softmax.lua, $dev, $bucket)."
  grep -qxF -- "$want" "$L/g/$v.c" || why+="$v.c lacks '$want'; "
  grep -qxF -- "  $v  config: $cfg (tuned: k/tuned/softmax.lua, $dev, $bucket)" "$L/list.out" || why+="--list: $v; "
  mapfile -t d < <(defines "$cfg")
  "$gen" "$LK" --target c --no-tuned "${d[@]}" -o "$L/d_$v" 2>>"$L/g.err" || why+="gen -D $cfg failed; "
  code_equal "$L/g/$v.c" "$L/d_$v/$v.c" || why+="$v.c is not the code of $cfg; "
done <"$L/winners"
dev=$(head -n 1 "$L/winners" | cut -d'|' -f4)
want=" * Config: $defaults (kernel defaults: k/tuned/softmax.lua has no entry for softmax_f16 on c, $dev)."
grep -qxF -- "$want" "$L/g/softmax_f16.c" || why+="softmax_f16.c lacks '$want'; "
if [ -z "$why" ]; then pass tune_loop_gen_uses_winner; else fail tune_loop_gen_uses_winner "$why"; fi

why=
wv=$(grep '^softmax_f32|' "$L/winners" | cut -d'|' -f2)   # "BC=.. threads=.."
wthreads=${wv#*threads=}
"$gen" "$LK" --target c -D BC=2048 -o "$L/dw" 2>"$L/dw.err" || why+="gen -D failed: $(cat "$L/dw.err"); "
"$gen" "$LK" --target c --no-tuned -D BC=2048 -D "threads=$wthreads" -o "$L/dw_ref" 2>>"$L/dw.err" || why+="gen failed; "
grep -qxF " * Config: BC=2048 ${drb:+RB=$drb }${dkeep:+keep_row=$dkeep }${dres:+resident=$dres }threads=$wthreads (tuned: k/tuned/softmax.lua, $dev, C=2048,R=64; -D: BC)." \
  "$L/dw/softmax_f32.c" || why+="Config comment: $(grep '^ \* Config' "$L/dw/softmax_f32.c"); "
code_equal "$L/dw/softmax_f32.c" "$L/dw_ref/softmax_f32.c" || why+="not the code of BC=2048 threads=$wthreads; "
if [ -z "$why" ]; then pass tune_loop_define_wins; else fail tune_loop_define_wins "$why"; fi

why=
"$gen" "$LK" --target c --no-tuned -o "$L/nt" 2>"$L/nt.err" || why+="gen --no-tuned failed: $(cat "$L/nt.err"); "
"$gen" dsl/kernels/softmax.lua --target c --no-tuned -o "$L/nt_ref" 2>>"$L/nt.err" || why+="gen failed; "
diff -r "$L/nt" "$L/nt_ref" >/dev/null || why+="--no-tuned output differs from the untuned kernel's; "
grep -qxF " * Config: $defaults." "$L/nt/softmax_f32.c" || why+="Config comment is not the kernel's own; "
if [ -z "$why" ]; then pass tune_loop_no_tuned; else fail tune_loop_no_tuned "$why"; fi

# a re-tuned entry keeps the alternative (and off_grid) that an author wrote
# into the entry it replaces (runtime/tune/cache.lua, KEPT), and drops an
# alternative that the new config makes its own: the same tuner run (all
# cached) into a copy of $LT whose softmax_f32 entry names threads as an
# alternative and whose softmax_bf16 entry names its winner's own BC
why=
LA=$L/alt.lua
TUNED=$LT OUT=$LA ALT_THREADS=$dthreads luajit -e '
  package.path = "runtime/?.lua;" .. package.path
  local probe = require "tune.probe"
  local t = dofile(os.getenv("TUNED"))
  for _, e in ipairs(t.entries) do
    if e.variant == "softmax_f32" then e.alternative = { threads = tonumber(os.getenv("ALT_THREADS")) } end
    if e.variant == "softmax_bf16" then e.alternative = { BC = e.config.BC } end
  end
  local f = assert(io.open(os.getenv("OUT"), "wb"))
  f:write("return ", probe.serialize(t), "\n")
  f:close()' 2>"$L/alt.err" || why+="cannot write $LA: $(cat "$L/alt.err"); "
tune "$LK" --target c --gen "$gen" --shape R=61,C=1500 "${space[@]}" --variant softmax_f32 --variant softmax_bf16 \
  --out "$LA" >"$L/alt.out" 2>>"$L/alt.err" || why+="tuner status $?; "
TUNED=$LA luajit -e '
  package.path = "runtime/?.lua;" .. package.path
  local probe = require "tune.probe"
  local t = dofile(os.getenv("TUNED"))
  for _, e in ipairs(t.entries) do
    print(e.variant .. "|" .. (e.alternative and probe.config_text(e.alternative) or "none"))
  end' >"$L/alt.winners" 2>>"$L/alt.err"
grep -qxF "softmax_f32|threads=$dthreads" "$L/alt.winners" || why+="softmax_f32 lost its alternative: $(cat "$L/alt.winners"); "
grep -qxF "softmax_bf16|none" "$L/alt.winners" || why+="softmax_bf16 kept an alternative that is its config; "
grep -q "^  kept its alternative: threads=$dthreads\$" "$L/alt.out" || why+="no 'kept its alternative' line; "
grep -q "^  (alternative BC=[0-9]* dropped: it is the new config)\$" "$L/alt.out" || why+="no 'dropped' line; "
"$gen" "$LK" --target c --tuned "$LA" --list >"$L/alt.list" 2>>"$L/alt.err" || why+="gen cannot read $LA: $(tail -c 200 "$L/alt.err"); "
grep -q "softmax_f32  for C=2048,R=64 (alternative)  config: .*threads=$dthreads" "$L/alt.list" ||
  why+="gen --list lacks softmax_f32's alternative: $(grep softmax_f32 "$L/alt.list"); "
if [ -z "$why" ]; then pass tune_loop_keeps_alternative
else fail tune_loop_keeps_alternative "$why$(tail -c 300 "$L/alt.out")"; fi

# a tuned file that gen and the tuner cannot read: gen says where; the tuner
# still builds and times (its gen runs pass --no-tuned) but does not
# overwrite the file
printf 'return {\n  entries = { { config = { BC = f() } } },\n}\n' >"$LT"
cp "$LT" "$L/broken.lua"
"$gen" "$LK" --target c -o "$L/b" >/dev/null 2>"$L/b.err"
rc=$?
why=
[ $rc = 1 ] || why+="gen status $rc; "
[ "$(cat "$L/b.err")" = "$LT:2: error: a value must be a literal (string, number, boolean or table), not 'f'" ] ||
  why+="gen said '$(cat "$L/b.err")'; "
# (a fresh cache and build folder, so that gen runs)
luajit runtime/tune.lua "$LK" --target c --gen "$gen" --shape R=61,C=1500 --space "BC=${bcs[0]}" \
  --space "threads=$lthreads" "${rbspace[@]}" --variant softmax_f32 --cache "$L/cache2" --work "$L/work2" >"$L/tb.out" 2>"$L/tb.err"
rc=$?
[ $rc = 1 ] || why+="tuner status $rc, want 1; "
grep -q '^  built 1 modules' "$L/tb.out" || why+="the tuner built nothing; "
grep -q ' best$' "$L/tb.out" || why+="the tuner found no winner (did its gen read the broken file?); "
grep -qF "(not recorded: $LT is not a tuned-config file" "$L/tb.out" || why+="no 'not recorded'; "
cmp -s "$LT" "$L/broken.lua" || why+="the tuner overwrote the broken file; "
if [ -z "$why" ]; then pass tune_loop_broken_tuned_file
else fail tune_loop_broken_tuned_file "$why$(tail -c 300 "$L/tb.out") $(tail -c 200 "$L/tb.err")"; fi

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

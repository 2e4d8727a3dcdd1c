#!/usr/bin/env bash
# tests/emu/run.sh: the generated CUDA and HIP code, run on the CPU lane by
# lane (gen --emulate, templates/emu*.h), so CI checks the GPU lowering
# without a GPU.
#   1. unit tests of the emulator (unit_cuda.cpp, unit_hip.cpp, and
#      unit_tma.cpp for Hopper's TMA, mbarriers and setmaxnreg; the CUDA one
#      also with the portable ucontext switch);
#   2. every shipped kernel for every GPU target (and the user-style GEMMs of
#      tests/emu/kernels, written as a user would, not matmul.lua): generated with --emulate,
#      built with AddressSanitizer and the bounds and alignment checks of
#      UBSan, run by check.cpp against float64 references; then again in the
#      "warps" thread order (each warp runs as far ahead as it can), where
#      every output must be bitwise the same (a race would change it).  All variants of the row ops;
#      of matmul's 80 (dtype x layout x epilogue) the 16 dtype x layout
#      pairs, the epilogues taken in turn (LT_EMU_ALL=1: all 80); of
#      attention, f16 d64 and bf16 d32 with softcap, forward and backward
#      (and on sm90a bf16 d128, whose warpgroups take turns at the wgmmas,
#      and bf16 d256, whose warps skip the rescale of O where no row's max
#      moved; on sm80 bf16 d96, whose tiles are wider than the head dim).
#      A variant with a kernel per tuned shape bucket runs again once per
#      bucket (LT_EMU_BUCKET=i: the emulated launcher runs bucket i's);
#      builds of their own: the row ops with config resident (2b), and on
#      sm90a the bf16 d256 softcap attention set, whose dK/dV warpgroups
#      split D and stage P^T and dS^T for their wgmmas (2c), and LayerNorm
#      with config one_pass (2d);
#   3. broken lowerings (mutants.txt): one bug put in a generated file; the
#      detector named there must report it (a kernel of drivers.sh's run by
#      its driver there, check.cpp otherwise).
#   4. tests/emu/drivers.sh: docs examples with C drivers of their own, each
#      target's outputs the same bytes as the c target's.
# The kernels and unit tests are built with clang's SanitizerCoverage
# load/store tracing when the compiler has it, so that the emulator sees
# every plain load and store of shared memory (unwritten reads, races);
# CXX defaults to clang++-19 (or clang++) for that.  Without it those
# checks are a SKIP line, and so are the mutants only they catch.
# Prints PASS / FAIL / SKIP lines.
cd "$(dirname "$0")/../.."
GEN=${LT_GEN:-build/gen}
if [ -z "$CXX" ]; then
  CXX=c++
  for c in clang++-19 clang++; do command -v $c >/dev/null && { CXX=$c; break; }; done
fi
b=build/tests/emu
jobs=$(nproc 2>/dev/null || echo 2)
targets=${LT_EMU_TARGETS:-sm80 sm90a gfx90a gfx942 gfx1100}   # LT_EMU_TARGETS: a subset, for a quicker look
rm -rf $b
mkdir -p $b/mut

if [ ! -x "$GEN" ]; then
  echo "FAIL emu: $GEN is missing (run ./build.sh gen)"
  exit 0
fi
if ! command -v "$CXX" >/dev/null; then
  echo "SKIP emu: no C++ compiler ($CXX)"
  exit 0
fi

# Sanitizers when the compiler has them: out-of-bounds and misaligned
# accesses of the generated code are reported at its file:line.
san="-fsanitize=address,bounds,alignment -fno-sanitize-recover=all"
echo 'int main(void) { return 0; }' > $b/san.cpp
if $CXX $san $b/san.cpp -o $b/san 2>/dev/null && $b/san; then
  have_san=1
else
  echo "SKIP emu sanitizers: $CXX cannot build with $san; out-of-bounds accesses go unreported and the sanitizer mutants are skipped"
  san="" have_san=0
fi
# Tracing of plain loads and stores (SanitizerCoverage, clang): the
# emulator's hooks then check every shared-memory access of the kernel.
# Only the generated files and the unit tests get it (not check.cpp).
# (The probe includes the emulator header, as the real builds do: it
# supplies what the tracing needs when no sanitizer runtime is linked.)
trace="-fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores"
printf '#include "emu.h"\nint main(void) { return 0; }\n' > $b/trace.cpp
if $CXX -std=c++17 -Itemplates $san $trace $b/trace.cpp -o $b/trace 2>/dev/null && $b/trace; then
  have_trace=1
  export LT_EMU_EXPECT_TRACED=1   # the unit tests fail if a launch is not traced after all
else
  echo "SKIP emu shared-memory access checks: $CXX cannot build with $trace (clang can); unwritten reads and races through plain loads and stores of shared memory go unreported, and the mutants only they catch are skipped"
  trace="" have_trace=0
fi
# The emulator names the line of a traced access through the sanitizer's
# symbolizer: llvm-symbolizer on the PATH, or the versioned one.
if ! command -v llvm-symbolizer >/dev/null && [ -z "$ASAN_SYMBOLIZER_PATH" ]; then
  for v in llvm-symbolizer-19 /usr/lib/llvm-19/bin/llvm-symbolizer; do
    p=$(command -v $v) && { export ASAN_SYMBOLIZER_PATH=$p; break; }
  done
fi
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=0:halt_on_error=1
# Under clang: line tables only (all that reports need) and no unrolling
# of "#pragma unroll" loops (nvcc's and hipcc's business; g++ ignores
# them): each halves the compile time of the big kernels.  No fake stacks
# for use-after-return (clang's default since 15, g++'s is off): the
# kernels return no pointers, and they cost a third of the run time.
dbg=-g
clang_opts="-gline-tables-only -mllvm -pragma-unroll-threshold=0"
[ -n "$san" ] && clang_opts="$clang_opts -fsanitize-address-use-after-return=never"
if $CXX --version 2>/dev/null | grep -q clang && $CXX $san $clang_opts $b/san.cpp -o $b/san 2>/dev/null; then
  dbg=$clang_opts
fi
export CXX b
export CXXFLAGS="-std=c++17 -O1 $dbg -fno-strict-aliasing -Wall -Wextra -Wno-unknown-pragmas $san"

# Runs the compiler on each line of $1 (its arguments) in parallel; a
# failed one leaves OUT.err (OUT: the -o argument) with the message.
compile_all() {
  xargs -P "$jobs" -L 1 sh -c 'out=$(echo "$@" | sed "s/.* -o \([^ ]*\).*/\1/")
    $CXX $CXXFLAGS "$@" 2> "$out.log" || cp "$out.log" "$out.err"' _ < "$1"
}

# Keeps the matmul variants of folder $1 that CI checks (all with
# LT_EMU_ALL=1) and removes the others.
pick_matmuls() {
  local d=$1 n=0 dropped=0
  for f in $d/matmul_*.emu.cpp; do
    [ -e "$f" ] || continue
    local v=$(basename "$f" .emu.cpp)
    [[ $v == matmul_fp8_* ]] && continue   # a kernel of its own (tests/emu/drivers.sh)
    local rest=${v#matmul_} dt=${v#matmul_} lay=${v: -2}
    dt=${dt%%_*} rest=${rest#*_} epi=${rest%_??}
    local i=$(echo "f16 bf16 f32 tf32" | tr ' ' '\n' | grep -nx "$dt" | cut -d: -f1)
    local j=$(echo "nn nt tn tt" | tr ' ' '\n' | grep -nx "$lay" | cut -d: -f1)
    local e=$(echo "none bias bias_relu bias_gelu bias_silu" | tr ' ' '\n' | grep -nx "$epi" | cut -d: -f1)
    if [ -z "$i" ] || [ -z "$j" ] || [ -z "$e" ]; then
      echo "SKIP emu $(basename $d) $v: variant name not understood by tests/emu/run.sh"
      rm -f "$f"; continue
    fi
    if [ "${LT_EMU_ALL:-0}" != 1 ] && [ $(( (i + j - 2) % 5 )) != $(( e - 1 )) ]; then
      rm -f "$f" $d/$v.h
      dropped=$((dropped + 1))
    else
      n=$((n + 1))
    fi
  done
  [ $dropped -gt 0 ] && echo "SKIP emu $(basename $d): $dropped of $((n + dropped)) matmul variants left out of CI (LT_EMU_ALL=1 checks all)"
}

# Keeps the attention variants of folder $1 that CI checks: f16 d64 and
# bf16 d32 with softcap, forward and backward, the backward also with dQ by
# atomics; bf16 d128 and d256 on sm90a (d128 with dQ by atomics) and bf16
# d96 on sm80 (LT_EMU_ALL=1: all).
pick_attention() {
  local d=$1 dropped=0 n=0
  for f in $d/attention*.emu.cpp; do
    [ -e "$f" ] || continue
    local v=$(basename "$f" .emu.cpp) on=none   # on: the target that keeps it (any: every one)
    case $v in
      attention_f16_d64|attention_bf16_d32_softcap|attention_bwd_pre_f16_d64|attention_bwd_pre_bf16_d32|\
      attention_bwd_dq_f16_d64|attention_bwd_dq_bf16_d32_softcap|attention_bwd_dkdv_f16_d64|\
      attention_bwd_dkdv_bf16_d32_softcap|attention_bwd_pre_dq_atomic_f16_d64|attention_bwd_pre_dq_atomic_bf16_d32|\
      attention_bwd_dkdv_dq_atomic_f16_d64|attention_bwd_dkdv_dq_atomic_bf16_d32_softcap|attention_bwd_post_f16_d64|\
      attention_bwd_post_bf16_d32) on=any ;;
      # sm90a at d128: 256 threads, whose two warpgroups take turns at the wgmmas
      attention_bf16_d128|attention_bwd_pre_bf16_d128|attention_bwd_dq_bf16_d128|attention_bwd_dkdv_bf16_d128) on=sm90a ;;
      # sm90a, dQ by atomics at d128: two warpgroups of 64 key rows, dS^T staged once, dQ^T added transposed
      attention_bwd_pre_dq_atomic_bf16_d128|attention_bwd_dkdv_dq_atomic_bf16_d128|attention_bwd_post_bf16_d128) on=sm90a ;;
      # sm90a at d256: O of 128 elements a thread, whose rescale a warp skips where every alpha is 1 (pass/rescale.c)
      attention_bf16_d256|attention_bwd_pre_bf16_d256|attention_bwd_dq_bf16_d256|attention_bwd_dkdv_bf16_d256) on=sm90a ;;
      # sm80 at d96: 128-wide tiles over 96 columns (cp.async of part of a chunk)
      attention_bf16_d96|attention_bwd_pre_bf16_d96|attention_bwd_dq_bf16_d96|attention_bwd_dkdv_bf16_d96) on=sm80 ;;
    esac
    if [ $on = any ] || [ $on = "$(basename $d)" ] || [ "${LT_EMU_ALL:-0}" = 1 ]; then n=$((n + 1))
    else rm -f "$f" $d/$v.h; dropped=$((dropped + 1)); fi
  done
  [ $dropped -gt 0 ] && echo "SKIP emu $(basename $d): $dropped of $((n + dropped)) attention variants left out of CI (LT_EMU_ALL=1 checks all)"
}

# Writes attention_list.h in folder $1 for check.cpp: each forward variant
# whose three backward kernels are there too, as X(fwd, pre, dq, dkdv,
# prea, dkdva, post, dtype, head dim, softcap, int_rows), where prea, dkdva
# and post are its dQ-by-atomics kernels, or 0s when one of them is not
# there, and int_rows is 1 when the forward's header gives `sqs` the range
# 0 to 2^31 - 1 (gen's Target.int_row_strides: check.cpp then expects the
# launcher to refuse 2^31).
attention_list() {
  local d=$1 n=0
  : > $d/attention_list.h
  echo "#define LT_ATTENTIONS(X) \\" > $d/attention_list.tail
  for f in $d/attention_*.emu.cpp; do
    [ -e "$f" ] || continue
    local v=$(basename "$f" .emu.cpp)
    [[ $v =~ ^attention_(f16|bf16)_d([0-9]+)(_softcap)?$ ]] || continue
    local dt=${BASH_REMATCH[1]} D=${BASH_REMATCH[2]} cap=0
    [ -n "${BASH_REMATCH[3]}" ] && cap=1
    local sfx=${v#attention_} pre=attention_bwd_pre_${dt}_d$D
    local dq=attention_bwd_dq_$sfx dkdv=attention_bwd_dkdv_$sfx
    [ -e $d/$pre.h ] && [ -e $d/$dq.h ] && [ -e $d/$dkdv.h ] || continue
    local prea=attention_bwd_pre_dq_atomic_${dt}_d$D dkdva=attention_bwd_dkdv_dq_atomic_$sfx post=attention_bwd_post_${dt}_d$D
    [ -e $d/$prea.h ] && [ -e $d/$dkdva.h ] && [ -e $d/$post.h ] || prea=0 dkdva=0 post=0
    for h in $v $pre $dq $dkdv $prea $dkdva $post; do
      [ $h = 0 ] || echo "#include \"$h.h\"" >> $d/attention_list.h
    done
    local int_rows=0
    grep -q '^ \*   sqs  *stride in elements, 0 to 2^31 - 1$' $d/$v.h && int_rows=1
    echo "  X($v, $pre, $dq, $dkdv, $prea, $dkdva, $post, $(echo $dt | tr a-z A-Z), $D, $cap, $int_rows) \\" >> $d/attention_list.tail
    n=$((n + 1))
  done
  echo "" >> $d/attention_list.tail
  cat $d/attention_list.tail >> $d/attention_list.h
  [ $n = 0 ] && rm -f $d/attention_list.h
}

# Writes matmul_list.h in folder $1 for check.cpp, from the matmul
# variants there: X(fn, dtype, trans_a, trans_b, activation, has_bias).
matmul_list() {
  local d=$1 n=0
  echo "#define LT_MATMULS(X) \\" > $d/matmul_list.tail
  : > $d/matmul_list.h
  for f in $d/matmul_*.emu.cpp; do
    [ -e "$f" ] || continue
    local v=$(basename "$f" .emu.cpp)
    [[ $v == matmul_fp8_* ]] && continue   # a kernel of its own (tests/emu/drivers.sh)
    local rest=${v#matmul_} dt=${v#matmul_} lay=${v: -2}
    dt=${dt%%_*} rest=${rest#*_} epi=${rest%_??}
    local act=ACT_NONE
    case $epi in *relu) act=ACT_RELU ;; *gelu) act=ACT_GELU ;; *silu) act=ACT_SILU ;; esac
    local bias=1; [ $epi = none ] && bias=0
    local ta=0 tb=0; [ ${lay:0:1} = t ] && ta=1; [ ${lay:1:1} = t ] && tb=1
    local dtc=$(echo $dt | tr a-z A-Z)
    echo "#include \"$v.h\"" >> $d/matmul_list.h
    echo "  X($v, $dtc, $ta, $tb, $act, $bias) \\" >> $d/matmul_list.tail
    n=$((n + 1))
  done
  echo "" >> $d/matmul_list.tail
  cat $d/matmul_list.tail >> $d/matmul_list.h
  [ $n = 0 ] && rm -f $d/matmul_list.h
}

# 1 + 2: generate; leave out what another target already has word for
# word (sm90a and gfx90a give much the same code as sm80 and gfx942: a
# file $v.dup names the target that checks it), except within a target's
# attention set; then build everything in one parallel pass.
declare -A seen
: > $b/jobs
for t in $targets; do
  mkdir -p $b/$t
  for k in dsl/kernels/*.lua tests/emu/kernels/*.lua; do   # the shipped kernels, and the user-style GEMMs
    if ! "$GEN" "$k" --target $t --emulate -o $b/$t 2> $b/$t/gen.log; then
      echo "FAIL emu $t $(basename "$k" .lua): gen --emulate failed: $(head -c 300 $b/$t/gen.log)"
    fi
  done
  pick_matmuls $b/$t
  pick_attention $b/$t
  if [ $t = sm80 ] || [ $t = gfx1100 ]; then   # gen must carry the templates of this tree
    f=$(ls $b/$t/*.emu.cpp | head -1)
    h=$([ $t = sm80 ] && echo emu_cuda.h || echo emu_hip.h)
    n=$(cat templates/emu.h templates/$h | grep -vc '^$')   # (then the helpers the file's kernels use: bits.h, vec.h)
    if [ -n "$f" ] && cat templates/emu.h templates/$h | grep -v '^$' |
         cmp -s - <(sed -n '/^#define LT_EMU_WARP/,/^\/\* One block/p' "$f" | sed '1d;$d' | grep -v '^$' | head -n "$n"); then
      echo "PASS emu $t: gen embeds the current templates/emu.h and $h"
    else
      echo "FAIL emu $t: gen's copy of templates/emu.h or $h differs from the tree's (rebuild it: ./build.sh gen)"
    fi
  fi
  # each file's code, its header comment left out; check.cpp runs the
  # attention kernels as sets (forward, pre, dK/dV, dQ): a target whose
  # attention code differs anywhere keeps the whole set
  declare -A code
  keep_att=0
  for f in $b/$t/*.emu.cpp; do
    [ -e "$f" ] || continue
    v=$(basename "$f" .emu.cpp)
    code[$v]=$(sed '1,/^ \*\//d' "$f" | cksum | tr ' ' _)
    [ "${v#attention}" != "$v" ] && [ -z "${seen[${code[$v]}]}" ] && keep_att=1
  done
  dups=0
  for f in $b/$t/*.emu.cpp; do
    [ -e "$f" ] || continue
    v=$(basename "$f" .emu.cpp)
    h=${code[$v]}
    if [ -n "${seen[$h]}" ] && ! { [ $keep_att = 1 ] && [ "${v#attention}" != "$v" ]; }; then
      echo "${seen[$h]}" > $b/$t/$v.dup
      rm -f "$f" $b/$t/$v.h
      dups=$((dups + 1))
    else
      seen[$h]=$t
      echo "$trace -c $f -o ${f%.emu.cpp}.o" >> $b/jobs
    fi
  done
  [ $dups -gt 0 ] && echo "SKIP emu $t: $dups variants generate the same code as $(cat $b/$t/*.dup | sort -u | tr '\n' ' ')(checked there)"
  matmul_list $b/$t
  attention_list $b/$t
  ls $b/$t/*.emu.cpp >/dev/null 2>&1 && echo "-c tests/emu/check.cpp -o $b/$t/check.o -I$b/$t" >> $b/jobs
done
echo "$trace -Itemplates tests/emu/unit_cuda.cpp -o $b/unit_cuda" >> $b/jobs
echo "$trace -Itemplates -DLT_EMU_UCONTEXT tests/emu/unit_cuda.cpp -o $b/unit_cuda_uc" >> $b/jobs
echo "$trace -Itemplates tests/emu/unit_hip.cpp -o $b/unit_hip" >> $b/jobs
echo "$trace -Itemplates tests/emu/unit_tma.cpp -o $b/unit_tma" >> $b/jobs
compile_all $b/jobs

# 1. unit tests
for u in unit_cuda:cuda unit_cuda_uc:cuda-ucontext unit_hip:hip unit_tma:tma; do
  exe=${u%%:*} label=${u#*:}
  if [ -e $b/$exe.err ]; then
    echo "FAIL emu unit $label: does not build: $(grep -m1 error $b/$exe.err)"
    continue
  fi
  $b/$exe $label > $b/$exe.out 2> $b/$exe.stderr
  st=$?
  grep -E '^(PASS|FAIL|SKIP)' $b/$exe.out
  grep -q "^# emu unit $label: done" $b/$exe.out ||
    echo "FAIL emu unit $label: stopped early (status $st): $(grep -m1 -E 'ERROR|error' $b/$exe.stderr)"
done

if [ ! -e $b/unit_cuda.err ]; then   # a kernel that never reaches a sync point: LT_EMU_TIMEOUT
  LT_EMU_TIMEOUT=1 timeout 60 $b/unit_cuda --hang > /dev/null 2> $b/hang.stderr
  st=$?
  if [ $st = 124 ] && grep -q 'spin_kernel, block (0,0,0), thread 0: timed out (LT_EMU_TIMEOUT)' $b/hang.stderr; then
    echo "PASS emu unit cuda a spinning kernel is reported by LT_EMU_TIMEOUT"
  else
    echo "FAIL emu unit cuda a spinning kernel is reported by LT_EMU_TIMEOUT: status $st, $(head -c 200 $b/hang.stderr)"
  fi
fi

# 2. every kernel, every target
for t in $targets; do
  d=$b/$t
  ls $d/*.emu.cpp >/dev/null 2>&1 || continue   # all of it checked on another target
  objs="" broken=0
  for f in $d/*.emu.cpp; do
    [ -e "$f" ] || continue
    v=$(basename "$f" .emu.cpp)
    if [ -e $d/$v.o.err ]; then
      echo "FAIL emu $t $v: does not build: $(grep -m1 error $d/$v.o.err)"
      rm -f $d/$v.h   # check.cpp then leaves the variant out
      broken=1
    else
      objs="$objs $d/$v.o"
    fi
  done
  if [ $broken = 1 ] || [ -e $d/check.o.err ]; then   # again, without the variants that failed
    $CXX $CXXFLAGS -c tests/emu/check.cpp -o $d/check.o -I$d 2> $d/check.o.err && rm $d/check.o.err
  fi
  if [ -e $d/check.o.err ] || ! $CXX $san $d/check.o $objs -o $d/check 2> $d/link.log; then
    echo "FAIL emu $t: check does not build: $(grep -m1 error $d/check.o.err $d/link.log 2>/dev/null)"
    continue
  fi
  $d/check --list > $d/covered
  # the shipped kernels tests/emu/drivers.sh runs against the c target's bytes
  by_drivers=$(grep -o 'dsl/kernels/[a-z_0-9]*\.lua' tests/emu/drivers.sh | sed 's|dsl/kernels/||; s|\.lua$||' | sort -u)
  for f in $d/*.emu.cpp; do
    v=$(basename "$f" .emu.cpp)
    grep -qx "$v" $d/covered && continue
    for kd in $by_drivers; do case $v in "${kd}_"*) continue 2 ;; esac; done
    echo "SKIP emu $t $v: no reference in tests/emu/check.cpp"
  done
  LT_CHECK_HASHES=$d/hash.forward $d/check $t > $d/forward.out 2> $d/stderr
  st=$?
  grep -E '^(PASS|FAIL)' $d/forward.out
  grep -q "^# emu $t: done" $d/forward.out ||
    echo "FAIL emu $t: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/stderr)"
  # check.cpp's embedding cases hold indices -1 and V + 2: the emulator warns of the first a launch meets (-1)
  if grep -qx 'embedding_f32_fwd' $d/covered; then
    if grep -q '^embedding.lua:[0-9]*: warning: lt_emu: embedding_f32_fwd_kernel, .*row index -1 is outside \[0, 50)' $d/stderr; then
      echo "PASS emu $t: gathered row indices outside the table reported (masked)"
    else
      echo "FAIL emu $t: no lt_emu warning for the embedding's row indices outside the table"
    fi
  fi
  LT_EMU_SCHEDULE=warps LT_CHECK_HASHES=$d/hash.warps $d/check $t > $d/warps.out 2> $d/warps.stderr
  st=$?
  grep '^FAIL' $d/warps.out | sed "s/^FAIL emu $t /FAIL emu $t [warps order] /"
  if ! grep -q "^# emu $t: done" $d/warps.out; then
    echo "FAIL emu $t [warps order]: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/warps.stderr)"
  elif ! cmp -s $d/hash.forward $d/hash.warps; then
    echo "FAIL emu $t: outputs differ between the forward and warps thread orders (a race): $(diff $d/hash.forward $d/hash.warps | grep -m1 '^>' | cut -c3-)"
  else
    echo "PASS emu $t: $(wc -l < $d/hash.forward) outputs bitwise equal in the forward and warps thread orders"
  fi
  # a variant tuned for several shape buckets has one kernel each (and one
  # for each entry's alternative config, after them), and the small shapes
  # above reach only the nearest: LT_EMU_BUCKET runs each
  for f in $d/*.emu.cpp; do
    v=$(basename "$f" .emu.cpp)
    # drivers.sh's kernels: its shapes reach each bucket through the launcher (matmul_fp8: M up to 257)
    for kd in $by_drivers; do case $v in "${kd}_"*) continue 2 ;; esac; done
    n=$(grep -c '^  if (forced == [0-9]*) return' "$f")
    for i in $(seq 0 $((n - 1))); do
      LT_EMU_BUCKET=$i $d/check $t $v > $d/bucket$i.out 2> $d/bucket$i.stderr
      st=$?
      # a bucket whose launcher refuses rows over its chunk (LayerNorm's config one_pass: C > BC)
      # must refuse check.cpp's longer rows, and only those: they leave the FAIL list
      fn=$(sed -n "s/^  if (forced == $i) return \([A-Za-z0-9_]*\)(.*/\1/p" "$f")
      cap=$(awk -v fn="$fn" 'index($0, "static int " fn "(") == 1 { on = 1 } on && /^}/ { exit }
                            on && /config one_pass/ { sub(/.*\(int64_t\)C > /, ""); sub(/\).*/, ""); print; exit }' "$f")
      if [ -n "$cap" ]; then
        awk -v cap="$cap" '$1 == "PASS" || $1 == "FAIL" { split($5, rc, "x"); c = rc[2] + 0
                             if (c > cap && $0 ~ /launcher returned error/) $0 = "REFUSED " $0
                             else if (c > cap) { sub(/^(PASS|FAIL) /, "FAIL "); $0 = $0 ": a row over " cap ", not refused" } }
                           { print }' $d/bucket$i.out > $d/bucket$i.tmp && mv $d/bucket$i.tmp $d/bucket$i.out
      fi
      grep '^FAIL' $d/bucket$i.out | sed "s/^FAIL emu $t /FAIL emu $t [bucket $i] /"
      if ! grep -q "^# emu $t: done" $d/bucket$i.out; then
        echo "FAIL emu $t $v [bucket $i]: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/bucket$i.stderr)"
      elif ! grep -q '^PASS' $d/bucket$i.out; then
        echo "FAIL emu $t $v [bucket $i]: no case ran (check.cpp selects cases by the forward variant's name)"
      elif ! grep -q '^FAIL' $d/bucket$i.out; then
        echo "PASS emu $t $v [bucket $i of $n: $(sed -n "s|^  const int d$i = .*/\* \(.*\) \*/\$|\1|p; s|^  if (forced == $i) return .*/\* \(.*\) \*/\$|\1|p" "$f")]: $(grep -c '^PASS' $d/bucket$i.out) cases$(
          [ -n "$cap" ] && echo ", $(grep -c '^REFUSED' $d/bucket$i.out) rows over $cap refused")"
      fi
    done
  done
  # split-K (gen/lower/splitk.c): the variants with a workspace run again
  # with 3 parts a tile where the K loop has 3 iterations or more, 8 SMs
  # (room in the workspace for 32 programs: a warpgroup runs several), each
  # bucket, the workspace kept across calls (the counters must come back
  # to 0), in both thread orders
  for f in $d/*.emu.cpp; do
    v=$(basename "$f" .emu.cpp)
    grep -q LT_EMU_SPLITS "$f" || continue
    n=$(grep -c '^  if (forced == [0-9]*) return' "$f")
    for i in $(seq 0 $((n > 0 ? n - 1 : 0))); do
      for order in forward warps; do
        LT_EMU_SCHEDULE=$order LT_EMU_SPLITS=3 LT_EMU_SMS=8 LT_EMU_BUCKET=$([ $n -gt 0 ] && echo $i || echo -1) \
          $d/check $t $v > $d/split$i.out 2> $d/split$i.stderr
        st=$?
        grep '^FAIL' $d/split$i.out | sed "s/^FAIL emu $t /FAIL emu $t [split-K, bucket $i, $order] /"
        if ! grep -q "^# emu $t: done" $d/split$i.out; then
          echo "FAIL emu $t $v [split-K, bucket $i, $order]: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/split$i.stderr)"
        elif ! grep -q '^FAIL' $d/split$i.out; then
          echo "PASS emu $t $v [split-K, 3 parts, bucket $i, $order]: $(grep -c '^PASS' $d/split$i.out) cases"
        fi
      done
    done
  done
done

# 2b. config resident (gen/pass/resident.c) on sm80 and sm90a, whose
# shipped entries do not select it: the row ops with it on and chunks of
# 1024 (rmsnorm: 2 rows a program), so every row of check.cpp longer than
# 1024 takes two passes, the second from shared memory where the row fits
# (not at 128259 16-bit and f32), in both thread orders; into
# build/tests/emu/<target>/resident, which mutants.txt names as
# <target>/resident.  RMSNorm's and LayerNorm's rows are copied whole
# before the first pass (cp.async: their loads move 16-byte chunks),
# softmax's stored chunk by chunk (its first pass reduces each chunk), as
# are the split twins' (rows off the 16-byte grid).
for t in sm80 sm90a; do
  case " $targets " in *" $t "*) ;; *) continue ;; esac
  d=$b/$t/resident
  mkdir -p $d
  for k in softmax rmsnorm layernorm; do
    "$GEN" dsl/kernels/$k.lua --target $t --emulate --no-tuned -D resident=true -D BC=1024 -o $d 2> $d/gen.log ||
      echo "FAIL emu resident $t $k: gen --emulate failed: $(head -c 300 $d/gen.log)"
  done
  : > $d/jobs
  for f in $d/*.emu.cpp; do echo "$trace -c $f -o ${f%.emu.cpp}.o" >> $d/jobs; done
  echo "-c tests/emu/check.cpp -o $d/check.o -I$d" >> $d/jobs
  compile_all $d/jobs
  if ls $d/*.err >/dev/null 2>&1 || ! $CXX $san $d/*.o -o $d/check 2> $d/link.log; then
    echo "FAIL emu resident $t: does not build: $(cat $d/*.err $d/link.log 2>/dev/null | grep -m1 error)"
    continue
  fi
  for order in forward warps; do
    LT_EMU_SCHEDULE=$order $d/check $t > $d/$order.out 2> $d/$order.stderr
    st=$?
    grep '^FAIL' $d/$order.out | sed "s/^FAIL emu $t /FAIL emu $t [resident, $order] /"
    if ! grep -q "^# emu $t: done" $d/$order.out; then
      echo "FAIL emu resident $t [$order]: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/$order.stderr)"
    elif ! grep -q '^FAIL' $d/$order.out; then
      echo "PASS emu resident $t [$order]: $(grep -c '^PASS' $d/$order.out) cases of the row ops with config resident"
    fi
  done
done

# 2c. the split-N staging of wgmma's register A operand (gen/pass/mma.c,
# WN = 2), which the sm90a dK/dV kernels at d256 with a softcap take: the
# bf16 set (forward, pre, dQ, dK/dV) in a build of its own, in both thread
# orders, the outputs bitwise equal; into build/tests/emu/sm90a/splitn,
# which mutants.txt names as sm90a/splitn.  (Not in section 2's program:
# each kernel file keeps its own pool of thread stacks, two memory mappings
# a thread, and that program is near the kernel's limit of mappings for a
# process, vm.max_map_count.)
case " $targets " in *" sm90a "*) splitn=1 ;; *) splitn=0 ;; esac
d=$b/sm90a/splitn
if [ $splitn = 1 ]; then
  mkdir -p $d
  : > $d/gen.log
  for k in "attention -D softcap=true" "attention_bwd_pre -D dq_atomic=false" "attention_bwd_dq -D softcap=true" \
           "attention_bwd_dkdv -D softcap=true -D dq_atomic=false"; do
    read -r kf defs <<<"$k"
    "$GEN" dsl/kernels/$kf.lua --target sm90a --emulate -D dtype=bf16 -D hdim=d256 $defs -o $d 2>> $d/gen.log ||
      echo "FAIL emu splitn: gen --emulate failed on $kf: $(head -c 300 $d/gen.log)"
  done
  attention_list $d
  : > $d/jobs
  for f in $d/*.emu.cpp; do echo "$trace -c $f -o ${f%.emu.cpp}.o" >> $d/jobs; done
  echo "-c tests/emu/check.cpp -o $d/check.o -I$d" >> $d/jobs
  compile_all $d/jobs
  if [ ! -e $d/attention_list.h ] || ls $d/*.err >/dev/null 2>&1 || ! $CXX $san $d/*.o -o $d/check 2> $d/link.log; then
    echo "FAIL emu splitn sm90a: does not build: $(cat $d/*.err $d/link.log 2>/dev/null | grep -m1 error)"
  else
    for order in forward warps; do
      LT_EMU_SCHEDULE=$order LT_CHECK_HASHES=$d/hash.$order $d/check sm90a > $d/$order.out 2> $d/$order.stderr
      st=$?
      grep '^FAIL' $d/$order.out | sed "s/^FAIL emu sm90a /FAIL emu sm90a [split-N staging, $order] /"
      if ! grep -q "^# emu sm90a: done" $d/$order.out; then
        echo "FAIL emu splitn sm90a [$order]: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/$order.stderr)"
      elif ! grep -q '^PASS' $d/$order.out; then
        echo "FAIL emu splitn sm90a [$order]: no case ran"
      elif ! grep -q '^FAIL' $d/$order.out; then
        echo "PASS emu splitn sm90a [$order]: $(grep -c '^PASS' $d/$order.out) cases of the bf16 d256 softcap attention set"
      fi
    done
    if [ -s $d/hash.forward ] && cmp -s $d/hash.forward $d/hash.warps; then
      echo "PASS emu splitn sm90a: $(wc -l < $d/hash.forward) outputs bitwise equal in the forward and warps thread orders"
    else
      echo "FAIL emu splitn sm90a: outputs differ between the forward and warps thread orders (a race), or none"
    fi
  fi
fi

# 2d. LayerNorm's config one_pass (the one-pass body only; the launcher
# refuses C > BC) on sm80 and sm90a at the sm90a C=1024 entry's config
# (BC 1024, 2 rows a program, 128 threads), the three dtypes, in both
# thread orders (the shipped sm90a one_pass buckets run in 2's bucket loop,
# which expects each to refuse check.cpp's rows over its BC).  check.cpp's rows of at most 1024 (1, 7, 77, 1000, aligned and
# off the 16-byte grid) must match float64; its longer rows must be refused.
for t in sm80 sm90a; do
  case " $targets " in *" $t "*) ;; *) continue ;; esac
  d=$b/$t/one_pass
  mkdir -p $d
  for dt in f32 f16 bf16; do
    "$GEN" dsl/kernels/layernorm.lua --target $t --emulate --no-tuned -D dtype=$dt -D one_pass=true -D BC=1024 -D RB=2 \
      -D threads=128 -o $d 2> $d/gen.log || echo "FAIL emu one_pass $t layernorm_$dt: gen --emulate failed: $(head -c 300 $d/gen.log)"
  done
  : > $d/jobs
  for f in $d/*.emu.cpp; do echo "$trace -c $f -o ${f%.emu.cpp}.o" >> $d/jobs; done
  echo "-c tests/emu/check.cpp -o $d/check.o -I$d" >> $d/jobs
  compile_all $d/jobs
  if ls $d/*.err >/dev/null 2>&1 || ! $CXX $san $d/*.o -o $d/check 2> $d/link.log; then
    echo "FAIL emu one_pass $t: does not build: $(cat $d/*.err $d/link.log 2>/dev/null | grep -m1 error)"
    continue
  fi
  for order in forward warps; do
    LT_EMU_SCHEDULE=$order $d/check $t > $d/$order.out 2> $d/$order.stderr
    st=$?
    # a row of C elements: "layernorm_bf16 3x1000" (R x C) in each case's name
    bad=$(awk '$1 == "PASS" || $1 == "FAIL" {
                 split($5, rc, "x"); c = rc[2] + 0
                 if (c <= 1024 && $1 == "FAIL") print
                 if (c > 1024 && ($1 == "PASS" || $0 !~ /launcher returned error/)) print }' $d/$order.out)
    [ -n "$bad" ] && echo "$bad" | sed "s/^\(PASS\|FAIL\) emu $t /FAIL emu $t [one_pass, $order] \1 /"
    if ! grep -q "^# emu $t: done" $d/$order.out; then
      echo "FAIL emu one_pass $t [$order]: check stopped early (status $st): $(grep -m1 -E 'ERROR|error' $d/$order.stderr)"
    elif ! grep -q '^PASS' $d/$order.out; then
      echo "FAIL emu one_pass $t [$order]: no case ran"
    elif [ -z "$bad" ]; then
      echo "PASS emu one_pass $t [$order]: LayerNorm $(awk '$1 == "PASS"' $d/$order.out | wc -l) rows up to 1024 right," \
        "$(grep -c 'launcher returned error' $d/$order.out) longer rows refused"
    fi
  done
done

# 3. mutants: apply, build, run, and ask the named detector.
by_drivers=$(grep -o 'dsl/kernels/[a-z_0-9]*\.lua' tests/emu/drivers.sh | sed 's|dsl/kernels/||; s|\.lua$||' | sort -u)
# Replaces FIND by REPL in the nth line holding FIND (after the kernel's
# "/* One block" comment, or anywhere for "file"); fails if none.
mutate() {   # src dst where find repl nth
  awk -v where="$3" -v find="$4" -v repl="$5" -v nth="$6" '
    /^\/\* One block/ { inkernel = 1 }
    !done && (where == "file" || inkernel) && (i = index($0, find)) > 0 {
      if (++seen == nth) { $0 = substr($0, 1, i - 1) repl substr($0, i + length(find)); done = 1 }
    }
    { print }
    END { exit done ? 0 : 1 }' "$1" > "$2"
}

: > $b/mut/jobs
grep -v '^#' tests/emu/mutants.txt | grep -v '^$' > $b/mut/list
while IFS='|' read -r name t v detector words where find repl nth env; do
  case " $targets " in *" ${t%%/*} "*) ;; *) echo "SKIP emu mutant $name: ${t%%/*} is not in LT_EMU_TARGETS"; continue ;; esac
  [ -e $b/$t/$v.dup ] && t=$(cat $b/$t/$v.dup)   # the same code is built there
  src=$b/$t/$v.emu.cpp
  if [ ! -e "$src" ]; then echo "FAIL emu mutant $name: $src was not generated"; continue; fi
  if ! mutate "$src" $b/mut/$name.emu.cpp "$where" "$find" "$repl" "$nth"; then
    rm -f $b/mut/$name.emu.cpp
    echo "FAIL emu mutant $name: the mutation does not apply (no line $nth holding \"$find\" in $t/$v)"
    continue
  fi
  echo "$trace -c $b/mut/$name.emu.cpp -o $b/mut/$name.o" >> $b/mut/jobs
done < $b/mut/list
compile_all $b/mut/jobs

while IFS='|' read -r name t v detector words where find repl nth env; do
  [ -e $b/$t/$v.dup ] && t=$(cat $b/$t/$v.dup)
  m=$b/mut/$name
  [ -e $m.emu.cpp ] || continue
  if [ "$detector" = sanitizer ] && [ $have_san = 0 ]; then
    echo "SKIP emu mutant $name: needs the sanitizers"
    continue
  fi
  if [ "$detector" = emulator-traced ] && [ $have_trace = 0 ]; then
    echo "SKIP emu mutant $name: needs the tracing of plain shared-memory accesses (clang)"
    continue
  fi
  if [ -e $m.o.err ]; then echo "FAIL emu mutant $name: does not build: $(grep -m1 error $m.o.err)"; continue; fi
  others=$(ls $b/$t/*.o | grep -v -e "/check.o$" -e "/$v.o$" -e "/drv_.*\.o$")
  main=$b/$t/check.o
  for kd in $by_drivers; do   # a kernel with a driver of its own (drivers.sh) runs under it
    case $v in "${kd}_"*) ;; *) continue ;; esac
    drv=$(grep -o "dsl/kernels/$kd\.lua:[^ :]*" tests/emu/drivers.sh | head -1 | cut -d: -f2)
    main=$b/$t/drv_$kd.o
    [ -e $main ] || cc -std=c11 -O2 -I$b/$t -Itests/docs/drivers -c $drv -o $main 2> $m.link
  done
  if ! $CXX $san $main $others $m.o -o $m < /dev/null 2>> $m.link; then
    echo "FAIL emu mutant $name: does not link: $(grep -m1 error $m.link)"
    continue
  fi
  # the forward order first; a race may need the warps order to show
  found=""
  for order in forward warps; do
    env $env LT_EMU_SCHEDULE=$order LT_EMU_TIMEOUT=60 timeout 120 $m ${t%%/*} $v < /dev/null > $m.out 2> $m.err
    case $detector in
      emulator|emulator-traced) grep -q 'error: lt_emu:' $m.err && grep -qF "$words" $m.err ;;
      sanitizer) grep -qE 'AddressSanitizer|runtime error' $m.err && grep -qF "$words" $m.err ;;
      either) grep -qE 'error: lt_emu:|AddressSanitizer|runtime error' $m.err && grep -qF "$words" $m.err ;;
      numerics) grep '^FAIL' $m.out | grep -qF "$words" ;;
      *) false ;;
    esac && { found=$order; break; }
  done
  if [ -n "$found" ]; then
    echo "PASS emu mutant $name: $detector reports it ($t $v, $found order)"
  else
    echo "FAIL emu mutant $name: $detector did not report it with \"$words\" ($t $v; $(grep -c '^PASS' $m.out) cases passed; stderr: $(head -c 200 $m.err | tr '\n' ' '))"
  fi
done < $b/mut/list
# 4. the kernels with drivers of their own (the number types' docs examples)
bash tests/emu/drivers.sh
exit 0

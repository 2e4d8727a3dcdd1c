#!/usr/bin/env bash
# bench/moe.sh: builds grouped_matmul (out/sm90a, and out/sm80 for sm_90:
# its cp.async / mma.sync code) and bias_dropout_add (out/sm90a; OLD=folder
# of an earlier out/sm90a for an A/B) with nvcc, then runs bench/moe.py:
# every library checked against float64, the sm90a ones timed beside torch.
#   DIR=folder holding sm90a/ and sm80/ (default out), OUT=where results go,
#   AB="DIR ..." folders of grouped_matmul_bf16_kn.cu in other configs (timed beside),
#   BDAAB="DIR ..." folders of other bias_dropout_add builds (timed against out's),
#   LIB=where the objects and libraries go (default /tmp/moe_lib),
#   ONLY=bda: bias_dropout_add alone (no grouped_matmul build, check or timing).
#   BDA_SHAPES="MxN ...", BDA_DT="bf16 ...", BDA_TIME=ab: passed to moe.py (its doc).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${DIR:-$here/../out}
lib=${LIB:-/tmp/moe_lib}
mkdir -p "$lib"
build() {   # build NAME ARCH FILES...: one shared library of the files' launchers
  local name=$1 arch=$2 f
  shift 2
  for f in "$@"; do
    nvcc -O3 -std=c++17 $arch -Xcompiler -fPIC -Xptxas -v -c "$f" -o "$lib/${name}_$(basename "$f" .cu).o" \
      > "$lib/${name}_$(basename "$f" .cu).log" 2>&1 || { echo "FAIL build $f: $(grep -m1 error "$lib/${name}_$(basename "$f" .cu).log")"; return 1; } &
  done
  wait
  nvcc -shared -o "$lib/lib$name.so" "$lib/${name}"_*.o
}
h="-gencode=arch=compute_90a,code=sm_90a"
args=()
if [ "${ONLY:-}" != bda ]; then
  build gm "$h" "$src"/sm90a/grouped_matmul_*.cu &
  build gm80 "-arch=sm_90" "$src"/sm80/grouped_matmul_*.cu &
fi
build bda "$h" "$src"/sm90a/bias_dropout_add_*.cu &
[ -n "${OLD:-}" ] && build bdaold "$h" "$OLD"/bias_dropout_add_*.cu &
for d in ${AB:-}; do   # AB="DIR ...": folders of one grouped_matmul_bf16_kn.cu each, another config
  build "ab_$(basename $d)" "$h" "$d"/grouped_matmul_bf16_kn.cu &
done
for d in ${BDAAB:-}; do   # BDAAB="DIR ...": folders of other bias_dropout_add_*.cu builds
  build "bdaab_$(basename $d)" "$h" "$d"/bias_dropout_add_*.cu &
done
wait
args=()
for d in ${AB:-}; do
  [ -f "$lib/libab_$(basename $d).so" ] && args+=("AB_$(basename $d)=$lib/libab_$(basename $d).so")
done
for d in ${BDAAB:-}; do
  [ -f "$lib/libbdaab_$(basename $d).so" ] && args+=("BDAAB_$(basename $d)=$lib/libbdaab_$(basename $d).so")
done
for n in gm gm80 bda bdaold; do
  [ -f "$lib/lib$n.so" ] || continue
  k=$(echo $n | tr a-z A-Z); [ $n = bdaold ] && k=BDA_OLD
  args+=("$k=$lib/lib$n.so")
done
grep -h -E "registers|spill" "$lib"/gm_*.log "$lib"/bda_*.log 2>/dev/null | sort | uniq -c | head -12
python3 "$here/moe.py" "${args[@]}"

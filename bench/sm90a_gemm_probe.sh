#!/usr/bin/env bash
# bench/sm90a_gemm_probe.sh: builds bench/sm90a_gemm_probe.cu for sm_90a,
# prints each probe kernel's registers, stack and spills (ptxas -v) and, where
# cuobjdump is, its count of the instructions that matter (HGMMA, the TMA
# copies UTMALDG / UTMASTG, mbarrier SYNCS, setmaxnreg, local memory
# STL / LDL, memory fences MEMBAR), every MEMBAR of a cluster kernel, and
# the consumers' K loop of each cluster kernel (from 40 instructions before
# its first HGMMA to 80 after its last) into $out/cl2_loop.sass; then runs
# the probe with the arguments given:
#   bash bench/sm90a_gemm_probe.sh [check | time | all] [MxNxK ...]
# Environment: OUT (folder for the binary and logs, default
# build/sm90a_gemm_probe), GROUP_M, REPS (timed launches per point).
# Kernel names below: BN, STAGES, NT, EPI, type, CL (2: a cluster of 2),
# SA (1: the pair shares A, else B).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/sm90a_gemm_probe}
mkdir -p "$out"
if ! nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -o "$out/probe" bench/sm90a_gemm_probe.cu \
     -lcublas > "$out/build.log" 2>&1; then
  grep -m5 error "$out/build.log"
  exit 1
fi
grep -E "warning" "$out/build.log" | sort -u | head -5
echo "# ptxas, per probe kernel (BN, STAGES, NT, EPI, type, CL, SA):"
awk '/Compiling entry function .*gemm_sm90a_kernel/ { match($0, /ILi[0-9]+ELi[0-9]+ELi[0-9]ELi[0-9]E[^L]*Li[0-9]ELi[0-9]E/); k = substr($0, RSTART, RLENGTH) }
     k && /stack frame/ { st = $0 } k && /Used [0-9]+ registers/ { printf "#   %-40s %s |%s\n", k, $0, st; k = "" }' \
  "$out/build.log" | sed 's/ptxas info *: //'
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$out/probe" > "$out/probe.sass"
  echo "# SASS, per probe kernel: HGMMA UTMALDG UTMASTG SYNCS USETMAXREG STL LDL MEMBAR"
  awk 'function done() { if (f) print f, c["HGMMA"]+0, c["UTMALDG"]+0, c["UTMASTG"]+0, c["SYNCS"]+0, c["USETMAXREG"]+0, c["STL"]+0, c["LDL"]+0, c["MEMBAR"]+0; f = "" }
       /Function : / { done(); if ($3 ~ /gemm_sm90a_kernel/) { f = $3; delete c }; next }
       f { for (i = 1; i <= NF; i++) { split($i, w, "."); if (w[1] ~ /^(HGMMA|UTMALDG|UTMASTG|SYNCS|USETMAXREG|STL|LDL|MEMBAR)$/) c[w[1]]++ } }
       END { done() }' \
    "$out/probe.sass" | sed 's/^/#   /'
  # the cluster kernels (CL = 2): each MEMBAR (none expected), and the consumers' K loop
  awk -v loops="$out/cl2_loop.sass" '
       function flush(  i, lo, hi) {
         if (!f) return
         lo = first - 40; if (lo < 1) lo = 1; hi = last + 80; if (hi > n) hi = n
         print "## " f " (lines " lo " to " hi " of " n ")" > loops
         for (i = lo; i <= hi; i++) print line[i] > loops
         f = ""
       }
       /Function : / { flush(); n = 0; first = 0; last = 0; f = ($3 ~ /gemm_sm90a_kernel.*Li2ELi[01]EEv/) ? $3 : ""; next }
       f { line[++n] = $0
           if ($0 ~ /HGMMA/) { if (!first) first = n; last = n }
           if ($0 ~ /MEMBAR/) { m++; print "#   MEMBAR in " f ": " $0 } }
       END { flush(); print "#   cluster kernels: " m + 0 " MEMBAR; their K loops in " loops }' "$out/probe.sass"
fi
LOG="$out/run.log" "$out/probe" "$@"

#!/usr/bin/env bash
# bench/sm90a_gemm_probe.sh: builds bench/sm90a_gemm_probe.cu for sm_90a,
# prints each probe kernel's registers, stack and spills (ptxas -v) and, where
# cuobjdump is, its count of the instructions that matter (HGMMA, the TMA
# copies UTMALDG / UTMASTG, mbarrier SYNCS, setmaxnreg, local memory
# STL / LDL), then runs the probe with the arguments given:
#   bash bench/sm90a_gemm_probe.sh [check | time | all] [MxNxK ...]
# Environment: OUT (folder for the binary and logs, default
# build/sm90a_gemm_probe), GROUP_M, REPS (timed launches per point).
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
echo "# ptxas, per probe kernel (BN, STAGES, NT, EPI, type):"
awk '/Compiling entry function .*gemm_sm90a_kernel/ { match($0, /ILi[0-9]+ELi[0-9]+ELi[0-9]ELi[0-9]E[^E]*E/); k = substr($0, RSTART, RLENGTH) }
     k && /stack frame/ { st = $0 } k && /Used [0-9]+ registers/ { printf "#   %-32s %s |%s\n", k, $0, st; k = "" }' \
  "$out/build.log" | sed 's/ptxas info *: //'
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass "$out/probe" > "$out/probe.sass"
  echo "# SASS, per probe kernel: HGMMA UTMALDG UTMASTG SYNCS USETMAXREG STL LDL"
  awk '/Function : .*gemm_sm90a_kernel/ { if (f) print f, c["HGMMA"]+0, c["UTMALDG"]+0, c["UTMASTG"]+0, c["SYNCS"]+0, c["USETMAXREG"]+0, c["STL"]+0, c["LDL"]+0;
                                           f = $3; delete c; next }
       /Function : / { if (f) print f, c["HGMMA"]+0, c["UTMALDG"]+0, c["UTMASTG"]+0, c["SYNCS"]+0, c["USETMAXREG"]+0, c["STL"]+0, c["LDL"]+0; f = "" }
       f { for (i = 1; i <= NF; i++) { split($i, w, "."); if (w[1] ~ /^(HGMMA|UTMALDG|UTMASTG|SYNCS|USETMAXREG|STL|LDL)$/) c[w[1]]++ } }
       END { if (f) print f, c["HGMMA"]+0, c["UTMALDG"]+0, c["UTMASTG"]+0, c["SYNCS"]+0, c["USETMAXREG"]+0, c["STL"]+0, c["LDL"]+0 }' \
    "$out/probe.sass" | sed 's/^/#   /'
fi
LOG="$out/run.log" "$out/probe" "$@"

#!/usr/bin/env bash
# tests/python/run.sh: the PyTorch package python/luatile on the CPU, against
# the c target.  Prints PASS / FAIL / SKIP lines; always exits 0.
#
#   python/lib           ./build.sh lib c builds build/lib/libluatile_c.so (and its call
#                        module for this Python, where it has headers)
#   python/...           tests/python/test_torch.py: each op forward and backward
#                        against torch in float64, layouts, bad inputs, the library's
#                        errors (its own PASS / FAIL / SKIP lines)
#   python/index/...     tests/python/test_index.py: embedding and cross_entropy
#                        against torch in float64, int64 and int32 indices
#   python/moe/...       tests/python/test_moe.py: grouped_matmul and matmul_fp8
#                        against float64 (matmul_fp8: torch 2.1+, else SKIP)
#   python/run           test_torch.py did not crash
#   python/doc/...       the marked python blocks of docs/python.md and
#                        README.md run (tests/python/doc_blocks.py)
#
# Needs a python3 with torch (Debian: python3-torch; ./build.sh installs it):
# PYTHON=..., else the first of python3 and /usr/bin/python3 that imports it.
# Without one, one SKIP line.
cd "$(dirname "$0")/../.." || exit 0
b=build/tests/python
mkdir -p $b

py=""
for c in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import torch' >/dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then
  echo "SKIP python: no python3 with torch (apt-get install python3-torch, or PYTHON=/path/to/python3)"
  exit 0
fi

if PYTHON=$py ./build.sh lib c > $b/lib.log 2>&1; then
  echo "PASS python/lib: $(tail -n 1 $b/lib.log | cut -c1-200)"
else
  echo "FAIL python/lib: ./build.sh lib c: $(grep -m1 -iE 'error|missing' $b/lib.log | cut -c1-200)"
  exit 0
fi

rc=0
LUATILE_LIB_CPU= timeout 600 "$py" tests/python/test_torch.py > $b/test_torch.log 2>&1 || rc=$?
grep -E '^(PASS|FAIL|SKIP)' $b/test_torch.log
case $rc in
  0|1) echo "PASS python/run: test_torch.py ran to the end ($(head -n 1 $b/test_torch.log | cut -c3-200))" ;;
  124) echo "FAIL python/run: test_torch.py timed out after 600 s (build/tests/python/test_torch.log)" ;;
  *) echo "FAIL python/run: test_torch.py exited $rc (a crash?): $(tail -n 1 $b/test_torch.log | cut -c1-200)" ;;
esac

# run_part NAME: tests/python/test_NAME.py, its PASS / FAIL / SKIP lines,
# and whether it ran to the end (exit 0 or 1: its own checks decided)
run_part() {
  local rc=0
  LUATILE_LIB_CPU= timeout 300 "$py" tests/python/test_$1.py > $b/test_$1.log 2>&1 || rc=$?
  grep -E '^(PASS|FAIL|SKIP)' $b/test_$1.log
  case $rc in
    0|1) echo "PASS python/run/$1: test_$1.py ran to the end" ;;
    *) echo "FAIL python/run/$1: test_$1.py exited $rc (a crash?): $(tail -n 1 $b/test_$1.log | cut -c1-200)" ;;
  esac
}
run_part index
run_part moe

for doc in docs/python.md README.md; do
  [ -f "$doc" ] || echo "FAIL python/doc/$doc: missing"
done
"$py" tests/python/doc_blocks.py run $(ls docs/python.md README.md 2>/dev/null) 2>&1 |
  grep -E '^(PASS|FAIL|SKIP)' || echo "FAIL python/doc: tests/python/doc_blocks.py printed nothing"
exit 0

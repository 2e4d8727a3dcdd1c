#!/usr/bin/env bash
# tests/run.sh: the whole suite, as `./build.sh test` runs it.  Each layer
# is a script printing PASS / FAIL / SKIP lines; this counts them and ends
# with "N passed, N failed, N skipped".  Exit 1 if anything failed.
#   tests/run.sh              every layer
#   tests/run.sh LAYER...     only these layers (e.g. tests/run.sh unit golden)
#   tests/run.sh --help       this text and the layers
cd "$(dirname "$0")/.."
export LT_GEN=${LT_GEN:-build/gen}
layers="unit golden negative integrity fuzz cpu compile docs runtime emu python cmake"
case "${1:-}" in
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; echo "layers: $layers"; exit 0 ;;
  -*) echo "tests/run.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then
  for l in "$@"; do
    case " $layers " in *" $l "*) ;; *) echo "tests/run.sh: no layer $l (layers: $layers)" >&2; exit 2 ;; esac
  done
  layers="$*"
fi
log=build/tests/log
mkdir -p build/tests
: > $log
for l in $layers; do
  if [ -x tests/$l/run.sh ]; then
    start=$(date +%s)
    bash tests/$l/run.sh 2>&1 | tee -a $log | grep -E "^(FAIL|SKIP)" || true
    echo "== $l done in $(( $(date +%s) - start ))s"
  else
    echo "FAIL layer $l: tests/$l/run.sh is missing" | tee -a $log
  fi
done
echo "SKIP gpu: GPU checks run on the device machine (tests/gpu/run.sh), never in CI" | tee -a $log
p=$(grep -c '^PASS' $log); f=$(grep -c '^FAIL' $log); s=$(grep -c '^SKIP' $log)
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]

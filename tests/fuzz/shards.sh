#!/usr/bin/env bash
# tests/fuzz/shards.sh: a long fuzz run spread over the cores, one seed a core.
#
#   bash tests/fuzz/shards.sh FIRST_SEED SHARDS SECONDS
#
# Runs tests/fuzz/run.sh for seeds FIRST_SEED .. FIRST_SEED + SHARDS - 1 at
# once, each for SECONDS (LT_FUZZ_SECONDS; mutant I of seed S is the same on
# every machine, so a shard is reproducible from its seed and count), then
# prints each shard's last line and the totals.  Exits 1 if any shard
# printed a FAIL line.
cd "$(dirname "$0")/../.." || exit 1
FIRST=${1:?first seed} SHARDS=${2:?shards} CAP=${3:?seconds}
LOGS=$(mktemp -d) || exit 1
trap 'rm -rf "$LOGS"' EXIT
# the sanitized gen is built once, by the first shard alone, before the others start
LT_FUZZ_SEED=0 LT_FUZZ_N=0 bash tests/fuzz/run.sh >/dev/null
for s in $(seq "$FIRST" $((FIRST + SHARDS - 1))); do
  LT_FUZZ_SEED=$s LT_FUZZ_N=1000000 LT_FUZZ_SECONDS=$CAP bash tests/fuzz/run.sh >"$LOGS/$s" 2>&1 &
done
wait
grep -h -v '^PASS fuzz/found' "$LOGS"/* | sort -t'(' -k2 -n
grep -h '^PASS fuzz/run' "$LOGS"/* | sed 's/.*(\([0-9]*\) mutants.*, \([0-9]*\) runs.*: \([0-9]*\) wrote files, \([0-9]*\) c-target.*/\1 \2 \3 \4/' |
  awk '{m += $1; r += $2; w += $3; c += $4} END {printf "total: %d mutants, %d runs of gen, %d wrote files, %d c-target sets compiled\n", m, r, w, c}'
! grep -q '^FAIL' "$LOGS"/*

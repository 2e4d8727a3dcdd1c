#!/usr/bin/env bash
# tests/golden/run.sh: gen's output is byte-stable, and out/ is current.
#
#   bash tests/golden/run.sh            check (PASS/FAIL lines, exit 0)
#   bash tests/golden/run.sh --update   rewrite tests/golden/expected/ from
#                                       what gen writes now (review the diff!)
#
# Checks:
#   golden/<kernel>/<target>   tests/golden/kernels/<kernel>.lua generated for
#                              sm80, gfx942 and c (files + --explain) equals
#                              tests/golden/expected/<target>/<kernel>/
#   golden/<kernel>/list       its --list output equals expected/list/<kernel>.txt
#   golden/stable/<kernel>/<target>  a second run, from another directory with
#                              absolute paths, writes the same bytes (golden
#                              kernels and every dsl/kernels/*.lua, all targets)
#   golden/out/<target>        out/<target>/ equals what gen writes now for every
#                              dsl/kernels/*.lua (diff -r; extra or stale files fail)
#   golden/share/<target>      in what gen writes now, every tuned bucket runs a
#                              kernel byte-identical, names aside, to the one gen
#                              --no-share prints for it alone, and no two kernels
#                              of a file are (tests/golden/share.lua)
# LT_GEN: the gen binary (default build/gen); LT_OUT: the out/ folder (default out).
#
# The expected files are what gen *should* write.  Where gen's output is
# known to be wrong, --update regenerates and then applies the hand
# corrections listed in tests/golden/corrections.txt; read the diff before
# committing an update.
cd "$(dirname "$0")/../.." || exit 0
ROOT=$(pwd)
GEN=${LT_GEN:-build/gen}
case "$GEN" in /*) ;; *) GEN="$ROOT/$GEN" ;; esac
OUTDIR=${LT_OUT:-out}
GOLD=tests/golden
GOLD_TARGETS="sm80 gfx942 c"
ALL_TARGETS="sm80 sm90a gfx90a gfx942 gfx1100 c"
UPDATE=0
[ "${1:-}" = "--update" ] && UPDATE=1

if [ ! -x "$GEN" ]; then
  echo "FAIL golden/gen: $GEN is not an executable (build it: ./build.sh gen)"
  exit 0
fi
mkdir -p build/tests/golden
WORK=$(mktemp -d "$ROOT/build/tests/golden/run.XXXXXX") || { echo "FAIL golden/setup: no temp dir"; exit 0; }
trap 'rm -rf "$WORK"' EXIT

# gen_into DIR KERNEL TARGET: sources and explain.txt of KERNEL into DIR.
# Prints gen's stderr and returns non-zero when gen fails.
gen_into() {
  local dir=$1 k=$2 t=$3
  mkdir -p "$dir"
  "$GEN" "$k" --target "$t" -o "$dir" 2>"$WORK/err" || { head -c 300 "$WORK/err"; return 1; }
  "$GEN" "$k" --target "$t" --explain >"$dir/explain.txt" 2>"$WORK/err" || { head -c 300 "$WORK/err"; return 1; }
}

# first_diff A B: a one-line summary of how two trees differ.
first_diff() {
  diff -r "$1" "$2" >"$WORK/diff" 2>&1
  local n
  n=$(grep -cE '^(diff|Only in|Binary)' "$WORK/diff")
  printf '%s file(s) differ; first: %s' "$n" \
    "$(grep -m1 -E '^(diff|Only in|Binary)' "$WORK/diff" | sed "s|$WORK/|(now) |g; s|$ROOT/||g")"
  local hunk
  hunk=$(grep -m2 -E '^[<>] ' "$WORK/diff" | head -c 240 | tr '\n' ' ')
  [ -n "$hunk" ] && printf ' :: %s' "$hunk"
}

if [ "$UPDATE" = 1 ]; then
  for k in "$GOLD"/kernels/*.lua; do
    name=$(basename "$k" .lua)
    for t in $GOLD_TARGETS; do
      rm -rf "$GOLD/expected/$t/$name"
      if msg=$(gen_into "$GOLD/expected/$t/$name" "$k" "$t"); then
        echo "updated $GOLD/expected/$t/$name"
      else
        echo "FAIL golden/$name/$t: gen failed: $msg"
      fi
    done
    mkdir -p "$GOLD/expected/list"
    "$GEN" "$k" --list >"$GOLD/expected/list/$name.txt" && echo "updated $GOLD/expected/list/$name.txt"
  done
  # hand corrections of known gen bugs (see corrections.txt)
  while IFS=$'\t' read -r path expr; do
    case "$path" in ''|'#'*) continue ;; esac
    f="$GOLD/expected/$path"
    [ -f "$f" ] || { echo "correction: no file $f"; continue; }
    before=$(cksum <"$f")
    sed -i -e "$expr" "$f"
    if [ "$(cksum <"$f")" != "$before" ]; then echo "corrected $f: $expr"; else echo "correction not needed any more (gen fixed?): $path $expr"; fi
  done <"$GOLD/corrections.txt"
  exit 0
fi

# 1. golden kernels against the committed expected output
for k in "$GOLD"/kernels/*.lua; do
  name=$(basename "$k" .lua)
  for t in $GOLD_TARGETS; do
    exp="$GOLD/expected/$t/$name"
    got="$WORK/golden/$t/$name"
    if [ ! -d "$exp" ]; then
      echo "FAIL golden/$name/$t: no expected output $exp (make it: tests/golden/run.sh --update)"
    elif ! msg=$(gen_into "$got" "$k" "$t"); then
      echo "FAIL golden/$name/$t: gen failed: $msg"
    elif diff -r -q "$exp" "$got" >/dev/null 2>&1; then
      echo "PASS golden/$name/$t"
    else
      echo "FAIL golden/$name/$t: $(first_diff "$exp" "$got")"
    fi
  done
  exp="$GOLD/expected/list/$name.txt"
  if [ ! -f "$exp" ]; then
    echo "FAIL golden/$name/list: no expected $exp (make it: tests/golden/run.sh --update)"
  elif ! "$GEN" "$k" --list >"$WORK/list.txt" 2>"$WORK/err"; then
    echo "FAIL golden/$name/list: gen --list failed: $(head -c 300 "$WORK/err")"
  elif cmp -s "$exp" "$WORK/list.txt"; then
    echo "PASS golden/$name/list"
  else
    echo "FAIL golden/$name/list: --list output differs: $(diff "$exp" "$WORK/list.txt" | grep -m2 '^[<>]' | tr '\n' ' ')"
  fi
done

# 2. out/ equals what gen writes now (this first generation is also run 1
#    of the stability check of the shipped kernels)
for t in $ALL_TARGETS; do
  fresh="$WORK/out/$t"
  mkdir -p "$fresh"
  failed=""
  for k in dsl/kernels/*.lua; do
    "$GEN" "$k" --target "$t" -o "$fresh" 2>"$WORK/err" || failed="$failed $(basename "$k"): $(head -c 200 "$WORK/err")"
  done
  if [ -n "$failed" ]; then
    echo "FAIL golden/out/$t: gen failed on$failed"
  elif [ ! -d "$OUTDIR/$t" ]; then
    echo "FAIL golden/out/$t: $OUTDIR/$t does not exist (generate it: ./build.sh, and commit it)"
  elif diff -r -q "$OUTDIR/$t" "$fresh" >/dev/null 2>&1; then
    echo "PASS golden/out/$t"
  else
    echo "FAIL golden/out/$t: $OUTDIR/$t is stale: $(first_diff "$OUTDIR/$t" "$fresh")"
  fi
done

# 3. a second run, from another directory and with absolute paths, writes
#    the same bytes as the first
mkdir -p "$WORK/elsewhere"
stable() {   # stable NAME KERNEL TARGET FIRST_DIR (files of KERNEL only)
  local name=$1 k=$2 t=$3 first=$4
  local second="$WORK/second/$t/$name"
  mkdir -p "$second"
  if ! (cd "$WORK/elsewhere" && "$GEN" "$ROOT/$k" --target "$t" -o "$second") 2>"$WORK/err"; then
    echo "FAIL golden/stable/$name/$t: second run failed: $(head -c 300 "$WORK/err")"
    return
  fi
  local f bad="" n=0
  for f in "$second"/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    cmp -s "$first/$(basename "$f")" "$f" || bad="$bad $(basename "$f")"
  done
  if [ "$n" -eq 0 ]; then
    echo "FAIL golden/stable/$name/$t: second run wrote nothing"
    return
  fi
  if [ -z "$bad" ]; then
    echo "PASS golden/stable/$name/$t"
  else
    echo "FAIL golden/stable/$name/$t: bytes differ between two runs:$bad"
  fi
}
for k in "$GOLD"/kernels/*.lua; do
  name=$(basename "$k" .lua)
  for t in $GOLD_TARGETS; do
    [ -d "$WORK/golden/$t/$name" ] && stable "$name" "$k" "$t" "$WORK/golden/$t/$name"
  done
done
for k in dsl/kernels/*.lua; do
  name=$(basename "$k" .lua)
  for t in $ALL_TARGETS; do stable "$name" "$k" "$t" "$WORK/out/$t"; done
done
# 4. the buckets that share a kernel (gen/pass/share.c) run their own code
LUA=$(command -v lua5.4 || command -v lua)
for t in $ALL_TARGETS; do
  [ -d "$WORK/out/$t" ] || continue
  if [ -z "$LUA" ]; then echo "SKIP golden/share/$t: no lua5.4 to run tests/golden/share.lua"; continue; fi
  alone="$WORK/noshare/$t"
  mkdir -p "$alone"
  failed=""
  for k in dsl/kernels/*.lua; do
    "$GEN" "$k" --target "$t" --no-share -o "$alone" 2>"$WORK/err" || failed="$failed $(basename "$k"): $(head -c 200 "$WORK/err")"
  done
  if [ -n "$failed" ]; then echo "FAIL golden/share/$t: gen --no-share failed on$failed"; continue; fi
  files=0 buckets=0 shared=0 bad=""
  for f in "$WORK/out/$t"/*; do
    case "$f" in *.h) continue ;; esac
    grep -q '^ \* Configs, one per tuned shape bucket' "$f" || continue
    if ! r=$("$LUA" tests/golden/share.lua "$f" "$alone/$(basename "$f")" 2>&1); then
      bad="$bad ${r#"$WORK/out/"}"
      continue
    fi
    read -r _ nb ns <<<"$r"
    files=$((files + 1)) buckets=$((buckets + nb)) shared=$((shared + ns))
  done
  if [ -n "$bad" ]; then
    echo "FAIL golden/share/$t:$(echo "$bad" | head -c 600)"
  elif [ $files = 0 ]; then
    echo "PASS golden/share/$t (no variant with several tuned buckets)"
  else
    echo "PASS golden/share/$t ($buckets tuned buckets in $files files, $shared of them running another's kernel)"
  fi
done
exit 0

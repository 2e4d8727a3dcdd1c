#!/usr/bin/env bash
# tests/docs/run.sh: checks that the docs say what gen does.
#
#   tests/docs/run.sh            (from anywhere; LT_GEN=path overrides build/gen)
#
# For every docs/examples/NAME.lua:
#   docs/gen/NAME     gen writes it for every target (exit 0)
#   docs/cc/NAME      the c output compiles with cc -std=c11 -O2 -Wall -Werror
#   docs/run/NAME     tests/docs/drivers/NAME.c runs the c launchers on random
#                     inputs (ragged sizes, outputs poisoned with NaN) against a
#                     double-precision reference
# For every docs/examples/errors/NAME.lua:
#   docs/error/NAME   gen exits 1 with the exact message quoted in the docs and
#                     writes no file
# In README.md, docs/tutorial.md, docs/dsl.md, docs/emulator.md and docs/attention.md, a code
# block placed right after one of these markers is checked
# (docs/quote/FILE:LINE):
#   <!-- example: PATH -->   the block is the whole file PATH
#   <!-- excerpt: PATH -->   the block's lines appear in PATH, in a row
#                            (leading and trailing blanks aside)
#   <!-- error: PATH -->     the block is what gen prints for PATH (see above)
#   <!-- output: PATH.c -->  the block is what the program PATH.c prints
#                            (built against the c output of the example its
#                            name starts with: vadd_main.c -> vadd.lua)
#   <!-- run: NAME -->       the block (shell commands) runs with bash -e from
#                            the repository root and must exit 0; /tmp/lt in
#                            it stands for a scratch folder under build/docs,
#                            one per doc, shared by its run blocks in order
#   <!-- output: NAME -->    the block is what run block NAME printed
# and a ```lua, ```c or ```cpp block without a marker is a failure.
#   docs/nvcc/NAME    docs/examples/NAME.cu (a CUDA host program) builds with
#                     nvcc against the sm80 output (SKIP without nvcc)
#   docs/coverage     every k: method, tile function and value method that
#                     gen defines appears in an example and in docs/dsl.md
#
# Prints one line per check: PASS name / FAIL name: why / SKIP name: why.
# Always exits 0.  Builds into build/docs/ only.
set -u
cd "$(dirname "$0")/../.." || exit 0

GEN=${LT_GEN:-build/gen}
CC=${CC:-cc}
OUT=build/docs
TARGETS="sm80 sm90a gfx90a gfx942 gfx1100 c"
DOCS="README.md docs/tutorial.md docs/dsl.md docs/emulator.md docs/attention.md"
CFLAGS="-std=c11 -O2 -Wall -Werror"
JOBS=${JOBS:-2}

rm -rf "$OUT"
mkdir -p "$OUT"

# The first line of a file, shortened, for a FAIL reason.
first() { head -n 1 "$1" 2>/dev/null | cut -c1-200; }

have_gen=1
if [ ! -x "$GEN" ]; then have_gen=0; fi
have_cc=1
command -v "$CC" >/dev/null 2>&1 || have_cc=0
have_cxx=1   # the docs' commands call c++
command -v c++ >/dev/null 2>&1 || have_cxx=0

# ---------------------------------------------------------------------------
# per example: generate, compile, run (one job per example, JOBS at a time)

example_job() {
  local name=$1 src=docs/examples/$1.lua dir=$OUT/ex/$1
  local log=$dir/result
  mkdir -p "$dir"
  : >"$log"
  if [ $have_gen = 0 ]; then
    echo "SKIP docs/gen/$name: no gen at $GEN (./build.sh gen)" >>"$log"
    return
  fi
  local bad=""
  for t in $TARGETS; do
    if ! timeout 60 "$GEN" "$src" --target "$t" -o "$dir/$t" >"$dir/gen-$t.out" 2>"$dir/gen-$t.err"; then
      bad="$t: $(first "$dir/gen-$t.err")"
      break
    fi
  done
  if [ -n "$bad" ]; then
    echo "FAIL docs/gen/$name: $bad" >>"$log"
    echo "SKIP docs/cc/$name: gen failed" >>"$log"
    echo "SKIP docs/run/$name: gen failed" >>"$log"
    return
  fi
  echo "PASS docs/gen/$name" >>"$log"
  if [ $have_cc = 0 ]; then
    echo "SKIP docs/cc/$name: no C compiler ($CC)" >>"$log"
    echo "SKIP docs/run/$name: no C compiler ($CC)" >>"$log"
    return
  fi
  mkdir -p "$dir/obj"
  bad=""
  for f in "$dir"/c/*.c; do
    local o=$dir/obj/$(basename "${f%.c}").o
    if ! $CC $CFLAGS -c "$f" -o "$o" 2>"$o.err"; then
      bad="$(basename "$f"): $(grep -m1 -E 'error|warning' "$o.err" | cut -c1-200)"
      break
    fi
  done
  if [ -n "$bad" ]; then
    echo "FAIL docs/cc/$name: $bad" >>"$log"
    echo "SKIP docs/run/$name: the c output does not compile" >>"$log"
    return
  fi
  echo "PASS docs/cc/$name" >>"$log"
  local drv=tests/docs/drivers/$name.c
  if [ ! -f "$drv" ]; then
    echo "FAIL docs/run/$name: no driver $drv" >>"$log"
    return
  fi
  if ! $CC $CFLAGS -I"$dir/c" -Itests/docs/drivers -o "$dir/driver" "$drv" "$dir"/obj/*.o -lm 2>"$dir/driver.err"; then
    echo "FAIL docs/run/$name: driver does not build: $(grep -m1 -E 'error|warning' "$dir/driver.err" | cut -c1-200)" >>"$log"
    return
  fi
  local rc=0
  timeout 120 "$dir/driver" >"$dir/driver.out" 2>&1 || rc=$?
  if [ $rc = 0 ]; then
    echo "PASS docs/run/$name" >>"$log"
  elif [ $rc = 124 ]; then
    echo "FAIL docs/run/$name: timed out after 120 s" >>"$log"
  else
    echo "FAIL docs/run/$name: exit $rc: $(first "$dir/driver.out")" >>"$log"
  fi
}

names=()
for f in docs/examples/*.lua; do
  [ -e "$f" ] || continue
  names+=("$(basename "${f%.lua}")")
done

running=0
for n in "${names[@]}"; do
  example_job "$n" &
  running=$((running + 1))
  if [ $running -ge "$JOBS" ]; then
    wait -n 2>/dev/null || wait
    running=$((running - 1))
  fi
done
wait

for n in "${names[@]}"; do cat "$OUT/ex/$n/result"; done

# ---------------------------------------------------------------------------
# code blocks of the docs

QDIR=$OUT/quotes
mkdir -p "$QDIR"
INDEX=$QDIR/index
: >"$INDEX"
for doc in $DOCS; do
  if [ ! -f "$doc" ]; then
    echo "FAIL docs/quote/$doc: missing"
    continue
  fi
  awk -v out="$QDIR" -v index_file="$INDEX" -v doc="$doc" -v base="$(echo "$doc" | tr '/.' '__')" '
    BEGIN { inblock = 0; kind = ""; n = 0 }
    !inblock && /^<!-- (example|excerpt|error|output|run): [^ ]+ -->[ \t]*$/ {
      kind = $2; sub(/:$/, "", kind); path = $3; next
    }
    /^```/ {
      if (!inblock) {
        inblock = 1; lang = substr($0, 4); n++
        fname = out "/" base "_" n
        printf "" > fname
        if (kind != "") print doc "\t" FNR "\t" kind "\t" path "\t" fname >> index_file
        else if (lang == "lua" || lang == "c" || lang == "cpp") print doc "\t" FNR "\tunchecked\t-\t" fname >> index_file
        kind = ""
      } else {
        inblock = 0; close(fname)
      }
      next
    }
    inblock { print > fname; next }
    NF { kind = "" }
  ' "$doc"
done

# Prints "ok" if the lines of $1 (trimmed) appear in a row in $2 (trimmed).
excerpt_in() {
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    NR == FNR { want[++n] = trim($0); next }
    { have[++m] = trim($0) }
    END {
      if (n == 0) exit
      for (i = 1; i + n - 1 <= m; i++) {
        ok = 1
        for (j = 1; j <= n; j++) if (have[i + j - 1] != want[j]) { ok = 0; break }
        if (ok) { print "ok"; exit }
      }
    }
  ' "$1" "$2"
}

# Runs the commands of block $1 (doc $2) as a run block; prints "ok" or
# why not.  Their output, /tmp/lt written back, goes to $1.out.
run_block() {
  local block=$1 scratch=$PWD/$OUT/run/$(echo "$2" | tr '/.' '__')
  mkdir -p "$scratch"
  sed "s|/tmp/lt|$scratch|g" "$block" >"$block.sh"
  local rc=0
  timeout 300 bash -e -o pipefail "$block.sh" >"$block.raw" 2>"$block.err" </dev/null || rc=$?
  sed "s|$scratch|/tmp/lt|g" "$block.raw" >"$block.out"
  if [ $rc = 0 ]; then echo ok
  elif [ $rc = 124 ]; then echo "timed out after 300 s"
  else echo "exit $rc: $(tail -n 1 "$block.err" | sed "s|$scratch|/tmp/lt|g" | cut -c1-200)"; fi
}

declare -A error_quote run_out
while IFS=$'\t' read -r doc line kind path block; do
  name="docs/quote/$doc:$line"
  case $kind in
  unchecked)
    echo "FAIL $name: a code block with no <!-- example/excerpt/... --> marker" ;;
  example)
    if [ ! -f "$path" ]; then echo "FAIL $name: $path does not exist"
    elif cmp -s "$block" "$path"; then echo "PASS $name"
    else echo "FAIL $name: the block differs from $path"; fi ;;
  excerpt)
    if [ ! -f "$path" ]; then echo "FAIL $name: $path does not exist"
    elif [ "$(excerpt_in "$block" "$path")" = ok ]; then echo "PASS $name"
    else echo "FAIL $name: the block is not a run of lines of $path"; fi ;;
  error)
    error_quote[$path]=$block ;;
  run)
    if [ $have_gen = 0 ] || [ $have_cc = 0 ]; then echo "SKIP $name: no gen or no C compiler"
    elif grep -q 'c++' "$block" && [ $have_cxx = 0 ]; then echo "SKIP $name: no C++ compiler (c++)"
    else
      why=$(run_block "$block" "$doc")
      if [ "$why" = ok ]; then echo "PASS $name"; run_out[$path]=$block.out
      else echo "FAIL $name: run block $path: $why"; run_out[$path]=failed; fi
    fi ;;
  output)
    if [ "${path%.c}" = "$path" ]; then   # the output of a run block
      if [ -z "${run_out[$path]:-}" ]; then echo "SKIP $name: run block $path did not run (above)"
      elif [ "${run_out[$path]}" = failed ]; then echo "FAIL $name: run block $path failed"
      elif cmp -s "${run_out[$path]}" "$block"; then echo "PASS $name"
      else echo "FAIL $name: run block $path prints '$(first "${run_out[$path]}")', not what the block says"; fi
      continue
    fi
    ex=$(basename "$path"); ex=${ex%%_*}; ex=${ex%.c}
    cdir=$OUT/ex/$ex/c
    if [ ! -f "$path" ]; then echo "FAIL $name: $path does not exist"
    elif [ $have_gen = 0 ] || [ $have_cc = 0 ]; then echo "SKIP $name: no gen or no C compiler"
    elif [ ! -d "$cdir" ]; then echo "FAIL $name: no generated c output for $ex (docs/examples/$ex.lua)"
    else
      prog=$OUT/prog_$(basename "${path%.c}")
      if ! $CC $CFLAGS -I"$cdir" -o "$prog" "$path" "$cdir"/*.c -lm 2>"$prog.err" </dev/null; then
        echo "FAIL $name: $path does not build: $(grep -m1 -E 'error|warning' "$prog.err" | cut -c1-200)"
      elif ! timeout 60 "$prog" >"$prog.out" 2>&1 </dev/null; then
        echo "FAIL $name: $path exits non-zero: $(first "$prog.out")"
      elif cmp -s "$prog.out" "$block"; then echo "PASS $name"
      else echo "FAIL $name: $path prints '$(first "$prog.out")', not what the block says"; fi
    fi ;;
  *)
    echo "FAIL $name: unknown marker $kind" ;;
  esac
done <"$INDEX"

# ---------------------------------------------------------------------------
# error examples: the exact message, exit 1, no output

for f in docs/examples/errors/*.lua; do
  [ -e "$f" ] || continue
  n=$(basename "$f")
  name="docs/error/${n%.lua}"
  block=${error_quote[$f]:-}
  if [ -z "$block" ]; then echo "FAIL $name: not quoted in the docs (<!-- error: $f -->)"; continue; fi
  unset "error_quote[$f]"
  if [ $have_gen = 0 ]; then echo "SKIP $name: no gen at $GEN"; continue; fi
  d=$OUT/err/${n%.lua}
  mkdir -p "$d"
  genabs=$GEN
  case $genabs in /*) ;; *) genabs=$PWD/$GEN ;; esac
  rc=0
  (cd docs/examples/errors && timeout 60 "$genabs" "$n" --target sm80 -o "$OLDPWD/$d/out" \
    >"$OLDPWD/$d/stdout" 2>"$OLDPWD/$d/stderr" </dev/null) || rc=$?
  if [ $rc != 1 ]; then echo "FAIL $name: exit $rc, want 1: $(first "$d/stderr")"
  elif [ -e "$d/out" ] && [ -n "$(ls -A "$d/out")" ]; then echo "FAIL $name: left files in the output directory"
  elif ! cmp -s "$d/stderr" "$block"; then echo "FAIL $name: prints '$(first "$d/stderr")', not what the docs say"
  else echo "PASS $name"; fi
done
for path in "${!error_quote[@]}"; do
  echo "FAIL docs/error/$(basename "${path%.lua}"): quoted in the docs, but $path does not exist"
done

# ---------------------------------------------------------------------------
# CUDA host programs of the docs (docs/examples/NAME_*.cu): they build with
# nvcc against the sm80 output of NAME.lua (not run: CI has no GPU)

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
for f in docs/examples/*.cu; do
  [ -e "$f" ] || continue
  n=$(basename "${f%.cu}")
  ex=${n%%_*}
  sdir=$OUT/ex/$ex/sm80
  if [ ! -x "$NVCC" ]; then echo "SKIP docs/nvcc/$n: no nvcc"
  elif [ ! -d "$sdir" ]; then echo "FAIL docs/nvcc/$n: no sm80 output of docs/examples/$ex.lua"
  elif "$NVCC" -O3 -arch=sm_80 -I"$sdir" -o "$OUT/$n" "$f" "$sdir"/*.cu >"$OUT/$n.log" 2>&1 </dev/null; then
    echo "PASS docs/nvcc/$n"
  else
    echo "FAIL docs/nvcc/$n: $(grep -m1 error "$OUT/$n.log" | cut -c1-200)"
  fi
done

# ---------------------------------------------------------------------------
# coverage: every operation gen defines is in an example and in docs/dsl.md

if [ ! -f gen/lua/stmt.c ] || [ ! -f gen/lua/expr.c ] || [ ! -f dsl/tile.lua ]; then
  echo "SKIP docs/coverage: gen/lua/stmt.c, gen/lua/expr.c or dsl/tile.lua not found"
else
  # k: methods: the k_methods table of gen/lua/stmt.c
  kms=$(awk '/k_methods\[\] = \{/,/\};/' gen/lua/stmt.c | grep -o '{"[a-z_0-9]*"' | tr -d '{"')
  # value methods: the binary and unary name tables of gen/lua/expr.c, and cast
  vms=$(awk '/binop_names\[\] = \{/,/\};/; /unop_names\[\] = \{/,/\};/' gen/lua/expr.c | grep -o '{"[a-z_0-9]*"' | tr -d '{"')
  if [ -z "$kms" ] || [ -z "$vms" ]; then
    echo "FAIL docs/coverage: no k_methods, binop_names or unop_names table found in gen/lua/stmt.c / gen/lua/expr.c"
  fi
  # tile functions: the names dsl/tile.lua defines
  tfs=$( { grep -oE '^tile\.[a-z_0-9]+ *=' dsl/tile.lua | sed -E 's/^tile\.([a-z_0-9]+).*/\1/'
           grep -oE '^function tile\.[a-z_0-9]+' dsl/tile.lua | sed 's/^function tile\.//'
           awk '/for _, name in ipairs/' dsl/tile.lua | grep -o '"[a-z_0-9]*"' | tr -d '"'; } | sort -u)
  missing=""
  cat docs/examples/*.lua >"$OUT/all_examples.lua" 2>/dev/null
  for m in $kms; do
    grep -q "k:$m(" "$OUT/all_examples.lua" || missing="$missing k:$m(example)"
    grep -q "k:$m" docs/dsl.md 2>/dev/null || missing="$missing k:$m(dsl.md)"
  done
  for t in $tfs; do
    grep -q "tile\.$t\b" "$OUT/all_examples.lua" || missing="$missing tile.$t(example)"
    grep -q "tile\.$t\b" docs/dsl.md 2>/dev/null || missing="$missing tile.$t(dsl.md)"
  done
  for m in $vms cast; do   # as a method x:NAME( or as tile.NAME(
    grep -qE "(:|tile\.)$m\(" "$OUT/all_examples.lua" || missing="$missing :$m(example)"
    grep -q ":$m\b" docs/dsl.md 2>/dev/null || missing="$missing :$m(dsl.md)"
  done
  if [ -n "$missing" ]; then echo "FAIL docs/coverage: not covered:$missing"
  else echo "PASS docs/coverage"; fi
fi
exit 0

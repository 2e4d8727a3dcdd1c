#!/usr/bin/env bash
# tests/unit/run.sh: C unit tests of gen's internals.
#
# Each tests/unit/test_*.c is linked against gen's objects (build/obj/*.o
# without main.o, made by ./build.sh gen) into build/tests/unit/, and run.
# The programs print PASS/FAIL lines themselves (tests/unit/check.h); this
# script adds a FAIL line when one does not build, crashes or prints nothing.
# Exits 0.
cd "$(dirname "$0")/../.." || exit 0
CC=${CC:-cc}
OBJDIR=build/obj
OUT=build/tests/unit
LUAINC=${LUAINC:--I/usr/include/lua5.4}

objs=()
for o in "$OBJDIR"/*.o; do
  [ -e "$o" ] || continue
  [ "$(basename "$o")" = main.o ] && continue
  objs+=("$o")
done
if [ ${#objs[@]} -eq 0 ]; then
  echo "FAIL unit/objects: no objects in $OBJDIR (build them: ./build.sh gen)"
  exit 0
fi
# objects older than their source test old code: say so instead of passing
stale=()
newest_h=$(ls -t gen/*.h gen/*/*.h 2>/dev/null | head -1)
for c in gen/*.c gen/*/*.c; do
  [ -e "$c" ] || continue
  r=${c#gen/}; r=${r%.c}; o="$OBJDIR/${r//\//_}.o"
  [ "$c" = gen/embed.c ] && continue
  if [ ! -e "$o" ] || [ "$c" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then stale+=("$(basename "$o")"); fi
done
if [ ${#stale[@]} -gt 0 ]; then
  echo "FAIL unit/objects: older than gen/ sources: ${stale[*]} (rebuild: ./build.sh gen)"
else
  echo "PASS unit/objects"
fi

mkdir -p "$OUT"
for src in tests/unit/test_*.c; do
  name=$(basename "$src" .c)
  bin="$OUT/$name"
  if ! "$CC" -std=c11 -O1 -g -Wall -Wextra -D_POSIX_C_SOURCE=200809L -Igen $LUAINC -Itests/unit \
      -o "$bin" "$src" "${objs[@]}" -llua5.4 -lm 2>"$OUT/$name.build.log"; then
    echo "FAIL unit/$name/build: $(grep -m1 -E 'error|undefined' "$OUT/$name.build.log" | head -c 300)"
    continue
  fi
  timeout -k 5 60 "$bin" >"$OUT/$name.out" 2>"$OUT/$name.err"
  rc=$?
  grep -E '^(PASS|FAIL|SKIP) ' "$OUT/$name.out"
  n=$(grep -cE '^(PASS|FAIL|SKIP) ' "$OUT/$name.out")
  if [ "$rc" -ne 0 ]; then
    echo "FAIL unit/$name/exit: exit status $rc after $n checks ($(tail -c 200 "$OUT/$name.err" | tr '\n' ' '))"
  elif [ "$n" -eq 0 ]; then
    echo "FAIL unit/$name/exit: printed no checks"
  fi
done
exit 0

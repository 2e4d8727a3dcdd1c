#!/bin/sh
# runtime/build.sh [OUTDIR]: builds the luatile runtime into OUTDIR
# (default build/runtime under the repository root):
#   libluatile.so  the shared library the LuaJIT binding loads
#   libluatile.a   the same, for C programs that link it statically
# Only a C11 compiler is needed: CUDA and HIP are opened at run time.
# CC and CFLAGS are honoured; the build is -Wall -Wextra -Werror clean.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../build/runtime}
mkdir -p "$out/obj"
CC=${CC:-cc}
CFLAGS=${CFLAGS:--O2}
objs=
for src in error device module bench cpu vendor; do
  $CC $CFLAGS -std=c11 -Wall -Wextra -Werror -fPIC -I"$here" \
    -c "$here/$src.c" -o "$out/obj/$src.o"
  objs="$objs $out/obj/$src.o"
done
$CC -shared -o "$out/libluatile.so.tmp" $objs -ldl
mv "$out/libluatile.so.tmp" "$out/libluatile.so"
rm -f "$out/libluatile.a"
ar rcs "$out/libluatile.a" $objs

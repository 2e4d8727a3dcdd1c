#!/bin/sh
# runtime/bundle.sh [OUTDIR]: builds the runtime into OUTDIR (default
# build/runtime) and copies this machine's luajit and lua5.4, and build/gen
# when it is built, with the shared libraries they need beyond the C library
# (gen's liblua5.4 among them), into OUTDIR/lib, with wrappers in OUTDIR/bin.
# Carry OUTDIR to a machine that has no Lua, put OUTDIR/bin first on PATH,
# and the tuner runs there:
#   PATH=$PWD/build/runtime/bin:$PATH LT_GEN=$PWD/build/runtime/bin/gen luajit runtime/tune.lua ...
# The copies need a C library at least as new as this machine's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../build/runtime}
sh "$here/build.sh" "$out"
mkdir -p "$out/bin" "$out/lib"
gen=$here/../build/gen
for exe in luajit lua5.4 gen; do
  if [ $exe = gen ]; then
    [ -x "$gen" ] || { echo "bundle.sh: no build/gen (./build.sh gen builds it); bundled without it" >&2; continue; }
    path=$gen
  else
    path=$(command -v "$exe") || { echo "bundle.sh: no $exe here" >&2; exit 1; }
  fi
  cp "$(readlink -f "$path")" "$out/lib/$exe.bin"
  # libraries other than the C library's own parts travel along
  ldd "$path" | awk '/=> \// { print $3 }' | while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libgcc_s.so*) ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
  cat >"$out/bin/$exe" <<WRAP
#!/bin/sh
# $exe from runtime/bundle.sh: the copied interpreter with its libraries
d=\$(cd "\$(dirname "\$0")/../lib" && pwd)
LD_LIBRARY_PATH="\$d\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$d/$exe.bin" "\$@"
WRAP
  chmod +x "$out/bin/$exe"
done
echo "bundle.sh: $out/bin/luajit, lua5.4 and gen are ready (put $out/bin first on PATH; LT_GEN=$out/bin/gen)"

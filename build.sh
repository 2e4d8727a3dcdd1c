#!/usr/bin/env bash
# build.sh: the one entry point of luatile.
#   ./build.sh          install what is missing (Debian, as root), build build/gen, generate out/
#   ./build.sh test     the same, then run the whole test suite (tests/run.sh)
#   ./build.sh gen      only build build/gen
set -euo pipefail
cd "$(dirname "$0")"

CC=${CC:-cc}
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L"
TARGETS="sm80 sm90a gfx90a gfx942 gfx1100 c"
REQUIRED="lua5.4 liblua5.4-dev gcc make"
OPTIONAL="luajit libluajit-5.1-dev hipcc libamdhip64-dev clang-19 lld-19 llvm-19 libclang-rt-19-dev"

# Installs the Debian packages that are missing; the optional ones (other
# toolchains) only warn when they cannot be had: their checks then skip.
install_deps() {
  local missing=()
  for p in $REQUIRED $OPTIONAL; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "build.sh: missing packages: ${missing[*]} (run as root, or install them)" >&2
    for p in $REQUIRED; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || exit 1
    done
    return 0
  fi
  echo "build.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || true
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    echo "build.sh: some packages failed together; trying one by one" >&2
    for p in "${missing[@]}"; do apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 ||
      echo "build.sh: warning: could not install $p" >&2; done
  }
  for p in $REQUIRED; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      { echo "build.sh: required package $p is missing" >&2; exit 1; }
  done
}

# The object file of a source: gen/emit/copy.c -> emit_copy.o, gen/main.c -> main.o.
obj_name() {
  local r=${1#gen/}
  r=${r#build/}
  r=${r%.c}
  echo "${r//\//_}.o"
}

# Builds build/gen from gen/*.c and gen/*/*.c, with the prelude and templates embedded.
build_gen() {
  rm -rf build/obj
  mkdir -p build/obj
  $CC $CFLAGS -o build/embed gen/embed.c
  build/embed build/embed_text.c ltX_prelude=dsl/tile.lua ltX_cuda=templates/cuda.h \
    ltX_hip=templates/hip.h ltX_c=templates/c.h ltX_cuda_mma=templates/cuda_mma.h ltX_cuda_wgmma=templates/cuda_wgmma.h \
    ltX_cuda_tma=templates/cuda_tma.h \
    ltX_hip_mfma=templates/hip_mfma.h ltX_hip_wmma=templates/hip_wmma.h ltX_emu=templates/emu.h \
    ltX_emu_cuda=templates/emu_cuda.h ltX_emu_hip=templates/emu_hip.h
  local objs=() pids=()
  for f in gen/*.c gen/*/*.c build/embed_text.c; do
    [ "$f" = gen/embed.c ] && continue
    local o="build/obj/$(obj_name "$f")"
    objs+=("$o")
    $CC $CFLAGS -I/usr/include/lua5.4 -Igen -c "$f" -o "$o" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  $CC -o build/gen "${objs[@]}" -llua5.4 -lm
}

# Regenerates out/<target>/ for every shipped kernel.
generate_out() {
  rm -rf out
  for t in $TARGETS; do
    for k in dsl/kernels/*.lua; do
      build/gen "$k" --target "$t" -o "out/$t"
    done
  done
}

case "${1:-all}" in
  all) install_deps; build_gen; generate_out; echo "build.sh: built build/gen and out/" ;;
  gen) build_gen ;;
  test) install_deps; build_gen; generate_out; exec bash tests/run.sh ;;
  *) echo "usage: ./build.sh [test|gen]" >&2; exit 2 ;;
esac

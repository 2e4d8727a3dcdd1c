#!/usr/bin/env bash
# build.sh: the one entry point of luatile.
#   ./build.sh          install what is missing (Debian, as root), build build/gen, generate out/
#   ./build.sh test     the same, then run the whole test suite (tests/run.sh)
#   ./build.sh gen      only build build/gen
#   ./build.sh lib [T]  build/lib/libluatile_T.so from out/T (default c): nvcc, hipcc or cc
set -euo pipefail
cd "$(dirname "$0")"

CC=${CC:-cc}
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L"
TARGETS="sm80 sm90a gfx90a gfx942 gfx1100 c"
REQUIRED="lua5.4 liblua5.4-dev gcc make"
OPTIONAL="luajit libluajit-5.1-dev hipcc libamdhip64-dev clang-19 lld-19 llvm-19 libclang-rt-19-dev python3-torch cmake"

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
    ltX_cuda_tma=templates/cuda_tma.h ltX_cuda_tma_rows=templates/cuda_tma_rows.h ltX_cuda_queue=templates/cuda_queue.h ltX_cuda_fast=templates/cuda_fast.h ltX_cuda_hint=templates/cuda_hint.h ltX_hip_hint=templates/hip_hint.h \
    ltX_hip_mfma=templates/hip_mfma.h ltX_hip_mfma_fp8=templates/hip_mfma_fp8.h ltX_fp8_fnuz=templates/fp8_fnuz.h ltX_fp8_fnuz_dtypes=templates/fp8_fnuz_dtypes.h ltX_hip_wmma=templates/hip_wmma.h ltX_bits=templates/bits.h ltX_fp8=templates/fp8.h ltX_vec=templates/vec.h ltX_cuda_pieces=templates/cuda_pieces.h ltX_cuda_pieces4=templates/cuda_pieces4.h ltX_wide=templates/wide.h ltX_emu=templates/emu.h \
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

# Regenerates out/<target>/ for every shipped kernel.  gen's notes (a config
# value without effect on a target: one line each) come grouped by kernel.
generate_out() {
  rm -rf out
  for k in dsl/kernels/*.lua; do
    for t in $TARGETS; do
      build/gen "$k" --target "$t" -o "out/$t"
    done
  done
}

# Builds build/lib/libluatile_<target>.so from the committed out/<target>/ (the
# Python package python/luatile loads it), and build/lib/libluatile_<target>.h,
# every launcher's prototype with the target on its first line.  Objects are
# kept in build/lib/obj-<target>/ and rebuilt when their source is newer or
# the compile line changed.
#   LT_LIB_KERNELS="rmsnorm_* attention*_bf16_d64*"   only the variants matching these globs
#   LT_JOBS=N                                         parallel compiles (default: cores)
#   NVCC_ARCH="-arch=sm_90"                           another nvcc arch line (default: the target's)
#   PYTHON=python3                                    the Python the call module is built for
build_lib() {
  local t=${1:-c} compile link ext
  case $t in
    c) ext=c; compile="${CC} -O2 -std=c11 -fPIC"; link="${CC} -shared" ;;
    sm80|sm90a)
      command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || PATH=$PATH:/usr/local/cuda/bin
      command -v nvcc >/dev/null || { echo "build.sh lib $t: no nvcc (install the CUDA toolkit)" >&2; exit 1; }
      local a=${NVCC_ARCH:-$([ "$t" = sm80 ] && echo "-arch=sm_80" || echo "-gencode=arch=compute_90a,code=sm_90a")}
      ext=cu; compile="nvcc -O3 $a -Xcompiler -fPIC"; link="nvcc $a -shared" ;;
    gfx90a|gfx942|gfx1100)
      command -v hipcc >/dev/null || { echo "build.sh lib $t: no hipcc (install hipcc)" >&2; exit 1; }
      ext=hip; compile="hipcc -O3 --offload-arch=$t -fPIC"; link="hipcc --offload-arch=$t -shared" ;;
    *) echo "build.sh lib: unknown target '$t' (c, sm80, sm90a, gfx90a, gfx942, gfx1100)" >&2; exit 2 ;;
  esac
  ls out/$t/*.$ext >/dev/null 2>&1 || { echo "build.sh lib $t: out/$t/*.$ext missing (run ./build.sh)" >&2; exit 1; }
  local o=build/lib/obj-$t srcs=() f n p
  mkdir -p "$o"
  # objects built with other flags (NVCC_ARCH, CC) are not reused
  if [ "$(cat "$o/flags" 2>/dev/null)" != "$compile" ]; then rm -f "$o"/*.o; echo "$compile" > "$o/flags"; fi
  for f in out/$t/*.$ext; do
    n=$(basename "$f" ".$ext")
    if [ -n "${LT_LIB_KERNELS:-}" ]; then
      local keep=0
      for p in $LT_LIB_KERNELS; do
        # shellcheck disable=SC2053
        [[ $n == $p ]] && keep=1
      done
      [ $keep = 1 ] || continue
    fi
    srcs+=("$f")
  done
  [ ${#srcs[@]} -gt 0 ] || { echo "build.sh lib $t: no variant matches LT_LIB_KERNELS='${LT_LIB_KERNELS:-}'" >&2; exit 1; }
  rm -f "$o"/*.failed
  printf '%s\n' "${srcs[@]}" | xargs -P "${LT_JOBS:-$(nproc)}" -I{} sh -c '
    f={} n=$(basename {}); n=${n%.*}; obj='"$o"'/$n.o
    [ "$obj" -nt "$f" ] && exit 0
    '"$compile"' -c "$f" -o "$obj" 2>"'"$o"'/$n.log" || { touch "'"$o"'/$n.failed"; rm -f "$obj"; }'
  if ls "$o"/*.failed >/dev/null 2>&1; then
    for f in "$o"/*.failed; do
      n=$(basename "$f" .failed)
      echo "build.sh lib $t: $n does not compile: $(grep -m1 -i error "$o/$n.log" | cut -c1-200)" >&2
    done
    exit 1
  fi
  local objs=() hdr=build/lib/libluatile_$t.h
  for f in "${srcs[@]}"; do n=$(basename "$f" ".$ext"); objs+=("$o/$n.o"); done
  $link -o "build/lib/libluatile_$t.so.tmp" "${objs[@]}" -lm
  mv "build/lib/libluatile_$t.so.tmp" "build/lib/libluatile_$t.so"
  {
    echo "/* luatile launchers, target $t: one prototype a line (build/lib/libluatile_$t.so) */"
    for f in "${srcs[@]}"; do grep -h '^int [a-z0-9_]*(.*);$' "${f%.$ext}.h"; done
  } > "$hdr.tmp"
  mv "$hdr.tmp" "$hdr"
  # The launchers' CPython call module for the Python package (python/luatile/_calls.py):
  # optional, without it (no python3, no Python headers) the package calls them through ctypes.
  local py=${PYTHON:-python3} calls
  if calls=$("$py" python/luatile/_calls.py "$hdr" 2>&1); then
    calls="the call module ${calls#*built }"
  else
    calls="no call module ($(echo "$calls" | tail -n 1 | cut -c1-160); the Python package uses ctypes)"
  fi
  echo "build.sh: built build/lib/libluatile_$t.so (${#srcs[@]} variants), $hdr and $calls"
}

case "${1:-all}" in
  all) install_deps; build_gen; generate_out; echo "build.sh: built build/gen and out/" ;;
  gen) build_gen ;;
  lib) build_lib "${2:-c}" ;;
  test) install_deps; build_gen; generate_out; exec bash tests/run.sh ;;
  *) echo "usage: ./build.sh [test|gen|lib [TARGET]]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# tests/cmake/run.sh: cmake/luatile.cmake and examples/cmake, with the c target.
# Prints PASS / FAIL / SKIP lines; always exits 0.  Builds in build/tests/cmake/.
#
#   cmake/example            examples/cmake configures, builds and runs (its check against C passes)
#   cmake/noop               a second build compiles nothing and runs no gen
#   cmake/deleted            a generated file deleted by hand is generated again
#   cmake/edit               an edited kernel: its changed file is recompiled, a vanished
#                            variant's files go, a new one's come, without re-running cmake by hand
#   cmake/gen-error          a kernel error stops the build with gen's file:line message
#   cmake/ninja              the example with the Ninja generator (SKIP without ninja)
#   cmake/sm80-build         the example for sm80 builds with nvcc (no run: CI has no GPU; SKIP without nvcc)
#   cmake/gfx90a-build       the example for gfx90a builds with hipcc, the library's objects hold
#                            gfx90a code, and a second build compiles nothing (no run: no AMD
#                            GPU here; SKIP without hipcc)
#   cmake/doc/...            the marked cmake blocks of docs/cmake.md and
#                            README.md build and run, as projects
#                            beside examples/cmake's main.c and kernels/
cd "$(dirname "$0")/../.." || exit 0
root=$PWD
b=$root/build/tests/cmake
rm -rf "$b"
mkdir -p "$b"

if ! command -v cmake >/dev/null 2>&1; then
  echo "SKIP cmake: no cmake (apt-get install cmake)"
  exit 0
fi
if [ ! -x build/gen ]; then
  echo "FAIL cmake: no build/gen (./build.sh gen)"
  exit 0
fi
gen_opts=(-DLUATILE_GEN="$root/build/gen")

# configure + build + run a project: $1 name, $2 source dir, $3 build dir, $4 program, rest: cmake options
project() {
  local name=$1 src=$2 dir=$3 prog=$4
  shift 4
  if ! cmake -S "$src" -B "$dir" "${gen_opts[@]}" "$@" > "$dir.configure.log" 2>&1; then
    echo "FAIL cmake/$name: configure: $(grep -m1 -A2 'Error' "$dir.configure.log" | tr '\n' ' ' | cut -c1-250)"
    return 1
  fi
  if ! cmake --build "$dir" > "$dir.build.log" 2>&1; then
    echo "FAIL cmake/$name: build: $(grep -m1 -iE 'error' "$dir.build.log" | cut -c1-250)"
    return 1
  fi
  if [ -n "$prog" ]; then
    if ! "$dir/$prog" > "$dir.run.log" 2>&1; then
      echo "FAIL cmake/$name: $prog: $(tail -n 1 "$dir.run.log" | cut -c1-250)"
      return 1
    fi
  fi
  echo "PASS cmake/$name${prog:+: $(tail -n 1 "$dir.run.log" | cut -c1-200)}"
}

ex=$b/example
if project example examples/cmake "$ex" example; then
  out=$(cmake --build "$ex" 2>&1)
  if grep -qE 'Building|generating' <<< "$out"; then
    echo "FAIL cmake/noop: the second build did work: $(grep -m1 -E 'Building|generating' <<< "$out")"
  else
    echo "PASS cmake/noop"
  fi
  rm -f "$ex/luatile/example_kernels/residual_f32.c"
  if cmake --build "$ex" > "$ex.rebuild.log" 2>&1 && [ -f "$ex/luatile/example_kernels/residual_f32.c" ] &&
     "$ex/example" > /dev/null 2>&1; then
    echo "PASS cmake/deleted"
  else
    echo "FAIL cmake/deleted: $(grep -m1 -iE 'error' "$ex.rebuild.log" | cut -c1-200)"
  fi
fi

# a scratch project whose kernel file changes between builds
s=$b/scratch
mkdir -p "$s/src"
sed 's/"f32", "f16", "bf16"/"f32", "f16"/' examples/cmake/kernels/residual.lua > "$s/src/residual.lua"
cat > "$s/src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.18)
project(scratch C)
include("$root/cmake/luatile.cmake")
luatile_add_kernels(k TARGET c KERNELS residual.lua)
EOF
if project scratch "$s/src" "$s/b" ""; then
  files() { (cd "$s/b/luatile/k" && ls | tr '\n' ' '); }
  first=$(files)
  touch -d '-1 minute' "$s/b/luatile/k/"*   # so that a rewritten file is seen as newer
  sleep 1
  sed -i 's/"f32", "f16"/"f32", "bf16"/; s/BLOCK = 2048/BLOCK = 1024/' "$s/src/residual.lua"
  if cmake --build "$s/b" > "$s/edit.log" 2>&1; then
    second=$(files)
    built=$(grep -oE 'residual_[a-z0-9]+\.c\.o' "$s/edit.log" | sort -u | tr '\n' ' ')
    if [ "$first" = "residual_f16.c residual_f16.h residual_f32.c residual_f32.h " ] &&
       [ "$second" = "residual_bf16.c residual_bf16.h residual_f32.c residual_f32.h " ] &&
       [ "$built" = "residual_bf16.c.o residual_f32.c.o " ] && nm "$s/b/libk.a" | grep -q ' T residual_bf16$' &&
       ! nm "$s/b/libk.a" | grep -q residual_f16; then
      echo "PASS cmake/edit"
    else
      echo "FAIL cmake/edit: files before '$first', after '$second', compiled '$built'"
    fi
  else
    echo "FAIL cmake/edit: the build after the edit failed: $(grep -m1 -iE 'error' "$s/edit.log" | cut -c1-200)"
  fi
  sleep 1
  echo "this is not lua" >> "$s/src/residual.lua"
  if cmake --build "$s/b" > "$s/error.log" 2>&1; then
    echo "FAIL cmake/gen-error: the build passed with a broken kernel file"
  elif grep -q "residual.lua:[0-9]*: error:" "$s/error.log"; then
    echo "PASS cmake/gen-error: $(grep -m1 -o 'residual.lua:[0-9]*: error:.*' "$s/error.log" | cut -c1-150)"
  else
    echo "FAIL cmake/gen-error: no 'residual.lua:LINE: error:' in the output"
  fi
fi

if command -v ninja >/dev/null 2>&1; then
  project ninja examples/cmake "$b/ninja" example -G Ninja
else
  echo "SKIP cmake/ninja: no ninja"
fi

nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
if [ -n "$nvcc" ]; then
  project sm80-build examples/cmake "$b/sm80" "" -DLUATILE_TARGET=sm80 -DCMAKE_CUDA_COMPILER="$nvcc"
else
  echo "SKIP cmake/sm80-build: no nvcc"
fi

if command -v hipcc >/dev/null 2>&1; then
  h=$b/gfx90a
  if project gfx90a-build examples/cmake "$h" "" -DLUATILE_TARGET=gfx90a > "$h.result"; then
    again=$(cmake --build "$h" 2>&1)
    # the offload bundle of each object names its GPU target
    objs=$(ls "$h"/luatile/example_kernels.obj/*.o 2>/dev/null | wc -l)
    arch=$(grep -l -a 'gfx90a' "$h"/luatile/example_kernels.obj/*.o 2>/dev/null | wc -l)
    if grep -qE 'hipcc|Building' <<< "$again"; then
      echo "FAIL cmake/gfx90a-build: the second build did work: $(grep -m1 -E 'hipcc|Building' <<< "$again")"
    elif [ "$objs" -lt 2 ] || [ "$arch" != "$objs" ] || [ ! -x "$h/example" ]; then
      echo "FAIL cmake/gfx90a-build: $arch of $objs objects hold gfx90a code, program: $(ls "$h/example" 2>&1)"
    else
      echo "PASS cmake/gfx90a-build: $(grep -m1 -o 'HIP targets built by [a-z]*' "$h.configure.log"), linked $(basename "$h/example")"
    fi
  else
    cat "$h.result"
  fi
else
  echo "SKIP cmake/gfx90a-build: no hipcc"
fi

# the documented CMake blocks, each as the CMakeLists.txt of a copy of examples/cmake
for doc in docs/cmake.md README.md; do
  [ -f "$doc" ] || { echo "FAIL cmake/doc/$doc: missing"; continue; }
  while read -r name lang line; do
    [ "$lang" = cmake ] || continue
    d=$b/doc-$(basename "$doc" .md)-$name
    mkdir -p "$d/src"
    cp -r examples/cmake/main.c examples/cmake/kernels "$d/src/"
    python3 tests/python/doc_blocks.py get "$doc" "$name" > "$d/src/CMakeLists.txt"
    prog=$(grep -oE 'add_executable\(([A-Za-z0-9_]+)' "$d/src/CMakeLists.txt" | head -n 1 | cut -d'(' -f2)
    project "doc/$(basename "$doc")/$name" "$d/src" "$d/b" "$prog" -DLUATILE_ROOT="$root"
  done < <(python3 tests/python/doc_blocks.py list "$doc")
done
exit 0

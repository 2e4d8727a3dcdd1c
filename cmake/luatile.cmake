# cmake/luatile.cmake: luatile kernels in a CMake project.
#
#   include(/path/to/luatile/cmake/luatile.cmake)
#   luatile_add_kernels(NAME TARGET <target> KERNELS file.lua ...
#                       [DEFINES key=value ...] [GEN /path/to/gen]
#                       [DEPENDS file ...] [ARCH_FLAGS flag ...] [SHARED])
#
# makes NAME, a library of every variant gen writes for the kernel files on
# <target> (c, sm80, sm90a, gfx90a, gfx942, gfx1100), with the generated
# headers on its PUBLIC include path: link it and #include "<variant>.h".
# It enables the language the target needs (C; CUDA for sm*, linking the
# static CUDA runtime; HIP for gfx*, linking hip::host) and builds each
# file as the generated header says (sm80: -arch=sm_80; sm90a:
# -gencode=arch=compute_90a,code=sm_90a; gfx*: --offload-arch; c: C11,
# -lm).  ARCH_FLAGS replaces the GPU flags.  For gfx*, where CMake cannot
# enable its HIP language (it wants a ROCm install, whose
# lib/cmake/hip-lang Debian's HIP packages put elsewhere) or where
# LUATILE_HIP_MODE is hipcc, each .hip file is compiled by hipcc
# (LUATILE_HIPCC, found on the PATH) in a custom command into an object of
# the library, which then links libamdhip64 and the C++ runtime.  DEFINES are gen's -D
# key=value, given to every kernel of the call (a config value or one
# variant value: DEFINES dtype=f32 keeps only the f32 variants); a kernel
# that lacks the key is an error, so use one call per set of DEFINES.  GEN
# defaults to LUATILE_GEN, else build/gen of the checkout that holds this
# file (./build.sh gen builds it).  STATIC unless SHARED.
#
# How the generated files are tracked.  How many files gen writes, and
# their names, depend on the kernel file (its variants) and on DEFINES: the
# list is known only once gen has run, but CMake needs a target's sources
# when it writes the build system.  So gen runs at configure time: into a
# scratch folder, whose files are then copied into
# ${CMAKE_CURRENT_BINARY_DIR}/luatile/NAME/ only where their content
# changed (an unchanged file keeps its time stamp and is not recompiled),
# and the files of a variant that is gone are deleted there; the sources
# are that folder's files.  Every kernel file, gen itself, the tuned-config
# file gen reads beside a kernel (../tuned/<kernel>.lua) and DEPENDS (other
# files a kernel reads) are CMAKE_CONFIGURE_DEPENDS: when one changes, the
# next build (`cmake --build`, make, ninja) re-runs the configure step
# first, which generates again and takes the new list, so a variant that
# appears or disappears needs no manual step.  Beside that, a custom target
# NAME_luatile_gen, which the library depends on, runs this file as a
# script at every build (a few milliseconds): it generates again when an
# input is newer than the stamp luatile/NAME.stamp or a generated file is
# missing, and otherwise does nothing (the generated files are its
# byproducts, so Ninja and Make both order the compiles after it).
# gen's errors stop the configure step with gen's own message.
#
# Needs CMake 3.18 (3.21 for the HIP language; the hipcc way needs no more).

cmake_minimum_required(VERSION 3.18)

set(_LUATILE_MODULE "${CMAKE_CURRENT_LIST_FILE}")
get_filename_component(_LUATILE_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# gen FILE --target T -o scratch [-D k=v]... for each kernel, then the
# changed files into OUT, the vanished ones out of it.
function(_luatile_generate gen target out defines kernels)
  set(scratch "${out}.gen")
  file(REMOVE_RECURSE "${scratch}")
  file(MAKE_DIRECTORY "${scratch}" "${out}")
  set(dargs "")
  foreach(d IN LISTS defines)
    list(APPEND dargs -D "${d}")
  endforeach()
  foreach(k IN LISTS kernels)
    execute_process(COMMAND "${gen}" "${k}" --target "${target}" -o "${scratch}" ${dargs}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out_text ERROR_VARIABLE err_text)
    if(NOT rc EQUAL 0)
      file(REMOVE_RECURSE "${scratch}")
      message(FATAL_ERROR "luatile: gen failed (${rc}) on ${k} for ${target}:\n${err_text}${out_text}")
    endif()
  endforeach()
  file(GLOB new RELATIVE "${scratch}" "${scratch}/*")
  file(GLOB old RELATIVE "${out}" "${out}/*")
  foreach(f IN LISTS old)
    if(NOT f IN_LIST new)
      file(REMOVE "${out}/${f}")
    endif()
  endforeach()
  foreach(f IN LISTS new)
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.21)
      file(COPY_FILE "${scratch}/${f}" "${out}/${f}" ONLY_IF_DIFFERENT)
    else()
      execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${scratch}/${f}" "${out}/${f}")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${scratch}")
endfunction()

# Script mode: the build-time check runs this file with -P.  It generates
# again when the stamp is missing or older than an input, or a generated
# file is missing; otherwise it does nothing.
if(CMAKE_SCRIPT_MODE_FILE AND LUATILE_SCRIPT_OUT)
  string(REPLACE "|" ";" _defines "${LUATILE_SCRIPT_DEFINES}")
  string(REPLACE "|" ";" _kernels "${LUATILE_SCRIPT_KERNELS}")
  string(REPLACE "|" ";" _deps "${LUATILE_SCRIPT_DEPS}")
  string(REPLACE "|" ";" _files "${LUATILE_SCRIPT_FILES}")
  set(_stamp "${LUATILE_SCRIPT_OUT}.stamp")
  set(_why "")
  if(NOT EXISTS "${_stamp}")
    set(_why "no stamp")
  endif()
  foreach(_f IN LISTS _deps)
    if(NOT _why AND "${_f}" IS_NEWER_THAN "${_stamp}")
      set(_why "${_f} changed")
    endif()
  endforeach()
  foreach(_f IN LISTS _files)
    if(NOT _why AND NOT EXISTS "${_f}")
      set(_why "${_f} is missing")
    endif()
  endforeach()
  if(_why)
    message(STATUS "luatile: generating ${LUATILE_SCRIPT_OUT} (${_why})")
    _luatile_generate("${LUATILE_SCRIPT_GEN}" "${LUATILE_SCRIPT_TARGET}" "${LUATILE_SCRIPT_OUT}"
                      "${_defines}" "${_kernels}")
    file(TOUCH "${_stamp}")
  endif()
  return()
endif()

function(_luatile_add_kernels_impl name)
  cmake_parse_arguments(PARSE_ARGV 1 A "SHARED" "TARGET;GEN" "KERNELS;DEFINES;DEPENDS;ARCH_FLAGS")
  if(A_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "luatile_add_kernels(${name}): unknown arguments: ${A_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT A_KERNELS)
    message(FATAL_ERROR "luatile_add_kernels(${name}): no KERNELS")
  endif()
  set(t "${A_TARGET}")
  if(t STREQUAL "c")
    set(ext c)
    set(lang C)
  elseif(t MATCHES "^sm(80|90a)$")
    set(ext cu)
    set(lang CUDA)
  elseif(t MATCHES "^gfx(90a|942|1100)$")
    set(ext hip)
    set(lang HIP)
  else()
    message(FATAL_ERROR "luatile_add_kernels(${name}): TARGET must be one of c sm80 sm90a gfx90a gfx942 gfx1100, "
                        "not '${t}'")
  endif()

  set(gen "${A_GEN}")
  if(NOT gen)
    if(LUATILE_GEN)
      set(gen "${LUATILE_GEN}")
    else()
      set(gen "${_LUATILE_ROOT}/build/gen")
    endif()
  endif()
  get_filename_component(gen "${gen}" ABSOLUTE)
  if(NOT EXISTS "${gen}")
    message(FATAL_ERROR "luatile_add_kernels(${name}): no gen at ${gen} (run ./build.sh gen in the luatile "
                        "checkout, or pass GEN /path/to/gen or -DLUATILE_GEN=...)")
  endif()

  set(kernels "")
  set(deps "${gen}")
  foreach(k IN LISTS A_KERNELS)
    get_filename_component(k "${k}" ABSOLUTE)
    if(NOT EXISTS "${k}")
      message(FATAL_ERROR "luatile_add_kernels(${name}): no kernel file ${k}")
    endif()
    list(APPEND kernels "${k}")
    list(APPEND deps "${k}")
    get_filename_component(kdir "${k}" DIRECTORY)
    get_filename_component(kname "${k}" NAME_WE)
    get_filename_component(tuned "${kdir}/../tuned/${kname}.lua" ABSOLUTE)
    if(EXISTS "${tuned}")
      list(APPEND deps "${tuned}")
    endif()
  endforeach()
  foreach(d IN LISTS A_DEPENDS)
    get_filename_component(d "${d}" ABSOLUTE)
    list(APPEND deps "${d}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${deps})

  set(out "${CMAKE_CURRENT_BINARY_DIR}/luatile/${name}")
  _luatile_generate("${gen}" "${t}" "${out}" "${A_DEFINES}" "${kernels}")
  file(GLOB srcs "${out}/*.${ext}")
  file(GLOB hdrs "${out}/*.h")
  if(NOT srcs)
    message(FATAL_ERROR "luatile_add_kernels(${name}): gen wrote no .${ext} file for ${t}")
  endif()

  file(TOUCH "${out}.stamp")

  # the build-time check (a custom target that runs before the library's
  # compiles, every build, in a few milliseconds): generates again when an
  # input is newer than the stamp or a generated file is missing
  string(REPLACE ";" "|" sdefines "${A_DEFINES}")
  string(REPLACE ";" "|" skernels "${kernels}")
  string(REPLACE ";" "|" sdeps "${deps}")
  string(REPLACE ";" "|" sfiles "${srcs};${hdrs}")
  add_custom_target(${name}_luatile_gen
    COMMAND "${CMAKE_COMMAND}" "-DLUATILE_SCRIPT_GEN=${gen}" "-DLUATILE_SCRIPT_TARGET=${t}"
            "-DLUATILE_SCRIPT_OUT=${out}" "-DLUATILE_SCRIPT_DEFINES=${sdefines}"
            "-DLUATILE_SCRIPT_KERNELS=${skernels}" "-DLUATILE_SCRIPT_DEPS=${sdeps}"
            "-DLUATILE_SCRIPT_FILES=${sfiles}" -P "${_LUATILE_MODULE}"
    BYPRODUCTS ${srcs} ${hdrs}
    COMMENT "luatile: checking the generated files of ${name}"
    VERBATIM)

  if(lang STREQUAL "HIP" AND _LUATILE_HIP_MODE STREQUAL "hipcc")
    set(lib_srcs "")   # the objects, added by _luatile_hipcc_objects
  else()
    set(lib_srcs ${srcs})
  endif()
  if(A_SHARED)
    add_library(${name} SHARED ${lib_srcs} ${hdrs})
  else()
    add_library(${name} STATIC ${lib_srcs} ${hdrs})
  endif()
  add_dependencies(${name} ${name}_luatile_gen)
  target_include_directories(${name} PUBLIC "${out}")
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(lang STREQUAL "C")
    set_target_properties(${name} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
    target_compile_options(${name} PRIVATE $<$<C_COMPILER_ID:GNU,Clang,AppleClang>:-O2>)
    find_library(_LUATILE_LIBM m)
    if(_LUATILE_LIBM)
      target_link_libraries(${name} PUBLIC "${_LUATILE_LIBM}")
    endif()
  elseif(lang STREQUAL "CUDA")
    if(A_ARCH_FLAGS)
      set(flags ${A_ARCH_FLAGS})
    elseif(t STREQUAL "sm80")
      set(flags -arch=sm_80)
    else()
      set(flags -gencode=arch=compute_90a,code=sm_90a)
    endif()
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES OFF CUDA_RUNTIME_LIBRARY Static)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-O3 ${flags}>)
    find_package(CUDAToolkit REQUIRED)
    target_link_libraries(${name} PUBLIC CUDA::cudart_static)
  elseif(_LUATILE_HIP_MODE STREQUAL "hipcc")
    _luatile_hipcc_objects("${name}" "${t}" "${out}" "${srcs}" "${A_ARCH_FLAGS}")
  else()
    set_source_files_properties(${srcs} PROPERTIES LANGUAGE HIP)
    if(A_ARCH_FLAGS)
      target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:${A_ARCH_FLAGS}>)
    else()
      set_target_properties(${name} PROPERTIES HIP_ARCHITECTURES "${t}")
    endif()
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-O3>)
    find_package(hip REQUIRED CONFIG)
    target_link_libraries(${name} PUBLIC hip::host)
  endif()
endfunction()

# The hipcc way for HIP targets: one custom command a .hip file, hipcc -O3
# --offload-arch=<target> (or ARCH_FLAGS) -fPIC -c into
# <out>.obj/<variant>.o, recompiled when the file or its header changes;
# the objects are the library's sources, linked with libamdhip64 and the C++
# runtime; the library's users get the HIP headers' folder and
# __HIP_PLATFORM_AMD__ (hip/hip_runtime_api.h wants it), as hip::host gives.
function(_luatile_hipcc_objects name t out srcs arch)
  if(NOT LUATILE_HIPCC)
    find_program(LUATILE_HIPCC hipcc)
  endif()
  if(NOT LUATILE_HIPCC)
    message(FATAL_ERROR "luatile_add_kernels(${name}): TARGET ${t} needs CMake's HIP language (a ROCm install) "
                        "or hipcc (set LUATILE_HIPCC=/path/to/hipcc)")
  endif()
  find_library(_LUATILE_AMDHIP64 amdhip64 PATHS /opt/rocm/lib)
  find_path(_LUATILE_HIP_INCLUDE hip/hip_runtime_api.h PATHS /opt/rocm/include)
  if(NOT _LUATILE_AMDHIP64 OR NOT _LUATILE_HIP_INCLUDE)
    message(FATAL_ERROR "luatile_add_kernels(${name}): no HIP runtime (libamdhip64 and hip/hip_runtime_api.h) "
                        "for TARGET ${t}")
  endif()
  if(arch)
    set(flags ${arch})
  else()
    set(flags --offload-arch=${t})
  endif()
  set(objs "")
  file(MAKE_DIRECTORY "${out}.obj")
  foreach(src IN LISTS srcs)
    get_filename_component(n "${src}" NAME_WE)
    set(obj "${out}.obj/${n}.o")
    add_custom_command(OUTPUT "${obj}"
      COMMAND "${LUATILE_HIPCC}" -O3 ${flags} -fPIC -c "${src}" -o "${obj}"
      DEPENDS "${src}" "${out}/${n}.h"
      COMMENT "luatile: hipcc ${n}.hip (${t})"
      VERBATIM)
    list(APPEND objs "${obj}")
  endforeach()
  set_source_files_properties(${objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(${name} PRIVATE ${objs})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_compile_definitions(${name} INTERFACE __HIP_PLATFORM_AMD__)
  target_include_directories(${name} INTERFACE "${_LUATILE_HIP_INCLUDE}")
  target_link_libraries(${name} PUBLIC "${_LUATILE_AMDHIP64}" stdc++)
endfunction()

# A macro, so that enable_language runs in the caller's (file) scope, as CMake requires.
# For a gfx target it picks the HIP way once (_LUATILE_HIP_MODE): CMake's HIP
# language where check_language finds it usable and LUATILE_HIP_MODE is not
# hipcc, else hipcc.
macro(luatile_add_kernels _luatile_name)
  set(_luatile_args ${ARGN})
  list(FIND _luatile_args TARGET _luatile_i)
  set(_luatile_lang "")
  if(_luatile_i GREATER -1)
    math(EXPR _luatile_i "${_luatile_i} + 1")
    list(LENGTH _luatile_args _luatile_n)
    if(_luatile_i LESS _luatile_n)
      list(GET _luatile_args ${_luatile_i} _luatile_t)
      if(_luatile_t MATCHES "^sm")
        set(_luatile_lang CUDA)
      elseif(_luatile_t MATCHES "^gfx")
        if(NOT DEFINED _LUATILE_HIP_MODE)
          set(LUATILE_HIP_MODE auto CACHE STRING "how luatile builds HIP targets: auto, language or hipcc")
          set(_LUATILE_HIP_MODE hipcc)
          if(NOT LUATILE_HIP_MODE STREQUAL "hipcc" AND NOT CMAKE_VERSION VERSION_LESS 3.21)
            include(CheckLanguage)
            check_language(HIP)
            if(CMAKE_HIP_COMPILER)
              set(_LUATILE_HIP_MODE language)
            endif()
          endif()
          if(LUATILE_HIP_MODE STREQUAL "language" AND NOT _LUATILE_HIP_MODE STREQUAL "language")
            message(FATAL_ERROR "luatile_add_kernels(${_luatile_name}): LUATILE_HIP_MODE=language, but CMake "
                                "${CMAKE_VERSION} cannot enable the HIP language here (3.21 and a ROCm install)")
          endif()
          message(STATUS "luatile: HIP targets built by ${_LUATILE_HIP_MODE}")
        endif()
        if(_LUATILE_HIP_MODE STREQUAL "language")
          set(_luatile_lang HIP)
        else()
          set(_luatile_lang CXX)   # the link of hipcc's objects
        endif()
      elseif(_luatile_t STREQUAL "c")
        set(_luatile_lang C)
      endif()
    endif()
  endif()
  if(_luatile_lang)
    get_property(_luatile_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT _luatile_lang IN_LIST _luatile_langs)
      enable_language(${_luatile_lang})
    endif()
  endif()
  _luatile_add_kernels_impl(${_luatile_name} ${ARGN})
endmacro()

#!/usr/bin/env bash
# Compiles one generated file for its target and checks the machine code:
#   one.sh TARGET FILE OUTDIR
# Prints one PASS / FAIL / SKIP line.  Checks: the file builds on its own,
# without a warning, with the vendor toolkit, no register spills, no scratch (local) memory,
# no wgmma serialized by ptxas (sm90a), the matrix instruction in the PTX
# or the AMD ISA where the kernel has a gemm.
t=$1 f=$2 o=$3
name="compile $t $(basename "$f")"
log="$o/$(basename "$f").$t.log"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
# the files whose machine code must show the target's matrix instruction:
# the f16 and bf16 matmuls, and every attention kernel with a gemm (all but
# pre, post and attention_decode's combine, which have none); the fp8
# matmul's MFMA fp8 on gfx942
case $(basename "$f") in
  matmul_f16_*|matmul_bf16_*) mma=matmul ;;
  matmul_fp8_*) mma=fp8 ;;
  attention_bwd_pre_*|attention_bwd_post_*|attention_decode_*_combine.*) mma= ;;
  attention*) mma=attention ;;
  *) mma= ;;
esac
case $t in
  sm80|sm90a)
    [ -x "$NVCC" ] || { echo "SKIP $name: no nvcc"; exit 0; }
    arch=$([ $t = sm80 ] && echo "-gencode=arch=compute_80,code=sm_80" || echo "-gencode=arch=compute_90a,code=sm_90a")
    if ! "$NVCC" -O3 $arch -Xptxas -v -cubin -o "$o/$(basename "$f").$t.cubin" "$f" >"$log" 2>&1; then
      echo "FAIL $name: nvcc failed: $(grep -m1 error "$log")"; exit 0; fi
    # generated code compiles without a warning (e.g. #1886-D: two kernels of
    # one file declaring lt_smem with different alignments)
    if grep -E "warning( #|:)" "$log" >/dev/null; then
      echo "FAIL $name: nvcc warns: $(grep -m1 -E 'warning( #|:)' "$log" | sed 's/^ *//')"; exit 0; fi
    if grep -E "[1-9][0-9]* bytes spill (stores|loads)" "$log" >/dev/null; then
      echo "FAIL $name: register spills: $(grep -m1 -E '[1-9][0-9]* bytes spill (stores|loads)' "$log" | sed 's/^ *//')"; exit 0; fi
    if grep -E "[1-9][0-9]* bytes stack frame" "$log" >/dev/null; then
      echo "FAIL $name: local memory: $(grep -m1 -E '[1-9][0-9]* bytes stack frame' "$log" | sed 's/^ *//')"; exit 0; fi
    # ptxas keeps the wgmmas' accumulators safe by serializing them when the
    # code touches one in flight (C7515..C7520): correct, and slow
    if grep -q "wgmma.mma_async instructions are serialized" "$log"; then
      echo "FAIL $name: $(grep -m1 -o 'wgmma.mma_async instructions are serialized due to [a-zA-Z -]*' "$log")"; exit 0; fi
    # the warp-specialized attention forwards (P V one iteration late): no
    # warpgroup.arrive that ptxas adds itself (C7519) where the path that
    # issues the deferred wgmmas and the one that skips them join
    case $t:$(basename "$f") in sm90a:attention_f16_d*.cu|sm90a:attention_bf16_d*.cu)
      if grep -q "warpgroup.arrive is injected" "$log"; then
        echo "FAIL $name: ptxas injects a warpgroup.arrive (C7519): $(grep -m1 -o 'around line [0-9]*' "$log")"; exit 0; fi ;;
    esac
    # the tensor-core instructions are in the PTX (no cuobjdump here for SASS;
    # tests/gpu checks HMMA / HGMMA / LDSM on the device): the matmuls'
    # mma.sync, ldmatrix and cp.async; the attention kernels' mma.sync or
    # wgmma, and wgmma itself on sm90a where gen/pass/mma.c (wgmma_fits) takes it:
    # the dQ and deterministic dK/dV kernels, and the forwards whose tuned
    # config has 16 rows a warp (dsl/tuned/attention.lua: d64, d128 without
    # softcap).  Not the dK/dV kernels at d128 (and d96, which takes d128's
    # configs) with a softcap: their tuned config, the one without spills,
    # splits the warps over N (WN = 2) in 4 warps, and wgmma takes
    # warpgroups.  Nor the dK/dV kernel at d256 without softcap (its tuned
    # config: 4 warps, WN = 2).  But the d256 softcap ones and those with dQ
    # by atomics at d128 and d96: 8 warps, WN = 2, two warpgroups that split N.
    case $mma in
      matmul) want="mma.sync.aligned.m16n8k16 ldmatrix.sync.aligned.m8n8.x4 cp.async.cg.shared.global" ;;
      attention) want="mma.sync.aligned.m16n8k16|wgmma.mma_async.sync.aligned" ;;
      *) want= ;;
    esac
    # sm90a matmuls (f16, bf16): wgmma, the warp-specialized kernel's TMA
    # copies, and the cp.async of the twin its launcher falls back to
    case $t:$mma in sm90a:matmul)
      want="wgmma.mma_async.sync.aligned cp.async.bulk.tensor.3d mbarrier.try_wait.parity setmaxnreg cp.async.cg.shared.global" ;;
    esac
    case $t:$(basename "$f") in sm90a:attention_bwd_dkdv_*d128_softcap.cu|sm90a:attention_bwd_dkdv_*d96_softcap.cu) ;;
      sm90a:attention_bwd_dkdv_*d256_softcap.cu|sm90a:attention_bwd_dkdv_dq_atomic_*d128.cu|\
      sm90a:attention_bwd_dkdv_dq_atomic_*d96.cu) want=wgmma.mma_async.sync.aligned ;;
      sm90a:attention_bwd_dkdv_*d256*.cu) ;;
      sm90a:attention_bwd_dkdv_bf16*|sm90a:attention_bwd_dkdv_f16*|sm90a:attention_bwd_dq_*|\
      sm90a:attention_bf16_d64.cu|sm90a:attention_f16_d64.cu|sm90a:attention_bf16_d128.cu|sm90a:attention_f16_d128.cu)
        want=wgmma.mma_async.sync.aligned ;;
    esac
    if [ -n "$want" ]; then
      "$NVCC" -O3 $arch -ptx -o "$o/$(basename "$f").$t.ptx" "$f" 2>>"$log"
      for i in $want; do
        grep -qE "$i" "$o/$(basename "$f").$t.ptx" || { echo "FAIL $name: no ${i//|/ or } in the PTX"; exit 0; }
      done
    fi
    ;;
  gfx90a|gfx942|gfx1100)
    if [ $t = gfx90a ]; then   # the whole build (host + device) with Debian's hipcc 5.2
      command -v hipcc >/dev/null || { echo "SKIP $name: no hipcc"; exit 0; }
      if ! hipcc --offload-arch=gfx90a -O3 -c -o "$o/$(basename "$f").$t.o" "$f" >"$log.hipcc" 2>&1; then
        echo "FAIL $name: hipcc failed: $(grep -m1 error "$log.hipcc")"; exit 0; fi
    fi
    # machine code and spills from clang-19 (hipcc 5.2's clang 15 keeps some
    # 16-bit vector packing in scratch that current compilers do not)
    command -v clang++-19 >/dev/null || { echo "SKIP $name: no clang++-19"; exit 0; }
    # the math library comes from ROCm's device bitcode (Debian's), linked in
    # so that expf, erff... inline as they do in a full ROCm build
    bc=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode libs=()
    [ -f $bc/ocml.bc ] || { echo "SKIP $name: no ROCm device bitcode in $bc"; exit 0; }
    wave=$([ $t = gfx1100 ] && echo off || echo on)
    for b in ocml ockl oclc_finite_only_off oclc_unsafe_math_off oclc_correctly_rounded_sqrt_on \
             oclc_daz_opt_off oclc_wavefrontsize64_$wave; do
      libs+=(-Xclang -mlink-builtin-bitcode -Xclang $bc/$b.bc); done
    if ! clang++-19 -x hip --offload-arch=$t --offload-device-only -nogpulib -O3 -S "${libs[@]}" \
        -Rpass-analysis=kernel-resource-usage -o "$o/$(basename "$f").$t.s" "$f" >"$log" 2>&1; then
      echo "FAIL $name: clang-19 failed: $(grep -m1 error "$log")"; exit 0; fi
    if grep -E "warning:" "$log" >/dev/null; then
      echo "FAIL $name: clang-19 warns: $(grep -m1 'warning:' "$log")"; exit 0; fi
    ;;
esac
case $t in
  gfx*)
    if grep -E "(VGPRs|SGPRs) Spill: [1-9]" "$log" >/dev/null; then
      echo "FAIL $name: register spills: $(grep -m1 -E 'Spill: [1-9]' "$log" | sed 's/.*remark: *//')"; exit 0; fi
    # a reserved private segment with no instruction touching it is harmless
    # (hipcc 5.2 leaves one); scratch loads or stores are not
    if grep -qE "^\s+(scratch_(load|store)|buffer_(load|store))" "$o/$(basename "$f").$t.s"; then
      echo "FAIL $name: scratch memory accesses: $(grep -m1 ScratchSize "$log" | sed 's/.*remark: *//')"; exit 0; fi
    grep -q "VGPRs Spill: 0" "$log" || { echo "FAIL $name: no resource-usage report to check spills"; exit 0; }
    if grep -q "s_swappc" "$o/$(basename "$f").$t.s"; then
      echo "FAIL $name: the kernel calls a function (unresolved math?)"; exit 0; fi
    # the matrix instruction is there (the matmuls' with 32x32 MFMA tiles)
    case $mma in
      matmul) i=$([ $t = gfx1100 ] && echo v_wmma_f32_16x16x16 || echo v_mfma_f32_32x32x8) ;;
      attention) i=$([ $t = gfx1100 ] && echo v_wmma_f32_16x16x16 || echo v_mfma_f32_) ;;
      fp8) i=$([ $t = gfx942 ] && echo "v_mfma_f32_[0-9x]*_fp8_fp8") ;;   # gfx90a and gfx1100: multiply-adds
      *) i= ;;
    esac
    if [ -n "$i" ] && ! grep -q "$i" "$o/$(basename "$f").$t.s"; then echo "FAIL $name: no $i in the ISA"; exit 0; fi
    ;;
esac
echo "PASS $name"

#!/usr/bin/env bash
# Compile + machine-code checks of the generated files in out/ for their
# target (see one.sh), in parallel; then each header alone as C and C++.
# Every row-op file is compiled; of the 80 matmul variants a lean set that
# covers each dtype, layout and epilogue once (tf32: its two fragment paths,
# ldmatrix and word by word, for each operand; f32 GELU tt, whose stages
# sm90a takes from variant_config; matmul_fp8 both, and fast_accum per-tensor), and of the attention kernels
# the set below (the c target and the emulator run them).  ALL=1 compiles
# every file of out/ instead (951; about 40 minutes on 2 cores): run it
# after a change to gen's code or to a kernel's configs.
cd "$(dirname "$0")/../.."
o=build/tests/compile
mkdir -p $o
MATMUL="f16_none_nn bf16_bias_gelu_nt f32_bias_relu_tn bf16_bias_silu_tt f16_bias_tn bf16_none_nn tf32_bias_gelu_tt tf32_none_nt f32_bias_gelu_tt fp8_tensor fp8_row fp8_fast_accum_tensor"
# attention: each kernel once per dtype, head dim and softcap, spread over the
# kernels, and the dK/dV kernel at d128 as well (its registers are the
# tightest), with and without dQ by atomics and with a softcap (CDNA halves
# its key block there; the tightest of all is dQ by atomics with a softcap),
# and d96 (128-wide tiles over 96 columns) forward and dK/dV (with dQ by
# atomics and a softcap as well: the known defect below), the dQ kernel at
# d128 (on sm90a warp-specialized, 128 keys a step: ptxas serialized its
# wgmmas before gen/pass/join.c waited in its branches), and d256
# (where the target has it: unsupported in the kernel files) forward, dK/dV
# and dQ; and the variable-length forward and backward at both head dims; and
# the d64 dK/dV kernel (on sm90a, its short sequences' bucket warp-specialized
# with dV one iteration late, beside the 128-thread ring of the other bucket);
# and the dK/dV kernel at d32 and d64 in the other dtype too (on sm80 ptxas
# holds them at 168-181 registers, where a cp.async copy that cost a few
# more spilled 8-16 bytes: pass/plan.c, View.pieces).
ATTENTION="attention_bf16_d128 attention_f16_d64_softcap attention_bf16_d32 attention_bwd_pre_bf16_d128
  attention_bwd_dq_bf16_d128 attention_bwd_dq_bf16_d128_softcap attention_bwd_dq_f16_d64 attention_bwd_dkdv_f16_d64_softcap attention_bwd_dkdv_bf16_d32 attention_bwd_dkdv_f16_d64
  attention_bwd_dkdv_f16_d32 attention_bwd_dkdv_bf16_d64
  attention_bwd_dkdv_bf16_d128 attention_bwd_dkdv_f16_d128_softcap attention_bwd_dkdv_dq_atomic_bf16_d128_softcap
  attention_bwd_dkdv_dq_atomic_f16_d64 attention_bwd_pre_dq_atomic_f16_d64 attention_bwd_post_bf16_d128
  attention_bf16_d96 attention_bwd_dkdv_f16_d96 attention_bwd_dkdv_dq_atomic_bf16_d96 attention_bwd_dkdv_dq_atomic_bf16_d96_softcap
  attention_f16_d256_softcap attention_bwd_dkdv_bf16_d256_softcap attention_bwd_dq_f16_d256
  attention_decode_bf16_d128_contig attention_decode_bf16_d128_paged attention_decode_bf16_d128_paged64
  attention_decode_bf16_d128_combine
  attention_varlen_bf16_d128 attention_varlen_f16_d64 attention_varlen_bwd_bf16_d128_dq
  attention_varlen_bwd_bf16_d128_dkdv attention_varlen_bwd_f16_d64_dq attention_varlen_bwd_f16_d64_dkdv"
# Known open defects: files that build but spill, or whose wgmmas ptxas
# serializes.  Their FAIL is reported as SKIP with the reason (so every run
# shows it, and it is not counted as passed); one that no longer does FAILs
# until taken off the list.
# attention_decode's split kernels at d128 on gfx1100 (wave32: a 64 x 128
# f32 accumulator is 64 VGPRs a lane before the 64 x 64 scores): 30-35
# VGPRs spilled (contig), 14-15 (paged64; each has a build with and one
# without the softcap and window code).
# An entry is "target:file-without-extension".
KNOWN="gfx1100:attention_decode_bf16_d128_contig gfx1100:attention_decode_bf16_d128_paged64"
known() {
  local list=" $(echo $KNOWN) " f key
  while IFS= read -r l; do
    set -- $l
    f=$(basename "${4%:}")
    key=$3:${f%.*}
    case $list in
      *" $key "*)
        case $l in
          FAIL*spills*|FAIL*serialized*) echo "SKIP${l#FAIL} (known defect, listed in KNOWN)" ;;
          PASS*) echo "FAIL${l#PASS}: listed in KNOWN as spilling or serialized, but it no longer is: take it off" ;;
          *) echo "$l" ;;
        esac ;;
      *) echo "$l" ;;
    esac
  done
}
for t in sm80 sm90a gfx90a gfx942 gfx1100; do
  for f in out/$t/*.cu out/$t/*.hip; do
    [ -e "$f" ] || continue
    [ -n "${ALL:-}" ] || case $(basename "$f") in
      matmul_*) v=$(basename "${f%.*}"); case " $MATMUL " in *" ${v#matmul_} "*) ;; *) continue ;; esac ;;
      attention*) v=$(basename "${f%.*}"); case " $(echo $ATTENTION) " in *" $v "*) ;; *) continue ;; esac ;;
    esac
    echo "$t $f"
  done
done | xargs -P "$(nproc)" -n 2 sh -c 'bash tests/compile/one.sh "$0" "$1" '"$o" | known
for h in out/sm80/*.h; do
  n=$(basename "$h" .h)
  printf '#include "../../../%s"\nint main(void) { return (int)sizeof(&%s) == 0; }\n' "$h" "$n" > $o/h_$n.c
  if cc -std=c11 -Wall -Wextra -Werror -c $o/h_$n.c -o $o/h_$n.o 2>$o/h_$n.log &&
     c++ -x c++ -Wall -Wextra -Werror -c $o/h_$n.c -o $o/h_$n.o 2>>$o/h_$n.log; then
    echo "PASS header $n.h builds alone as C and C++"
  else
    echo "FAIL header $n.h: $(head -c 200 $o/h_$n.log)"
  fi
done

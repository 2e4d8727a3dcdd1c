// sm90a_gemm_probe.cu: the GEMM that gen's sm90a warp-specialized schedule
// is to emit, written by hand in the shape of generated code (the helpers of
// templates/cuda.h, cuda_mma.h, cuda_wgmma.h and cuda_tma.h, gen's m64n256k16
// and m64n128k16 wgmma helpers below, as gen prints them), checked and timed
// against cuBLAS in one process.  docs/hopper.md, "The sm90a GEMM schedule",
// is its description; bench/results/2026-11-24-h200-sm90a-gemm-probe.txt its
// measurements.
//
//   C[M,N] = A[M,K] @ B, f32 accumulation, bf16 or f16 in and out;
//   layout nn: B stored [K,N]; nt: B stored [N,K] (y = x W^T).
//
// Block: 384 threads, three warpgroups.  Warpgroup 0 is the producer: it
// gives registers back (setmaxnreg.dec 40) and its thread 0 issues the TMA
// copies of a STAGES-deep ring; warpgroups 1 and 2 are consumers (setmaxnreg
// .inc 232), each owning 64 rows x BN columns of the 128 x BN block tile
// (m64nBNk16 wgmmas, B shared by both; BN 256, or 128 in one variant).  Stage s has a "full" mbarrier
// (1 arrival: the producer's arrive.expect_tx of the stage's bytes; the TMA
// copies complete its transactions) and an "empty" one (8 arrivals: lane 0
// of each consumer warp once its wgmmas reading the stage are done).  Fill
// i of the ring uses stage i % STAGES: consumers wait on full with parity
// (i / STAGES) & 1, the producer on empty with the other parity.  The grid
// is persistent (one block per SM), tiles in grouped order (group_m tile
// rows at a time); the ring's stage and parity run on across tiles, so the
// producer loads the next tile while the consumers store this one.
// Epilogue (EPI): 0 direct from registers to global (bf16x2 stores, masked
// at the edges); 1 through shared memory (each consumer warpgroup's 64 x BN
// in 64 x 64 panels, 128-byte swizzle) and TMA stores, clipped at the edges
// by the copy engine; 2 the same in two rounds of 64 x BN / 2 (half the
// staging memory, so that a 4-stage ring fits beside it: the schedule gen
// emits).  CL (1 or 2): clusters of 2 blocks, the pair on tile rows 2 pm and
// 2 pm + 1 of one tile column, B's stage loaded half by each block's
// producer and multicast to both, a stage released by the 16 consumer warps
// of both blocks (an arrival on each block's empty barrier); the grid holds
// as many clusters as pairs of SMs.  SA = 1 turns the pair the other way:
// tile columns 2 pn and 2 pn + 1 of one tile row, sharing A (each producer
// loads 64 of A's 128 rows and multicasts them), B a block's own.  The
// variants timed: gen's schedule (3 stages, EPI 2) and the same in clusters
// of 2 sharing B, then sharing A, each in 4 stages too, then the earlier
// probes (EPI 1, EPI 0, BN 128).
//
// build: bench/sm90a_gemm_probe.sh (nvcc -O3 -std=c++17
//   -gencode=arch=compute_90a,code=sm_90a -lcublas)
// run:   probe [check | time | all] [MxNxK ...]  (default: all, on the table's shapes);
//        GROUP_M (8), REPS (30) and LOG (a file the lines are appended to) from the environment
#include "../templates/cuda.h"
#include "../templates/cuda_mma.h"
#include "../templates/cuda_wgmma.h"
#include "../templates/cuda_tma.h"

/* d = A @ B + (scale_d ? d : 0): one m64n256k16 wgmma of the warpgroup, bf16 operands, A by descriptor; TA, TB: A stored M-major, B N-major. */
template <int TA, int TB> LT_FN void lt_wgmma_m64n256k16_bf16_ss(float (&d)[128], uint64_t a, uint64_t b, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %132, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, %130, %131;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[64]), "+f"(d[65]), "+f"(d[2]), "+f"(d[3]), "+f"(d[66]), "+f"(d[67]),
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[68]), "+f"(d[69]), "+f"(d[6]), "+f"(d[7]), "+f"(d[70]), "+f"(d[71]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[72]), "+f"(d[73]), "+f"(d[10]), "+f"(d[11]), "+f"(d[74]), "+f"(d[75]),
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[76]), "+f"(d[77]), "+f"(d[14]), "+f"(d[15]), "+f"(d[78]), "+f"(d[79]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[80]), "+f"(d[81]), "+f"(d[18]), "+f"(d[19]), "+f"(d[82]), "+f"(d[83]),
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[84]), "+f"(d[85]), "+f"(d[22]), "+f"(d[23]), "+f"(d[86]), "+f"(d[87]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[88]), "+f"(d[89]), "+f"(d[26]), "+f"(d[27]), "+f"(d[90]), "+f"(d[91]),
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[92]), "+f"(d[93]), "+f"(d[30]), "+f"(d[31]), "+f"(d[94]), "+f"(d[95]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[96]), "+f"(d[97]), "+f"(d[34]), "+f"(d[35]), "+f"(d[98]), "+f"(d[99]),
                 "+f"(d[36]), "+f"(d[37]), "+f"(d[100]), "+f"(d[101]), "+f"(d[38]), "+f"(d[39]), "+f"(d[102]), "+f"(d[103]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[104]), "+f"(d[105]), "+f"(d[42]), "+f"(d[43]), "+f"(d[106]), "+f"(d[107]),
                 "+f"(d[44]), "+f"(d[45]), "+f"(d[108]), "+f"(d[109]), "+f"(d[46]), "+f"(d[47]), "+f"(d[110]), "+f"(d[111]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[112]), "+f"(d[113]), "+f"(d[50]), "+f"(d[51]), "+f"(d[114]), "+f"(d[115]),
                 "+f"(d[52]), "+f"(d[53]), "+f"(d[116]), "+f"(d[117]), "+f"(d[54]), "+f"(d[55]), "+f"(d[118]), "+f"(d[119]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[120]), "+f"(d[121]), "+f"(d[58]), "+f"(d[59]), "+f"(d[122]), "+f"(d[123]),
                 "+f"(d[60]), "+f"(d[61]), "+f"(d[124]), "+f"(d[125]), "+f"(d[62]), "+f"(d[63]), "+f"(d[126]), "+f"(d[127])
               : "l"(a), "l"(b), "n"(TA), "n"(TB), "r"(scale_d));
}

/* d = A @ B + (scale_d ? d : 0): one m64n256k16 wgmma of the warpgroup, f16 operands, A by descriptor; TA, TB: A stored M-major, B N-major. */
template <int TA, int TB> LT_FN void lt_wgmma_m64n256k16_f16_ss(float (&d)[128], uint64_t a, uint64_t b, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %132, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, %130, %131;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[64]), "+f"(d[65]), "+f"(d[2]), "+f"(d[3]), "+f"(d[66]), "+f"(d[67]),
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[68]), "+f"(d[69]), "+f"(d[6]), "+f"(d[7]), "+f"(d[70]), "+f"(d[71]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[72]), "+f"(d[73]), "+f"(d[10]), "+f"(d[11]), "+f"(d[74]), "+f"(d[75]),
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[76]), "+f"(d[77]), "+f"(d[14]), "+f"(d[15]), "+f"(d[78]), "+f"(d[79]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[80]), "+f"(d[81]), "+f"(d[18]), "+f"(d[19]), "+f"(d[82]), "+f"(d[83]),
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[84]), "+f"(d[85]), "+f"(d[22]), "+f"(d[23]), "+f"(d[86]), "+f"(d[87]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[88]), "+f"(d[89]), "+f"(d[26]), "+f"(d[27]), "+f"(d[90]), "+f"(d[91]),
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[92]), "+f"(d[93]), "+f"(d[30]), "+f"(d[31]), "+f"(d[94]), "+f"(d[95]),
                 "+f"(d[32]), "+f"(d[33]), "+f"(d[96]), "+f"(d[97]), "+f"(d[34]), "+f"(d[35]), "+f"(d[98]), "+f"(d[99]),
                 "+f"(d[36]), "+f"(d[37]), "+f"(d[100]), "+f"(d[101]), "+f"(d[38]), "+f"(d[39]), "+f"(d[102]), "+f"(d[103]),
                 "+f"(d[40]), "+f"(d[41]), "+f"(d[104]), "+f"(d[105]), "+f"(d[42]), "+f"(d[43]), "+f"(d[106]), "+f"(d[107]),
                 "+f"(d[44]), "+f"(d[45]), "+f"(d[108]), "+f"(d[109]), "+f"(d[46]), "+f"(d[47]), "+f"(d[110]), "+f"(d[111]),
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[112]), "+f"(d[113]), "+f"(d[50]), "+f"(d[51]), "+f"(d[114]), "+f"(d[115]),
                 "+f"(d[52]), "+f"(d[53]), "+f"(d[116]), "+f"(d[117]), "+f"(d[54]), "+f"(d[55]), "+f"(d[118]), "+f"(d[119]),
                 "+f"(d[56]), "+f"(d[57]), "+f"(d[120]), "+f"(d[121]), "+f"(d[58]), "+f"(d[59]), "+f"(d[122]), "+f"(d[123]),
                 "+f"(d[60]), "+f"(d[61]), "+f"(d[124]), "+f"(d[125]), "+f"(d[62]), "+f"(d[63]), "+f"(d[126]), "+f"(d[127])
               : "l"(a), "l"(b), "n"(TA), "n"(TB), "r"(scale_d));
}

/* d = A @ B + (scale_d ? d : 0): one m64n128k16 wgmma of the warpgroup, bf16 operands, A by descriptor; TA, TB: A stored M-major, B N-major. */
template <int TA, int TB> LT_FN void lt_wgmma_m64n128k16_bf16_ss(float (&d)[64], uint64_t a, uint64_t b, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %68, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, %66, %67;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[32]), "+f"(d[33]), "+f"(d[2]), "+f"(d[3]), "+f"(d[34]), "+f"(d[35]),
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[36]), "+f"(d[37]), "+f"(d[6]), "+f"(d[7]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[40]), "+f"(d[41]), "+f"(d[10]), "+f"(d[11]), "+f"(d[42]), "+f"(d[43]),
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[44]), "+f"(d[45]), "+f"(d[14]), "+f"(d[15]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[48]), "+f"(d[49]), "+f"(d[18]), "+f"(d[19]), "+f"(d[50]), "+f"(d[51]),
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[52]), "+f"(d[53]), "+f"(d[22]), "+f"(d[23]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[56]), "+f"(d[57]), "+f"(d[26]), "+f"(d[27]), "+f"(d[58]), "+f"(d[59]),
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[60]), "+f"(d[61]), "+f"(d[30]), "+f"(d[31]), "+f"(d[62]), "+f"(d[63])
               : "l"(a), "l"(b), "n"(TA), "n"(TB), "r"(scale_d));
}

/* d = A @ B + (scale_d ? d : 0): one m64n128k16 wgmma of the warpgroup, f16 operands, A by descriptor; TA, TB: A stored M-major, B N-major. */
template <int TA, int TB> LT_FN void lt_wgmma_m64n128k16_f16_ss(float (&d)[64], uint64_t a, uint64_t b, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %68, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, %66, %67;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[32]), "+f"(d[33]), "+f"(d[2]), "+f"(d[3]), "+f"(d[34]), "+f"(d[35]),
                 "+f"(d[4]), "+f"(d[5]), "+f"(d[36]), "+f"(d[37]), "+f"(d[6]), "+f"(d[7]), "+f"(d[38]), "+f"(d[39]),
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[40]), "+f"(d[41]), "+f"(d[10]), "+f"(d[11]), "+f"(d[42]), "+f"(d[43]),
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[44]), "+f"(d[45]), "+f"(d[14]), "+f"(d[15]), "+f"(d[46]), "+f"(d[47]),
                 "+f"(d[16]), "+f"(d[17]), "+f"(d[48]), "+f"(d[49]), "+f"(d[18]), "+f"(d[19]), "+f"(d[50]), "+f"(d[51]),
                 "+f"(d[20]), "+f"(d[21]), "+f"(d[52]), "+f"(d[53]), "+f"(d[22]), "+f"(d[23]), "+f"(d[54]), "+f"(d[55]),
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[56]), "+f"(d[57]), "+f"(d[26]), "+f"(d[27]), "+f"(d[58]), "+f"(d[59]),
                 "+f"(d[28]), "+f"(d[29]), "+f"(d[60]), "+f"(d[61]), "+f"(d[30]), "+f"(d[31]), "+f"(d[62]), "+f"(d[63])
               : "l"(a), "l"(b), "n"(TA), "n"(TB), "r"(scale_d));
}

#include <cublas_v2.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>
#include <cmath>

/* ------------------------------------------------------------------ */
/* the kernel, as gen's sm90a schedule would print it                  */

/* Tile (bm, bn) of persistent tile index t: group_m tile rows at a time,
** down the rows of a group first, then across its columns. */
LT_FN void lt_tile_grouped(int t, int tiles_m, int tiles_n, int group_m, int &bm, int &bn) {
  const int per_group = group_m * tiles_n, g = t / per_group, first = g * group_m;
  const int rows = lt_imin(tiles_m - first, group_m), r = t - g * per_group;
  bm = first + r % rows;
  bn = r / rows;
}

/* ---- clusters of 2 blocks (CL = 2 below; PTX ISA: cp.async.bulk.tensor's
** .multicast::cluster, mapa, mbarrier.arrive's .shared::cluster form,
** barrier.cluster) ---- */

/* This block's rank in its cluster. */
LT_FN unsigned probe_cluster_rank(void) {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
/* Every thread of the cluster arrives, then waits for all the others:
** release / acquire at cluster scope (the peers' mbarrier inits before the
** first multicast or remote arrival; at the end, no block leaves while a
** peer may still write its shared memory or arrive on its barriers). */
LT_FN void probe_cluster_sync(void) {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
/* The box of `map` at (x, y) into shared memory at dst's offset in every
** block of the cluster that `mask` names, each completing the box's bytes on
** the mbarrier at bar's offset in its own shared memory. */
LT_FN void probe_tma_load_2d_mc(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar, uint16_t mask) {
  const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst), b = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n"
               ::"r"(d), "l"((uint64_t)map), "r"(x), "r"(y), "r"(b), "h"(mask) : "memory");
}
/* One arrival on the mbarrier at bar's offset in the shared memory of
** cluster block `rank` (this block's own included), with the default
** semantics (release, CTA scope): what it releases are the consumers' wgmma
** reads of the stage, complete at the wgmma wait before it.  The form with
** .release.cluster cost a MEMBAR.ALL.GPU (and ERRBAR, CGAERRBAR) before every
** arrival in the SASS, and ran the clusters at 0.45-0.74x the plain kernel
** (bench/results/2026-11-26-h200-matmul-square.txt, run 2). */
LT_FN void probe_mbar_arrive_rank(uint64_t *bar, unsigned rank) {
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\nmbarrier.arrive.shared::cluster.b64 _, [r];\n}\n"
               ::"r"(a), "r"(rank) : "memory");
}

/* What one instantiation of the probe kernel is. */
template <class T> struct Ty;
template <> struct Ty<__nv_bfloat16> {
  static const int bf16 = 1;
  static __device__ __forceinline__ uint32_t pack(float a, float b) { return lt_pack_bf16x2(a, b); }
};
template <> struct Ty<__half> {
  static const int bf16 = 0;
  static __device__ __forceinline__ uint32_t pack(float a, float b) { return lt_pack_f16x2(a, b); }
};

/* The block's wgmma for its tile width BN (m64nBNk16) and type. */
template <int TB>
static __device__ __forceinline__ void wgmma_bn(float (&d)[128], uint64_t a, uint64_t b, int scale_d, __nv_bfloat16 *) {
  lt_wgmma_m64n256k16_bf16_ss<0, TB>(d, a, b, scale_d);
}
template <int TB>
static __device__ __forceinline__ void wgmma_bn(float (&d)[128], uint64_t a, uint64_t b, int scale_d, __half *) {
  lt_wgmma_m64n256k16_f16_ss<0, TB>(d, a, b, scale_d);
}
template <int TB>
static __device__ __forceinline__ void wgmma_bn(float (&d)[64], uint64_t a, uint64_t b, int scale_d, __nv_bfloat16 *) {
  lt_wgmma_m64n128k16_bf16_ss<0, TB>(d, a, b, scale_d);
}
template <int TB>
static __device__ __forceinline__ void wgmma_bn(float (&d)[64], uint64_t a, uint64_t b, int scale_d, __half *) {
  lt_wgmma_m64n128k16_f16_ss<0, TB>(d, a, b, scale_d);
}

#define GEMM_BM 128
#define GEMM_BK 64
#define GEMM_A_BYTES (GEMM_BM * GEMM_BK * 2)   /* 16 KB: A box 64 x 128 */

/* Dynamic shared memory of a variant: the ring (A 16 KB, B BN x 128 bytes a
** stage), the staged C (EPI 1: the tile; 2: half of it), the barriers, and 1 KB to align the tiles
** to 1024 bytes (the 128-byte swizzle's period). */
static size_t gemm_smem_bytes(int bn, int stages, int epi) {
  return (size_t)stages * (GEMM_A_BYTES + bn * GEMM_BK * 2) + (epi ? GEMM_BM * bn * 2 / epi : 0) + 2 * stages * 8 + 1024;
}

/* Block tile 128 x BN x 64 (BN 256 or 128); see the top of the file.  CL = 2:
** clusters of 2 blocks on tiles (2 pm, bn) and (2 pm + 1, bn), which share B:
** each block's producer loads half of B's stage and multicasts it to both,
** its own A alone; a stage is free again once the consumers of both blocks
** are done with it (16 arrivals on each block's empty barrier).  SA = 1
** (with CL = 2): tiles (bm, 2 pn) and (bm, 2 pn + 1), sharing A the same way
** (64 rows a producer), B a block's own. */
template <int BN, int STAGES, int NT, int EPI, class T, int CL, int SA>
__global__ void __launch_bounds__(384, 1)
gemm_sm90a_kernel(const __grid_constant__ CUtensorMap A_map, const __grid_constant__ CUtensorMap B_map,
                  const __grid_constant__ CUtensorMap C_map, T *__restrict__ C, int M, int N, int K, int group_m)
{
  constexpr int B_BYTES = BN * GEMM_BK * 2, NACC = BN / 2, Q = BN / 4;
  constexpr int NH = EPI == 2 ? 2 : 1, C_BYTES = GEMM_BM * BN * 2 / NH;   /* C staged in NH rounds of BN / NH columns */
  extern __shared__ __align__(1024) unsigned char lt_smem[];
  unsigned char *smem = (unsigned char *)(((uintptr_t)lt_smem + 1023) & ~(uintptr_t)1023);
  unsigned char *As = smem;                          /* [STAGES][128 rows][128 B], swizzled */
  unsigned char *Bs = As + STAGES * GEMM_A_BYTES;    /* nt: [STAGES][BN n][128 B]; nn: [STAGES][BN / 64 panels][64 k][128 B] */
  unsigned char *Cs = Bs + STAGES * B_BYTES;         /* EPI 1, 2: [2 warpgroups][BN / NH / 64 panels][64 rows][128 B] */
  uint64_t *full = (uint64_t *)(Cs + (EPI ? C_BYTES : 0)), *empty = full + STAGES;
  const int tid = threadIdx.x, wg = tid / 128;
  const int tiles_m = (M + GEMM_BM - 1) / GEMM_BM, tiles_n = (N + BN - 1) / BN;
  const int kts = (K + GEMM_BK - 1) / GEMM_BK;
  if (tid == 0) {
    #pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      lt_mbar_init(&full[s], 1);    /* the producer's arrive.expect_tx; the copies' bytes */
      lt_mbar_init(&empty[s], 8 * CL);   /* lane 0 of each of the 8 consumer warps (of each block of the cluster) */
    }
    lt_mbar_init_fence();
    lt_tma_prefetch_map(&A_map);
    lt_tma_prefetch_map(&B_map);
    if (EPI) lt_tma_prefetch_map(&C_map);
  }
  __syncthreads();   /* the barriers are initialized */
  if (CL > 1) probe_cluster_sync();   /* ... in the peer too */
  const unsigned rank = CL > 1 ? probe_cluster_rank() : 0;
  /* CL = 2: the cluster runs pairs of tiles (units), tile rows 2 pm and 2 pm + 1
  ** (SA: tile columns 2 pn and 2 pn + 1) */
  const int units_m = SA ? tiles_m : (tiles_m + CL - 1) / CL, units_n = SA ? (tiles_n + CL - 1) / CL : tiles_n;
  const int units = units_m * units_n;
  const int unit0 = blockIdx.x / CL, unit_step = gridDim.x / CL;
  if (wg == 0) {
    /* producer warpgroup: one thread fills the ring */
    lt_setmaxnreg_dec<40>();
    if (tid == 0) {
      int stage = 0, phase = 0;
      for (int unit = unit0; unit < units; unit += unit_step) {
        int bm, bn;
        lt_tile_grouped(unit, units_m, units_n, SA ? group_m : group_m / CL, bm, bn);
        if (SA) bn = bn * CL + rank;   /* past the last tile column (odd tiles_n): B's box reads zeros, the stores write nothing */
        else bm = bm * CL + rank;      /* past the last tile row (odd tiles_m): A's box likewise */
        for (int kt = 0; kt < kts; ++kt) {
          lt_mbar_wait(&empty[stage], phase ^ 1);   /* the consumers (of both blocks) are done with the stage's last fill */
          lt_mbar_arrive_expect_tx(&full[stage], GEMM_A_BYTES + B_BYTES);   /* the shared operand: half from each block's producer */
          if (CL > 1 && SA)   /* rows rank 64 .. of A's 128 */
            probe_tma_load_2d_mc(As + stage * GEMM_A_BYTES + rank * (GEMM_A_BYTES / 2), &A_map, kt * GEMM_BK, bm * GEMM_BM + rank * (GEMM_BM / 2),
                                 &full[stage], 3);
          else
            lt_tma_load_2d(As + stage * GEMM_A_BYTES, &A_map, kt * GEMM_BK, bm * GEMM_BM, &full[stage]);
          if (CL > 1 && !SA) {
            if (NT) {   /* rows rank BN / 2 .. of B's BN */
              probe_tma_load_2d_mc(Bs + stage * B_BYTES + rank * (B_BYTES / 2), &B_map, kt * GEMM_BK, bn * BN + rank * (BN / 2), &full[stage], 3);
            } else {
              #pragma unroll
              for (int p = 0; p < BN / 128; ++p) {   /* panels rank BN / 128 .. */
                const int q = rank * (BN / 128) + p;
                probe_tma_load_2d_mc(Bs + stage * B_BYTES + q * 8192, &B_map, bn * BN + q * 64, kt * GEMM_BK, &full[stage], 3);
              }
            }
          } else if (NT) {
            lt_tma_load_2d(Bs + stage * B_BYTES, &B_map, kt * GEMM_BK, bn * BN, &full[stage]);
          } else {
            #pragma unroll
            for (int p = 0; p < BN / 64; ++p)   /* 64 columns of B (128 bytes) a panel */
              lt_tma_load_2d(Bs + stage * B_BYTES + p * 8192, &B_map, bn * BN + p * 64, kt * GEMM_BK, &full[stage]);
          }
          if (++stage == STAGES) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    /* consumer warpgroups: rows 64 cw .. 64 cw + 63 of each tile */
    lt_setmaxnreg_inc<232>();
    const int cw = wg - 1, warp = tid / 32 % 4, lane = tid % 32;
    int stage = 0, phase = 0;
    float acc[NACC];
    for (int unit = unit0; unit < units; unit += unit_step) {
      int bm, bn;
      lt_tile_grouped(unit, units_m, units_n, SA ? group_m : group_m / CL, bm, bn);
      if (SA) bn = bn * CL + rank;
      else bm = bm * CL + rank;
      int prev = 0;
      for (int kt = 0; kt < kts; ++kt) {
        lt_mbar_wait(&full[stage], phase);   /* the stage's copies have landed */
        lt_wgmma_settle(acc);
        lt_wgmma_fence();
        #pragma unroll
        for (int kk = 0; kk < GEMM_BK; kk += 16) {
          const uint64_t da = lt_wgmma_desc(As + stage * GEMM_A_BYTES + cw * 64 * 128 + kk * 2, 16, 1024, 1);
          const uint64_t db = NT ? lt_wgmma_desc(Bs + stage * B_BYTES + kk * 2, 16, 1024, 1)
                                 : lt_wgmma_desc(Bs + stage * B_BYTES + kk * 128, 8192, 1024, 1);
          wgmma_bn<NT ? 0 : 1>(acc, da, db, kt > 0 || kk > 0, (T *)0);
        }
        lt_wgmma_commit();
        lt_wgmma_wait<1>();   /* the wgmmas of the previous stage are done: it may be filled again */
        if (kt > 0 && lane == 0) {
          if (CL > 1) {
            #pragma unroll
            for (unsigned r = 0; r < CL; ++r) probe_mbar_arrive_rank(&empty[prev], r);
          } else {
            lt_mbar_arrive(&empty[prev]);
          }
        }
        prev = stage;
        if (++stage == STAGES) stage = 0, phase ^= 1;
      }
      lt_wgmma_wait<0>();
      lt_wgmma_settle(acc);
      if (lane == 0) {
        if (CL > 1) {
          #pragma unroll
          for (unsigned r = 0; r < CL; ++r) probe_mbar_arrive_rank(&empty[prev], r);
        } else {
          lt_mbar_arrive(&empty[prev]);
        }
      }
      /* accumulator i of a lane: row lane / 4 + 8 (i / Q) of the warp's 16,
      ** column 8 (i % Q / 2) + 2 (lane % 4) + i % 2 */
      if (EPI == 0) {
        const int r0 = bm * GEMM_BM + cw * 64 + warp * 16 + lane / 4, c0 = bn * BN + 2 * (lane % 4);
        #pragma unroll
        for (int i = 0; i < NACC; i += 2) {
          const int r = r0 + 8 * (i / Q), c = c0 + 8 * (i % Q / 2);
          T *ptr = C + (int64_t)r * N + c;
          if (r < M && c + 1 < N) {
            *(uint32_t *)ptr = Ty<T>::pack(acc[i], acc[i + 1]);
          } else if (r < M && c < N) {
            const uint32_t v = Ty<T>::pack(acc[i], 0.0f);
            *(uint16_t *)ptr = (uint16_t)v;
          }
        }
      } else {
        unsigned char *Cw = Cs + cw * (C_BYTES / 2);
        #pragma unroll
        for (int h = 0; h < NH; ++h) {   /* columns h BN / NH .. (h + 1) BN / NH - 1 */
          if (tid % 128 == 0) lt_tma_store_wait_read<0>();   /* the last stores have read Cw */
          if (cw == 0) lt_named_barrier(1, 128);
          else lt_named_barrier(2, 128);
          #pragma unroll
          for (int i = 0; i < NACC; i += 2) {   /* row r, columns c, c + 1: panel c / 64, chunk c % 64 / 8 ^ r % 8 */
            if (8 * (i % Q / 2) / (BN / NH) != h) continue;
            const int g = lt_opaque(lane / 4), r = warp * 16 + g + 8 * (i / Q), c = 8 * (i % Q / 2) - h * (BN / NH);
            *(uint32_t *)(Cw + c / 64 * 8192 + r * 128 + (((c % 64 / 8) ^ g) << 4) + (lane % 4) * 4) = Ty<T>::pack(acc[i], acc[i + 1]);
          }
          lt_fence_proxy_async();   /* the stores above, before the copy engine reads Cw */
          if (cw == 0) lt_named_barrier(1, 128);
          else lt_named_barrier(2, 128);
          if (tid % 128 == 0) {
            #pragma unroll
            for (int p = 0; p < BN / NH / 64; ++p)
              lt_tma_store_2d(&C_map, bn * BN + h * (BN / NH) + p * 64, bm * GEMM_BM + cw * 64, Cw + p * 8192);
            lt_tma_store_commit();
          }
        }
      }
    }
    if (EPI && tid % 128 == 0) lt_tma_store_wait<0>();
  }
  if (CL > 1) probe_cluster_sync();   /* the peer's copies into this block and its arrivals here are over */
}

/* The launcher gen would print: tensor maps, then the persistent grid (CL =
** 2: clusters of 2 blocks, as many as pairs of SMs, each on pairs of tiles).
** Returns 0 or an error (a refused tensor map: the caller falls back). */
template <int BN, int STAGES, int NT, int EPI, class T, int CL, int SA>
static int gemm_sm90a(const T *A, const T *B, T *C, int M, int N, int K, int group_m, int sms, cudaStream_t stream) {
  if (M <= 0 || N <= 0 || K <= 0) return cudaErrorInvalidValue;
  const int dt = Ty<T>::bf16 ? LT_TMA_BF16 : LT_TMA_F16;
  CUtensorMap A_map, B_map, C_map;
  int err = lt_tma_encode_2d(&A_map, A, dt, M, K, K, GEMM_BM / (SA ? CL : 1), GEMM_BK, 128);   /* SA: a block's half of A */
  if (!err) err = NT ? lt_tma_encode_2d(&B_map, B, dt, N, K, K, BN / (SA ? 1 : CL), GEMM_BK, 128)   /* else, nt: a block's half of B */
                     : lt_tma_encode_2d(&B_map, B, dt, K, N, N, GEMM_BK, 64, 128);
  if (!err) err = lt_tma_encode_2d(&C_map, C, dt, M, N, N, 64, 64, 128);
  if (err) return err;
  const size_t smem = gemm_smem_bytes(BN, STAGES, EPI);
  auto kernel = gemm_sm90a_kernel<BN, STAGES, NT, EPI, T, CL, SA>;
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (e != cudaSuccess) return (int)e;
  const int units = SA ? ((M + GEMM_BM - 1) / GEMM_BM) * ((N + BN * CL - 1) / (BN * CL))
                       : ((M + GEMM_BM * CL - 1) / (GEMM_BM * CL)) * ((N + BN - 1) / BN);
  const int grid = (units < sms / CL ? units : sms / CL) * CL;
  if (CL == 1) {
    kernel<<<grid, 384, smem, stream>>>(A_map, B_map, C_map, C, M, N, K, group_m);
    return (int)cudaGetLastError();
  }
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CL, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cfg.gridDim = dim3(grid), cfg.blockDim = dim3(384), cfg.dynamicSmemBytes = smem, cfg.stream = stream;
  cfg.attrs = attr, cfg.numAttrs = 1;
  e = cudaLaunchKernelEx(&cfg, kernel, A_map, B_map, C_map, C, M, N, K, group_m);
  if (e != cudaSuccess) return (int)e;
  return (int)cudaGetLastError();
}

/* How many clusters of the CL = 2 kernel fit on the device at once (the
** persistent grid wants sms / 2 of them), or -1. */
template <int BN, int STAGES, int NT, int EPI, class T>
static int cluster_fit(int sms) {
  auto kernel = gemm_sm90a_kernel<BN, STAGES, NT, EPI, T, 2, 0>;
  const size_t smem = gemm_smem_bytes(BN, STAGES, EPI);
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) return -1;
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cfg.gridDim = dim3(sms / 2 * 2), cfg.blockDim = dim3(384), cfg.dynamicSmemBytes = smem;
  cfg.attrs = attr, cfg.numAttrs = 1;
  int n = -1;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) return -1;
  return n;
}

/* ------------------------------------------------------------------ */
/* the harness                                                          */

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)
#define CB(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #x, (int)s_); exit(2); } } while (0)

template <class T> __device__ __forceinline__ T to_t(float x);
template <> __device__ __forceinline__ __nv_bfloat16 to_t<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ __half to_t<__half>(float x) { return __float2half_rn(x); }
template <class T> __device__ __forceinline__ float to_f(T x);
template <> __device__ __forceinline__ float to_f<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }
template <> __device__ __forceinline__ float to_f<__half>(__half x) { return __half2float(x); }

/* Uniform values in [-1, 1) from a hash of (seed, index). */
template <class T>
__global__ void fill_kernel(T *p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 32 | seed);
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
    p[i] = to_t<T>((float)((x >> 40) & 0xffffff) / 8388608.0f - 1.0f);
  }
}

/* Against the f32 cuBLAS result: sums of squares, the largest error, the
** elements that are NaN / inf (unwritten: the poison) or off by more than
** 2e-2 |ref| + 2e-3 rms. */
struct Cmp { double se, sr; float maxerr; unsigned long long nan, bad; };
template <class T>
__global__ void compare_kernel(const T *out, const float *ref, size_t n, float rms, Cmp *c) {
  double se = 0, sr = 0; float mx = 0; unsigned long long nan = 0, bad = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const float o = to_f<T>(out[i]), r = ref[i], e = fabsf(o - r);
    if (!isfinite(o)) { nan++; continue; }
    se += (double)e * e; sr += (double)r * r; mx = fmaxf(mx, e);
    if (e > 2e-2f * fabsf(r) + 2e-3f * rms) bad++;
  }
  for (int o = 16; o; o /= 2) {
    se += __shfl_xor_sync(~0u, se, o); sr += __shfl_xor_sync(~0u, sr, o);
    mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o));
    nan += __shfl_xor_sync(~0u, nan, o); bad += __shfl_xor_sync(~0u, bad, o);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&c->se, se); atomicAdd(&c->sr, sr); atomicMax((int *)&c->maxerr, __float_as_int(mx));
    atomicAdd(&c->nan, nan); atomicAdd(&c->bad, bad);
  }
}

static float host_f(uint16_t h, int bf16) {
  uint32_t u;
  if (bf16) u = (uint32_t)h << 16;
  else {
    uint32_t s = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 1023;
    if (e == 0) { float v = m * 5.9604644775390625e-08f; return s ? -v : v; }
    u = e == 31 ? s | 0x7f800000u | m << 13 : s | (e + 112) << 23 | m << 13;
  }
  float f; memcpy(&f, &u, 4); return f;
}

/* gen's schedule (128 x 256, 3 stages, C staged in halves, no cluster) and
** the same in clusters of 2 (B multicast), both also with 4 stages; the
** clusters turned to share A (_cl2a); then the earlier probes: the whole
** tile staged at once, stores from registers, and 128 x 128 tiles. */
struct Variant { const char *name; };
static const Variant variants[] = {{"n256_s3_ts2"}, {"n256_s3_ts2_cl2"}, {"n256_s4_ts2"}, {"n256_s4_ts2_cl2"},
                                   {"n256_s3_ts2_cl2a"}, {"n256_s4_ts2_cl2a"},
                                   {"n256_s3_tmastore"}, {"n256_s4_direct"}, {"n128_s5_tmastore"}};
enum { NVAR = 9 };

template <class T>
static int run_variant(int v, int nt, const T *A, const T *B, T *C, int M, int N, int K, int group_m, int sms, cudaStream_t st) {
  switch (v * 2 + nt) {
    case 0: return gemm_sm90a<256, 3, 0, 2, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 1: return gemm_sm90a<256, 3, 1, 2, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 2: return gemm_sm90a<256, 3, 0, 2, T, 2, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 3: return gemm_sm90a<256, 3, 1, 2, T, 2, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 4: return gemm_sm90a<256, 4, 0, 2, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 5: return gemm_sm90a<256, 4, 1, 2, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 6: return gemm_sm90a<256, 4, 0, 2, T, 2, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 7: return gemm_sm90a<256, 4, 1, 2, T, 2, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 8: return gemm_sm90a<256, 3, 0, 2, T, 2, 1>(A, B, C, M, N, K, group_m, sms, st);
    case 9: return gemm_sm90a<256, 3, 1, 2, T, 2, 1>(A, B, C, M, N, K, group_m, sms, st);
    case 10: return gemm_sm90a<256, 4, 0, 2, T, 2, 1>(A, B, C, M, N, K, group_m, sms, st);
    case 11: return gemm_sm90a<256, 4, 1, 2, T, 2, 1>(A, B, C, M, N, K, group_m, sms, st);
    case 12: return gemm_sm90a<256, 3, 0, 1, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 13: return gemm_sm90a<256, 3, 1, 1, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 14: return gemm_sm90a<256, 4, 0, 0, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 15: return gemm_sm90a<256, 4, 1, 0, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    case 16: return gemm_sm90a<128, 5, 0, 1, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
    default: return gemm_sm90a<128, 5, 1, 1, T, 1, 0>(A, B, C, M, N, K, group_m, sms, st);
  }
}

static cublasHandle_t blas;

/* cuBLAS, row-major C = A @ B as column-major C^T = B^T A^T. */
template <class T>
static void run_cublas(int nt, const T *A, const T *B, void *C, int M, int N, int K, int f32_out) {
  const cudaDataType t = Ty<T>::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  const float one = 1, zero = 0;
  CB(cublasGemmEx(blas, nt ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, t, nt ? K : N, A, t, K, &zero, C,
                  f32_out ? CUDA_R_32F : t, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

static double median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

struct Shape { int M, N, K; };

/* Checks every variant on (M, N, K) against cuBLAS (f32 out, every element)
** and against float64 dot products on the CPU (samples); returns failures. */
template <class T>
static int check(int nt, Shape sh, int sms, int group_m, int samples, FILE *log) {
  const int M = sh.M, N = sh.N, K = sh.K, bf16 = Ty<T>::bf16;
  const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  T *A, *B, *C; float *R; Cmp *cmp;
  CK(cudaMalloc(&A, na * 2)); CK(cudaMalloc(&B, nb * 2)); CK(cudaMalloc(&C, nc * 2)); CK(cudaMalloc(&R, nc * 4));
  CK(cudaMalloc(&cmp, sizeof(Cmp)));
  static uint32_t seed = 1234;
  fill_kernel<T><<<1024, 256>>>(A, na, seed++); fill_kernel<T><<<1024, 256>>>(B, nb, seed++);
  CK(cudaGetLastError());
  run_cublas<T>(nt, A, B, R, M, N, K, 1);
  std::vector<uint16_t> ha(na), hb(nb), hc(nc);
  std::vector<float> hr(nc);
  CK(cudaMemcpy(ha.data(), A, na * 2, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hb.data(), B, nb * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), R, nc * 4, cudaMemcpyDeviceToHost));
  const float rms = sqrtf(K / 9.0f);   /* of a dot product of K products of two uniform(-1, 1) values */
  /* samples: (i, j), float64 dot products of the operands as stored */
  std::vector<int> si(samples), sj(samples);
  std::vector<double> sref(samples);
  uint64_t rng = 0x243F6A8885A308D3ull ^ (uint64_t)M * 31 ^ (uint64_t)N * 17 ^ K;
  for (int s = 0; s < samples; ++s) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    si[s] = (int)(rng % M); sj[s] = (int)((rng >> 32) % N);
    if (s < 4) { si[s] = s & 1 ? M - 1 : 0; sj[s] = s & 2 ? N - 1 : 0; }   /* the corners */
    double acc = 0;
    for (int k = 0; k < K; ++k)
      acc += (double)host_f(ha[(size_t)si[s] * K + k], bf16) * host_f(nt ? hb[(size_t)sj[s] * K + k] : hb[(size_t)k * N + sj[s]], bf16);
    sref[s] = acc;
  }
  double blas_rel = 0;
  for (int s = 0; s < samples; ++s)
    blas_rel = std::max(blas_rel, fabs(hr[(size_t)si[s] * N + sj[s]] - sref[s]) / (fabs(sref[s]) + 1e-3 * rms));
  int fails = 0;
  for (int v = 0; v < NVAR; ++v) {
    CK(cudaMemset(C, 0xff, nc * 2));   /* poison: NaN */
    const int err = run_variant<T>(v, nt, A, B, C, M, N, K, group_m, sms, 0);
    CK(cudaDeviceSynchronize());
    if (err) { printf("FAIL check %s %s %s %dx%dx%d: launch error %d\n", bf16 ? "bf16" : "f16", nt ? "nt" : "nn", variants[v].name, M, N, K, err); fails++; continue; }
    CK(cudaMemset(cmp, 0, sizeof(Cmp)));
    compare_kernel<T><<<264, 256>>>(C, R, nc, rms, cmp);
    Cmp h; CK(cudaMemcpy(&h, cmp, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), C, nc * 2, cudaMemcpyDeviceToHost));
    double rel = 0;
    for (int s = 0; s < samples; ++s)
      rel = std::max(rel, fabs(host_f(hc[(size_t)si[s] * N + sj[s]], bf16) - sref[s]) / (fabs(sref[s]) + 1e-3 * rms));
    const double norm = sqrt(h.se / h.sr);
    const bool ok = h.nan == 0 && h.bad == 0 && rel < 1e-2 && norm < 1e-2;
    fails += !ok;
    char line[512];
    snprintf(line, sizeof line, "%s check %s %s %-16s %5dx%5dx%5d: vs cuBLAS f32 (all %zu): norm err %.2e, max |err|/rms %.2e, %llu NaN, %llu off; "
             "vs float64 (%d samples): max rel %.2e (cuBLAS's %.2e)",
             ok ? "PASS" : "FAIL", bf16 ? "bf16" : "f16", nt ? "nt" : "nn", variants[v].name, M, N, K, nc, norm, h.maxerr / rms, h.nan, h.bad,
             samples, rel, blas_rel);
    puts(line); if (log) fprintf(log, "%s\n", line);
  }
  CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C)); CK(cudaFree(R)); CK(cudaFree(cmp));
  return fails;
}

/* Times every variant and cuBLAS (bf16 out) on (M, N, K): median of `reps`
** launches after warm-up, CUDA events around each, the inputs rotated over
** as many sets as keep them out of the 60 MB L2. */
template <class T>
static void timing(int nt, Shape sh, int sms, int group_m, int reps, FILE *log) {
  const int M = sh.M, N = sh.N, K = sh.K, bf16 = Ty<T>::bf16;
  const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
  const size_t set_bytes = (na + nb) * 2;
  const int sets = (int)std::min<size_t>(8, std::max<size_t>(1, (size_t)(240u << 20) / set_bytes));
  std::vector<T *> A(sets), B(sets);
  T *C;
  for (int s = 0; s < sets; ++s) {
    CK(cudaMalloc(&A[s], na * 2)); CK(cudaMalloc(&B[s], nb * 2));
    fill_kernel<T><<<1024, 256>>>(A[s], na, 77 + 2 * s); fill_kernel<T><<<1024, 256>>>(B[s], nb, 78 + 2 * s);
  }
  CK(cudaMalloc(&C, nc * 2));
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const double flop = 2.0 * M * N * K;
  /* round robin: each repetition times every variant and cuBLAS once, so
  ** that drifting clocks and temperature touch them alike */
  std::vector<float> ms[NVAR + 1];
  for (int it = 0; it < 5 + reps; ++it)
    for (int v = 0; v <= NVAR; ++v) {   /* v == NVAR: cuBLAS */
      const int s = it % sets;
      CK(cudaEventRecord(e0));
      if (v == NVAR) run_cublas<T>(nt, A[s], B[s], C, M, N, K, 0);
      else { int err = run_variant<T>(v, nt, A[s], B[s], C, M, N, K, group_m, sms, 0); if (err) { fprintf(stderr, "launch error %d\n", err); exit(2); } }
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float t; CK(cudaEventElapsedTime(&t, e0, e1));
      if (it >= 5) ms[v].push_back(t);
    }
  double tf[NVAR + 1];
  for (int v = 0; v <= NVAR; ++v) tf[v] = flop / (median(ms[v]) * 1e-3) / 1e12;
  int best = 0;
  for (int v = 1; v < NVAR; ++v) if (tf[v] > tf[best]) best = v;
  char line[512];
  int n = snprintf(line, sizeof line, "TIME %-4s %s %5dx%5dx%5d  sets %d  group_m %2d ", bf16 ? "bf16" : "f16", nt ? "nt" : "nn", M, N, K, sets, group_m);
  for (int v = 0; v < NVAR; ++v) n += snprintf(line + n, sizeof line - n, " %s %6.1f", variants[v].name, tf[v]);
  snprintf(line + n, sizeof line - n, "  cuBLAS %6.1f  best/cuBLAS %.3f", tf[NVAR], tf[best] / tf[NVAR]);
  puts(line); if (log) fprintf(log, "%s\n", line);
  fflush(stdout);
  for (int s = 0; s < sets; ++s) { CK(cudaFree(A[s])); CK(cudaFree(B[s])); }
  CK(cudaFree(C));
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  std::vector<Shape> shapes;
  for (int i = 2; i < argc; ++i) { Shape s; if (sscanf(argv[i], "%dx%dx%d", &s.M, &s.N, &s.K) == 3) shapes.push_back(s); }
  if (shapes.empty()) shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 6144, 4096}, {8192, 28672, 4096}, {4000, 4000, 4000}, {2048, 2048, 2048}};
  const int group_m = getenv("GROUP_M") ? atoi(getenv("GROUP_M")) : 8;
  const int reps = getenv("REPS") ? atoi(getenv("REPS")) : 30;
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("# device %s, %d SMs, L2 %d MB, smem/block optin %zu\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin);
  CB(cublasCreate(&blas));
  printf("# clusters of 2 that fit at once (of %d): 3 stages nn %d, nt %d; 4 stages nn %d, nt %d\n", prop.multiProcessorCount / 2,
         cluster_fit<256, 3, 0, 2, __nv_bfloat16>(prop.multiProcessorCount), cluster_fit<256, 3, 1, 2, __nv_bfloat16>(prop.multiProcessorCount),
         cluster_fit<256, 4, 0, 2, __nv_bfloat16>(prop.multiProcessorCount), cluster_fit<256, 4, 1, 2, __nv_bfloat16>(prop.multiProcessorCount));
  FILE *log = getenv("LOG") ? fopen(getenv("LOG"), "a") : NULL;
  const int sms = prop.multiProcessorCount;
  int fails = 0;
  if (!strcmp(mode, "check") || !strcmp(mode, "all")) {
    /* odd counts of 128-row tiles (M 128, 264: the B-sharing pair's second block past M) and of 256-column tiles
    ** (N 256, 700: the A-sharing pair's past N), ragged edges, K from one step to 128 */
    const Shape cs[] = {{200, 328, 136}, {128, 256, 64}, {1000, 776, 520}, {264, 700, 200}, {4000, 4000, 4000}, {1024, 2048, 8192}};
    for (int nt = 0; nt < 2; ++nt)
      for (const Shape &s : cs) {
        fails += check<__nv_bfloat16>(nt, s, sms, group_m, 300, log);
        fails += check<__half>(nt, s, sms, group_m, 300, log);
      }
    if (!strcmp(mode, "check"))
      for (int nt = 0; nt < 2; ++nt)
        for (const Shape &s : shapes) {
          fails += check<__nv_bfloat16>(nt, s, sms, group_m, 300, log);
          fails += check<__half>(nt, s, sms, group_m, 300, log);
        }
  }
  if (!strcmp(mode, "time") || !strcmp(mode, "all")) {
    for (const Shape &s : shapes)
      for (int nt = 0; nt < 2; ++nt) {
        timing<__nv_bfloat16>(nt, s, sms, group_m, reps, log);
        timing<__half>(nt, s, sms, group_m, reps, log);
      }
  }
  printf("# %d check failures\n", fails);
  if (log) fclose(log);
  return fails ? 1 : 0;
}

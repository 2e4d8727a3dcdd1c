/*
** emit.h: the internal header of the emitter (gen/emit/) and of the
** lowerings it calls (gen/lower/).
**
** The emitter prints a planned kernel (lt.h; the passes, pass/plan.c last,
** have decided everything) as CUDA, HIP or C text for one Target.  One E
** carries the printing state through a kernel: the output buffer, the
** indentation, the stage of a ring being read, the wgmmas in flight.  A
** tile statement becomes loops over each thread's elements; a Ctx says
** which of those loops are open.  emit/ holds what is common to every
** kernel (text and index helpers, the statement walker, the kernel
** function, launcher, header, shape-bucket dispatch, --explain); lower/
** holds one file per way of lowering a copy, a reduction, a gemm or a
** loop schedule.  Names: ltE_ for emit/, ltL_ for lower/.
*/
#ifndef LT_EMIT_H
#define LT_EMIT_H

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lt.h"

/* The printing state of one kernel. */
typedef struct E {
  Buf *b;
  Kernel *k;
  const Target *t;
  int depth;
  int last_line;
  const char *base;     /* kernel file's base name, for comments */
  int emu;              /* gen --emulate: CPU emulation of the GPU code */
  int splitk_ws;        /* a kernel of the variant takes a workspace (ltE_takes_ws): NAME_ws and NAME_workspace
                           beside NAME (header.c) */
  const char *stage;    /* inside a pipelined loop: the stage being read or filled */
  int to_regs;          /* copies into shared tiles load into their register buffers instead (sched_prefetch.c) */
  const Stmt *fused;    /* a statement already emitted inside the load before it */
  const Stmt *fused2;   /* and the one after it, fused into that one (a row's broadcast load: plan.c) */
  int wide;             /* sizes print as (int64_t)NAME: the launcher's grid arithmetic */
  int wide_idx;         /* i32 scalars print as (int64_t)NAME: a view offset whose int math could overflow (copy.c) */
  const char *lane;     /* the lane index ldmatrix addresses are made from ("lane", or a loop's copy) */
  int atomic;           /* the store being emitted adds to the tensor (k:atomic_add) */
  int direct;           /* the store being emitted has the fast case of Stmt.direct (store_staged.c) */
  int resident;         /* the load being emitted is Stmt.resident's RES_STAGE or RES_READ (pass/resident.c) */
  int from_row;         /* printing a RES_READ load's read of the kept row (<tensor>_row), not of global memory */
  int row_copied;       /* that load is a first pass's, of a row copied whole (Kernel.row_res_at) (copy.c) */
  int divs;             /* Kernel.divs are prepared (lt_div0, ...): divisions with Expr.div print as lt_div / lt_mod
                           (sched_warpspec.c) */
  const char *barrier;  /* the block barrier: the target's, or with wgmma the one that also orders
                           shared-memory writes before the tensor cores' reads (lt_wgmma_barrier) */
  const Sym *inflight[8];   /* accumulators of wgmmas issued and not yet waited for (gemm_wgmma.c) */
  int ninflight;
  const char *roll_frag; /* the A fragments of a rolling loop's gemm (Stmt.roll): settled at the next wait for all */
  const Sym *fresh;     /* a wgmma accumulator declared without its zero fill: the gemm next skips reading it */
  int lead_in;          /* the copy being emitted is a pipelined loop's lead-in: cp.async (pipeline.c) */
  int carrying;         /* in the body of a pipelined loop whose wgmmas stay in flight across its back
                           edge: an if's branches leave theirs in flight too (Stmt.carried) */
  long long stack_bytes;    /* c target: bytes of arrays the block function has put on its stack so far */
  long long scratch_bytes;  /* c target: bytes of its arrays that live in the launcher's scratch memory instead */
  int chain;            /* a wgmma gemm into an accumulator in flight does not wait for it (ltP_waits_for;
                           the warp-specialized loop) */
  const char *release;  /* printed after the first wait for every wgmma in flight at depth release_depth, then
                           NULL: a warp-specialized loop's release of the stage before (sched_warpspec.c) */
  int release_depth;
  int split;            /* printing a kernel's split twin (Kernel.split_of): its split views move the chunks of a
                           row off the 16-byte grid by whole vectors (copy.c) */
  int ordered;          /* inflight holds one commit group each, oldest first: a statement waits for the groups up
                           to the newest it names (wgmma.wait_group N; pass/defer.c, ltP_wait_keep) */
  struct { const View *v; const char *raw; int at; } issued[LT_ISSUE_VECTORS];   /* the loads whose vectors the
                           group being printed has issued (copy.c, ltL_issue): into raw[at], raw[at + 1], ... */
  int nissued;
  int smem_align;       /* the alignment every kernel of the file declares lt_smem with: the largest any
                           needs, since one translation unit's declarations of it must agree (ltE_emit) */
  int marked;           /* printing a bucket's text for pass/share.c: the kernel comments' sentence on the
                           buckets it serves prints as LT_SERVES_MARK (ltE_bucket_texts) */
} E;

/* The marks of a tuned bucket's text (ltE_bucket_texts, source.c), bytes
** that no generated text holds otherwise (the comments gen copies from the
** kernel file and from tuned files have their control characters turned
** into '?'): */
#define LT_NAME_MARK "\x01"     /* the kernel's name (its cp.async twin's: the mark and "_cp") */
#define LT_BUCKET_MARK "\x02"   /* the buckets it runs (the launcher's comment): its own, or all it serves */
#define LT_SERVES_MARK "\x03"   /* where the kernel comments name the buckets it serves (ltE_serves_sentence) */

/* Element context: which per-thread loops are open around a tile statement. */
typedef struct Ctx {
  const Layout *l;
  int shape[2];
  const char *ri, *ci, *vi;   /* loop variable names, NULL: not looping (0) */
} Ctx;

/* The names of a pipelined loop's generated code: its index v, bounds lo
** and hi, the stage read (vs), the iteration whose copies it issues (vn)
** and their stage (vns). */
typedef struct Ring {
  const char *v, *lo, *hi, *vs, *vn, *vns;
} Ring;

/* ---- emit/text.c: lines, types, index text, element loops, expressions ---- */

const char *ltE_src_ext(const E *e);
const char *ltE_build_hint(const E *e);
int ltE_gpu(const E *e);
void ltE_line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ltE_word_at(const char *text, const char *p, size_t n);   /* a whole identifier at p? */
void ltE_lane_line(E *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ltE_comment(E *e, int ln);
const char *ltE_comment_text(const char *s);
const char *ltE_ctype(Dtype dt);
const char *ltE_stype(const E *e, Dtype dt);
const char *ltE_to_compute(const E *e, Dtype dt, const char *x);
const char *ltE_to_storage(const E *e, Dtype dt, const char *x);
const char *ltE_term(const char *v, int mul);
const char *ltE_sum(const char *a, const char *b);
const char *ltE_or0(const char *s);
const char *ltE_paren(const char *s);
void ltE_swizzle_of(const Sym *sh, int *mask, int *rsh, int *shift);
int ltE_panel_cols(const Sym *sh);
const char *ltE_sh_index(const E *e, const Sym *sh, const char *r, const char *c);
const char *ltE_sh_at(const E *e, const Sym *sh, const char *r, const char *c);
const char *ltE_op_at(const E *e, const Sym *sh, int trans, const char *i, const char *j);
const char *ltE_reg_index(const Ctx *c, const int shape[2]);
const char *ltE_tile_row(const Ctx *c);
const char *ltE_tile_col(const Ctx *c);
const char *ltE_chunk_index(const Ctx *c);
int ltE_open_loops(E *e, Ctx *c, const Layout *l, const int shape[2], int rows, int chunks, int lanes);
void ltE_close_loops(E *e, int n);
void ltE_open_for(E *e, const char *v, int n, int step);
void ltE_close_for(E *e);
const char *ltE_etext(E *e, const Expr *x, const Ctx *c);
const char *ltE_itext(E *e, const Expr *x);
const char *ltE_basename(const char *path);

/* ---- emit/stmt.c: the statement walker ---- */

void ltE_stmt(E *e, Stmt *s);
void ltE_block(E *e, Block *b);
void ltE_declare_regs(E *e, const Sym *s);
long long ltE_c_scratch(E *e, long long bytes);
void ltE_assign_elem(E *e, const Sym *dst, const Expr *val, const Ctx *c);

/* ---- emit/kernel.c, launcher.c, header.c, dispatch.c, source.c ---- */

int ltE_narrow_stride(const E *e, const Sym *s);
const char *ltE_param_decl(const E *e, const Sym *s, int launcher);
void ltE_kernel(E *e, Sym **ps, int n);
const char *ltE_serves_sentence(const Kernel *k);
int ltE_smem_align(const Kernel *k);
const char *ltE_launcher_proto(const E *e, const char *name, Sym **ps, int n);
const char *ltE_launcher_proto_ws(const E *e, const char *name, Sym **ps, int n);
void ltE_splitk_entries(E *e, Kernel **ks, int nk, Sym **ps, int n);
int ltE_takes_ws(const E *e, const Kernel *k);
void ltE_launcher(E *e, Sym **ps, int n);
const char *ltE_export_proto(E *e, const Export *x, Sym **ps, int n);
void ltE_exports(E *e, Sym **ps, int n);
/* A launcher precondition: the condition the arguments must meet (a host
** expression) and what it protects, in words. */
typedef struct Precond { Expr *holds; const char *why; } Precond;
int ltE_preconds(E *e, Precond **out);
const char *ltE_header(E *e, Sym **ps, int n);
void ltE_dispatch(E *e, Kernel **ks, int n, Sym **ps, int np);
void ltE_sm_count(E *e, int exported);   /* launcher.c: declares and sets int sm_count */
void ltE_name_syms(Kernel *k);

/* ---- lower/: copies, stores, reductions ---- */

void ltL_load_store(E *e, const View *v, const Sym *dst, const Expr *val, const Expr *other, const Sym *sh,
                    const Stmt *then, const Sym *via);
void ltL_load_scalar(E *e, const View *v, const Sym *dst, const Expr *other);
void ltL_issue(E *e, const Stmt *first);
void ltL_fixed_dim(E *e, const View *v, int d, const char **ok, const char **base);
void ltL_shared_rw(E *e, Stmt *s);
void ltL_early_issue(E *e);   /* early.c: the staged loads' copies at a program's top */
void ltL_early_read(E *e, Stmt *s);   /* early.c: a staged load */
void ltL_resident_copy(E *e);   /* copy.c: config resident's whole-row copy (Kernel.row_res_at) */
const char *ltL_whole_tile(E *e, const View *v, int per16, int has_ok);
const char *ltL_row_offset(E *e, const View *v, const Layout *l, const Ctx *c);
void ltL_staged_store(E *e, const View *v, const Expr *val, const Sym *o, const Layout *l, int has_ok);
void ltL_direct_store(E *e, const View *v, const Expr *val, const Layout *l, int has_ok);   /* (store_staged.c) */
int ltL_bulk_reduce(E *e, const View *v, const Expr *val, const Sym *o, const Layout *l, int has_ok);   /* store_reduce.c: 1 where it wrote the whole store */
void ltL_tma_store(E *e, const Stmt *s);   /* a store by TMA through a staging tile (store_staged.c) */
const char *ltL_rows_live(E *e, const View *v, const char *row);   /* row of v's tile inside its rows (gemm_wgmma.c) */
void ltL_reduce(E *e, Stmt *s);

/* ---- lower/gemm_*.c: one per instruction; BK is the gemm's K ---- */

void ltL_gemm_mma_sync(E *e, Stmt *s, int BK);
void ltL_gemm_tf32(E *e, Stmt *s, int BK);
void ltL_gemm_wgmma(E *e, Stmt *s, int BK);
const char *ltL_words_frag(const Stmt *s);
void ltL_roll_decl(E *e, const Stmt *s);
const char *ltL_wgmma_frag(const Stmt *s);   /* a register A's fragment array */
void ltL_wgmma_deferred(E *e, const Stmt *s, int BK);   /* a deferred gemm's wgmmas, uncommitted */
void ltL_wgmma_wait_keep(E *e, int keep);   /* waits for all but the newest `keep` groups in flight */
void ltL_gemm_amd(E *e, Stmt *s, int BK);
void ltL_gemm_fma(E *e, Stmt *s, int BK);
const char *ltL_ldsm_at(E *e, const Sym *sh, const char *rr, const char *c0, const char *cl);
void ltL_a_frags(E *e, const Stmt *s, int MI, const char *ty, const char *frag);
void ltL_mma_tile(E *e, const Sym *acc, int NI, const char *fn, const char *afrag, const char *bfrag);
void ltL_ring_frags(E *e, const Stmt *s);
void ltL_ring_load(E *e, const Stmt *s, const char *k0, const char *set);
void ltL_ring_step(E *e, const Stmt *s, int BK, const char *across);
void ltL_wgmma_wait(E *e);
int ltL_starts_wgmma(const Stmt *s);

/* ---- lower/sched_*.c: one per loop schedule (Stmt.sched) ---- */

void ltL_sched_ring(E *e, Stmt *s);
void ltL_sched_gemm(E *e, Stmt *s);
void ltL_sched_prefetch(E *e, Stmt *s);
void ltL_warpspec_body(E *e);
void ltL_attn_consumer_loop(E *e, Stmt *s, const Ring *r);   /* a loop with a deferred gemm (sched_attn.c) */
void ltL_attn_bwd_consumer_loop(E *e, Stmt *s, const Ring *r);   /* a loop with deferred step gemms (sched_attn_bwd.c) */
void ltL_defer_close(E *e, const Stmt *s, const Ring *r, const char *prev);       /* the end of either (sched_attn.c) */
void ltL_defer_give_last(E *e, const Stmt *s, const Ring *r, const char *prev);   /* the last stage back (sched_attn.c) */
Ring ltL_ring_names(E *e, const Stmt *s);
void ltL_consumer_open(E *e, const Stmt *s, const Ring *r, const char *ph, const Stmt *p);
const char *ltL_splitk_ids(E *e);   /* split-K (splitk.c) */
void ltL_splitk_range(E *e, Ring *r);
void ltL_splitk_reduce(E *e);
const char *ltL_splitk_params(void);
void ltL_splitk_launch(E *e);
const char *ltL_splitk_weight(E *e, const char *programs, const char *sfx, long long tile, long long fixed);
const char *ltL_splitk_bound(const Kernel *k);
void ltL_producers(E *e, Stmt *loop, Stmt *p, Stmt *end, const char *var, const char *stage);
void ltL_prologue(E *e, Stmt *s, const Ring *r, int ahead, int unroll);

#endif

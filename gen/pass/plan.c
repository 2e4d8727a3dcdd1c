/*
** plan.c: the decisions pass.  What the emitter would otherwise decide
** while printing is decided here and kept in the IR (lt.h, "the plan"),
** so that the emitter (emit/, lower/) and --explain read one answer:
**
**   how each loop runs (Stmt.sched): ltP_plan_loops, before pipeline.c
**     makes the rings, picks plain, a cp.async ring or the register
**     prefetch from the Target's fields; ltP_plan, last (the barriers are
**     in), picks the ring's form: the software pipeline with its gemm, the
**     refill after the wgmma gemm that opens the body, the warpgroups'
**     turns at it; and the wgmmas it leaves in flight across its back edge;
**   each gemm's instruction and ldmatrix form (Stmt.inst, Stmt.ldsm_ring);
**   which tile lets and loads fuse with the assignment after them (fuse);
**   which cp.async copies move rows off the 16-byte grid in pieces, and
**   the smallest piece, 8 or 4 bytes (View.pieces).
**
** (The staged stores are smem.c's: Stmt.via.)  Where the plan leaves a
** value the kernel set without effect on the target, such as the stages of
** a k:pipelined loop that runs plainly there, it adds a note to the kernel
** (Kernel.notes), which main.c prints on stderr.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lt.h"

/* Adds the note "file:line: note: msg" to kernel k.  None on a target of
** one thread a block (c): it runs every kernel plainly by design, so what a
** kernel sets for the GPUs' schedules is not worth a note there. */
void ltP_note(Kernel *k, const Target *t, int line, const char *fmt, ...) {
  if (t->warp == 1) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  Note *n = ltU_alloc(sizeof *n), **tail = &k->notes;
  n->text = ltU_fmt("%s:%d: note: %s", ltU_file, line, msg);
  while (*tail) tail = &(*tail)->next;
  *tail = n;
}

/* The first statement of pipelined loop s after its producers (pipeline.c),
** or NULL. */
static Stmt *consumers(const Stmt *s) {
  Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  return p;
}

/* ------------------------------------------------------------------ */
/* loops, before the rings                                             */

/* Why the copies of pipelined loop `loop` (its producers, up to `end`)
** cannot go through registers, or NULL when they can: each thread's part
** of each copy in whole 16-byte chunks, and the work one gemm.  (With more
** work in the body, as attention's loops have, the buffers pushed AMD
** backward kernels into spills.) */
static const char *no_prefetch(Kernel *k, const Stmt *loop, const Stmt *end) {
  if (!end || end->kind != S_GEMM || end->next)
    return "without cp.async, a loop's copies go through registers only when its work is one gemm, and this one's "
           "is not";
  for (const Stmt *p = loop->body.first; p != end; p = p->next) {
    if (p->kind != S_G2S) continue;
    int shape[2];
    ltI_view_shape(p->view, shape);
    Dtype dt = p->view->t->dt;
    if (ltP_copy_layout(k, shape, dt)->vec * ltI_dtypes[dt].bytes != 16)
      return ltU_fmt("without cp.async, a loop's copies go through registers only in 16-byte chunks a thread, and "
                     "line %d's copy has smaller ones", p->line);
  }
  return NULL;
}

/* ------------------------------------------------------------------ */
/* the warp-specialized loop (SCHED_WARPSPEC), before the rings         */

/* Why the copy engine cannot take copy p (an S_G2S of a pipelined loop)
** as boxes of a tensor map, or NULL when it can: a 1-, 2- or 4-byte dtype, a
** tile of rows along the tensor's last dimension with the constant stride
** 1 (one element in every other dimension), zero outside the tensor (the
** map's fill), into a tile that wgmma reads by descriptor, whose layout is
** then a box (or one box per 64-column panel of rows over 128 bytes) with
** the map's swizzle, box sides of 256 or less; or into a tile of one row
** that no gemm reads (attention's LSE and Delta rows of a query block):
** one box, no swizzle, its bytes a multiple of 16.  A view of X:rows(lo,
** hi) goes too, through a map with a dimension more (TensorMap.rows), when
** its first row is known to be lo plus an offset, both not negative: the
** copy engine then zero-fills the rows from hi on, and none lies before lo. */
static const char *tma_copy_why(const Stmt *p) {
  const View *v = p->view;
  const Sym *t = v->t, *sh = p->shared;
  int eb = ltI_dtypes[t->dt].bytes;
  long long cs;
  if (eb != 1 && eb != 2 && eb != 4)
    return ltU_fmt("line %d copies %s elements (TMA here: 1, 2 or 4 bytes)", p->line, ltI_dtypes[t->dt].name);
  if (p->other && !(p->other->kind == E_CONST && p->other->cval == 0))
    return ltU_fmt("line %d's copy reads a value other than 0 outside the tensor (TMA fills with 0)", p->line);
  if (v->rdim < 0 || v->cdim != t->trank - 1 || !ltI_const_int(t->strides[v->cdim], &cs) || cs != 1)
    return ltU_fmt("line %d's tile rows do not run along %s's last dimension with stride 1", p->line, t->name);
  for (int d = 0; d < t->trank; d++)
    if (d != v->rdim && d != v->cdim && v->ext[d] != 1)
      return ltU_fmt("line %d's view spans more than one element of %s's dimension %d", p->line, t->name, d + 1);
  if (v->rlo) {   /* a map with a dimension more, whose index is the rows' end (TensorMap.rows) */
    const Expr *o = v->origin[v->rdim];
    if (t->trank > 3)
      return ltU_fmt("line %d's view is of %s:rows(lo, hi), %d dims (a map of rows: 4 with the dimension of the "
                     "rows' end, the loads gen has for them)", p->line, t->name, t->trank);
    if (!ltI_nonneg(o) || !(o == v->rlo || (o->kind == E_BINARY && o->op == B_ADD && o->a == v->rlo && ltI_nonneg(o->b))))
      return ltU_fmt("line %d's view of %s:rows(lo, hi) is not known to start at a row >= lo >= 0 (the copy engine "
                     "masks the rows from hi on; make lo not negative, e.g. tile.max(lo, 0), and the tile's row "
                     "index too)", p->line, t->name);
  }
  if (!sh->wgmma) {
    if (sh->shape[0] != 1 || sh->shape[1] > 256 || sh->shape[1] * eb % 16)
      return ltU_fmt("line %d's shared tile %s is not a wgmma operand read by descriptor, nor one row of 16-byte "
                     "chunks, 256 elements at most (a plain TMA box)", p->line, sh->name);
    return NULL;
  }
  if (v->ext[v->rdim] > 256) return ltU_fmt("line %d's tile has %d rows (a TMA box: 256 at most)", p->line, v->ext[v->rdim]);
  return NULL;
}

/* Why statements from `first` on cannot be a warp-specialized loop's
** consumers (with what is inside them), or NULL: register work, global
** loads and stores, wgmma gemms, reductions within a warp and reads of
** the stage's shared tiles, and stores of a gemm's register operand into
** its staging tile (mma.c; the consumers then meet at a named barrier of
** their own, lower/sched_warpspec.c); nothing else that writes shared
** memory or meets at a block barrier. */
static const char *consumer_why(const Stmt *first, const Target *t) {
  for (const Stmt *x = first; x; x = x->next) {
    const char *why = NULL;
    switch (x->kind) {
    case S_LET: case S_FRAG: case S_ASSIGN: case S_LOAD: case S_STORE: case S_GEMM: break;
    case S_SLOAD: break;   /* a read of the stage the consumers waited for, before they give it back */
    case S_SSTORE:   /* a gemm's register operand into its staging tile: the consumers meet at a barrier of their own */
      if (!x->shared->staging) return ltU_fmt("line %d in the body writes shared memory", x->line);
      break;
    case S_REDUCE:
      if (x->dst->layout && ltP_reduce_groups(x->dst->layout, x->axis, t->warp) > 1)
        return ltU_fmt("line %d's reduction goes across warps through shared memory", x->line);
      break;
    case S_IF:
      if ((why = consumer_why(x->body.first, t)) || (why = consumer_why(x->orelse.first, t))) return why;
      break;
    default: return ltU_fmt("line %d in the body works on shared memory or loops (only gemms and register work run "
                            "in the consumer warpgroups' loop)", x->line);
    }
  }
  return NULL;
}

/* How many k:pipelined loops block b holds (inside other statements too). */
static int pipelined_loops(const Block *b) {
  int n = 0;
  for (const Stmt *s = b->first; s; s = s->next)
    n += (s->kind == S_FOR && s->stages) + pipelined_loops(&s->body) + pipelined_loops(&s->orelse);
  return n;
}

/* Adds the tensor map of TMA copy p (tma_copy_why passed) to maps[0..*n-1]
** unless one of the same tensor, box and swizzle is there, and sets
** p->map; returns the bytes p delivers, -1 when a map more would be over
** LT_MAXMAPS. */
static int add_map(TensorMap *maps, int *n, Stmt *p) {
  const View *v = p->view;
  const Sym *sh = p->shared;
  int eb = ltI_dtypes[sh->dt].bytes, row = sh->wgmma ? ltP_wgmma_row(sh) : sh->shape[1] * eb;
  TensorMap m = {.t = v->t, .swizzle = sh->wgmma ? row : 0, .rows = v->rlo != NULL};
  for (int j = 0; j < v->t->trank; j++) {
    int d = v->t->trank - 1 - j;
    m.box[j] = d == v->cdim ? row / eb : d == v->rdim ? v->ext[d] : 1;
  }
  int i = 0, same = 0;
  for (; i < *n; i++) {
    same += maps[i].t == m.t;
    if (maps[i].t == m.t && maps[i].swizzle == m.swizzle && maps[i].rows == m.rows && !memcmp(maps[i].box, m.box, sizeof m.box))
      break;
  }
  if (i == *n) {
    if (*n == LT_MAXMAPS) return -1;
    m.name = same ? ltU_fmt("%s_map%d", m.t->name, same + 1) : ltU_fmt("%s_map", m.t->name);
    maps[(*n)++] = m;
  }
  p->map = i + 1;
  return (int)ltI_stage_bytes(sh);
}

/* Why pipelined loop `loop` of kernel k cannot run warp-specialized on t,
** or NULL (and then its tensor maps are in k->maps, each copy's in
** Stmt.map, the bytes of a stage in stage_bytes, those of the copies
** before the loop in Kernel.pre_bytes): a kernel with wgmma and this one
** pipelined loop, at the top of the body, after nothing but register
** work, scalars (which both roles then compute) and copies into
** one-buffer tiles the copy engine takes (attention's Q tile: the
** producer issues them once, before the ring, on an mbarrier of their
** own); copies the copy engine takes (tma_copy_why) and consumers that
** need no block barrier (consumer_why); room for a producer warpgroup; and
** two consumer warpgroups or more, and not three gemms an iteration
** over fewer than 64 columns of the gemm it opens with, where the body
** works on its result (with two they take turns at it: plan_consumers;
** measured, below). */
static int works_on(const Stmt *first, const Sym *acc);

/* Does the consumer work from `first` open with a gemm whose result the
** statements after it work on (attention: the softmax of S = Q K^T)? */
static int works_on_opening_gemm(const Stmt *first) {
  const Stmt *x = first;
  while (x && x->kind == S_FRAG) x = x->next;
  return x && x->kind == S_GEMM && works_on(x->next, x->dst);
}

/* The columns of the result of the gemm the consumer work from `first`
** opens with (works_on_opening_gemm). */
static int opening_n(const Stmt *first) {
  const Stmt *x = first;
  while (x && x->kind == S_FRAG) x = x->next;
  return x->dst->shape[1];
}

/* The gemms an iteration of the work from `first` runs (of an if, the
** larger branch's). */
int ltP_gemms(const Stmt *first) {
  int n = 0;
  for (const Stmt *x = first; x; x = x->next) {
    int a = ltP_gemms(x->body.first), b = ltP_gemms(x->orelse.first);
    n += (x->kind == S_GEMM) + (a > b ? a : b);
  }
  return n;
}

static const char *warpspec_why(Kernel *k, Stmt *loop, const Target *t) {
  if (k->fallback) return "the cp.async twin of a warp-specialized kernel";
  if (k->mma != MMA_WGMMA) return "its gemms do not take wgmma";
  if (k->threads % 128 || k->threads + 128 > t->max_threads)
    return ltU_fmt("%d threads and a producer warpgroup are not whole warpgroups within %d", k->threads, t->max_threads);
  if (pipelined_loops(&k->body) != 1) return "the kernel has more than one k:pipelined loop";
  int nmaps = 0, bytes = 0, pre = 0;
  TensorMap maps[LT_MAXMAPS];
  Stmt *x = k->body.first;
  for (; x && x != loop; x = x->next) {
    if (x->kind == S_G2S) {
      const char *why = tma_copy_why(x);
      if (why) return ltU_fmt("the copy before the loop: %s", why);
      int n = add_map(maps, &nmaps, x);
      if (n < 0) return ltU_fmt("its copies need more than %d tensor maps", LT_MAXMAPS);
      pre += n;
    } else if (x->kind != S_LET && x->kind != S_FRAG && x->kind != S_ASSIGN && x->kind != S_LOAD) {
      return ltU_fmt("line %d before the loop is more than register work and copies", x->line);
    }
  }
  if (!x) return "the loop is not at the top of the kernel's body";
  Stmt *p = loop->body.first;
  for (; p && ltP_is_producer(p); p = p->next) {
    if (p->kind != S_G2S) continue;
    const char *why = tma_copy_why(p);
    if (why) return why;
    int n = add_map(maps, &nmaps, p);
    if (n < 0) return ltU_fmt("its copies need more than %d tensor maps", LT_MAXMAPS);
    bytes += n;
  }
  const char *why = consumer_why(p, t);
  if (why) return why;
  /* H200: attention d64 (BM = 64, 128 threads) 0.58-0.75x the cp.async ring; the dQ kernel (three gemms a
  ** key block: S, dP, dQ += dS K) 0.88-0.93x at d256 (32 keys a step), at d128 (256 threads, 128 query rows)
  ** level at 64 keys and, at 128 keys without ptxas's serialization (join.c), in 0.87-0.95x the time of the
  ** ring's 128-thread blocks, at d64 1.01-1.09x the time
  ** (bench/results/2026-11-25-h200-attention-bwd-dq-warpspec.txt); the
  ** dK/dV kernel (four: S^T, dP^T, dV += P^T dO, dK += dS^T Q; 256 threads, 128 keys) at d128 0.80-1.00x
  ** the time of the ring's 128-thread blocks, at d64 0.87-1.05x (bench/results/2026-11-25-h200-attention-bwd-ab.txt) */
  if (k->threads < 256 && works_on_opening_gemm(p))
    return "one consumer warpgroup would wait for each S of its opening gemm with nothing to overlap its work on it "
           "(the cp.async ring runs several blocks an SM)";
  if (works_on_opening_gemm(p) && ltP_gemms(p) == 3 && opening_n(p) < 64)
    return "3 gemms an iteration, with work on the first one's result between them, at fewer than 64 columns of it "
           "(attention's dQ at d256, 32 keys a step: measured slower warp-specialized than on the cp.async ring)";
  for (x = k->body.first; x != loop; x = x->next)   /* land before the loop: no barrier (barrier.c) */
    if (x->kind == S_G2S) x->lead_in = 1;
  memcpy(k->maps, maps, sizeof maps);
  k->nmaps = nmaps;
  k->pre_bytes = pre;
  loop->stage_bytes = bytes;
  return NULL;
}

/* Does expression x divide floats (IEEE division, not a fast one)? */
static int fdiv(const Expr *x) {
  if (!x) return 0;
  if (x->kind == E_BINARY && x->op == B_DIV && ltI_dtypes[x->dt].is_float && !x->fast) return 1;
  return fdiv(x->a) || fdiv(x->b) || fdiv(x->c);
}

/* Does a statement from `first` on (or one inside them) divide floats? */
static int divides(const Stmt *first) {
  for (const Stmt *s = first; s; s = s->next)
    if (fdiv(s->val) || fdiv(s->other) || divides(s->body.first) || divides(s->orelse.first)) return 1;
  return 0;
}

/* Does expression x have one value in every program: made of constants,
** sizes, strides, scalar parameters and lets of such values? */
static int program_invariant(const Expr *x) {
  if (!x) return 1;
  if (x->kind == E_SYM) {
    const Sym *s = x->sym;
    if (s->kind == SYM_SIZE || s->kind == SYM_STRIDE || s->kind == SYM_SCALAR) return 1;
    return s->kind == SYM_LET && s->rank == 0 && s->def && s->def->kind == S_LET && program_invariant(s->def->val);
  }
  return program_invariant(x->a) && program_invariant(x->b) && program_invariant(x->c);
}

/* Do the statements from `first` on (and those inside them) work in
** registers and global memory alone, or (wgmma) on the ring's stages? */
static int register_work(const Stmt *first) {
  for (const Stmt *s = first; s; s = s->next) {
    switch (s->kind) {
    case S_LET: case S_FRAG: case S_ASSIGN: case S_LOAD: case S_STORE: break;
    case S_GEMM:   /* (its operands are the ring's: the consumers write no shared tile) */
      if (s->areg) return 0;
      break;
    case S_IF: case S_FOR:
      if (s->stages || !register_work(s->body.first) || !register_work(s->orelse.first)) return 0;
      break;
    default: return 0;
    }
  }
  return 1;
}

/* Ping-pong (Kernel.pingpong) for persistent warp-specialized kernel k
** whose loop is `loop`: where the config asks for one consumer warpgroup
** (threads 128), the block holds two, each running every other program of
** the block on the ring in turn; while one stores its tile, the other's
** wgmmas run.  It needs the loop's trip count the same in every program
** (a warpgroup steps its place in the ring over the other's fills without
** computing that program's sizes), and the
** consumers' work in registers and on the ring's stages alone, so that the
** two warpgroups share no shared memory but the ring (a TMA store's staging
** tile gets one a warpgroup, smem.c).  One warpgroup of 64 x 256 holds the
** accumulators a thread of the two-warpgroup 128 x 256 tile holds. */
static int pingpong(const Kernel *k, const Stmt *loop) {
  if (!k->persistent || k->threads != 128 || k->pre_bytes) return 0;   /* (one buffer for the copies before the loop) */
  if (k->queue) return 0;   /* (each warpgroup knows the other's programs from the static order) */
  if (!program_invariant(loop->lo) || !program_invariant(loop->hi)) return 0;
  const Stmt *p = loop->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  return register_work(p) && register_work(loop->next);
}

/* Split-K (Kernel.splitk) for ping-pong kernel k whose loop is `loop`:
** where the consumers' work in the loop is one gemm into an accumulator
** declared zero before the loop, its result is the sum of the gemm over
** the loop's range, so the launcher may cut the range into lt_splits
** parts, one a program, and the tile's last part to finish adds the
** others' partial accumulators to its own (lower/splitk.c) before the code
** after the loop.  Ping-pong: one warpgroup holds a program's whole
** accumulator, so one arrival a program counts the parts.  The launcher
** computes the range's length (its bounds of sizes and scalars alone).
** Up to 64 accumulators a thread: with 128 (a 128 x 128 tile) the
** consumers spilled (ptxas 13.0, the parts' loads and stores beside them). */
static int splitk(const Kernel *k, const Stmt *loop) {
  if (!k->pingpong) return 0;
  const Stmt *p = loop->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  if (!p || p->kind != S_GEMM || p->next || !ltI_host_expr(loop->lo) || !ltI_host_expr(loop->hi)) return 0;
  const Stmt *d = p->dst->def;
  long long zero = 1;
  if (!d || d->kind != S_FRAG || !d->val || !ltI_const_int(d->val, &zero) || zero != 0) return 0;
  if (ltP_elems(p->dst->layout, p->dst->shape) > 64) return 0;   /* (128 x 128: 128 a thread, 1256 bytes spilled) */
  for (const Stmt *x = k->body.first; x != loop; x = x->next)
    if (x == d) return 1;
  return 0;
}

static int names_sym(const Stmt *s, const Sym *x);

/* Stmt.roles of each scalar before warp-specialized loop `loop` of a
** persistent kernel, whose roles each compute those they read again for
** every program (lower/sched_warpspec.c): ROLE_PRODUCER where the
** producer reads it (in the copies before the loop, the loop's bounds and
** the statements its body starts with), ROLE_CONSUMER where the consumers
** do (the bounds, the rest of the body and before the loop, what follows
** it, and the body's starting scalars that the rest reads), directly or
** through a later such scalar. */
static void scalar_roles(Kernel *k, Stmt *loop) {
  Stmt *work = loop->body.first;
  while (work && ltP_is_producer(work)) work = work->next;
  int n = 0;
  for (Stmt *x = k->body.first; x != loop; x = x->next) n++;
  Stmt **xs = ltU_alloc((n + 1) * sizeof *xs);
  n = 0;
  for (Stmt *x = k->body.first; x != loop; x = x->next) xs[n++] = x;
  for (int i = n - 1; i >= 0; i--) {
    Stmt *x = xs[i];
    if (!ltP_is_producer(x) || x->kind == S_G2S) continue;
    const Sym *v = x->dst;
    int r = names_sym(loop, v) ? ROLE_PRODUCER | ROLE_CONSUMER : 0;
    for (int j = i + 1; j < n; j++) {
      if (!names_sym(xs[j], v)) continue;
      if (xs[j]->kind == S_G2S) r |= ROLE_PRODUCER;
      else if (ltP_is_producer(xs[j])) r |= xs[j]->roles;
      else r |= ROLE_CONSUMER;
    }
    for (Stmt *p = loop->body.first; p != work; p = p->next)
      if (names_sym(p, v)) r |= ROLE_PRODUCER | (p->kind != S_G2S && ltP_uses(work, p->dst) ? ROLE_CONSUMER : 0);
    if (ltP_uses(work, v) || ltP_uses(loop->next, v)) r |= ROLE_CONSUMER;
    x->roles = r;
  }
}

/* Sets up the warp-specialized loop of kernel k on t: the producer
** warpgroup, the persistent grid where t has it (and the code after the
** loop does not divide), and setmaxnreg's limits.  The launch gives every thread of
** the block an equal share of t->regs (whole multiples of 8); with two or
** more consumer warpgroups the producer gives all but 40 back and the
** consumers take them (2 x 128 consumers: 232 each, as the published
** Hopper GEMMs do); all but 24 where an iteration runs more than two
** gemms (attention's dK/dV: dK, dV, S^T and dP^T live at once, 240 each;
** at 232 ptxas spilled 32 bytes at d128).  One consumer warpgroup already
** has the most a thread can hold. */
static void plan_warpspec(Kernel *k, Stmt *loop, const Target *t) {
  loop->sched = SCHED_WARPSPEC;
  k->ws = loop;
  k->producers = 128;
  /* Persistent, but where the code after the loop divides floats the IEEE
  ** way (fast.c makes them fast where the stores allow): the slow
  ** path is a call, and the registers it saves spilled in the persistent
  ** consumers at 232 (ptxas 13.0: the matmul's SiLU epilogue, 52 bytes;
  ** 16 at 240), not in the others.  With copies before the loop (the
  ** attention forward's Q tile, one buffer), each program's go again
  ** once the consumers of the program before are done with them (their
  ** mbarrier `_pre_empty`, sched_warpspec.c), where an iteration runs two
  ** gemms (attention's forward; the dK/dV kernel's four, with K and V
  ** before the loop, were not measured so). */
  ltP_fast(k, loop->next);
  /* Nor where the loop's trip count differs between programs and nothing
  ** is copied before it (grouped_matmul: a slot no group uses runs none):
  ** walked statically, the blocks drift apart by the programs they pass
  ** over, and neighbouring programs that read the same B columns no longer
  ** run together to share them in L2; one program a block, the hardware
  ** hands the blocks out in order as SMs free up (H200, grouped_matmul bf16
  ** G 64, N 14336: 10.9 GB read from DRAM persistent, 7.0 GB so; 1.18x). */
  /* (k:grid's dynamic = true: the blocks take the programs in order as they free up, so they do not drift
  ** apart, and the grid is persistent with such loops too; Kernel.queue) */
  k->uneven = !program_invariant(loop->lo) || !program_invariant(loop->hi);
  k->persistent = t->persistent && !k->one_a_block && !divides(loop->next) &&
                  (!k->pre_bytes || ltP_gemms(consumers(loop)) <= 2) && (k->pre_bytes || !k->uneven || k->dynamic);
  k->pre_reload = k->persistent && k->pre_bytes;
  k->queue = k->persistent && k->dynamic;
  /* H200, bf16 d128 causal, the grouped order walked blockIdx.x, + gridDim.x, ...: 0.66-0.73x the
  ** one-program-a-block grid at 4K and 16K, whose blocks the hardware hands out as SMs free up: at 16K block
  ** b's programs shorten by 4 key blocks a round from b's, so block 0 ran about twice block 64's keys */
  k->snake = k->pre_reload && k->uneven && !k->queue;
  k->pingpong = pingpong(k, loop);
  k->splitk = splitk(k, loop);
  int ncons = k->threads * (k->pingpong ? 2 : 1), all = ncons + k->producers, share = t->regs / all / 8 * 8;
  if (ncons >= 256 && t->regs) {
    k->reg_producer = ltP_gemms(consumers(loop)) > 2 ? 24 : 40;
    k->reg_consumer = (share * all - k->reg_producer * k->producers) / ncons / 8 * 8;
    if (k->reg_consumer > 256) k->reg_consumer = 256;
  }
  if (k->persistent) scalar_roles(k, loop);
}

/* The schedule of k:pipelined loop `loop` on t: plain when it asks for
** fewer than 2 stages, or when t can overlap neither by cp.async nor by
** the register prefetch; else a cp.async ring (its form: plan_ring) or the
** prefetch.  Notes the stages that have no effect. */
static void plan_loop(Kernel *k, Stmt *loop, const Target *t) {
  const char *why = NULL;
  if (loop->stages < 2) {
    loop->sched = SCHED_PLAIN;
  } else if (t->warpspec && !(loop->why_plain = warpspec_why(k, loop, t))) {
    plan_warpspec(k, loop, t);
    ltP_late_stage(k, loop, t);
  } else if (t->async_copy) {
    loop->sched = SCHED_RING;
  } else if (t->reg_prefetch && !(why = no_prefetch(k, loop, consumers(loop)))) {
    loop->sched = SCHED_PREFETCH;
    if (loop->stages > 2)
      ltP_note(k, t, loop->line, "k:pipelined's stages = %d has no effect on %s: without cp.async, iteration i + 1's copies "
                          "go through registers into a double buffer, as with stages = 2", loop->stages, t->name);
  } else {
    loop->sched = SCHED_PLAIN;
    if (t->warp == 1) why = "one thread runs each block, so there is nothing to overlap";
    else if (!why) why = "it has neither cp.async nor the register prefetch";
    ltP_note(k, t, loop->line, "k:pipelined's stages = %d has no effect on %s: %s; the loop runs one tile at a time",
         loop->stages, t->name, why);
  }
}

/* Plans the k:pipelined loops of block b and of the blocks inside it. */
static void plan_loops(Kernel *k, Block *b, const Target *t) {
  for (Stmt *s = b->first; s; s = s->next) {
    if (s->kind == S_FOR && s->stages) plan_loop(k, s, t);
    plan_loops(k, &s->body, t);
    plan_loops(k, &s->orelse, t);
  }
}

/* Picks how each k:pipelined loop of kernel k runs on target t (before
** pipeline.c makes the rings it needs). */
void ltP_plan_loops(Kernel *k, const Target *t) { plan_loops(k, &k->body, t); }

/* ------------------------------------------------------------------ */
/* fused statements and wgmmas in flight                               */

/* How many times expression x reads symbol s. */
static int count_reads(const Expr *x, const Sym *s) {
  if (!x) return 0;
  return (x->kind == E_SYM && x->sym == s) + count_reads(x->a, s) + count_reads(x->b, s) + count_reads(x->c, s);
}

/* Can let or load s be fused into the statement after it (stmt.c, and
** lower/copy.c's `then`)?  When that statement assigns a tile of the same
** shape and layout elementwise, and is the value's only reader: both then
** run in one loop, and the tile is never live whole. */
static int fusable(const Stmt *s) {
  const Stmt *u = s->next;
  const Sym *d = s->dst;
  if (s->kind != S_LET && s->kind != S_LOAD) return 0;
  if (!u || d->kind != SYM_LET || d->rank == 0 || !d->layout || d->uses != count_reads(u->val, d)) return 0;
  if (u->kind != S_ASSIGN && !(u->kind == S_LET && u->dst->rank > 0)) return 0;
  return u->dst->layout == d->layout && u->dst->shape[0] == d->shape[0] && u->dst->shape[1] == d->shape[1];
}

/* In a kernel of wgmma gemms, can load s of a row ([1, C]) be fused into
** the assignment after it to a [R, C] tile of its layout (its only
** reader, or a let fused into one)?  Then each column chunk is loaded and
** at once combined with every row (lower/copy.c): the row is never live
** whole.  A matmul's bias row held whole (64 registers beside 128
** accumulators: a warp holds all 256 columns of its rows) made the
** warp-specialized consumers, at setmaxnreg's 232 registers, spill
** 148-336 bytes, and the cp.async kernel 56 at 255 (ptxas, sm_90a). */
static int broadcast_fusable(const Stmt *s) {
  const Stmt *u = s->next;
  const Sym *d = s->dst;
  if (s->kind != S_LOAD || !u || d->kind != SYM_LET || d->rank == 0 || !d->layout) return 0;
  if (u->kind != S_ASSIGN && !(u->kind == S_LET && u->dst->rank > 0 && fusable(u)))   /* (a let into an assignment) */
    return 0;
  if (d->shape[0] != 1 || u->dst->shape[0] == 1 || d->uses != count_reads(u->val, d)) return 0;
  return u->dst->layout == d->layout && u->dst->shape[1] == d->shape[1];
}

/* Does statement s name symbol x (as destination, operand or in an
** expression)? */
static int names_sym(const Stmt *s, const Sym *x) {
  if (s->dst == x || s->areg == x) return 1;
  const Expr *xs[] = {s->val, s->other, s->lo, s->hi, s->step};
  for (int i = 0; i < 5; i++)
    if (count_reads(xs[i], x)) return 1;
  for (int d = 0; s->view && d < LT_MAXRANK; d++)
    if (count_reads(s->view->origin[d], x)) return 1;
  if (s->view && (count_reads(s->view->mask, x) || count_reads(s->view->rlo, x) || count_reads(s->view->rhi, x)))
    return 1;
  return 0;
}

/* names_sym, for the other passes. */
int ltP_names(const Stmt *s, const Sym *x) { return names_sym(s, x); }

/* Does a statement from `first` on (or one inside them) name symbol x? */
int ltP_uses(const Stmt *first, const Sym *x) {
  for (const Stmt *s = first; s; s = s->next)
    if (names_sym(s, x) || ltP_uses(s->body.first, x) || ltP_uses(s->orelse.first, x)) return 1;
  return 0;
}

/* Must the wgmmas in flight (accumulators inflight[0..n-1]) be done
** before statement s?  Register work that does not name their
** accumulators, global loads, shared-memory reads into registers and
** plain stores, and further wgmmas run while they do; anything with a
** barrier, shared memory writes or control flow waits first.  With
** `chain`, a wgmma gemm into an accumulator in flight does not wait
** either: wgmmas of one shape into the same registers are ordered by the
** hardware (PTX ISA, wgmma.fence); the warp-specialized loop chains them
** across iterations. */
int ltP_waits_for(const Sym *const *inflight, int n, const Stmt *s, int chain) {
  if (!n) return 0;
  if (chain && s->kind == S_GEMM && s->inst == MMA_WGMMA) {
    for (int i = 0; i < n; i++)
      if (inflight[i] != s->dst && names_sym(s, inflight[i])) return 1;
    return 0;
  }
  switch (s->kind) {
  case S_LET: case S_FRAG: case S_ASSIGN: case S_LOAD: case S_SLOAD: case S_GEMM: break;
  case S_STORE: if (!s->via) break; return 1;
  default: return 1;
  }
  for (int i = 0; i < n; i++)
    if (names_sym(s, inflight[i]) || (s->fuse && names_sym(s->next, inflight[i]))) return 1;
  return 0;
}

/* Adds accumulator acc to an in-flight set of n; returns the new count,
** -1 when the set would hold more than 8. */
int ltP_add_inflight(const Sym **set, int n, const Sym *acc) {
  for (int i = 0; i < n; i++)
    if (set[i] == acc) return n;
  if (n < 0 || n == 8) return -1;
  set[n] = acc;
  return n + 1;
}

/* The wgmmas in flight after statements from `first` on, as the emitter
** leaves them in a carrying loop's body (a wait before each statement
** that needs one; after an if of the body, what either branch leaves, an
** if inside a branch waits at its end), from the n in `set`; returns the
** new count, -1 if more than 8.  *waited: whether one of these statements
** (not one inside a branch) waits. */
static int wgmmas_after(const Stmt *first, const Sym **set, int n, int *waited, int top, int chain) {
  for (const Stmt *s = first; s && n >= 0; s = s->next) {
    if (ltP_waits_for(set, n, s, chain)) {
      n = 0;
      *waited = 1;
    }
    if (s->kind == S_GEMM && s->inst == MMA_WGMMA) n = ltP_add_inflight(set, n, s->dst);
    if (s->kind == S_IF && !top) n = 0;
    if (s->kind == S_IF && top) {
      const Sym *other[8];
      int ignored = 0, m = wgmmas_after(s->orelse.first, other, 0, &ignored, 0, chain);
      n = wgmmas_after(s->body.first, set, 0, &ignored, 0, chain);
      for (int i = 0; i < m && n >= 0; i++) n = ltP_add_inflight(set, n, other[i]);
      if (m < 0) n = -1;
    }
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* gemms                                                               */

/* Gemm s's instruction: the kernel's (mma.c; the gemms of a kernel share
** one warp grid), and for mma.sync with both operands in shared memory and
** B at most 8 n8 tiles wide (a wider one streams B), the double-buffered
** fragments.  Notes a tf32 that gets no tf32 instruction. */
static void plan_gemm(Kernel *k, Stmt *s, const Target *t) {
  s->inst = k->mma;
  s->ldsm_ring = s->inst == MMA_SYNC && !s->areg && s->dst->layout->wtn / 8 <= 8;
  if (s->tf32 && s->inst != MMA_TF32 && s->inst != MMA_WGMMA)   /* wgmma: .tf32 on f32 operands */
    ltP_note(k, t, s->line, "k:gemm's tf32 = true has no effect on %s: it has no tf32 matrix instruction; the f32 gemm runs "
                     "as multiply-adds (%s), in full f32", t->name, ltP_mma_name(s->inst));
}

/* ------------------------------------------------------------------ */
/* the form of a cp.async ring                                         */

/* The gemm of pipelined loop s when the loop is one software pipeline
** (SCHED_GEMM): its body is the copies, then that one gemm with
** double-buffered fragments, over 3 or more stages and K steps of 32 or
** more, with A stored [M, K], and at least 16 mmas a warp a step.
** Measured on the others (H100, nvcc 13.0), they keep the
** copy-then-compute loop: with A stored [K, M], ldmatrix.trans addresses
** of A take more registers, and with both fragment sets live across the
** copies a 64 x 64 warp tile spills (8 to 92 bytes); a 32 x 32 warp tile
** (the M = 16 bucket's) ran slower this way (26.8 against 31.6 TFLOP/s at
** 16 x 8192 x 8192). */
static Stmt *pipeline_gemm(Stmt *s, Stmt *g) {
  if (s->stages < 3 || !g || g->next || g->kind != S_GEMM || !g->ldsm_ring || g->trans_a) return NULL;
  const Layout *l = g->dst->layout;
  if (l->wtm / 16 * (l->wtn / 8) < 16) return NULL;
  return g->shared_b->shape[g->trans_b] % 32 ? NULL : g;
}

/* How many gemms among statements from `first` load fragments with
** ldmatrix (mma.sync, tf32)?  Of an if, the larger branch's count. */
static int ldsm_gemms(const Stmt *first) {
  int n = 0;
  for (const Stmt *x = first; x; x = x->next) {
    if (x->kind == S_GEMM && x->shared_b &&
        (x->inst == MMA_SYNC || x->inst == MMA_TF32 ||
         (x->inst == MMA_WGMMA && x->shared && !x->shared->wgmma)))   /* wgmma: an A it cannot read */
      n++;
    if (x->kind == S_IF) {
      int a = ldsm_gemms(x->body.first), b = ldsm_gemms(x->orelse.first);
      n += a > b ? a : b;
    }
  }
  return n;
}

/* Is statement x in block b (or in a block inside it)? */
static int in_block(const Block *b, const Stmt *x) {
  for (const Stmt *s = b->first; s; s = s->next)
    if (s == x || in_block(&s->body, x) || in_block(&s->orelse, x)) return 1;
  return 0;
}

/* Does statement x (or one inside it) store into shared tile sh?  (In a
** pipelined loop's consumers nothing else writes one: the copies are its
** producers, pipeline.c, and no gemm reads a reduction's scratch.) */
static int stores_shared(const Stmt *x, const Sym *sh) {
  if (x->kind == S_SSTORE && x->shared == sh) return 1;
  for (const Stmt *y = x->body.first; y; y = y->next)
    if (stores_shared(y, sh)) return 1;
  for (const Stmt *y = x->orelse.first; y; y = y->next)
    if (stores_shared(y, sh)) return 1;
  return 0;
}

/* Is shared tile sh stored into by the consumers from `first` of a loop
** before a barrier at their top level (not one inside a statement)?  The
** emitter waits for the wgmmas in flight before that barrier
** (ltP_waits_for), so a store after it finds them done in every thread;
** before it, only in the storing thread's own warpgroup. */
static int stored_before_barrier(const Stmt *first, const Sym *sh) {
  for (const Stmt *x = first; x && x->kind != S_BARRIER; x = x->next)
    if (stores_shared(x, sh)) return 1;
  return 0;
}

/* Does a wgmma gemm into accumulator acc among statements from `at` on
** (or inside them) read a shared tile other than a stage ring (its A,
** staged or not, or its B) that the consumers from `first` store into
** before a barrier at their top level?  Such a wgmma, left in flight
** across the back edge, still reads the tile past the barrier at the top
** of the next iteration: the wait before that store covers the storing
** warpgroup's wgmmas, not the other's (attention_varlen_bwd's dK/dV loop
** at 3 stages: dS^T staged in st_sh for dK += dS^T Q, mma.c, overwritten
** with the next P^T while the other warpgroup's dK wgmmas still read it).
** The rings are safe: the copies then go one iteration less ahead
** (sched_ring.c). */
static int overwrites_operand(const Stmt *first, const Stmt *at, const Sym *acc) {
  for (const Stmt *x = at; x; x = x->next) {
    if (x->kind == S_GEMM && x->dst == acc && x->inst == MMA_WGMMA) {
      const Sym *ops[2] = {x->shared, x->shared_b};
      for (int i = 0; i < 2; i++)
        if (ops[i] && ops[i]->stages <= 1 && stored_before_barrier(first, ops[i])) return 1;
    }
    if (overwrites_operand(first, x->body.first, acc) || overwrites_operand(first, x->orelse.first, acc)) return 1;
  }
  return 0;
}

/* The wgmmas that pipelined loop `loop` (consumers from `first`) leaves in
** flight across its back edge, into carry; returns how many, 0 for none.
** Those its body leaves in flight (wgmmas_after), when it has 3 stages or
** more, each accumulator is declared before the loop, and the body waits
** for them at its top level (not in a branch) in the next iteration.  Then
** an iteration's last wgmmas (attention: O += P V) run on while the next
** one's barrier, copies and first wgmmas are issued; the copies go one
** iteration less ahead, into the stage read two iterations before, whose
** wgmmas that wait covered.  (H100, attention d128 at 4K tokens: 385
** against 401 TFLOP/s.)  And when no other shared tile those wgmmas read
** is rewritten in the body before a barrier (overwrites_operand). */
static int back_edge_wgmmas(const Stmt *loop, const Stmt *first, const Sym **carry) {
  int waited = 0, n = wgmmas_after(first, carry, 0, &waited, 1, 0);
  if (loop->stages < 3 || n <= 0) return 0;
  for (int i = 0; i < n; i++)
    if (in_block(&loop->body, carry[i]->def) || overwrites_operand(first, first, carry[i])) return 0;
  const Sym *again[8];
  memcpy(again, carry, sizeof again);
  waited = 0;
  return wgmmas_after(first, again, n, &waited, 1, 0) >= 0 && waited ? n : 0;
}

/* The wgmma gemm that opens a pipelined loop's consumers `first`
** (fragment declarations before it), or NULL.  The refill goes after it:
** the tensor cores start on the stage just landed while the threads work
** out the copies' addresses and issue them.  (H100, attention d128 BM =
** BN = 128, 3 stages: 406 against 458 TFLOP/s at 4K tokens, 323 against
** 360 at 1K.)  After the first gemm only: with the dK/dV kernel's second
** one in flight too, ptxas spilled at D = 64 (at D = 128 even after the
** first: that loop says copies_first). */
static Stmt *opening_wgmma(Stmt *first) {
  for (Stmt *x = first; x && (x->kind == S_FRAG || x->kind == S_GEMM); x = x->next)
    if (x->kind == S_GEMM) return x->inst == MMA_WGMMA ? x : NULL;
  return NULL;
}

/* Does a statement from `first` on (or one inside them) other than a gemm
** name accumulator acc, i.e. work on its values? */
static int works_on(const Stmt *first, const Sym *acc) {
  for (const Stmt *x = first; x; x = x->next)
    if ((x->kind != S_GEMM && names_sym(x, acc)) || works_on(x->body.first, acc) || works_on(x->orelse.first, acc))
      return 1;
  return 0;
}

/* Does a gemm from `first` on (or inside them) read its A words into
** registers (Stmt.a_words)?  Its wgmmas then do not stay in flight across
** the back edge (Stmt.drain): the next iteration's fragments, declared in
** the body, would be written while they read the last ones. */
static int a_words_in(const Stmt *first) {
  for (const Stmt *x = first; x; x = x->next)
    if ((x->kind == S_GEMM && x->a_words) || a_words_in(x->body.first) || a_words_in(x->orelse.first)) return 1;
  return 0;
}

/* The form of pipelined loop s with a cp.async ring: the software pipeline
** with its gemm (pipeline_gemm); else the ring, refilled after its opening
** wgmma gemm unless it says copies_first, with the block's two warpgroups
** (256 threads) taking turns at that gemm when the body works on its
** result: in turns, one group's wgmmas run first and it works on their
** result (attention: the softmax) while the tensor cores run the other's,
** instead of both waiting for both (a body that is the gemm alone, a
** GEMM's, has nothing to overlap and keeps the refill).
** (H100, attention bf16 d128, BM = BN = 128: 249 against 266 TFLOP/s at
** 1K tokens causal, 479 against 534 at 16K.)  Only that gemm: taking turns
** at the second one too (P V) gave nothing back.  Two gemms with ldmatrix
** (attention: S = Q K^T, then O += P V): one's accumulator is live across
** the other, and the fragment addresses the compiler would hoist out of
** the loop spill (H100: 76-200 bytes at 32 rows a warp of D = 128); so
** the loop makes them from its own copy of the lane index (own_lane).
** With one gemm that costs time instead (16 x 8192 x 8192 matmul: 29
** against 31 TFLOP/s). */
static void plan_ring(Kernel *k, Stmt *s, const Target *t) {
  Stmt *p = consumers(s), *g = pipeline_gemm(s, p);
  if (g) {
    s->sched = SCHED_GEMM;
    s->open_gemm = g;
    if (s->copies_first)
      ltP_note(k, t, s->line, "k:pipelined's copies_first = true has no effect on %s: the loop and its one gemm run as one "
                       "software pipeline, the copies spread between the gemm's K steps", t->name);
    return;
  }
  const Sym *carry[8];
  int n = a_words_in(p) ? 0 : back_edge_wgmmas(s, p, carry);
  if (n) {
    s->carried = ltU_alloc(n * sizeof *s->carried);
    memcpy(s->carried, carry, n * sizeof *carry);
    s->ncarried = n;
  }
  s->own_lane = ldsm_gemms(p) >= 2;
  Stmt *w = opening_wgmma(p);
  if (w && !s->copies_first) {
    s->sched = k->threads == 256 && works_on(w->next, w->dst) ? SCHED_TURNS : SCHED_REFILL;
    s->open_gemm = w;
  } else if (!w && s->copies_first) {
    const char *why = t->wgmma ? "the loop's body does not open with a wgmma gemm" : "it has no wgmma";
    ltP_note(k, t, s->line, "k:pipelined's copies_first = true has no effect on %s: %s, so its copies are issued at the "
                     "body's top anyway", t->name, why);
  }
}

/* The wgmmas a warp-specialized loop's consumers leave in flight at the
** end of an iteration (its gemms chained into their accumulators across
** iterations, ltP_waits_for): the last group of them stays in flight
** while the next iteration waits for its stage, and the wait for the
** others releases the stage before (lower/sched_warpspec.c), or, where
** the body waits for all of them at its top level (attention, after
** S = Q K^T), that wait does (early_release).  And, as in
** plan_ring, the gemm two consumer warpgroups take in turns (open_gemm):
** the wgmma gemm that opens the body, where the body works on its result
** (attention: one warpgroup's softmax runs while the other's S = Q K^T
** does), in a body of two gemms.  (H200, attention bf16 d128 at 4K-16K
** tokens: without turns the warp-specialized loop was 0.97-1.03x the
** cp.async ring with them.)  With more, each warpgroup runs on: the dK/dV
** kernel's four gemms took 1.03-1.14x the time with turns at S^T (bf16
** d128, bench/results/2026-11-25-h200-attention-bwd-ab.txt). */
/* Does the work from `first`, with the wgmmas into set[0..n-1] in flight,
** wait for every wgmma in flight at its top level (before a statement
** that is not in a branch), as the emitter waits (ltP_waits_for, chained)? */
static int waits_at_top(const Stmt *first, const Sym *const *set, int n) {
  const Sym *cur[8];
  memcpy(cur, set, n * sizeof *set);
  for (const Stmt *x = first; x && n >= 0; x = x->next) {
    if (ltP_waits_for(cur, n, x, 1)) return 1;
    if (x->kind == S_IF) return 0;
    if (x->kind == S_GEMM && x->inst == MMA_WGMMA) n = ltP_add_inflight(cur, n, x->dst);
  }
  return 0;
}

/* (continued) A body that is one gemm of Stmt.a_words alone (a GEMM's)
** rolls (Stmt.roll): a commit group per 8 of K, each register slot
** rewritten after the wait for the group that last read it, so the wgmmas
** stay in flight across the back edge.  A slot per 8 of the K step; at 128
** accumulators a thread two, one if swapped (ptxas at 168 registers
** spilled 8 bytes with more, in the swapped epilogue's scalar beta * C0).
** Two need an even count of K steps.  Other such bodies drain. */
static void plan_consumers(Kernel *k, Stmt *s) {
  Stmt *w = opening_wgmma(consumers(s));
  if (w && k->threads == 256 && works_on(w->next, w->dst) && ltP_gemms(consumers(s)) <= 2) s->open_gemm = w;
  Stmt *g = consumers(s);
  if (g && !g->next && g->kind == S_GEMM && g->a_words && g->inst == MMA_WGMMA && !s->open_gemm) {
    int steps = g->shared_b->shape[g->trans_b] / 8, accs = g->dst->shape[0] * g->dst->shape[1] / k->threads;
    s->roll = g->roll = accs < 128 ? steps : g->dst->layout->swap || steps % 2 ? 1 : 2;   /* slots (above) */
    s->carried = ltU_alloc(sizeof *s->carried);
    s->carried[0] = g->dst;
    s->ncarried = 1;
    return;
  }
  if ((s->drain = a_words_in(consumers(s)))) return;
  const Sym *carry[8];
  int waited = 0, n = wgmmas_after(consumers(s), carry, 0, &waited, 1, 1);
  if (n > 0) {   /* what one iteration leaves is what the next starts with */
    const Sym *again[8];
    memcpy(again, carry, sizeof again);
    n = wgmmas_after(consumers(s), again, n, &waited, 1, 1);
    if (n > 0) memcpy(carry, again, n * sizeof *again);
  }
  if (n > 0) {
    s->carried = ltU_alloc(n * sizeof *s->carried);
    memcpy(s->carried, carry, n * sizeof *carry);
    s->ncarried = n;
    s->early_release = waits_at_top(consumers(s), carry, n);
  }
}

/* Copy s into a shared tile (View.pieces): on a target with cp.async,
** where the rows of its tensor (unit-strided columns) may start off the
** 16-byte grid, their row stride not known to be a multiple of 16 bytes
** (a tn GEMM's A at M = 100: rows 200 bytes apart, every other one off the
** grid), a 16-byte chunk of such a row that is 8-byte aligned moves as two
** cp.async of 8 bytes (lt_cp_async_pieces, templates/cuda_pieces.h: one
** predicated asm statement, no branch), and in a kernel of one gemm a
** chunk only 4-byte aligned as four of 4 (lt_cp_async_pieces4,
** cuda_pieces4.h, a branch of its own: in the same asm its instructions
** cost every chunk, the tn GEMM at M = 100 0.59x -> 0.46x cuBLAS).  Element
** by element (synchronous loads, each waited for before the chunk's copies
** are issued) ran those GEMMs at 0.19-0.29x cuBLAS (H200; M = 102: 0.33x
** with the 4-byte pieces).  Kernels of several gemms (attention) keep the
** 8-byte form, their 4-byte aligned chunks element by element: they hold
** several accumulators across the loop, and 4-byte pieces spilled the
** sm_80 dK/dV kernels at ptxas's 168 registers (in the same asm bf16 D =
** 64, 8 bytes; a branch a size D = 32, 16), where the 8-byte form leaves
** them at their registers without pieces (docs/performance.md).  A copy
** whose rows are on the grid is left as it is (a base off the grid still
** goes element by element there).  Copies by cp.async (a stage ring, or a
** loop's lead-in) zero-filled outside the tensor only, as copy.c's path. */
static void plan_pieces(Kernel *k, Stmt *s, const Target *t) {
  View *v = s->view;
  const Expr *o = s->other;
  if (!t->async_copy || !s->shared || !(s->shared->stages > 1 || s->lead_in)) return;   /* (cp.async: copy.c) */
  if (!o || o->kind != E_CONST || o->cval != 0) return;   /* (zero-filled outside the tensor) */
  if (!v || v->scalar || v->rdim < 0 || v->cdim < 0 || v->rdim == v->cdim) return;
  if (!ltI_nonneg(v->origin[v->cdim]) && !ltP_mma_layout(k)) return;   /* (element by element there: copy.c) */
  long long one, eb = ltI_dtypes[v->t->dt].bytes;
  if (!ltI_const_int(v->t->strides[v->cdim], &one) || one != 1 || eb > 8 || 16 % eb) return;
  if (ltI_multiple_of(v->t->strides[v->rdim], 16 / eb)) return;
  v->pieces = ltP_gemms(k->body.first) > 1 ? 8 : 4;
}

/* Plans the statements of block b, those inside a statement first (a
** loop's form reads its gemms' plan). */
static void plan_block(Kernel *k, Block *b, const Target *t) {
  for (Stmt *s = b->first; s; s = s->next) {
    s->fuse = fusable(s) || (k->mma == MMA_WGMMA && broadcast_fusable(s));
    if (s->kind == S_G2S) plan_pieces(k, s, t);
    if (s->kind == S_GEMM) plan_gemm(k, s, t);
    plan_block(k, &s->body, t);
    plan_block(k, &s->orelse, t);
    if (s->kind == S_FOR && s->sched == SCHED_RING) plan_ring(k, s, t);
    if (s->kind == S_FOR && s->sched == SCHED_WARPSPEC) {
      plan_consumers(k, s);
      ltP_plan_defer(k, s);
      ltP_plan_defer_bwd(k, s);
      ltP_plan_rescale(s);
      ltP_plan_rowskip(k, s);
    }
    if (s->kind == S_FOR && s->sched == SCHED_PREFETCH && s->copies_first)
      ltP_note(k, t, s->line, "k:pipelined's copies_first = true has no effect on %s: without cp.async, iteration i + 1's "
                       "copies are loaded into registers at the body's top anyway", t->name);
  }
}

/* The rest of the plan of kernel k on target t, on its final statements
** (after barrier.c): gemms, fused statements, the rings' forms. */
void ltP_plan(Kernel *k, const Target *t) { plan_block(k, &k->body, t); }

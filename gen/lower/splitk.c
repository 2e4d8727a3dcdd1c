/*
** splitk.c: split-K for a ping-pong kernel (Kernel.splitk, pass/plan.c).
**
** The launcher (split_count below) may give each tile lt_splits programs,
** where the tiles alone leave SMs idle or a wave part-empty: program
** lt_prog is part lt_split = lt_prog % lt_splits of tile lt_tile =
** lt_prog / lt_splits, and runs the loop over its share of the range.
** After the loop the warpgroup stores its partial accumulator into its
** slot of the caller's workspace (thread-major, 4 floats a thread at a
** time), fences it and counts the part on the tile's counter; the part
** that counts last reads the others' slots and adds the parts in part
** order (0, 1, ...: the same sum whichever part comes last, so the result
** does not depend on the order the SMs finish in), resets the counter and
** runs the code after the loop; the others go on to their next program.
** No part waits for another, so no launch order or co-residency is
** assumed.  The workspace: the tiles' counters (zero before the first
** launch; each launch leaves them zero), room for as many as a launch on
** the device can have (UNITS_PER_SM an SM, whatever the call's sizes: a
** shape-dependent split would leave one call's slots where the next
** call's counters are), then the slots.
*/
#include "emit/emit.h"

/* The most programs a split launch runs, in SMs: bounds the workspace.
** One: on the H200 (bench/results/2026-11-25-h200-matmul-sm90a-splitk.txt)
** splits that fit one program a block gained 4-11% over the tiles alone,
** while those giving a block two or three programs lost 9-21% (each
** program's slot, fence and count cost about five iterations). */
#define UNITS_PER_SM 1
/* The most programs a split launch runs, as text over int64_t `sms`. */
static const char *units(void) { return UNITS_PER_SM == 1 ? "sms" : ltU_fmt("sms * %d", UNITS_PER_SM); }

/* The parts of a tile, at most. */
#define MAX_SPLITS 16

/* The accumulator the consumers' one gemm adds into (plan.c, splitk). */
static const Sym *accumulator(const Stmt *s) {
  const Stmt *p = s->body.first;
  while (p && ltP_is_producer(p)) p = p->next;
  return p->dst;
}

/* Floats of one slot: a program's accumulator, all its threads'. */
static int slot_floats(const Kernel *k) {
  const Sym *acc = accumulator(k->ws);
  return ltP_elems(acc->layout, acc->shape) * k->threads;
}

/* In a persistent program loop: this program's part and tile (the grid's
** ids are then the tile's, q names it). */
const char *ltL_splitk_ids(E *e) {
  ltE_line(e, "const int lt_split = lt_prog %% lt_splits;   /* split-K: part lt_split of the loop's range, of tile "
              "lt_tile */");
  ltE_line(e, "const int lt_tile = lt_prog / lt_splits;");
  return "lt_tile";
}

/* This program's share of loop s's range (r's lo and hi become its bounds,
** lt_lo and lt_hi): part i of n runs lo + len i / n up to lo + len (i + 1)
** / n, in 64 bits (len i reaches 2^35 at 16 parts). */
void ltL_splitk_range(E *e, Ring *r) {
  int zero = !strcmp(r->lo, "0");
  const char *len = zero ? ltU_fmt("(int64_t)lt_imax(%s, 0)", r->hi)
                         : ltU_fmt("(int64_t)lt_imax(%s - %s, 0)", ltE_paren(r->hi), ltE_paren(r->lo));
  const char *at = zero ? "" : ltU_fmt("%s + ", r->lo);
  ltE_line(e, "const int lt_lo = %s(int)(%s * lt_split / lt_splits), lt_hi = %s(int)(%s * (lt_split + 1) / "
              "lt_splits);   /* this part's iterations */", at, len, at, len);
  r->lo = "lt_lo";
  r->hi = "lt_hi";
}

/* After the consumers' loop of split-K kernel e->k (its wgmmas done): the
** parts meet (the top of this file); a part that is not the tile's last
** goes on to its next program. */
void ltL_splitk_reduce(E *e) {
  Kernel *k = e->k;
  const Sym *acc = accumulator(k->ws);
  int n = ltP_elems(acc->layout, acc->shape), T = k->threads, slot = slot_floats(k);
  const char *a = acc->name;
  ltE_line(e, "if (lt_splits > 1) {   /* split-K: the tile's parts meet in the workspace, the last to arrive adds them "
              "in part order */");
  e->depth++;
  ltE_line(e, "float *lt_mine = lt_ws + ((int64_t)lt_tile * lt_splits + lt_split) * %d + tid * 4;   /* this part's slot, "
              "4 floats a thread at a time */", slot);
  ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int i = 0; i < %d; i += 4) lt_split_store4(lt_mine + i * %d, %s[i], %s[i + 1], %s[i + 2], %s[i + 3]);",
           n, T, a, a, a, a);
  ltE_line(e, "lt_split_fence();   /* the slot reaches every SM before the part is counted */");
  ltE_line(e, "lt_named_barrier(7 + lt_wg, %d);   /* the warpgroup's slot is whole */", T);
  ltE_line(e, "if (!lt_named_barrier_or(9 + lt_wg, %d, tid == 0 && lt_split_arrive(&lt_sem[lt_tile], lt_splits))) "
              "continue;   /* another part is still to come: it adds this one (a barrier of its own: bar.red is not "
              "to share one with bar.sync) */", T);
  ltE_line(e, "lt_split_fence();   /* the other parts' slots, as they counted them */");
  ltE_line(e, "const float *lt_parts = lt_ws + (int64_t)lt_tile * lt_splits * %d + tid * 4;", slot);
  ltE_line(e, "float lt_sum[%d];   /* parts 0, 1, ... added in turn; each part's loads issued together */", n);
  for (int q = 0; q < 2; q++) {   /* part 0 into lt_sum, then each next part added to it */
    if (q) {
      ltE_line(e, "for (int q = 1; q < lt_splits; ++q) {");
      e->depth++;
    }
    const char *part = q ? "q" : "0", *op = q ? "+=" : "=";
    ltE_line(e, "if (lt_split == %s) {", part);
    ltE_line(e, "  #pragma unroll");
    ltE_line(e, "  for (int i = 0; i < %d; ++i) lt_sum[i] %s %s[i];", n, op, a);
    ltE_line(e, "} else {");
    ltE_line(e, "  #pragma unroll");
    ltE_line(e, "  for (int i = 0; i < %d; i += 4) {", n);
    ltE_line(e, "    const float4 v = lt_split_load4(lt_parts + %si * %d);", q ? ltU_fmt("(int64_t)q * %d + ", slot) : "", T);
    ltE_line(e, "    lt_sum[i] %s v.x, lt_sum[i + 1] %s v.y, lt_sum[i + 2] %s v.z, lt_sum[i + 3] %s v.w;", op, op, op, op);
    ltE_line(e, "  }");
    ltE_line(e, "}");
    if (q) {
      e->depth--;
      ltE_line(e, "}");
    }
  }
  ltE_line(e, "#pragma unroll");
  ltE_line(e, "for (int i = 0; i < %d; ++i) %s[i] = lt_sum[i];", n, a);
  e->depth--;
  ltE_line(e, "}");
}

/* The kernel's parameters after the tensors and sizes: the workspace. */
const char *ltL_splitk_params(void) {
  return "float *__restrict__ lt_ws, unsigned *__restrict__ lt_sem, int lt_splits";
}

/* The lines that choose the parts a tile of split-K kernel e->k: `splits`
** (each name below followed by sfx: "" in its launcher, "_alt" and the
** like in the shape dispatch's weighing, pass/waves.c), for `programs`
** tiles on `sms` SMs (texts; workspace, workspace_bytes the caller's):
** the count whose waves of parts (a part costing its share of the loop's
** iterations, `iters`, and about one more, its slot written and read) take
** the least time, up to MAX_SPLITS, UNITS_PER_SM programs an SM, an
** iteration a part, and what the workspace holds; 1 without one.  (In the
** emulator's launcher, emu, LT_EMU_SPLITS forces a count, past
** UNITS_PER_SM where the workspace holds it.) */
static void split_choice(E *e, const char *programs, const char *sms, const char *sfx, int emu) {
  Kernel *k = e->k;
  const Stmt *s = k->ws;
  e->wide = 1;
  const char *lo = ltE_itext(e, ltI_host_expr(s->lo)), *hi = ltE_itext(e, ltI_host_expr(s->hi));
  e->wide = 0;
  int slot = slot_floats(k);
  const char *u = UNITS_PER_SM == 1 ? sms : ltU_fmt("%s * %d", sms, UNITS_PER_SM);
  ltE_line(e, "int splits%s = 1;", sfx);
  ltE_line(e, "const int64_t iters%s = (int64_t)(%s) - (int64_t)(%s);", sfx, hi, lo);
  ltE_line(e, "const int64_t counters%s = ((int64_t)%s * 4 + 255) / 256 * 256;   /* the counters' bytes, the same in "
              "every call: a call of fewer tiles than the last must not read its slots as counters */", sfx, u);
  ltE_line(e, "if (workspace != NULL && workspace_bytes > 0 && (uintptr_t)workspace %% 16 == 0) {");
  e->depth++;
  ltE_line(e, "int64_t best = (%s + %s - 1) / %s * iters%s;", programs, sms, sms, sfx);
  ltE_line(e, "for (int64_t p = 2; p <= %d && p <= iters%s && %s * p <= (int64_t)%s; ++p) {", MAX_SPLITS, sfx, programs,
           u);
  ltE_line(e, "  const int64_t cost = (%s * p + %s - 1) / %s * ((iters%s + p - 1) / p + 1);", programs, sms, sms, sfx);
  ltE_line(e, "  if (counters%s + %s * p * %d * 4 > workspace_bytes) break;", sfx, programs, slot);
  ltE_line(e, "  if (cost < best) best = cost, splits%s = (int)p;", sfx);
  ltE_line(e, "}");
  if (emu) {   /* tests/emu: the parts without the SMs that call for them */
    ltE_line(e, "const long forced = lt_emu::env_long(\"LT_EMU_SPLITS\", 0);   /* the emulator: LT_EMU_SPLITS=n takes n "
                "parts a tile where they fit */");
    ltE_line(e, "if (forced > 1 && forced <= iters && programs * 4 <= counters && counters + programs * forced * %d * 4 <= "
                "workspace_bytes) splits = (int)forced;", slot);
  }
  e->depth--;
  ltE_line(e, "}");
}

/* The launcher's lines that choose lt_splits for split-K kernel e->k
** (`programs` tiles, `sms` SMs; split_choice) and set the kernel's
** workspace arguments. */
void ltL_splitk_launch(E *e) {
  ltE_line(e, "/* split-K: the parts a tile (lower/splitk.c), where the tiles leave a wave part-empty and the workspace "
              "holds them */");
  split_choice(e, "programs", "sms", "", e->emu);
}

/* The shape dispatch's weight of split-K kernel e->k (pass/waves.c), as
** it launches: the lines that declare int64_t programs<sfx> (the text
** programs: its tiles) and choose splits<sfx> as its launcher does
** (split_choice; sm_count the SMs, without the emulator's forced count),
** then the text of the work its busiest SM gets, in elements of tile
** (tile: a program's, fixed: its fixed part, pass/waves.c): its parts an
** SM, rounded up, times the tile times a part's iterations and one more
** over the loop's, and the fixed part. */
const char *ltL_splitk_weight(E *e, const char *programs, const char *sfx, long long tile, long long fixed) {
  ltE_line(e, "const int64_t programs%s = %s;", sfx, programs);
  split_choice(e, ltU_fmt("programs%s", sfx), "sm_count", sfx, 0);
  const char *f = fixed ? ltU_fmt(" + %lld", fixed) : "";
  return ltU_fmt("splits%s > 1 ? (double)((programs%s * splits%s + sm_count - 1) / sm_count) * (%lld.0 * "
                 "(double)((iters%s + splits%s - 1) / splits%s + 1) / (double)iters%s%s) : "
                 "(double)((programs%s + sm_count - 1) / sm_count * (%lld%s))",
                 sfx, sfx, sfx, tile, sfx, sfx, sfx, sfx, f, sfx, tile, f);
}

/* The workspace bytes split-K kernel k may use on a device of `sms` SMs
** (its launcher takes no more), as text over int64_t sms. */
const char *ltL_splitk_bound(const Kernel *k) {
  return ltU_fmt("(%s * 4 + 255) / 256 * 256 + %s * %d * 4", units(), units(), slot_floats(k));
}

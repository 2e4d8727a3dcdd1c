/*
** barrier.c: places __syncthreads so the kernel author never does.
**
** Walks the statements in order, remembering which shared buffers were
** read or written since the last barrier.  A read of a buffer with a
** pending write, or a write to a buffer with a pending read or write,
** gets a barrier in front of it (read-after-write, write-after-read and
** write-after-write across threads).  A loop body is walked twice, the
** second time starting from what the end of the body leaves behind, so
** that the next iteration's accesses are ordered against this one's.
** Conditions of k:when are uniform, so a barrier inside a branch is
** reached by every thread of the block or by none.  A reduction that goes
** through shared memory has its own barrier between its write and read.
** A pipelined loop with a stage ring (pipeline.c) has a barrier at the top
** of every iteration, printed by the emitter; here it only needs the
** buffers clear on entry, and leaves its rings pending on exit.  A
** warp-specialized one has none (its consumers wait on mbarriers): its
** consumers are walked from what an iteration leaves behind, so that an
** iteration's write of a staging tile waits for the last one's reads.  Its
** lead-in copies (pipeline.c) land at that barrier too: they need none
** before the loop, and stay pending after it (the loop may not run).
*/
#include <string.h>

#include "lt.h"

#define MAXBUF 64

typedef struct State State;
static void walk(Block *b, State *st, int insert);
enum { PEND_R = 1, PEND_W = 2, PEND_LEAD = 4 };   /* PEND_LEAD: a lead-in copy's write */

struct State { Sym *buf[MAXBUF]; int flags[MAXBUF]; int n; };

static int *flag_of(State *st, Sym *s) {
  for (int i = 0; i < st->n; i++)
    if (st->buf[i] == s) return &st->flags[i];
  if (st->n == MAXBUF) ltU_error(s->line, "too many shared buffers (more than %d)", MAXBUF);
  st->buf[st->n] = s;
  st->flags[st->n] = 0;
  return &st->flags[st->n++];
}

static void merge(State *into, const State *from) {
  for (int i = 0; i < from->n; i++) *flag_of(into, from->buf[i]) |= from->flags[i];
}

static void clear(State *st) { st->n = 0; }

/* Does access (read or write) of buf in st need a barrier first? */
static int conflicts(State *st, Sym *buf, int write) {
  int f = *flag_of(st, buf);
  return write ? f != 0 : (f & (PEND_W | PEND_LEAD)) != 0;
}

static void walk(Block *b, State *st, int insert);

/* Puts a barrier before *link (when insert) and clears the state. */
static void barrier_before(Stmt **link, State *st, int insert, int line) {
  if (insert) {
    Stmt *bar = ltI_stmt(S_BARRIER, line);
    bar->next = *link;
    *link = bar;
  }
  clear(st);
}

/* A pipelined loop with stage rings at *link: a barrier before it when
** anything is pending (its prologue writes the rings), its consumers
** walked from the clean state of the barrier at the top of an iteration
** (warp-specialized: from the state one iteration leaves, its rings'
** lead-in marks dropped). */
static void ring_loop(Stmt **link, Stmt *loop, State *st, int insert) {
  int pending = 0;
  for (int i = 0; i < st->n; i++) pending |= st->flags[i] & (PEND_R | PEND_W);
  if (pending) barrier_before(link, st, insert, loop->line);
  for (int i = 0; i < st->n; i++)
    if (st->flags[i] & PEND_LEAD) st->flags[i] = PEND_W;
  State body;
  memset(&body, 0, sizeof body);
  Stmt **clink = &loop->body.first;
  while (*clink && ltP_is_producer(*clink)) {
    if ((*clink)->kind == S_G2S) *flag_of(st, (*clink)->shared) |= PEND_R | PEND_W;
    clink = &(*clink)->next;
  }
  Block consumers = {*clink, NULL};
  if (loop->sched == SCHED_WARPSPEC) {   /* no barrier at the top: from what an iteration leaves behind */
    walk(&consumers, &body, 0);
    for (int i = 0; i < body.n; i++) body.flags[i] &= PEND_R | PEND_W;
  }
  walk(&consumers, &body, insert);
  *clink = consumers.first;
  if (consumers.first) loop->body.last = consumers.last;
  merge(st, &body);
}

static void walk(Block *b, State *st, int insert) {
  for (Stmt **link = &b->first; *link; link = &(*link)->next) {
    Stmt *s = *link;
    Sym *rd = NULL, *rd2 = NULL, *wr = NULL;
    switch (s->kind) {
    case S_G2S: case S_SSTORE: wr = s->shared; break;
    case S_SLOAD: rd = s->shared; break;
    case S_GEMM: rd = s->shared, rd2 = s->shared_b; break;
    case S_REDUCE: wr = s->scratch; break;
    case S_FOR: {
      if (s->stages > 1) {
        ring_loop(link, s, st, insert);
        if (insert && (*link)->kind == S_BARRIER) link = &(*link)->next;
        continue;
      }
      State first = *st;
      walk(&s->body, &first, 0);     /* what one iteration leaves behind */
      State again = *st;
      merge(&again, &first);
      walk(&s->body, &again, insert);
      merge(st, &again);
      continue;
    }
    case S_IF: {
      State a = *st, e = *st;
      walk(&s->body, &a, insert);
      walk(&s->orelse, &e, insert);
      *st = a;
      merge(st, &e);
      continue;
    }
    default: break;
    }
    if ((rd && conflicts(st, rd, 0)) || (rd2 && conflicts(st, rd2, 0)) || (wr && conflicts(st, wr, 1))) {
      barrier_before(link, st, insert, s->line);
      if (insert) link = &(*link)->next;
    }
    if (rd) *flag_of(st, rd) |= PEND_R;
    if (rd2) *flag_of(st, rd2) |= PEND_R;
    if (wr && s->kind == S_REDUCE) {   /* write, own barrier, read */
      clear(st);
      *flag_of(st, wr) |= PEND_R;
    } else if (wr) {
      *flag_of(st, wr) |= s->kind == S_G2S && s->lead_in ? PEND_LEAD : PEND_W;
    }
  }
  ltI_fix_last(b);
}

/* Inserts the barriers the kernel needs (targets with more than one thread). */
void ltP_barrier(Kernel *k) {
  State st;
  memset(&st, 0, sizeof st);
  walk(&k->body, &st, 1);
}

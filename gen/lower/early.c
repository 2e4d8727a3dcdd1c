/*
** early.c: the loads after a warp-specialized loop that go through a
** shared tile (Stmt.early, pass/early.c).
**
** At the top of each program the consumers copy the load's view into its
** shared tile by cp.async (16-byte chunks, edges zero-filled; element by
** element where the tensor is not 16-byte aligned) and go on to the loop
** while it lands; the load itself waits for the copy, meets the consumers'
** barrier (every thread's chunks have landed) and reads the shared tile.
** Before the copy, the program before must be done with the tile: each
** thread first waits for its own copies still in flight (a split-K part
** that went on without the code after the loop left its copy unwaited),
** then the consumers' barrier (every thread has read the tile).  In
** ping-pong each warpgroup has a tile of its own (index lt_wg).
*/
#include "emit/emit.h"

/* The consumers' copies, at the top of a program of warp-specialized
** kernel e->k, into the shared tiles of its staged loads. */
void ltL_early_issue(E *e) {
  const char *stage = e->stage;
  for (Stmt *s = e->k->ws->next; s; s = s->next) {
    if (s->kind != S_LOAD || !s->early) continue;
    ltE_comment(e, s->line);
    ltE_line(e, "lt_cp_async_wait<0>();   /* %s: this thread's copy of the program before has landed ... */",
             s->early->name);
    ltE_line(e, "%s   /* ... and every consumer thread has read it */", e->barrier);
    ltE_line(e, "/* cp.async into %s: lands while the loop below runs, waited for where the load stands */",
             s->early->name);
    e->stage = e->k->pingpong ? "lt_wg" : NULL;
    e->lead_in = 1;
    ltL_load_store(e, s->view, NULL, NULL, s->other, s->early, NULL, NULL);
    e->lead_in = 0;
    e->stage = stage;
    ltE_line(e, "lt_cp_async_commit();");
  }
  e->last_line = 0;
}

/* Load s (Stmt.early): its copy's wait, the consumers' barrier, and the
** shared tile into s's registers. */
void ltL_early_read(E *e, Stmt *s) {
  const char *stage = e->stage;
  ltE_line(e, "lt_cp_async_wait<0>();   /* %s, copied at the program's top, has landed ... */", s->early->name);
  ltE_line(e, "%s   /* ... every consumer thread's chunks */", e->barrier);
  Stmt r = *s;
  r.kind = S_SLOAD;
  r.shared = s->early;
  e->stage = e->k->pingpong ? "lt_wg" : NULL;
  ltL_shared_rw(e, &r);
  e->stage = stage;
}

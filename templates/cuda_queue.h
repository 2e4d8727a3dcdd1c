
/* A persistent grid's programs handed out as blocks free up (k:grid's
** dynamic = true, gen's Kernel.queue; gen/lower/sched_warpspec.c;
** included where a kernel of the file has one).  Block b runs program b
** first; each next program comes from a counter in the launcher's
** workspace, ticket t being program gridDim.x + t, so the programs go out
** in the grid's order to whichever block asks first.  Every block asks
** until it gets one past the last, so a launch takes exactly `programs`
** tickets (programs - gridDim.x programs, one past the end a block), and the
** block that takes the last one, after every other ask, sets the counter
** back to 0 for the next launch on the stream: no host work between calls,
** so they can be captured in a CUDA graph. */

/* The program after `prog` for this block, of `programs` (programs: none
** left): from the counter at queue, or the one gridDim.x on where queue is
** NULL (one program a block: the launcher made a block a program). */
LT_FN int lt_queue_next(unsigned *queue, int prog, int programs) {
  if (queue == NULL) return prog + (int)gridDim.x < programs ? prog + (int)gridDim.x : programs;
  const unsigned t = atomicAdd(queue, 1u);
  if (t == (unsigned)programs - 1) atomicExch(queue, 0u);
  return t < (unsigned)programs - gridDim.x ? (int)(gridDim.x + t) : programs;
}

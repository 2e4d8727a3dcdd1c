/*
** inline.c: forward substitution of temporaries.
**
** Every DSL operation binds its result to a symbol (an S_LET), so that a
** value means what it meant where it was made, even if a fragment it reads
** is assigned later.  This pass folds an unnamed temporary back into its
** only use when that is safe:
**   - a uniform scalar (sizes, ids, loop indices) is pure: always;
**   - a tile value: when the use is a later statement of the same block,
**     has the same shape (no recomputation per broadcast element), and no
**     statement in between writes a fragment the value reads; a value that
**     divides or calls a function stays a register tile where the use
**     works on a larger tile that reads it broadcast.
** Values named by a Lua local stay as named registers, for readability.
*/
#include "lt.h"

/* The work one try_inline may do, in statements and expression nodes
** visited: a value used far from where it is made (a kernel file can make
** 60,000 and use them all at the end) stays a temporary instead of costing
** time that grows with the square of the kernel.  The shipped kernels use
** a few hundred at most. */
#define REACH 4096
static long reach;

/* Finds the slot holding a reference to s in e, or NULL. */
static Expr **find_in_expr(Expr **slot, Sym *s) {
  Expr *e = *slot;
  if (!e || --reach < 0) return NULL;
  if (e->kind == E_SYM && e->sym == s) return slot;
  Expr **r;
  if ((r = find_in_expr(&e->a, s)) || (r = find_in_expr(&e->b, s)) || (r = find_in_expr(&e->c, s))) return r;
  return NULL;
}

static Expr **find_in_block(Block *b, Sym *s);

/* Finds the slot that reads s in statement st (its nested blocks included). */
static Expr **find_in_stmt(Stmt *st, Sym *s, int nested) {
  Expr **r;
  if ((r = find_in_expr(&st->val, s)) || (r = find_in_expr(&st->other, s)) || (r = find_in_expr(&st->lo, s)) ||
      (r = find_in_expr(&st->hi, s)) || (r = find_in_expr(&st->step, s)))
    return r;
  if (st->view)
    for (int i = 0; i < st->view->t->trank; i++)
      if ((r = find_in_expr(&st->view->origin[i], s))) return r;
  if (st->view && (r = find_in_expr(&st->view->mask, s))) return r;
  if (st->view && st->view->rlo && ((r = find_in_expr(&st->view->rlo, s)) || (r = find_in_expr(&st->view->rhi, s))))
    return r;
  if (nested && ((r = find_in_block(&st->body, s)) || (r = find_in_block(&st->orelse, s)))) return r;
  return NULL;
}

static Expr **find_in_block(Block *b, Sym *s) {
  for (Stmt *st = b->first; st && --reach >= 0; st = st->next) {
    Expr **r = find_in_stmt(st, s, 1);
    if (r) return r;
  }
  return NULL;
}

/* True if expression e reads a fragment that statement st (or its nested
** blocks) writes. */
static int reads_written(Expr *e, Stmt *st);

static int writes_sym(Stmt *st, Sym *f) {
  for (; st; st = st->next) {
    if (--reach < 0) return 1;   /* out of reach: take it as written (no inlining) */
    if ((st->kind == S_ASSIGN || st->kind == S_LOAD || st->kind == S_SLOAD || st->kind == S_GEMM) && st->dst == f)
      return 1;
    if (writes_sym(st->body.first, f) || writes_sym(st->orelse.first, f)) return 1;
  }
  return 0;
}

static int reads_written(Expr *e, Stmt *st) {
  if (!e) return 0;
  if (e->kind == E_SYM && e->sym->kind == SYM_FRAG) {
    Stmt one = *st;
    one.next = NULL;
    if (writes_sym(&one, e->sym)) return 1;
  }
  return reads_written(e->a, st) || reads_written(e->b, st) || reads_written(e->c, st);
}

/* Does e divide or call a function (exp, log, sqrt, tanh, ...)?  Such a
** value is computed once where it is made rather than once an element
** where a larger tile reads it broadcast (attention's 1 / l a row, inlined
** into the store of O, was 64 divisions a thread). */
static int costly(const Expr *e) {
  if (!e) return 0;
  if (e->kind == E_BINARY && (e->op == B_DIV || e->op == B_IDIV || e->op == B_MOD || e->op == B_POW)) return 1;
  if (e->kind == E_UNARY && e->op >= U_SIGMOID) return 1;
  return costly(e->a) || costly(e->b) || costly(e->c);
}

/* Tries to fold the S_LET at *link into its use; returns 1 if it did. */
static int try_inline(Stmt **link) {
  Stmt *def = *link;
  Sym *s = def->dst;
  if (s->named || s->uses != 1) return 0;
  reach = REACH;
  if (s->rank == 0) {
    for (Stmt *u = def->next; u && --reach >= 0; u = u->next) {
      Expr **slot = find_in_stmt(u, s, 1);
      if (reach < 0) return 0;
      if (slot) {
        *slot = def->val;
        *link = def->next;
        return 1;
      }
    }
    return 0;
  }
  for (Stmt *u = def->next; u && --reach >= 0; u = u->next) {
    Expr **slot = find_in_stmt(u, s, 0);
    if (reach < 0) return 0;
    if (slot) {
      if ((*slot)->shape[0] != s->shape[0] || (*slot)->shape[1] != s->shape[1]) return 0;
      if (u->val && (u->val->shape[0] != s->shape[0] || u->val->shape[1] != s->shape[1]) && costly(def->val))
        return 0;   /* read broadcast: once a row (or column), not once an element */
      if (u->kind == S_REDUCE || u->kind == S_LET || u->kind == S_ASSIGN || u->kind == S_STORE ||
          u->kind == S_SSTORE || u->kind == S_GEMM) {
        Expr *val = def->val;
        /* the value must not see a write made between def and use */
        for (Stmt *m = def->next; m != u; m = m->next)
          if (reads_written(val, m) || reach < 0) return 0;
        *slot = val;
        *link = def->next;
        return 1;
      }
      return 0;
    }
    if (find_in_stmt(u, s, 1) || reach < 0) return 0;   /* used inside a nested block */
  }
  return 0;
}

static int inline_block(Block *b) {
  int changed = 0;
  Stmt **link = &b->first;
  while (*link) {
    Stmt *st = *link;
    if (st->kind == S_LET && try_inline(link)) {
      changed = 1;
      continue;
    }
    changed |= inline_block(&st->body);
    changed |= inline_block(&st->orelse);
    link = &st->next;
  }
  ltI_fix_last(b);
  return changed;
}

/* A conversion that changes nothing in registers (f16/bf16/fp8 are held as f32). */
static int same_in_registers(Dtype from, Dtype to) {
  return from == to || (to == DT_F32 && (from == DT_F16 || from == DT_BF16 || ltI_is_fp8(from)));
}

/* Copy propagation: `local x = k:load(...):cast("f32")` makes an unnamed
** loaded tile t and x = cast(t).  When the cast changes nothing in
** registers and t has no other use, the load writes x directly. */
static int propagate_block(Block *b) {
  int changed = 0;
  for (Stmt **link = &b->first; *link;) {
    Stmt *st = *link;
    changed |= propagate_block(&st->body) | propagate_block(&st->orelse);
    Expr *v = st->kind == S_LET && st->dst->rank ? st->val : NULL;
    if (v && v->kind == E_CAST && same_in_registers(v->a->dt, v->dt)) v = v->a;
    if (v && v->kind == E_SYM && v->sym->kind == SYM_LET && !v->sym->named && v->sym->uses == 1 &&
        v->sym->def && v->sym->shape[0] == st->dst->shape[0] && v->sym->shape[1] == st->dst->shape[1]) {
      Stmt *def = NULL;
      for (Stmt *d = b->first; d != st; d = d->next)
        if (d == v->sym->def) def = d;
      if (def && def->kind != S_LET) {
        def->dst = st->dst;
        st->dst->def = def;
        *link = st->next;
        changed = 1;
        continue;
      }
    }
    link = &st->next;
  }
  ltI_fix_last(b);
  return changed;
}

/* Removes values nobody reads: lets and loads into lets (they have no
** effect besides their result). */
static int dead_block(Block *b) {
  int changed = 0;
  for (Stmt **link = &b->first; *link;) {
    Stmt *st = *link;
    changed |= dead_block(&st->body) | dead_block(&st->orelse);
    if ((st->kind == S_LET || (st->kind == S_LOAD && st->dst->kind == SYM_LET)) && st->dst->uses == 0) {
      *link = st->next;
      changed = 1;
      continue;
    }
    link = &st->next;
  }
  ltI_fix_last(b);
  return changed;
}

/* Inlines until nothing changes; see the comment at the top. */
void ltP_inline(Kernel *k) {
  int changed;
  do {
    ltI_count_uses(k);
    changed = inline_block(&k->body);
    ltI_count_uses(k);
    changed |= propagate_block(&k->body);
    ltI_count_uses(k);
    changed |= dead_block(&k->body);
  } while (changed);
  ltI_count_uses(k);
}

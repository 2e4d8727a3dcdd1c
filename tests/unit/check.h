/*
** check.h: the whole unit-test harness.  Each check prints one line,
**   PASS unit/<name>     or     FAIL unit/<name>: <why> (file:line)
** and a test program exits 0 (tests/unit/run.sh aggregates the lines).
**
** ltU_error() is gen's way to report a user error: it formats
** "file:line: error: msg" and calls ltU_raise (if set) or prints it and
** longjmps to ltU_jmp.  EXPECT_ERROR sets ltU_raise to a hook that keeps
** the message and longjmps to ltU_jmp itself, so the message can be checked.
*/
#ifndef CHECK_H
#define CHECK_H

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "lt.h"

extern jmp_buf ltU_jmp;                      /* gen/util.c */
extern void (*ltU_raise)(const char *msg);   /* gen/util.c */

static char check_err[2048];
static int check_fails;

static void check_raise(const char *msg) {
  snprintf(check_err, sizeof check_err, "%s", msg);
  longjmp(ltU_jmp, 1);
}

static void check_report(const char *name, int ok, const char *why, const char *file, int line) {
  if (ok) printf("PASS unit/%s\n", name);
  else {
    printf("FAIL unit/%s: %s (%s:%d)\n", name, why, file, line);
    check_fails++;
  }
  fflush(stdout);
}

/* CHECK(name, cond): passes when cond is true. */
#define CHECK(name, cond) check_report((name), (cond) ? 1 : 0, "not true: " #cond, __FILE__, __LINE__)

/* CHECK_INT(name, got, want): integer equality, with both values on failure. */
#define CHECK_INT(name, got, want)                                                        \
  do {                                                                                    \
    long long g_ = (long long)(got), w_ = (long long)(want);                              \
    char why_[256];                                                                       \
    snprintf(why_, sizeof why_, "%s is %lld, want %lld", #got, g_, w_);                  \
    check_report((name), g_ == w_, why_, __FILE__, __LINE__);                                       \
  } while (0)

/* CHECK_STR(name, got, want): string equality (NULL-safe). */
#define CHECK_STR(name, got, want)                                                        \
  do {                                                                                    \
    const char *g_ = (got), *w_ = (want);                                                 \
    char why_[1024];                                                                      \
    snprintf(why_, sizeof why_, "%s is \"%s\", want \"%s\"", #got, g_ ? g_ : "(null)", w_); \
    check_report((name), g_ && strcmp(g_, w_) == 0, why_, __FILE__, __LINE__);                      \
  } while (0)

/* EXPECT_ERROR(name, code, want): running code must raise a user error whose
** whole message ("file:line: error: ...") contains want. */
#define EXPECT_ERROR(name, code, want)                                                    \
  do {                                                                                    \
    check_err[0] = 0;                                                                     \
    ltU_raise = check_raise;                                                              \
    if (setjmp(ltU_jmp) == 0) {                                                           \
      code;                                                                               \
      ltU_raise = NULL;                                                                   \
      check_report((name), 0, "no error raised by: " #code, __FILE__, __LINE__);                    \
    } else {                                                                              \
      char why_[2300];                                                                    \
      ltU_raise = NULL;                                                                   \
      snprintf(why_, sizeof why_, "error \"%s\" does not contain \"%s\"", check_err, (want)); \
      check_report((name), strstr(check_err, (want)) != NULL, why_, __FILE__, __LINE__);            \
    }                                                                                     \
  } while (0)

/* NO_ERROR(name, code): code must not raise a user error. */
#define NO_ERROR(name, code)                                                              \
  do {                                                                                    \
    check_err[0] = 0;                                                                     \
    ltU_raise = check_raise;                                                              \
    if (setjmp(ltU_jmp) == 0) {                                                           \
      code;                                                                               \
      ltU_raise = NULL;                                                                   \
      check_report((name), 1, "", __FILE__, __LINE__);                                              \
    } else {                                                                              \
      char why_[2300];                                                                    \
      ltU_raise = NULL;                                                                   \
      snprintf(why_, sizeof why_, "unexpected error \"%s\"", check_err);                  \
      check_report((name), 0, why_, __FILE__, __LINE__);                                            \
    }                                                                                     \
  } while (0)

/* ---- small IR builders shared by the tests ---- */

static Kernel *new_kernel(int threads) {
  Kernel *k = ltU_alloc(sizeof *k);
  k->name = k->family = "unit";
  k->threads = threads;
  return k;
}

/* A register tile value (SYM_LET) or fragment (SYM_FRAG) of shape [r, c];
** rank 1 when r is 0 (shape [1, c]). */
static Sym *tile_sym(Kernel *k, SymKind kind, Dtype dt, int r, int c) {
  Sym *s = ltI_sym(k, kind, dt, 10 + k->nsyms);
  s->rank = r ? 2 : 1;
  s->shape[0] = r ? r : 1;
  s->shape[1] = c;
  s->name = ltU_fmt("v%d", k->nsyms);
  return s;
}

/* An i32 uniform scalar symbol (a size when nonneg). */
static Sym *int_sym(Kernel *k, SymKind kind, int nonneg) {
  Sym *s = ltI_sym(k, kind, DT_I32, 5);
  s->nonneg = nonneg;
  s->name = ltU_fmt("n%d", k->nsyms);
  return s;
}

/* A global tensor of the given rank with symbolic sizes, row-major. */
static Sym *tensor_sym(Kernel *k, Dtype dt, int rank) {
  Sym *t = ltI_sym(k, SYM_TENSOR, dt, 3);
  t->name = ltU_fmt("T%d", k->nsyms);
  t->trank = rank;
  Expr *acc = ltI_const(1, DT_I32, 0, 3);
  for (int d = rank - 1; d >= 0; d--) {
    t->dims[d] = ltI_ref(int_sym(k, SYM_SIZE, 1), 3);
    t->strides[d] = acc;
    acc = ltI_binary(B_MUL, acc, t->dims[d], 3);
  }
  return t;
}

/* A view of t with extents [rows, cols] (rows ignored for rank 1), origin 0. */
static View *view_of(Sym *t, int rows, int cols) {
  View *v = ltU_alloc(sizeof *v);
  v->t = t;
  for (int d = 0; d < t->trank; d++) {
    v->origin[d] = ltI_const(0, DT_I32, 0, 3);
    v->ext[d] = 1;
  }
  v->cdim = t->trank - 1;
  v->rdim = t->trank >= 2 ? t->trank - 2 : -1;
  v->ext[v->cdim] = cols;
  if (v->rdim >= 0) v->ext[v->rdim] = rows;
  return v;
}

static Stmt *add(Block *b, StmtKind kind, int line) {
  Stmt *s = ltI_stmt(kind, line);
  ltI_append(b, s);
  return s;
}

/* dst = load(view of t); dst gets the view's shape. */
static Stmt *add_load(Kernel *k, Block *b, Sym *t, int rows, int cols) {
  Stmt *s = add(b, S_LOAD, 20);
  s->view = view_of(t, rows, cols);
  s->dst = tile_sym(k, SYM_LET, t->dt, t->trank >= 2 ? rows : 0, cols);
  s->dst->def = s;
  s->other = ltI_const(0, t->dt, 0, 20);
  t->loaded = 1;
  return s;
}

static int count_kind(const Block *b, StmtKind kind) {
  int n = 0;
  for (const Stmt *s = b->first; s; s = s->next) n += s->kind == kind;
  return n;
}

#endif

/*
** lua/stmt.c: the statements of the DSL, the k: builder methods.
**
** body(k, p, c, v) calls the methods of k (k:load, k:reduce_max,
** k:serial, ...); each appends statements to the innermost open block of
** the Kernel being built.  A method that takes a function (k:serial,
** k:pipelined, k:when) opens the statement's block, calls the function,
** and closes it; a value made inside such a block is not visible after it
** (ltF_check_scope), so a result leaves a loop through a k:fragment.
** Every method first names the values held in the caller's locals
** (ltF_name_locals, expr.c) so that the C code uses the kernel file's names.
*/
#include "dsl.h"

static Block *blocks[64];             /* open blocks, innermost last */
static int nblocks;
int ltF_builder_depth;                /* k: methods running, one inside another's function */

/* ------------------------------------------------------------------ */
/* blocks and scope                                                    */

/* Starts a variant: its body is the one open block. */
void ltF_begin_body(Block *body) {
  nblocks = 0;
  blocks[nblocks++] = body;
}

/* The innermost open block: where statements go now. */
Block *ltF_cur_block(void) { return blocks[nblocks - 1]; }

/* Is s visible from the current block (its home block is open)? */
static int in_scope(Sym *s) {
  if (!s->home) return 1;
  for (int i = 0; i < nblocks; i++)
    if (blocks[i] == s->home) return 1;
  return 0;
}

/* Checks that e only reads values visible from the current block. */
void ltF_check_scope(Expr *e) {
  if (!e) return;
  if (e->kind == E_SYM && !in_scope(e->sym))
    ltF_error("a value made inside a k:serial or k:when body (line %d) is used outside it; "
              "declare a k:fragment before the block and k:assign it inside", e->sym->line);
  ltF_check_scope(e->a);
  ltF_check_scope(e->b);
  ltF_check_scope(e->c);
}

/* Appends a new statement of the kind at the current line to the current
** block. */
Stmt *ltF_add_stmt(StmtKind kind) {
  Stmt *s = ltI_stmt(kind, ltF_line());
  ltF_check_scope(s->val);
  ltI_append(ltF_cur_block(), s);
  return s;
}

/* Runs the Lua function at idx with the given number of args already pushed
** after it, collecting statements into block b. */
static void run_body(Block *b, int nargs) {
  if (nblocks == (int)(sizeof blocks / sizeof blocks[0])) ltF_error("blocks are nested too deeply");
  blocks[nblocks++] = b;
  lua_call(L, nargs, 0);
  ltF_name_locals();
  nblocks--;
}

/* The name of the first parameter of the Lua function at idx, or NULL. */
static const char *param_name(int idx) {
  lua_pushvalue(L, idx);
  const char *n = lua_getlocal(L, NULL, 1);
  lua_pop(L, 1);
  return n;
}

/* ------------------------------------------------------------------ */
/* arguments                                                           */

/* Reads argument idx as a tensor view (X:tile(...) or X:view(...)). */
static View *arg_view(int idx) {
  Handle *h = ltF_handle(idx);
  if (!h || h->kind != H_VIEW) ltF_error("expected a tensor view such as X:tile({i, j}, {BM, BN}), not %s", ltF_kind(idx));
  return h->v;
}

/* Reads argument idx as a fragment (k:fragment) visible here; what names
** the argument in messages. */
static Sym *arg_frag(int idx, const char *what) {
  Handle *h = ltF_handle(idx);
  if (!h || h->kind != H_EXPR || h->e->kind != E_SYM || h->e->sym->kind != SYM_FRAG)
    ltF_error("%s must be a fragment made by k:fragment, not %s", what, ltF_kind(idx));
  if (!in_scope(h->e->sym)) ltF_error("this fragment is not visible here");
  return h->e->sym;
}

/* Reads argument idx as a shared tile (k:shared). */
static Sym *arg_shared(int idx, const char *what) {
  Handle *h = ltF_handle(idx);
  if (!h || h->kind != H_SHARED) ltF_error("%s must be a shared tile made by k:shared, not %s", what, ltF_kind(idx));
  return h->s;
}

/* Checks that a value of shape src can be written to a tile of shape dst. */
static void check_fits(const Expr *e, const int dst[2], const char *what) {
  if (e->rank == 0) return;
  for (int i = 0; i < 2; i++)
    if (e->shape[i] != dst[i] && e->shape[i] != 1)
      ltF_error("shape mismatch: %s is [%d, %d] but the value is [%d, %d]", what, dst[0], dst[1], e->shape[0],
                e->shape[1]);
}

/* View v with the options table at argument idx of a load or store
** ({ mask = bool tile, cache = "stream" | "keep" }), a copy of it when
** there are any (a view handle may serve several statements); v when idx
** is none or nil. */
static View *view_options(View *v, int idx, const char *fn) {
  if (lua_isnoneornil(L, idx)) return v;
  if (!lua_istable(L, idx) || ltF_handle(idx))
    ltF_error("%s's options are a table such as { mask = m, cache = \"stream\" }, not %s", fn, ltF_kind(idx));
  View *o = ltU_alloc(sizeof *o);
  *o = *v;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (key && strcmp(key, "mask") == 0) {
      Expr *m = ltF_arg_expr(-1, "the mask");
      if (m->dt != DT_BOOL || m->weak)
        ltF_error("%s's mask must be a bool value (a comparison such as col:lt(n)), not %s", fn,
                  m->weak ? "a number" : ltI_dtypes[m->dt].name);
      int shape[2];
      ltI_view_shape(v, shape);
      if (v->scalar && m->rank) ltF_error("the mask of a load from X:at is a bool scalar, not a tile");
      check_fits(m, shape, ltU_fmt("the view of %s", v->t->name));
      ltF_check_scope(m);
      o->mask = m;
    } else if (key && strcmp(key, "cache") == 0) {
      const char *c = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      if (c && strcmp(c, "stream") == 0) o->cache = CACHE_STREAM;
      else if (c && strcmp(c, "keep") == 0) o->cache = CACHE_KEEP;
      else ltF_error("cache is \"stream\" (read or written once) or \"keep\" (reused by other programs), not %s",
                     c ? ltU_one_line(c, 40) : luaL_typename(L, -1));
    } else if (key && strcmp(key, "transpose") == 0 && strcmp(fn, "k:atomic_add") == 0) {
      if (!lua_isboolean(L, -1)) ltF_error("k:atomic_add's transpose is true or false, not %s", luaL_typename(L, -1));
      if (lua_toboolean(L, -1)) {   /* the value is the transpose of the view's tile: its rows along the columns */
        if (v->rdim < 0 || v->rlo) ltF_error("k:atomic_add's transpose needs a view of two dims (and not of X:rows)");
        o->rdim = v->cdim;
        o->cdim = v->rdim;
      }
    } else {
      ltF_error("%s has no option %s; its options are mask and cache%s", fn,
                key ? ltU_fmt("'%s'", ltU_one_line(key, 40)) : ltU_fmt("of type %s", luaL_typename(L, -2)),
                strcmp(fn, "k:atomic_add") == 0 ? ", and transpose" : "");
    }
    lua_pop(L, 1);
  }
  if (o->mask && o->rdim != v->rdim) ltF_error("k:atomic_add takes a mask or transpose, not both");
  return o;
}

/* Reads the optional value of masked-out elements of a load (argument idx;
** 0 when absent) as a scalar of the loaded dtype dt. */
static Expr *other_arg(int idx, Dtype dt) {
  if (lua_isnoneornil(L, idx)) return ltI_const(0, dt, 0, ltF_line());
  Expr *o = ltF_arg_expr(idx, "the masked-element value");
  if (o->rank) ltF_error("the masked-element value of a load is a scalar");
  if (!o->weak && o->dt != dt) o = ltI_cast(o, dt, ltF_line());
  return o->weak ? ltI_const(o->cval, dt, 0, o->line) : o;
}

/* ------------------------------------------------------------------ */
/* declarations: k:grid, k:fragment, k:shared, k:iota                  */

/* The expression a uniform value stands for, with its lets unfolded (the
** launcher computes grid extents, where kernel lets do not exist). */
static Expr *resolve(Expr *e, int depth) {
  if (!e) return NULL;
  if (depth > LT_MAX_DEPTH)
    ltF_error("the grid extent is an expression nested deeper than %d operations (its named values unfolded)",
              LT_MAX_DEPTH);
  if (e->kind == E_SYM && e->sym->kind == SYM_LET && e->sym->def && e->sym->def->kind == S_LET)
    return resolve(e->sym->def->val, depth + 1);
  if (!e->a && !e->b && !e->c) return e;
  Expr *r = ltU_alloc(sizeof *r);
  *r = *e;
  r->a = resolve(e->a, depth + 1);
  r->b = resolve(e->b, depth + 1);
  r->c = resolve(e->c, depth + 1);
  return r;
}

/* k:grid(nx [, ny [, nz]] [, { persistent = false, dynamic = true }]):
** the programs (blocks) along each grid axis; returns the program ids.
** The options: `persistent = false` keeps one program a block where the
** plan would make the grid persistent (Kernel.one_a_block); `dynamic =
** true` has a persistent grid's blocks take the programs from a counter
** as they free up (Kernel.dynamic).  The two do not go together. */
static int k_grid(lua_State *l) {
  ltF_name_locals();
  int n = lua_gettop(l) - 1;
  if (K->ngrid) return ltF_error("k:grid is called once per kernel");
  if (n >= 1 && lua_istable(l, n + 1)) {
    lua_pushnil(l);
    while (lua_next(l, n + 1)) {
      const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : NULL;
      int dyn = key && strcmp(key, "dynamic") == 0;
      if (!key || (strcmp(key, "persistent") != 0 && !dyn))
        return ltF_error("k:grid's options table takes only persistent and dynamic (booleans), not %s",
                         key ? key : "a value without a name");
      if (!lua_isboolean(l, -1))
        return ltF_error(dyn ? "k:grid's dynamic is a boolean (true: blocks take the programs as they free up)"
                             : "k:grid's persistent is a boolean (false: one program a block)");
      if (dyn) K->dynamic = lua_toboolean(l, -1);
      else K->one_a_block = !lua_toboolean(l, -1);
      lua_pop(l, 1);
    }
    if (K->dynamic && K->one_a_block)
      return ltF_error("k:grid's dynamic = true hands a persistent grid's programs out; it does not go with "
                       "persistent = false");
    n--;
  }
  if (n < 1 || n > 3) return ltF_error("k:grid takes 1 to 3 extents (programs along x, y, z), not %d", n);
  for (int i = 0; i < n; i++) {
    Expr *e = resolve(ltF_arg_index(i + 2, "a grid extent"), 0);
    long long c;
    if (ltI_const_int(e, &c) && c < 1)
      return ltF_error("k:grid's extent %d is %lld; a grid has at least one program along each axis", i + 1, c);
    Sym *s = ltI_sym(K, SYM_PID, DT_I32, ltF_line());
    s->axis = i;
    s->extent = e;
    s->nonneg = 1;
    K->grid[i] = s;
    ltF_push_expr(ltI_ref(s, s->line));
  }
  K->ngrid = n;
  return n;
}

/* Declares a mutable fragment, optionally filled with init. */
static int k_fragment(lua_State *l) {
  ltF_name_locals();
  Dtype dt = ltF_arg_dtype(2);
  if (ltI_is_fp8(dt))
    return ltF_error("a fragment cannot be %s: fp8 values are stored, not computed on; keep an f32 fragment and "
                     "cast when storing", ltI_dtypes[dt].name);
  int shape[2];
  int rank = ltF_arg_shape(3, shape);
  Sym *s = ltI_sym(K, SYM_FRAG, dt, ltF_line());
  s->rank = rank;
  s->shape[0] = shape[0];
  s->shape[1] = shape[1];
  Stmt *st = ltF_add_stmt(S_FRAG);
  st->dst = s;
  s->def = st;
  if (!lua_isnoneornil(l, 4)) {
    Expr *init = ltF_arg_expr(4, "a fragment's initial value");
    if (init->rank) return ltF_error("a fragment's initial value is a scalar; use k:assign for tiles");
    st->val = ltI_cast(init, dt, st->line);
    ltF_check_scope(st->val);
  }
  ltF_push_expr(ltI_ref(s, st->line));
  return 1;
}

/* k:shared(dtype, shape): a shared-memory tile. */
static int k_shared(lua_State *l) {
  (void)l;
  ltF_name_locals();
  Dtype dt = ltF_arg_dtype(2);
  int shape[2];
  int rank = ltF_arg_shape(3, shape);
  Sym *s = ltI_sym(K, SYM_SHARED, dt, ltF_line());
  s->rank = rank;
  s->shape[0] = shape[0];
  s->shape[1] = shape[1];
  ltF_push_handle(H_SHARED)->s = s;
  return 1;
}

/* k:iota(shape, axis): i32 tile whose elements are their index along axis. */
static int k_iota(lua_State *l) {
  ltF_name_locals();
  int shape[2];
  int rank = ltF_arg_shape(2, shape);
  lua_Integer axis = luaL_optinteger(l, 3, rank);
  if (axis < 1 || axis > rank) return ltF_error("iota's axis must be between 1 and %d, not %d", rank, (int)axis);
  Expr *e = ltI_const(0, DT_I32, 0, ltF_line());
  e->kind = E_IOTA;
  e->op = rank == 1 ? 1 : (int)axis - 1;
  e->rank = rank;
  e->shape[0] = shape[0];
  e->shape[1] = shape[1];
  ltF_push_value(e);
  return 1;
}

/* ------------------------------------------------------------------ */
/* memory: loads, stores, copies                                       */

/* k:load(view [, other]): a new tile; elements outside the tensor = other.
** Of a one-element view made by X:at, a scalar. */
static int k_load(lua_State *l) {
  (void)l;
  ltF_name_locals();
  View *v = view_options(arg_view(2), 4, "k:load");
  Stmt *st = ltF_add_stmt(S_LOAD);
  Sym *s = ltI_sym(K, SYM_LET, v->t->dt, st->line);
  ltI_view_shape(v, s->shape);
  s->rank = v->scalar ? 0 : v->t->trank == 1 ? 1 : 2;   /* X:at: a scalar */
  s->home = ltF_cur_block();
  st->dst = s;
  st->view = v;
  st->other = other_arg(3, v->t->dt);
  ltF_check_scope(st->other);
  s->def = st;
  v->t->loaded = 1;
  ltF_push_expr(ltI_ref(s, st->line));
  return 1;
}

/* Appends the store of val to view v (an S_STORE) and returns it. */
static Stmt *do_store(View *v, Expr *val) {
  int shape[2];
  ltI_view_shape(v, shape);
  check_fits(val, shape, ltU_fmt("the view of %s", v->t->name));
  Stmt *st = ltF_add_stmt(S_STORE);
  st->view = v;
  st->val = val->weak ? ltI_const(val->cval, v->t->dt, 0, val->line) : val;
  ltF_check_scope(st->val);
  if (st->val->dt == DT_BOOL) ltF_error("cannot store a bool value; cast it with :cast(\"%s\")", ltI_dtypes[v->t->dt].name);
  v->t->stored = 1;
  return st;
}

/* k:store(view, value): writes the value into the view (masked at the
** tensor's edges). */
static int k_store(lua_State *l) {
  ltF_name_locals();
  do_store(view_options(arg_view(2), 4, "k:store"), ltF_arg_expr(3, "the stored value"));
  (void)l;
  return 0;
}

/* k:atomic_add(view, value): view += value, element by element, atomically
** (other blocks may add to the same elements); f32 tensors only. */
static int k_atomic_add(lua_State *l) {
  ltF_name_locals();
  View *v = view_options(arg_view(2), 4, "k:atomic_add");
  Expr *val = ltF_arg_expr(3, "the added value");
  if (v->t->dt != DT_F32)
    ltF_error("k:atomic_add adds to f32 tensors only, but %s is %s; accumulate in an f32 tensor and convert it "
              "afterwards", v->t->name, ltI_dtypes[v->t->dt].name);
  if (!val->weak && val->dt != DT_F32)
    ltF_error("k:atomic_add's value is %s; it must be f32 like the tensor: cast it with :cast(\"f32\")",
              ltI_dtypes[val->dt].name);
  if (v->cache) ltF_error("k:atomic_add takes no cache option (its adds go to L2)");
  do_store(v, val)->atomic = 1;
  (void)l;
  return 0;
}

/* Appends f = val (an S_ASSIGN); val must fit f's shape and dtype. */
static void do_assign(Sym *f, Expr *val) {
  check_fits(val, f->shape, ltU_fmt("fragment %s", f->name ? f->name : ""));
  if (!val->weak && val->dt != f->dt)
    ltF_error("dtype mismatch: the fragment is %s but the value is %s; cast it with :cast(\"%s\")",
              ltI_dtypes[f->dt].name, ltI_dtypes[val->dt].name, ltI_dtypes[f->dt].name);
  Stmt *st = ltF_add_stmt(S_ASSIGN);
  st->dst = f;
  st->val = val->weak ? ltI_const(val->cval, f->dt, 0, val->line) : val;
  ltF_check_scope(st->val);
}

/* k:assign(fragment, value): the fragment takes the value. */
static int k_assign(lua_State *l) {
  ltF_name_locals();
  (void)l;
  do_assign(arg_frag(2, "k:assign's target"), ltF_arg_expr(3, "the assigned value"));
  return 0;
}

/* Appends the store of val into shared tile sh (an S_SSTORE). */
static void do_shared_store(Sym *sh, Expr *val) {
  check_fits(val, sh->shape, ltU_fmt("shared tile %s", sh->name ? sh->name : ""));
  Stmt *st = ltF_add_stmt(S_SSTORE);
  st->shared = sh;
  st->val = val->weak ? ltI_const(val->cval, sh->dt, 0, val->line) : val;
  ltF_check_scope(st->val);
}

/* k:fill(tile, value): every element of a fragment or shared tile. */
static int k_fill(lua_State *l) {
  (void)l;
  ltF_name_locals();
  Handle *h = ltF_handle(2);
  Expr *val = ltF_arg_expr(3, "the fill value");
  if (val->rank) return ltF_error("k:fill takes a scalar value; use k:assign or k:copy for tiles");
  if (h && h->kind == H_SHARED) {
    do_shared_store(h->s, val->weak ? val : ltI_cast(val, h->s->dt, val->line));
    return 0;
  }
  Sym *f = arg_frag(2, "k:fill's target");
  do_assign(f, val->weak ? val : ltI_cast(val, f->dt, val->line));
  return 0;
}

/* k:copy(src, dst) between global views, shared tiles and fragments. */
static int k_copy(lua_State *l) {
  (void)l;
  ltF_name_locals();
  Handle *src = ltF_handle(2), *dst = ltF_handle(3);
  if (!src || !dst) return ltF_error("k:copy(src, dst) takes views, shared tiles or fragments, not %s and %s",
                                     ltF_kind(2), ltF_kind(3));
  if (src->kind == H_VIEW && dst->kind == H_SHARED) {
    int shape[2];
    ltI_view_shape(src->v, shape);
    if (shape[0] != dst->s->shape[0] || shape[1] != dst->s->shape[1])
      return ltF_error("shape mismatch: the view is [%d, %d] but the shared tile is [%d, %d]", shape[0], shape[1],
                       dst->s->shape[0], dst->s->shape[1]);
    if (src->v->t->dt != dst->s->dt)
      return ltF_error("dtype mismatch: %s is %s but the shared tile is %s", src->v->t->name,
                       ltI_dtypes[src->v->t->dt].name, ltI_dtypes[dst->s->dt].name);
    if (ltI_view_gathers(src->v))
      return ltF_error("a view of gathered rows is loaded into registers (k:load), not copied to a shared tile");
    Stmt *st = ltF_add_stmt(S_G2S);
    st->view = src->v;
    st->shared = dst->s;
    st->other = other_arg(4, dst->s->dt);
    src->v->t->loaded = 1;
    return 0;
  }
  if (src->kind == H_VIEW && dst->kind == H_EXPR) {
    Sym *f = arg_frag(3, "k:copy's destination");
    int shape[2];
    ltI_view_shape(src->v, shape);
    if (shape[0] != f->shape[0] || shape[1] != f->shape[1])
      return ltF_error("shape mismatch: the view is [%d, %d] but the fragment is [%d, %d]", shape[0], shape[1],
                       f->shape[0], f->shape[1]);
    Stmt *st = ltF_add_stmt(S_LOAD);
    st->dst = f;
    st->view = src->v;
    st->other = other_arg(4, src->v->t->dt);
    src->v->t->loaded = 1;
    return 0;
  }
  if (src->kind == H_SHARED && dst->kind == H_EXPR) {
    Sym *f = arg_frag(3, "k:copy's destination");
    if (src->s->shape[0] != f->shape[0] || src->s->shape[1] != f->shape[1])
      return ltF_error("shape mismatch: the shared tile is [%d, %d] but the fragment is [%d, %d]", src->s->shape[0],
                       src->s->shape[1], f->shape[0], f->shape[1]);
    if (src->s->dt != f->dt)
      return ltF_error("dtype mismatch: the shared tile is %s but the fragment is %s", ltI_dtypes[src->s->dt].name,
                       ltI_dtypes[f->dt].name);
    Stmt *st = ltF_add_stmt(S_SLOAD);
    st->dst = f;
    st->shared = src->s;
    return 0;
  }
  if (src->kind == H_EXPR && dst->kind == H_SHARED) {
    if (!src->e->weak && src->e->dt != dst->s->dt)
      return ltF_error("dtype mismatch: the value is %s but the shared tile is %s", ltI_dtypes[src->e->dt].name,
                       ltI_dtypes[dst->s->dt].name);
    do_shared_store(dst->s, src->e);
    return 0;
  }
  if (src->kind == H_EXPR && dst->kind == H_VIEW) {
    do_store(dst->v, src->e);
    return 0;
  }
  return ltF_error("k:copy cannot copy %s to %s; load shared tiles into a fragment first", ltF_kind(2), ltF_kind(3));
}

/* ------------------------------------------------------------------ */
/* reductions                                                          */

/* k:reduce_sum / reduce_max / reduce_min (x, axis): keeps the axis as 1. */
static int reduce(lua_State *l, BinOp op) {
  ltF_name_locals();
  Expr *x = ltF_arg_expr(2, "the reduced value");
  if (!x->rank) return ltF_error("reductions take a tile, not a scalar");
  if (x->dt == DT_BOOL) return ltF_error("reductions take numbers, not bools");
  if (x->dt == DT_I64 || x->dt == DT_U32 || ltI_is_fp8(x->dt))
    return ltF_error("reductions take f32, f16, bf16 or i32 values, not %s", ltI_dtypes[x->dt].name);
  lua_Integer axis = luaL_optinteger(l, 3, x->rank);
  if (axis < 1 || axis > x->rank)
    return ltF_error("reduction axis must be %s for a %d-dim tile, not %d", x->rank == 2 ? "1 or 2" : "1", x->rank,
                     (int)axis);
  int ax = x->rank == 1 ? 1 : (int)axis - 1;
  Stmt *st = ltF_add_stmt(S_REDUCE);
  Sym *s = ltI_sym(K, SYM_LET, x->dt, st->line);
  s->rank = x->rank;
  s->shape[0] = ax == 0 ? 1 : x->shape[0];
  s->shape[1] = ax == 1 ? 1 : x->shape[1];
  s->home = ltF_cur_block();
  s->def = st;
  st->dst = s;
  st->val = x;
  st->op = op;
  st->axis = ax;
  ltF_check_scope(x);
  ltF_push_expr(ltI_ref(s, st->line));
  return 1;
}

/* k:reduce_sum(x [, axis]). */
static int k_reduce_sum(lua_State *l) { return reduce(l, B_ADD); }

/* k:reduce_max(x [, axis]). */
static int k_reduce_max(lua_State *l) { return reduce(l, B_MAX); }

/* k:reduce_min(x [, axis]). */
static int k_reduce_min(lua_State *l) { return reduce(l, B_MIN); }

/* ------------------------------------------------------------------ */
/* control: k:serial, k:pipelined, k:when                              */

/* k:serial(lo, hi [, step], function(i) ... end): a runtime loop. */
static int k_serial(lua_State *l) {
  ltF_name_locals();
  int top = lua_gettop(l);
  int fn = top;
  if (!lua_isfunction(l, fn) || (top != 4 && top != 5))
    return ltF_error("k:serial takes (lo, hi, [step,] function(i) ... end)");
  Stmt *st = ltF_add_stmt(S_FOR);
  st->lo = ltF_arg_index(2, "the loop start");
  st->hi = ltF_arg_index(3, "the loop end");
  st->step = top == 5 ? ltF_arg_index(4, "the loop step") : ltI_const(1, DT_I32, 0, st->line);
  long long step;
  if (!ltI_const_int(st->step, &step) || step < 1)
    return ltF_error("the loop step must be a positive whole Lua number");
  ltF_check_scope(st->lo);
  ltF_check_scope(st->hi);
  Sym *v = ltI_sym(K, SYM_LOOP, DT_I32, st->line);
  v->nonneg = ltI_nonneg(st->lo);
  v->home = &st->body;
  v->extent = st->hi;
  const char *pn = param_name(fn);
  if (pn) ltF_set_name(v, pn, 1);
  st->var = v;
  lua_pushvalue(l, fn);
  ltF_push_expr(ltI_ref(v, st->line));
  run_body(&st->body, 1);
  return 0;
}

/* k:pipelined(lo, hi, stages, [options,] function(i) ... end): a runtime
** loop whose body starts with copies into shared tiles; gen overlaps the
** copies of later iterations with the rest of the body (pipeline.c).
** Options: {copies_first = bool}. */
static int k_pipelined(lua_State *l) {
  ltF_name_locals();
  int top = lua_gettop(l);
  if ((top != 5 && top != 6) || !lua_isfunction(l, top) || (top == 6 && !lua_istable(l, 5)))
    return ltF_error("k:pipelined takes (lo, hi, stages, [{copies_first = bool},] function(i) ... end)");
  if (!lua_isinteger(l, 4) || lua_tointeger(l, 4) < 1 || lua_tointeger(l, 4) > 8)
    return ltF_error("the number of pipeline stages is a whole Lua number from 1 to 8");
  Stmt *st = ltF_add_stmt(S_FOR);
  st->lo = ltF_arg_index(2, "the loop start");
  st->hi = ltF_arg_index(3, "the loop end");
  st->step = ltI_const(1, DT_I32, 0, st->line);
  st->stages = (int)lua_tointeger(l, 4);
  if (top == 6) {
    lua_pushnil(l);
    while (lua_next(l, 5)) {
      const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
      if (strcmp(key, "copies_first") != 0)
        return ltF_error("k:pipelined has no option '%s' (options: copies_first)", key);
      if (!lua_isboolean(l, -1)) return ltF_error("k:pipelined option copies_first is true or false");
      st->copies_first = lua_toboolean(l, -1);
      lua_pop(l, 1);
    }
  }
  ltF_check_scope(st->lo);
  ltF_check_scope(st->hi);
  Sym *v = ltI_sym(K, SYM_LOOP, DT_I32, st->line);
  v->nonneg = ltI_nonneg(st->lo);
  v->home = &st->body;
  v->extent = st->hi;
  const char *pn = param_name(top);
  if (pn) ltF_set_name(v, pn, 1);
  st->var = v;
  lua_pushvalue(l, top);
  ltF_push_expr(ltI_ref(v, st->line));
  run_body(&st->body, 1);
  return 0;
}

/* k:when(cond, then_fn [, else_fn]): a runtime branch on a uniform scalar;
** a Lua boolean picks the branch at generation time. */
static int k_when(lua_State *l) {
  ltF_name_locals();
  int top = lua_gettop(l);
  if (top < 3 || top > 4 || !lua_isfunction(l, 3) || (top == 4 && !lua_isfunction(l, 4)))
    return ltF_error("k:when takes (cond, function() ... end [, function() ... end])");
  if (lua_isboolean(l, 2)) {
    int pick = lua_toboolean(l, 2) ? 3 : 4;
    if (pick <= top) {
      lua_pushvalue(l, pick);
      lua_call(l, 0, 0);
    }
    return 0;
  }
  Expr *c = ltF_arg_expr(2, "k:when's condition");
  if (c->rank) return ltF_error("k:when's condition must be a scalar (the same in every thread), not a tile");
  if (c->dt != DT_BOOL) return ltF_error("k:when's condition must be a comparison such as n:eq(1)");
  Stmt *st = ltF_add_stmt(S_IF);
  st->val = c;
  ltF_check_scope(c);
  lua_pushvalue(l, 3);
  run_body(&st->body, 0);
  if (top == 4) {
    lua_pushvalue(l, 4);
    run_body(&st->orelse, 0);
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* launcher preconditions: k:require                                   */

/* The text argument 3 of `what` (k:require, k:runs_when): one line of 1
** to 200 printable characters, else an error. */
static const char *cond_text(lua_State *l, const char *what) {
  size_t n;
  const char *text = lua_tolstring(l, 3, &n);
  if (n == 0 || n > 200) ltF_error("%s's text must be 1 to 200 characters, not %zu", what, n);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)text[i] < 32 || text[i] == 127) ltF_error("%s's text must be one line of printable characters", what);
  return ltU_fmt("%s", text);
}

/* Condition c of `what` as the launcher computes it, before the grid
** runs (it `verb`s it), else an error: it may read only sizes, strides
** and scalars. */
static Expr *host_cond(Expr *c, const char *what, const char *verb) {
  Expr *h = ltI_host_expr(c);
  if (!h)
    ltF_error("%s's condition may read only sizes, strides and scalars (the launcher %s it before the grid runs), "
              "not program ids, loop indices or loaded values", what, verb);
  return h;
}

/* k:require(cond, text): a precondition the launcher checks before it
** runs the kernel, returning its invalid-value error where cond does not
** hold (CUTLASS's can_implement, written in the kernel file).  cond is a
** comparison over sizes, strides and scalars (and values made only of
** them); text says it in words, for the launcher's comment and the header.
** A Lua boolean (a condition known at generation time) is checked then. */
static int k_require(lua_State *l) {
  ltF_name_locals();
  if (lua_gettop(l) != 3 || lua_type(l, 3) != LUA_TSTRING)
    return ltF_error("k:require takes (cond, \"what it means\"), e.g. k:require((p.Hq %% p.Hkv):eq(0), "
                     "\"Hq is a multiple of Hkv\")");
  const char *text = cond_text(l, "k:require");
  if (lua_isboolean(l, 2)) {
    if (!lua_toboolean(l, 2)) return ltF_error("k:require(false, ...): the kernel could never run (%s)", text);
    return 0;
  }
  Expr *c = ltF_arg_expr(2, "k:require's condition");
  if (c->rank || c->dt != DT_BOOL)
    return ltF_error("k:require's condition must be a scalar comparison such as (p.Hq %% p.Hkv):eq(0)");
  Require *r = ltU_alloc(sizeof *r), **tail = &ltF_K->requires;
  r->cond = host_cond(c, "k:require", "checks");
  r->text = text;
  r->line = ltF_line();
  while (*tail) tail = &(*tail)->next;
  *tail = r;
  return 0;
}

/* k:runs_when(cond, text): the sizes that this build of the kernel (one
** of its `builds`, variants.c) runs for; the variant's launcher runs the
** first build whose condition holds, else the last, which has none.  cond
** is a comparison over sizes, strides and scalars, as k:require's. */
static int k_runs_when(lua_State *l) {
  ltF_name_locals();
  if (lua_gettop(l) != 3 || lua_type(l, 3) != LUA_TSTRING)
    return ltF_error("k:runs_when takes (cond, \"what it means\"), e.g. k:runs_when((p.Sq * p.G):le(16), "
                     "\"16 query rows or fewer\")");
  const char *text = cond_text(l, "k:runs_when");
  if (ltF_K->when) return ltF_error("k:runs_when is said once a build (line %d said it)", ltF_K->when_line);
  Expr *c = lua_isboolean(l, 2) ? NULL : ltF_arg_expr(2, "k:runs_when's condition");
  if (!c || c->rank || c->dt != DT_BOOL)
    return ltF_error("k:runs_when's condition must be a comparison of sizes such as (p.Sq * G):le(16)");
  ltF_K->when = host_cond(c, "k:runs_when", "tests");
  ltF_K->when_text = text;
  ltF_K->when_line = ltF_line();
  return 0;
}

/* k:sm_count(): an i32 scalar, the number of multiprocessors (SMs, CUs)
** of the device the launcher runs on: the launcher queries it before its
** checks (cudaDeviceGetAttribute / hipDeviceGetAttribute; 1 on `c`, where
** the blocks run one after another; LT_EMU_SMS in the emulator) and
** passes it to the kernel, so that grid extents, preconditions and the
** body may depend on it (a split count that fills the GPU).  One symbol a
** kernel, however often it is called. */
static int k_sm_count(lua_State *l) {
  ltF_name_locals();
  if (lua_gettop(l) != 1) return ltF_error("k:sm_count() takes no arguments");
  if (!K->sm_count) {
    Sym *had;
    ltF_name_clash("sm_count", &had);
    if (had)
      return ltF_error("k:sm_count's value is passed to the kernel as sm_count, which names a parameter already "
                       "(line %d); rename it", had->line);
    Sym *s = ltI_sym(K, SYM_SCALAR, DT_I32, ltF_line());
    s->name = ltU_strdup("sm_count");
    s->named = 1;
    s->device = s->positive = s->nonneg = 1;
    K->sm_count = s;
  }
  ltF_push_expr(ltI_ref(K->sm_count, ltF_line()));
  return 1;
}

/* k:export(name, value, text): a function exported beside the launcher,
** `int64_t <launcher>_<name>(...)` taking the sizes and scalars value
** reads, which returns value (computed in 64 bits): what a caller needs
** to know before the call, such as the rows of a workspace tensor that a
** k:require then checks.  text says what it is, for the header. */
static int k_export(lua_State *l) {
  ltF_name_locals();
  if (lua_gettop(l) != 4 || lua_type(l, 2) != LUA_TSTRING || lua_type(l, 4) != LUA_TSTRING)
    return ltF_error("k:export takes (name, value, \"what it is\"), e.g. k:export(\"workspace_rows\", p.B * 64, "
                     "\"rows of Ws a call needs\")");
  const char *name = lua_tostring(l, 2);
  int ident = (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z');
  for (const char *c = name; *c && ident; c++)
    ident = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
  if (!ident)
    return ltF_error("k:export's name '%s' is not an identifier (a letter, then letters, digits and _): the function "
                     "is <launcher>_<name>", name);
  const char *bad = ltF_name_rule(name, 32, 0);
  if (bad) return ltF_error("k:export's name '%s' %s", name, bad);
  for (Export *x = K->exports; x; x = x->next)
    if (!strcmp(x->name, name)) return ltF_error("k:export '%s' is exported already (line %d)", name, x->line);
  size_t n;
  const char *text = lua_tolstring(l, 4, &n);
  if (n == 0 || n > 200) return ltF_error("k:export's text must be 1 to 200 characters, not %zu", n);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)text[i] < 32 || text[i] == 127)
      return ltF_error("k:export's text must be one line of printable characters");
  Expr *v = ltF_arg_index(3, "k:export's value");
  Expr *h = ltI_host_expr(v);
  if (!h || h->rank || !ltI_is_int(h->dt))
    return ltF_error("k:export's value is an integer scalar of sizes, strides, scalars and k:sm_count() (the "
                     "function computes it before any call), not of program ids, loop indices or loaded values");
  Export *x = ltU_alloc(sizeof *x), **tail = &K->exports;
  x->name = ltU_strdup(name);
  x->value = h;
  x->text = ltU_fmt("%s", text);
  x->line = ltF_line();
  while (*tail) tail = &(*tail)->next;
  *tail = x;
  return 0;
}

/* ------------------------------------------------------------------ */
/* matrix multiply: k:gemm                                             */

/* k:gemm(a, b, acc [, {transpose_a = bool, transpose_b = bool, warps = {m, n}, tf32 = bool}]):
** acc += a @ b, with a [M, K] (or [K, M] when transpose_a) and b [K, N]
** (or [N, K] when transpose_b) and acc an f32 fragment [M, N].  b is a
** shared tile; a is a shared tile or a register tile (a value such as
** p:cast("bf16")), which mma.c feeds to the instruction from registers
** where the layouts allow and through shared memory elsewhere.  A kernel
** may have several gemms; they share one warp grid (mma.c).  tf32 lets
** f32 operands be rounded to tf32 (10-bit mantissa) for the tensor cores
** where the target has them. */
static int k_gemm(lua_State *l) {
  ltF_name_locals();
  Handle *ha = ltF_handle(2);
  Sym *a = NULL;
  Expr *areg = NULL;
  if (ha && ha->kind == H_EXPR && ha->e->rank == 2) areg = ha->e;
  else a = arg_shared(2, "k:gemm's first operand (a shared tile or a 2-dim register tile)");
  Sym *b = arg_shared(3, "k:gemm's second operand");
  Sym *acc = arg_frag(4, "k:gemm's accumulator");
  Stmt *st = ltF_add_stmt(S_GEMM);
  st->shared = a;
  st->val = areg;
  st->shared_b = b;
  st->dst = acc;
  if (areg) ltF_check_scope(areg);
  if (!lua_isnoneornil(l, 5)) {
    if (!lua_istable(l, 5)) return ltF_error("k:gemm's options are a table such as {transpose_b = true}");
    lua_pushnil(l);
    while (lua_next(l, 5)) {
      const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
      if (strcmp(key, "transpose_a") == 0 || strcmp(key, "transpose_b") == 0) {
        if (!lua_isboolean(l, -1)) return ltF_error("k:gemm option %s is true or false", key);
        *(key[10] == 'a' ? &st->trans_a : &st->trans_b) = lua_toboolean(l, -1);
      } else if (strcmp(key, "tf32") == 0) {
        if (!lua_isboolean(l, -1)) return ltF_error("k:gemm option tf32 is true or false");
        st->tf32 = lua_toboolean(l, -1);
      } else if (strcmp(key, "warps") == 0) {
        lua_geti(l, -1, 1);
        lua_geti(l, -2, 2);
        if (!lua_istable(l, -3) || !lua_isinteger(l, -2) || !lua_isinteger(l, -1) || lua_tointeger(l, -2) < 1 ||
            lua_tointeger(l, -1) < 1 || lua_tointeger(l, -2) > 1024 || lua_tointeger(l, -1) > 1024)
          return ltF_error("k:gemm option warps is {warps along M, warps along N}, each 1 to 1024, e.g. {2, 4}");
        int wm = (int)lua_tointeger(l, -2), wn = (int)lua_tointeger(l, -1);
        if (K->warps_m && (K->warps_m != wm || K->warps_n != wn))
          return ltF_error("k:gemm warps = {%d, %d}, but an earlier gemm said {%d, %d}: the gemms of a kernel "
                           "share one warp grid", wm, wn, K->warps_m, K->warps_n);
        K->warps_m = wm;
        K->warps_n = wn;
        lua_pop(l, 2);
      } else {
        return ltF_error("k:gemm has no option '%s' (options: transpose_a, transpose_b, warps, tf32)", key);
      }
      lua_pop(l, 1);
    }
  }
  const int *ash = a ? a->shape : areg->shape;
  Dtype adt = a ? a->dt : areg->dt;
  int M = ash[st->trans_a], Ka = ash[!st->trans_a];
  int Kb = b->shape[st->trans_b], N = b->shape[!st->trans_b];
  if (Ka != Kb)
    return ltF_error("k:gemm: the operands' K differ (%d and %d): a is [%d, %d]%s, b is [%d, %d]%s", Ka, Kb,
                     ash[0], ash[1], st->trans_a ? " (transposed: [K, M])" : " ([M, K])", b->shape[0],
                     b->shape[1], st->trans_b ? " (transposed: [N, K])" : " ([K, N])");
  if (acc->shape[0] != M || acc->shape[1] != N)
    return ltF_error("k:gemm: the accumulator is [%d, %d] but a @ b is [%d, %d]", acc->shape[0], acc->shape[1], M, N);
  if (acc->dt != DT_F32) return ltF_error("k:gemm accumulates in f32; declare the accumulator k:fragment(\"f32\", ...)");
  const Fp8Format *fa = ltI_dtypes[adt].fp8, *fb = ltI_dtypes[b->dt].fp8;
  if (adt != b->dt && fa && fb && fa->fnuz != fb->fnuz)   /* no instruction reads both: the FNUZ bytes are AMD's */
    return ltF_error("k:gemm: the operands are %s and %s, an FNUZ and an OCP fp8; convert one as it is copied to "
                     "its shared tile: k:copy(k:load(view):cast(\"%s\"), tile)", ltI_dtypes[adt].name,
                     ltI_dtypes[b->dt].name, ltI_dtypes[fa->fnuz ? adt : b->dt].name);
  if (adt != b->dt)
    return ltF_error("k:gemm: the operands are %s and %s; both must have one dtype%s", ltI_dtypes[adt].name,
                     ltI_dtypes[b->dt].name, areg ? ltU_fmt(" (cast the register tile: x:cast(\"%s\"))",
                                                            ltI_dtypes[b->dt].name) : "");
  if (adt != DT_F16 && adt != DT_BF16 && adt != DT_F32 && !(ltI_is_fp8(adt) && a))
    return ltF_error("k:gemm takes f16, bf16, f32 or (shared tiles) fp8 operands, not %s%s", ltI_dtypes[adt].name,
                     ltI_is_fp8(adt) ? " from registers (copy the fp8 tensor to a k:shared tile)" : "");
  if (K->gemm && ltI_is_fp8(K->gemm->shared_b->dt) != ltI_is_fp8(adt))
    return ltF_error("k:gemm: the gemms of a kernel share one instruction; line %d's operands are %s, these %s "
                     "(all fp8 or none)", K->gemm->line, ltI_dtypes[K->gemm->shared_b->dt].name, ltI_dtypes[adt].name);
  if (st->tf32 && adt != DT_F32)
    return ltF_error("k:gemm option tf32 rounds f32 operands; these are %s (leave tf32 out)", ltI_dtypes[adt].name);
  if (K->gemm && K->gemm->tf32 != st->tf32)
    return ltF_error("k:gemm: the gemms of a kernel share one instruction; line %d has tf32 = %s", K->gemm->line,
                     K->gemm->tf32 ? "true" : "false");
  if (K->gemm && K->gemm->shared_b->dt != b->dt)
    return ltF_error("k:gemm: the gemms of a kernel share one operand dtype (line %d has %s)", K->gemm->line,
                     ltI_dtypes[K->gemm->shared_b->dt].name);
  if (!K->gemm) K->gemm = st;
  return 0;
}

/* ------------------------------------------------------------------ */
/* the builder k                                                       */

/* The methods of k, by name. */
static const luaL_Reg k_methods[] = {
  {"grid", k_grid}, {"fragment", k_fragment}, {"shared", k_shared}, {"load", k_load},
  {"store", k_store}, {"atomic_add", k_atomic_add}, {"copy", k_copy}, {"fill", k_fill}, {"assign", k_assign},
  {"reduce_sum", k_reduce_sum}, {"reduce_max", k_reduce_max}, {"reduce_min", k_reduce_min},
  {"iota", k_iota}, {"serial", k_serial}, {"pipelined", k_pipelined}, {"when", k_when},
  {"gemm", k_gemm}, {"require", k_require}, {"runs_when", k_runs_when}, {"sm_count", k_sm_count},
  {"export", k_export}, {NULL, NULL},
};

/* k's metatable: k.target (the target's name) and k.warp (lanes per warp)
** let a kernel pick tile sizes per target; a misspelt builder method is
** named in the error. */
static int k_index(lua_State *l) {
  const char *key = lua_tostring(l, 2);
  if (key && ltF_target && strcmp(key, "target") == 0) {
    lua_pushstring(l, ltF_target->name);
    return 1;
  }
  if (key && ltF_target && strcmp(key, "warp") == 0) {
    lua_pushinteger(l, ltF_target->warp);
    return 1;
  }
  return ltF_error("the kernel builder has no field or method '%s'", key ? key : "?");
}

/* A method of k, called through here (upvalue 1: its index in
** k_methods): k exists only while a variant's body runs; a k kept from an
** earlier variant, or one used in params or at the file's top level, is
** an error. */
static int k_method(lua_State *l) {
  int i = (int)lua_tointeger(l, lua_upvalueindex(1));
  if (ltF_phase != PH_BODY)
    return ltF_error("k:%s is called outside body; the kernel builder k works only while body(k, p, c, v) runs",
                     k_methods[i].name);
  ltF_builder_depth++;   /* an error that leaves the method leaves it raised: pcall cannot catch it (api.c) */
  int n = k_methods[i].func(l);
  ltF_builder_depth--;
  return n;
}

/* Pushes a new k: a table of the methods above with k_index as __index. */
void ltF_push_builder(void) {
  lua_newtable(L);
  for (int i = 0; k_methods[i].name; i++) {
    lua_pushinteger(L, i);
    lua_pushcclosure(L, k_method, 1);
    lua_setfield(L, -2, k_methods[i].name);
  }
  lua_newtable(L);
  lua_pushcfunction(L, k_index);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
}

/*
** dsl.c: runs a kernel file in a sandboxed Lua 5.4 and builds its IR.
**
** The kernel file returns tile.kernel { name, variants, config, params,
** body }.  For each combination of variant values, params(v, c) declares the
** tensors and scalars, and body(k, p, c, v) calls the builder methods of k
** (k:load, k:reduce_max, k:serial, ...).  Each call appends statements to
** the current block of the Kernel; arithmetic on values (x - m, tile.exp)
** appends an S_LET and returns a handle to its result.  Handles are Lua
** userdata of one metatable; the DSL prelude (dsl/tile.lua) only maps names
** onto the functions registered here.
**
** Names: after each builder call the locals of the kernel file's active
** functions are scanned, and a value held in `local m` becomes `m` in C.
**
** Errors: everything a kernel file can get wrong is reported as one line
** "file.lua:LINE: error: ...", LINE being the innermost kernel-file frame.
** The kernel file sees only a sandbox: no os, io, debug, package, load,
** dofile, loadfile; reading or writing an undefined global is an error.
*/
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lt.h"

extern jmp_buf ltU_jmp;
extern void (*ltU_raise)(const char *msg);   /* set while Lua runs */

#define VAL_MT "luatile.value"
#define MEM_LIMIT ((size_t)1 << 30)
#define STEP_LIMIT 400              /* x 1M Lua instructions */

typedef enum { H_EXPR, H_TENSOR, H_VIEW, H_SHARED, H_KERNEL } HKind;

typedef struct Handle {
  HKind kind;
  Expr *e;        /* H_EXPR */
  Sym *s;         /* H_TENSOR, H_SHARED */
  View *v;        /* H_VIEW */
} Handle;

/* State of one run of the kernel file. */
static lua_State *L;
static const char *kfile;             /* path as given */
static const char *ksource;           /* "@path" */
static char **klines;                 /* source lines, for comments */
static int nklines;
static Kernel *K;                     /* variant being built */
static Block *blocks[64];             /* open blocks, innermost last */
static int nblocks;
static size_t mem_used;
static int steps;

/* ------------------------------------------------------------------ */
/* errors and lines                                                    */

/* Line of the innermost active function of the kernel file, or 0. */
static int cur_line(void) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0 && strcmp(ar.source, ksource) == 0) return ar.currentline;
  }
  return 0;
}

/* Raises a ready-made "file:line: error: ..." message as a Lua error. */
static void raise_msg(const char *msg) {
  lua_newtable(L);
  lua_pushstring(L, msg);
  lua_setfield(L, -2, "lt_error");
  lua_error(L);
}

/* ltU_error while Lua runs lands here (via ltU_raise). */
static void raise_from_util(const char *msg) { raise_msg(msg); }

/* Reports a DSL error at the current kernel-file line. */
static int dsl_error(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  int line = cur_line();
  if (line > 0) raise_msg(ltU_fmt("%s:%d: error: %s", kfile, line, buf));
  raise_msg(ltU_fmt("%s: error: %s", kfile, buf));
  return 0;
}

/* Message handler: turns any Lua error into the one-line form. */
static int msgh(lua_State *l) {
  if (lua_istable(l, 1)) {
    lua_getfield(l, 1, "lt_error");
    if (lua_isstring(l, -1)) return 1;
    lua_pop(l, 1);
  }
  const char *msg = lua_type(l, 1) == LUA_TSTRING || lua_type(l, 1) == LUA_TNUMBER ? lua_tostring(l, 1) : NULL;
  if (!msg) msg = ltU_fmt("error() was given a %s; give it a message string", luaL_typename(l, 1));
  /* Lua prefixes "chunk:line: "; keep the line if it is the kernel file's */
  size_t fl = strlen(kfile);
  int line = 0;
  if (strncmp(msg, kfile, fl) == 0 && msg[fl] == ':') {
    char *end;
    long n = strtol(msg + fl + 1, &end, 10);
    if (end != msg + fl + 1 && *end == ':') {
      line = (int)n;
      msg = end + 1;
      while (*msg == ' ') msg++;
    }
  } else {
    const char *p = strstr(msg, ": ");   /* drop a prelude position */
    if (p && (strncmp(msg, "tile:", 5) == 0 || strncmp(msg, "[string", 7) == 0)) msg = p + 2;
  }
  if (!line) line = cur_line();
  if (line) lua_pushstring(l, ltU_fmt("%s:%d: error: %s", kfile, line, msg));
  else lua_pushstring(l, ltU_fmt("%s: error: %s", kfile, msg));
  return 1;
}

/* Allocator with a ceiling, so a runaway kernel file fails cleanly. */
static void *lalloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    free(ptr);
    mem_used -= osize;
    return NULL;
  }
  if (nsize > osize && mem_used + (nsize - osize) > MEM_LIMIT) return NULL;
  void *p = realloc(ptr, nsize);
  if (p) mem_used += nsize - osize;
  return p;
}

/* Count hook: stops a kernel file that runs for too long. */
static int fatal;   /* set once the step limit is hit: pcall cannot catch it */

static void step_hook(lua_State *l, lua_Debug *ar) {
  (void)ar;
  if (++steps > STEP_LIMIT) {
    fatal = 1;
    luaL_error(l, "the kernel file ran for over %d million Lua steps (an endless loop?)", STEP_LIMIT);
  }
}

/* pcall / xpcall for kernel files: as Lua's, except that the step limit
** goes through them. */
static int sandbox_pcall(lua_State *l) {
  int x = lua_toboolean(l, lua_upvalueindex(1));
  int n = lua_gettop(l);
  luaL_checkany(l, 1);
  int base = x ? 3 : 2;       /* pcall(f, ...) / xpcall(f, h, ...) */
  if (x) {                    /* stack: f h args -> h f args */
    lua_pushvalue(l, 2);
    lua_pushvalue(l, 1);
    lua_replace(l, 2);
    lua_replace(l, 1);
  }
  int rc = lua_pcall(l, n - base + 1, LUA_MULTRET, x ? 1 : 0);
  if (rc != LUA_OK && fatal) return lua_error(l);
  lua_pushboolean(l, rc == LUA_OK);
  lua_insert(l, x ? 2 : 1);
  return lua_gettop(l) - (x ? 1 : 0);
}

/* ------------------------------------------------------------------ */
/* handles                                                             */

static Handle *push_handle(HKind kind) {
  Handle *h = lua_newuserdatauv(L, sizeof *h, 0);
  memset(h, 0, sizeof *h);
  h->kind = kind;
  luaL_setmetatable(L, VAL_MT);
  return h;
}

static void push_expr(Expr *e) { push_handle(H_EXPR)->e = e; }

static Handle *to_handle(int idx) { return luaL_testudata(L, idx, VAL_MT); }

static const char *lua_kind(int idx) {
  Handle *h = to_handle(idx);
  if (!h) return luaL_typename(L, idx);
  switch (h->kind) {
  case H_EXPR: return h->e->rank ? "a tile value" : "a scalar value";
  case H_TENSOR: return "a tensor";
  case H_VIEW: return "a tensor view";
  case H_SHARED: return "a shared tile";
  default: return "the kernel builder";
  }
}

/* Reads argument idx as a value: a handle to an expression or a number. */
static Expr *arg_expr(int idx, const char *what) {
  int line = cur_line();
  if (lua_type(L, idx) == LUA_TNUMBER) return ltI_const(lua_tonumber(L, idx), DT_F32, 1, line);
  if (lua_type(L, idx) == LUA_TBOOLEAN) return ltI_const(lua_toboolean(L, idx), DT_BOOL, 0, line);
  Handle *h = to_handle(idx);
  if (h && h->kind == H_EXPR) return h->e;
  dsl_error("%s must be a number or a value, not %s", what, lua_kind(idx));
  return NULL;
}

/* Reads a uniform integer (a number, a size, a program id, a loop index). */
static Expr *arg_index(int idx, const char *what) {
  Expr *e = arg_expr(idx, what);
  if (e->rank) dsl_error("%s must be a scalar, not a tile", what);
  if (e->weak) {
    if (e->cval != floor(e->cval)) dsl_error("%s must be an integer, not %g", what, e->cval);
    return ltI_const(e->cval, DT_I32, 0, e->line);
  }
  if (e->dt != DT_I32) dsl_error("%s must be an i32 scalar, not %s", what, ltI_dtypes[e->dt].name);
  return e;
}

/* Reads a positive integer Lua number (a tile extent). */
static int arg_extent(int idx, const char *what) {
  if (!lua_isinteger(L, idx) && !(lua_isnumber(L, idx) && lua_tonumber(L, idx) == floor(lua_tonumber(L, idx))))
    dsl_error("%s must be a whole Lua number (tile sizes are fixed at generation time), not %s", what, lua_kind(idx));
  lua_Number n = lua_tonumber(L, idx);
  if (n < 1 || n > (1 << 24)) dsl_error("%s must be between 1 and 16777216, not %g", what, n);
  return (int)n;
}

/* Reads a dtype name argument. */
static Dtype arg_dtype(int idx) {
  const char *s = lua_tostring(L, idx);
  int dt = s ? ltI_dtype_from_name(s) : -1;
  if (dt < 0) dsl_error("unknown dtype '%s'; use \"f32\", \"f16\", \"bf16\" or \"i32\"", s ? s : luaL_typename(L, idx));
  return (Dtype)dt;
}

/* Reads a shape table {R, C} or {C} into a two-dim tile shape. */
static int arg_shape(int idx, int shape[2]) {
  if (!lua_istable(L, idx)) dsl_error("a tile shape is a table like {128, 64} or {1024}, not %s", lua_kind(idx));
  int n = (int)luaL_len(L, idx);
  if (n < 1 || n > 2) dsl_error("register and shared tiles have 1 or 2 dims, not %d", n);
  shape[0] = 1;
  for (int i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    shape[2 - n + i] = arg_extent(-1, "a tile dim");
    lua_pop(L, 1);
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* blocks, scopes, values                                              */

static Block *cur_block(void) { return blocks[nblocks - 1]; }

static int in_scope(Sym *s) {
  if (!s->home) return 1;
  for (int i = 0; i < nblocks; i++)
    if (blocks[i] == s->home) return 1;
  return 0;
}

/* Checks that e only reads values visible from the current block. */
static void check_scope(Expr *e) {
  if (!e) return;
  if (e->kind == E_SYM && !in_scope(e->sym))
    dsl_error("a value made inside a k:serial or k:when body (line %d) is used outside it; "
              "declare a k:fragment before the block and k:assign it inside", e->sym->line);
  check_scope(e->a);
  check_scope(e->b);
  check_scope(e->c);
}

static Stmt *add_stmt(StmtKind kind) {
  Stmt *s = ltI_stmt(kind, cur_line());
  check_scope(s->val);
  ltI_append(cur_block(), s);
  return s;
}

/* Binds e to a fresh immutable symbol (an S_LET) and pushes its handle.
** Constants and plain symbol references need no binding. */
static void push_value(Expr *e) {
  if (e->kind == E_CONST || (e->kind == E_SYM && e->sym->kind != SYM_LET && e->rank == 0)) {
    push_expr(e);
    return;
  }
  check_scope(e);
  Sym *s = ltI_sym(K, SYM_LET, e->dt, e->line);
  s->rank = e->rank;
  s->shape[0] = e->shape[0];
  s->shape[1] = e->shape[1];
  s->nonneg = e->rank == 0 && ltI_nonneg(e);
  s->home = cur_block();
  Stmt *st = add_stmt(S_LET);
  st->dst = s;
  st->val = e;
  s->def = st;
  push_expr(ltI_ref(s, e->line));
}

/* ------------------------------------------------------------------ */
/* naming from Lua locals                                              */

static const char *const reserved[] = {
  "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
  "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
  "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
  "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
  "true", "false", "new", "delete", "class", "template", "this", "namespace",
  "tid", "tx", "ty", "lane", "warp", "ri", "ci", "vi", "ei", "wi", "gr", "gc", "off",
  "ok", "raw", "acc", "vec", "h", "base", "ptr", "grid", "block", "stream", "half", "exp", "log", "sqrt",
  "max", "min", "abs", "tanh", "erf", "main", "threadIdx", "blockIdx", "blockDim",
  "gridDim", "warpSize", "dim3", "int64_t", "uint16_t", "uint32_t", NULL,
};

static int name_taken(const char *n) {
  for (int i = 0; reserved[i]; i++)
    if (strcmp(reserved[i], n) == 0) return 1;
  if (strncmp(n, "lt_", 3) == 0) return 1;
  for (int i = 0; i < K->nsyms; i++)
    if (K->syms[i]->name && strcmp(K->syms[i]->name, n) == 0) return 1;
  return 0;
}

/* Gives s the C name closest to want that is free in this kernel. */
static void set_name(Sym *s, const char *want, int from_dsl) {
  if (s->name) return;
  char base[64];
  snprintf(base, sizeof base, "%s", want);
  const char *n = base;
  if (name_taken(n)) {
    for (int i = 2;; i++) {
      n = ltU_fmt("%s_%d", base, i);
      if (!name_taken(n)) break;
    }
  }
  s->name = ltU_strdup(n);
  s->named = from_dsl;
}

/* Names unnamed values held in locals of the kernel file's active frames. */
static void name_locals(void) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "S", &ar);
    if (strcmp(ar.source, ksource) != 0) continue;
    const char *nm;
    for (int i = 1; (nm = lua_getlocal(L, &ar, i)) != NULL; i++) {
      Handle *h = nm[0] != '(' ? to_handle(-1) : NULL;
      if (h && h->kind == H_EXPR && h->e->kind == E_SYM) {
        Sym *s = h->e->sym;
        if (!s->name && (s->kind == SYM_LET || s->kind == SYM_FRAG || s->kind == SYM_PID))
          set_name(s, nm, 1);
      } else if (h && h->kind == H_SHARED && !h->s->name) {
        set_name(h->s, nm, 1);
      }
      lua_pop(L, 1);
    }
  }
}

/* ------------------------------------------------------------------ */
/* value operators and methods                                         */

static int l_binop(BinOp op) {
  int line = cur_line();
  Expr *a = arg_expr(1, "an operand");
  Expr *b = arg_expr(2, "an operand");
  push_value(ltI_binary(op, a, b, line));
  return 1;
}

static int m_add(lua_State *l) { (void)l; return l_binop(B_ADD); }
static int m_sub(lua_State *l) { (void)l; return l_binop(B_SUB); }
static int m_mul(lua_State *l) { (void)l; return l_binop(B_MUL); }
static int m_div(lua_State *l) { (void)l; return l_binop(B_DIV); }
static int m_idiv(lua_State *l) { (void)l; return l_binop(B_IDIV); }
static int m_mod(lua_State *l) { (void)l; return l_binop(B_MOD); }

static int m_unm(lua_State *l) {
  (void)l;
  push_value(ltI_unary(U_NEG, arg_expr(1, "an operand"), cur_line()));
  return 1;
}

static int m_forbidden(lua_State *l) {
  (void)l;
  return dsl_error("values cannot be compared with < <= == (Lua needs a boolean now, the value "
                   "exists only at run time); use a:lt(b), a:le(b), a:eq(b) ...");
}

static const struct { const char *name; BinOp op; } binop_names[] = {
  {"add", B_ADD}, {"sub", B_SUB}, {"mul", B_MUL}, {"div", B_DIV}, {"max", B_MAX}, {"min", B_MIN},
  {"lt", B_LT}, {"le", B_LE}, {"gt", B_GT}, {"ge", B_GE}, {"eq", B_EQ}, {"ne", B_NE},
  {"both", B_AND}, {"either", B_OR}, {NULL, 0},
};

static const struct { const char *name; UnOp op; } unop_names[] = {
  {"exp", U_EXP}, {"exp2", U_EXP2}, {"log", U_LOG}, {"sqrt", U_SQRT}, {"rsqrt", U_RSQRT},
  {"tanh", U_TANH}, {"erf", U_ERF}, {"abs", U_ABS}, {"negate", U_NOT}, {NULL, 0},
};

/* core.binary(name, a, b) and core.unary(name, x): the prelude's math. */
static int c_binary(lua_State *l) {
  const char *n = luaL_checkstring(l, 1);
  lua_remove(l, 1);
  for (int i = 0; binop_names[i].name; i++)
    if (strcmp(binop_names[i].name, n) == 0) return l_binop(binop_names[i].op);
  return dsl_error("unknown operation '%s'", n);
}

static int c_unary(lua_State *l) {
  const char *n = luaL_checkstring(l, 1);
  for (int i = 0; unop_names[i].name; i++)
    if (strcmp(unop_names[i].name, n) == 0) {
      push_value(ltI_unary(unop_names[i].op, arg_expr(2, n), cur_line()));
      return 1;
    }
  return dsl_error("unknown operation '%s'", n);
}

static int c_where(lua_State *l) {
  (void)l;
  int line = cur_line();
  Expr *c = arg_expr(1, "where's condition");
  push_value(ltI_select(c, arg_expr(2, "where's first value"), arg_expr(3, "where's second value"), line));
  return 1;
}

static int c_cast(lua_State *l) {
  (void)l;
  Expr *e = arg_expr(1, "cast's operand");
  push_value(ltI_cast(e, arg_dtype(2), cur_line()));
  return 1;
}

/* x:method(...) on a value: comparisons, math and cast as methods. */
static int expr_method(lua_State *l) {
  const char *n = lua_tostring(l, lua_upvalueindex(1));
  for (int i = 0; binop_names[i].name; i++)
    if (strcmp(binop_names[i].name, n) == 0) return l_binop(binop_names[i].op);
  for (int i = 0; unop_names[i].name; i++)
    if (strcmp(unop_names[i].name, n) == 0) {
      push_value(ltI_unary(unop_names[i].op, arg_expr(1, n), cur_line()));
      return 1;
    }
  return c_cast(l);
}

static int tensor_tile(lua_State *l);
static int tensor_view(lua_State *l);

/* __index: methods and fields of values, tensors and shared tiles. */
static int m_index(lua_State *l) {
  Handle *h = to_handle(1);
  const char *key = lua_tostring(l, 2);
  if (!key) return dsl_error("%s has no numeric fields", lua_kind(1));
  if (h->kind == H_EXPR || h->kind == H_SHARED) {
    Dtype dt = h->kind == H_EXPR ? h->e->dt : h->s->dt;
    if (strcmp(key, "dtype") == 0) {
      lua_pushstring(l, ltI_dtypes[dt].name);
      return 1;
    }
    if (strcmp(key, "shape") == 0) {
      int rank = h->kind == H_EXPR ? h->e->rank : h->s->rank;
      const int *sh = h->kind == H_EXPR ? h->e->shape : h->s->shape;
      lua_createtable(l, rank, 0);
      for (int i = 0; i < rank; i++) {
        lua_pushinteger(l, sh[2 - rank + i]);
        lua_seti(l, -2, i + 1);
      }
      return 1;
    }
    if (h->kind == H_EXPR) {
      int ok = strcmp(key, "cast") == 0;
      for (int i = 0; !ok && binop_names[i].name; i++) ok = strcmp(binop_names[i].name, key) == 0;
      for (int i = 0; !ok && unop_names[i].name; i++) ok = strcmp(unop_names[i].name, key) == 0;
      if (ok) {
        lua_pushstring(l, key);
        lua_pushcclosure(l, expr_method, 1);
        return 1;
      }
    }
  } else if (h->kind == H_TENSOR) {
    if (strcmp(key, "tile") == 0) { lua_pushcfunction(l, tensor_tile); return 1; }
    if (strcmp(key, "view") == 0) { lua_pushcfunction(l, tensor_view); return 1; }
    if (strcmp(key, "dtype") == 0) { lua_pushstring(l, ltI_dtypes[h->s->dt].name); return 1; }
    if (strcmp(key, "rank") == 0) { lua_pushinteger(l, h->s->trank); return 1; }
    if (strcmp(key, "shape") == 0) {
      lua_createtable(l, h->s->trank, 0);
      for (int i = 0; i < h->s->trank; i++) {
        Expr *d = h->s->dims[i];
        if (d->kind == E_CONST) lua_pushinteger(l, (lua_Integer)d->cval);
        else push_expr(d);
        lua_seti(l, -2, i + 1);
      }
      return 1;
    }
  }
  return dsl_error("%s has no field or method '%s'", lua_kind(1), key);
}

static int m_newindex(lua_State *l) {
  return dsl_error("%s is read-only (field '%s'); use k:assign to change a fragment",
                   lua_kind(1), lua_tostring(l, 2) ? lua_tostring(l, 2) : "?");
}

static int m_tostring(lua_State *l) {
  Handle *h = to_handle(1);
  const char *n = h->kind == H_EXPR && h->e->kind == E_SYM ? h->e->sym->name :
                  (h->kind == H_TENSOR || h->kind == H_SHARED) ? h->s->name : NULL;
  lua_pushfstring(l, "<%s %s>", lua_kind(1), n ? n : "");
  return 1;
}

/* ------------------------------------------------------------------ */
/* tensors and views                                                   */

/* Builds a view from origins (element offsets) and extents at idx+1, idx+2. */
static int make_view(lua_State *l, int tiles) {
  Handle *h = to_handle(1);
  if (!h || h->kind != H_TENSOR) return dsl_error("tile/view is called on a tensor: X:tile({i, j}, {BM, BN})");
  Sym *t = h->s;
  const char *fn = tiles ? "tile" : "view";
  if (!lua_istable(l, 2) || !lua_istable(l, 3))
    return dsl_error("%s:%s takes two tables: %s and extents, e.g. %s:%s({i, 0}, {1, 1024})", t->name, fn,
                     tiles ? "tile indices" : "element offsets", t->name, fn);
  int n = (int)luaL_len(l, 2), m = (int)luaL_len(l, 3);
  if (n != t->trank || m != t->trank)
    return dsl_error("rank mismatch: %s has %d dims, but %s got %d %s and %d extents", t->name, t->trank, fn, n,
                     tiles ? "indices" : "offsets", m);
  View *v = ltU_alloc(sizeof *v);
  v->t = t;
  v->line = cur_line();
  for (int i = 0; i < n; i++) {
    lua_geti(l, 3, i + 1);
    v->ext[i] = arg_extent(-1, "a view extent");
    lua_pop(l, 1);
    lua_geti(l, 2, i + 1);
    Expr *o = arg_index(-1, tiles ? "a tile index" : "a view offset");
    lua_pop(l, 1);
    if (tiles && v->ext[i] != 1) o = ltI_binary(B_MUL, o, ltI_const(v->ext[i], DT_I32, 0, v->line), v->line);
    check_scope(o);
    v->origin[i] = o;
  }
  v->rdim = n >= 2 ? n - 2 : -1;
  v->cdim = n - 1;
  for (int i = 0; i < n - 2; i++)
    if (v->ext[i] != 1)
      return dsl_error("only the last two dims of a view may be wider than 1 (dim %d of %s is %d)", i + 1, t->name,
                       v->ext[i]);
  push_handle(H_VIEW)->v = v;
  return 1;
}

static int tensor_tile(lua_State *l) { return make_view(l, 1); }
static int tensor_view(lua_State *l) { return make_view(l, 0); }

static View *arg_view(int idx) {
  Handle *h = to_handle(idx);
  if (!h || h->kind != H_VIEW) dsl_error("expected a tensor view such as X:tile({i, j}, {BM, BN}), not %s", lua_kind(idx));
  return h->v;
}

/* ------------------------------------------------------------------ */
/* builder methods: k:...                                              */

/* The expression a uniform value stands for, with its lets unfolded (the
** launcher computes grid extents, where kernel lets do not exist). */
static Expr *resolve(Expr *e) {
  if (!e) return NULL;
  if (e->kind == E_SYM && e->sym->kind == SYM_LET && e->sym->def && e->sym->def->kind == S_LET)
    return resolve(e->sym->def->val);
  if (!e->a && !e->b && !e->c) return e;
  Expr *r = ltU_alloc(sizeof *r);
  *r = *e;
  r->a = resolve(e->a);
  r->b = resolve(e->b);
  r->c = resolve(e->c);
  return r;
}

static int k_grid(lua_State *l) {
  name_locals();
  int n = lua_gettop(l) - 1;
  if (K->ngrid) return dsl_error("k:grid is called once per kernel");
  if (n < 1 || n > 3) return dsl_error("k:grid takes 1 to 3 extents (programs along x, y, z), not %d", n);
  for (int i = 0; i < n; i++) {
    Expr *e = resolve(arg_index(i + 2, "a grid extent"));
    Sym *s = ltI_sym(K, SYM_PID, DT_I32, cur_line());
    s->axis = i;
    s->extent = e;
    s->nonneg = 1;
    K->grid[i] = s;
    push_expr(ltI_ref(s, s->line));
  }
  K->ngrid = n;
  return n;
}

/* Declares a mutable fragment, optionally filled with init. */
static int k_fragment(lua_State *l) {
  name_locals();
  Dtype dt = arg_dtype(2);
  int shape[2];
  int rank = arg_shape(3, shape);
  Sym *s = ltI_sym(K, SYM_FRAG, dt, cur_line());
  s->rank = rank;
  s->shape[0] = shape[0];
  s->shape[1] = shape[1];
  Stmt *st = add_stmt(S_FRAG);
  st->dst = s;
  s->def = st;
  if (!lua_isnoneornil(l, 4)) {
    Expr *init = arg_expr(4, "a fragment's initial value");
    if (init->rank) return dsl_error("a fragment's initial value is a scalar; use k:assign for tiles");
    st->val = ltI_cast(init, dt, st->line);
    check_scope(st->val);
  }
  push_expr(ltI_ref(s, st->line));
  return 1;
}

static int k_shared(lua_State *l) {
  (void)l;
  name_locals();
  Dtype dt = arg_dtype(2);
  int shape[2];
  int rank = arg_shape(3, shape);
  Sym *s = ltI_sym(K, SYM_SHARED, dt, cur_line());
  s->rank = rank;
  s->shape[0] = shape[0];
  s->shape[1] = shape[1];
  push_handle(H_SHARED)->s = s;
  return 1;
}

/* Checks that a value of shape src can be written to a tile of shape dst. */
static void check_fits(const Expr *e, const int dst[2], const char *what) {
  if (e->rank == 0) return;
  for (int i = 0; i < 2; i++)
    if (e->shape[i] != dst[i] && e->shape[i] != 1)
      dsl_error("shape mismatch: %s is [%d, %d] but the value is [%d, %d]", what, dst[0], dst[1], e->shape[0],
                e->shape[1]);
}

static Expr *other_arg(int idx, Dtype dt) {
  if (lua_isnoneornil(L, idx)) return ltI_const(0, dt, 0, cur_line());
  Expr *o = arg_expr(idx, "the masked-element value");
  if (o->rank) dsl_error("the masked-element value of a load is a scalar");
  if (!o->weak && o->dt != dt) o = ltI_cast(o, dt, cur_line());
  return o->weak ? ltI_const(o->cval, dt, 0, o->line) : o;
}

/* k:load(view [, other]): a new tile; elements outside the tensor = other. */
static int k_load(lua_State *l) {
  (void)l;
  name_locals();
  View *v = arg_view(2);
  Stmt *st = add_stmt(S_LOAD);
  Sym *s = ltI_sym(K, SYM_LET, v->t->dt, st->line);
  ltI_view_shape(v, s->shape);
  s->rank = v->t->trank == 1 ? 1 : 2;
  s->home = cur_block();
  st->dst = s;
  st->view = v;
  st->other = other_arg(3, v->t->dt);
  check_scope(st->other);
  s->def = st;
  v->t->loaded = 1;
  push_expr(ltI_ref(s, st->line));
  return 1;
}

/* Appends the store of val to view v (an S_STORE) and returns it. */
static Stmt *do_store(View *v, Expr *val) {
  int shape[2];
  ltI_view_shape(v, shape);
  check_fits(val, shape, ltU_fmt("the view of %s", v->t->name));
  Stmt *st = add_stmt(S_STORE);
  st->view = v;
  st->val = val->weak ? ltI_const(val->cval, v->t->dt, 0, val->line) : val;
  check_scope(st->val);
  if (st->val->dt == DT_BOOL) dsl_error("cannot store a bool value; cast it with :cast(\"%s\")", ltI_dtypes[v->t->dt].name);
  v->t->stored = 1;
  return st;
}

static int k_store(lua_State *l) {
  name_locals();
  do_store(arg_view(2), arg_expr(3, "the stored value"));
  (void)l;
  return 0;
}

/* k:atomic_add(view, value): view += value, element by element, atomically
** (other blocks may add to the same elements); f32 tensors only. */
static int k_atomic_add(lua_State *l) {
  name_locals();
  View *v = arg_view(2);
  Expr *val = arg_expr(3, "the added value");
  if (v->t->dt != DT_F32)
    dsl_error("k:atomic_add adds to f32 tensors only, but %s is %s; accumulate in an f32 tensor and convert it "
              "afterwards", v->t->name, ltI_dtypes[v->t->dt].name);
  if (!val->weak && val->dt != DT_F32)
    dsl_error("k:atomic_add's value is %s; it must be f32 like the tensor: cast it with :cast(\"f32\")",
              ltI_dtypes[val->dt].name);
  do_store(v, val)->atomic = 1;
  (void)l;
  return 0;
}

static Sym *arg_frag(int idx, const char *what) {
  Handle *h = to_handle(idx);
  if (!h || h->kind != H_EXPR || h->e->kind != E_SYM || h->e->sym->kind != SYM_FRAG)
    dsl_error("%s must be a fragment made by k:fragment, not %s", what, lua_kind(idx));
  if (!in_scope(h->e->sym)) dsl_error("this fragment is not visible here");
  return h->e->sym;
}

static void do_assign(Sym *f, Expr *val) {
  check_fits(val, f->shape, ltU_fmt("fragment %s", f->name ? f->name : ""));
  if (!val->weak && val->dt != f->dt)
    dsl_error("dtype mismatch: the fragment is %s but the value is %s; cast it with :cast(\"%s\")",
              ltI_dtypes[f->dt].name, ltI_dtypes[val->dt].name, ltI_dtypes[f->dt].name);
  Stmt *st = add_stmt(S_ASSIGN);
  st->dst = f;
  st->val = val->weak ? ltI_const(val->cval, f->dt, 0, val->line) : val;
  check_scope(st->val);
}

static int k_assign(lua_State *l) {
  name_locals();
  (void)l;
  do_assign(arg_frag(2, "k:assign's target"), arg_expr(3, "the assigned value"));
  return 0;
}

static void do_shared_store(Sym *sh, Expr *val) {
  check_fits(val, sh->shape, ltU_fmt("shared tile %s", sh->name ? sh->name : ""));
  Stmt *st = add_stmt(S_SSTORE);
  st->shared = sh;
  st->val = val->weak ? ltI_const(val->cval, sh->dt, 0, val->line) : val;
  check_scope(st->val);
}

/* k:fill(tile, value): every element of a fragment or shared tile. */
static int k_fill(lua_State *l) {
  (void)l;
  name_locals();
  Handle *h = to_handle(2);
  Expr *val = arg_expr(3, "the fill value");
  if (val->rank) return dsl_error("k:fill takes a scalar value; use k:assign or k:copy for tiles");
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
  name_locals();
  Handle *src = to_handle(2), *dst = to_handle(3);
  if (!src || !dst) return dsl_error("k:copy(src, dst) takes views, shared tiles or fragments, not %s and %s",
                                     lua_kind(2), lua_kind(3));
  if (src->kind == H_VIEW && dst->kind == H_SHARED) {
    int shape[2];
    ltI_view_shape(src->v, shape);
    if (shape[0] != dst->s->shape[0] || shape[1] != dst->s->shape[1])
      return dsl_error("shape mismatch: the view is [%d, %d] but the shared tile is [%d, %d]", shape[0], shape[1],
                       dst->s->shape[0], dst->s->shape[1]);
    if (src->v->t->dt != dst->s->dt)
      return dsl_error("dtype mismatch: %s is %s but the shared tile is %s", src->v->t->name,
                       ltI_dtypes[src->v->t->dt].name, ltI_dtypes[dst->s->dt].name);
    Stmt *st = add_stmt(S_G2S);
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
      return dsl_error("shape mismatch: the view is [%d, %d] but the fragment is [%d, %d]", shape[0], shape[1],
                       f->shape[0], f->shape[1]);
    Stmt *st = add_stmt(S_LOAD);
    st->dst = f;
    st->view = src->v;
    st->other = other_arg(4, src->v->t->dt);
    src->v->t->loaded = 1;
    return 0;
  }
  if (src->kind == H_SHARED && dst->kind == H_EXPR) {
    Sym *f = arg_frag(3, "k:copy's destination");
    if (src->s->shape[0] != f->shape[0] || src->s->shape[1] != f->shape[1])
      return dsl_error("shape mismatch: the shared tile is [%d, %d] but the fragment is [%d, %d]", src->s->shape[0],
                       src->s->shape[1], f->shape[0], f->shape[1]);
    if (src->s->dt != f->dt)
      return dsl_error("dtype mismatch: the shared tile is %s but the fragment is %s", ltI_dtypes[src->s->dt].name,
                       ltI_dtypes[f->dt].name);
    Stmt *st = add_stmt(S_SLOAD);
    st->dst = f;
    st->shared = src->s;
    return 0;
  }
  if (src->kind == H_EXPR && dst->kind == H_SHARED) {
    if (!src->e->weak && src->e->dt != dst->s->dt)
      return dsl_error("dtype mismatch: the value is %s but the shared tile is %s", ltI_dtypes[src->e->dt].name,
                       ltI_dtypes[dst->s->dt].name);
    do_shared_store(dst->s, src->e);
    return 0;
  }
  if (src->kind == H_EXPR && dst->kind == H_VIEW) {
    do_store(dst->v, src->e);
    return 0;
  }
  return dsl_error("k:copy cannot copy %s to %s; load shared tiles into a fragment first", lua_kind(2), lua_kind(3));
}

/* k:reduce_sum / reduce_max / reduce_min (x, axis): keeps the axis as 1. */
static int reduce(lua_State *l, BinOp op) {
  name_locals();
  Expr *x = arg_expr(2, "the reduced value");
  if (!x->rank) return dsl_error("reductions take a tile, not a scalar");
  if (x->dt == DT_BOOL) return dsl_error("reductions take numbers, not bools");
  lua_Integer axis = luaL_optinteger(l, 3, x->rank);
  if (axis < 1 || axis > x->rank)
    return dsl_error("reduction axis must be %s for a %d-dim tile, not %d", x->rank == 2 ? "1 or 2" : "1", x->rank,
                     (int)axis);
  int ax = x->rank == 1 ? 1 : (int)axis - 1;
  Stmt *st = add_stmt(S_REDUCE);
  Sym *s = ltI_sym(K, SYM_LET, x->dt, st->line);
  s->rank = x->rank;
  s->shape[0] = ax == 0 ? 1 : x->shape[0];
  s->shape[1] = ax == 1 ? 1 : x->shape[1];
  s->home = cur_block();
  s->def = st;
  st->dst = s;
  st->val = x;
  st->op = op;
  st->axis = ax;
  check_scope(x);
  push_expr(ltI_ref(s, st->line));
  return 1;
}

static int k_reduce_sum(lua_State *l) { return reduce(l, B_ADD); }
static int k_reduce_max(lua_State *l) { return reduce(l, B_MAX); }
static int k_reduce_min(lua_State *l) { return reduce(l, B_MIN); }

/* k:iota(shape, axis): i32 tile whose elements are their index along axis. */
static int k_iota(lua_State *l) {
  name_locals();
  int shape[2];
  int rank = arg_shape(2, shape);
  lua_Integer axis = luaL_optinteger(l, 3, rank);
  if (axis < 1 || axis > rank) return dsl_error("iota's axis must be between 1 and %d, not %d", rank, (int)axis);
  Expr *e = ltI_const(0, DT_I32, 0, cur_line());
  e->kind = E_IOTA;
  e->op = rank == 1 ? 1 : (int)axis - 1;
  e->rank = rank;
  e->shape[0] = shape[0];
  e->shape[1] = shape[1];
  push_value(e);
  return 1;
}

/* Runs the Lua function at idx with the given number of args already pushed
** after it, collecting statements into block b. */
static void run_body(Block *b, int nargs) {
  if (nblocks == (int)(sizeof blocks / sizeof blocks[0])) dsl_error("blocks are nested too deeply");
  blocks[nblocks++] = b;
  lua_call(L, nargs, 0);
  name_locals();
  nblocks--;
}

/* The name of the first parameter of the Lua function at idx, or NULL. */
static const char *param_name(int idx) {
  lua_pushvalue(L, idx);
  const char *n = lua_getlocal(L, NULL, 1);
  lua_pop(L, 1);
  return n;
}

/* k:serial(lo, hi [, step], function(i) ... end): a runtime loop. */
static int k_serial(lua_State *l) {
  name_locals();
  int top = lua_gettop(l);
  int fn = top;
  if (!lua_isfunction(l, fn) || (top != 4 && top != 5))
    return dsl_error("k:serial takes (lo, hi, [step,] function(i) ... end)");
  Stmt *st = add_stmt(S_FOR);
  st->lo = arg_index(2, "the loop start");
  st->hi = arg_index(3, "the loop end");
  st->step = top == 5 ? arg_index(4, "the loop step") : ltI_const(1, DT_I32, 0, st->line);
  long long step;
  if (!ltI_const_int(st->step, &step) || step < 1)
    return dsl_error("the loop step must be a positive whole Lua number");
  check_scope(st->lo);
  check_scope(st->hi);
  Sym *v = ltI_sym(K, SYM_LOOP, DT_I32, st->line);
  v->nonneg = ltI_nonneg(st->lo);
  v->home = &st->body;
  const char *pn = param_name(fn);
  if (pn) set_name(v, pn, 1);
  st->var = v;
  lua_pushvalue(l, fn);
  push_expr(ltI_ref(v, st->line));
  run_body(&st->body, 1);
  return 0;
}

/* k:pipelined(lo, hi, stages, [options,] function(i) ... end): a runtime
** loop whose body starts with copies into shared tiles; gen overlaps the
** copies of later iterations with the rest of the body (pipeline.c).
** Options: {copies_first = bool}. */
static int k_pipelined(lua_State *l) {
  name_locals();
  int top = lua_gettop(l);
  if ((top != 5 && top != 6) || !lua_isfunction(l, top) || (top == 6 && !lua_istable(l, 5)))
    return dsl_error("k:pipelined takes (lo, hi, stages, [{copies_first = bool},] function(i) ... end)");
  if (!lua_isinteger(l, 4) || lua_tointeger(l, 4) < 1 || lua_tointeger(l, 4) > 8)
    return dsl_error("the number of pipeline stages is a whole Lua number from 1 to 8");
  Stmt *st = add_stmt(S_FOR);
  st->lo = arg_index(2, "the loop start");
  st->hi = arg_index(3, "the loop end");
  st->step = ltI_const(1, DT_I32, 0, st->line);
  st->stages = (int)lua_tointeger(l, 4);
  if (top == 6) {
    lua_pushnil(l);
    while (lua_next(l, 5)) {
      const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
      if (strcmp(key, "copies_first") != 0)
        return dsl_error("k:pipelined has no option '%s' (options: copies_first)", key);
      if (!lua_isboolean(l, -1)) return dsl_error("k:pipelined option copies_first is true or false");
      st->copies_first = lua_toboolean(l, -1);
      lua_pop(l, 1);
    }
  }
  check_scope(st->lo);
  check_scope(st->hi);
  Sym *v = ltI_sym(K, SYM_LOOP, DT_I32, st->line);
  v->nonneg = ltI_nonneg(st->lo);
  v->home = &st->body;
  const char *pn = param_name(top);
  if (pn) set_name(v, pn, 1);
  st->var = v;
  lua_pushvalue(l, top);
  push_expr(ltI_ref(v, st->line));
  run_body(&st->body, 1);
  return 0;
}

static Sym *arg_shared(int idx, const char *what) {
  Handle *h = to_handle(idx);
  if (!h || h->kind != H_SHARED) dsl_error("%s must be a shared tile made by k:shared, not %s", what, lua_kind(idx));
  return h->s;
}

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
  name_locals();
  Handle *ha = to_handle(2);
  Sym *a = NULL;
  Expr *areg = NULL;
  if (ha && ha->kind == H_EXPR && ha->e->rank == 2) areg = ha->e;
  else a = arg_shared(2, "k:gemm's first operand (a shared tile or a 2-dim register tile)");
  Sym *b = arg_shared(3, "k:gemm's second operand");
  Sym *acc = arg_frag(4, "k:gemm's accumulator");
  Stmt *st = add_stmt(S_GEMM);
  st->shared = a;
  st->val = areg;
  st->shared_b = b;
  st->dst = acc;
  if (areg) check_scope(areg);
  if (!lua_isnoneornil(l, 5)) {
    if (!lua_istable(l, 5)) return dsl_error("k:gemm's options are a table such as {transpose_b = true}");
    lua_pushnil(l);
    while (lua_next(l, 5)) {
      const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
      if (strcmp(key, "transpose_a") == 0 || strcmp(key, "transpose_b") == 0) {
        if (!lua_isboolean(l, -1)) return dsl_error("k:gemm option %s is true or false", key);
        *(key[10] == 'a' ? &st->trans_a : &st->trans_b) = lua_toboolean(l, -1);
      } else if (strcmp(key, "tf32") == 0) {
        if (!lua_isboolean(l, -1)) return dsl_error("k:gemm option tf32 is true or false");
        st->tf32 = lua_toboolean(l, -1);
      } else if (strcmp(key, "warps") == 0) {
        lua_geti(l, -1, 1);
        lua_geti(l, -2, 2);
        if (!lua_istable(l, -3) || !lua_isinteger(l, -2) || !lua_isinteger(l, -1) || lua_tointeger(l, -2) < 1 ||
            lua_tointeger(l, -1) < 1)
          return dsl_error("k:gemm option warps is {warps along M, warps along N}, e.g. {2, 4}");
        int wm = (int)lua_tointeger(l, -2), wn = (int)lua_tointeger(l, -1);
        if (K->warps_m && (K->warps_m != wm || K->warps_n != wn))
          return dsl_error("k:gemm warps = {%d, %d}, but an earlier gemm said {%d, %d}: the gemms of a kernel "
                           "share one warp grid", wm, wn, K->warps_m, K->warps_n);
        K->warps_m = wm;
        K->warps_n = wn;
        lua_pop(l, 2);
      } else {
        return dsl_error("k:gemm has no option '%s' (options: transpose_a, transpose_b, warps, tf32)", key);
      }
      lua_pop(l, 1);
    }
  }
  const int *ash = a ? a->shape : areg->shape;
  Dtype adt = a ? a->dt : areg->dt;
  int M = ash[st->trans_a], Ka = ash[!st->trans_a];
  int Kb = b->shape[st->trans_b], N = b->shape[!st->trans_b];
  if (Ka != Kb)
    return dsl_error("k:gemm: the operands' K differ (%d and %d): a is [%d, %d]%s, b is [%d, %d]%s", Ka, Kb,
                     ash[0], ash[1], st->trans_a ? " (transposed: [K, M])" : " ([M, K])", b->shape[0],
                     b->shape[1], st->trans_b ? " (transposed: [N, K])" : " ([K, N])");
  if (acc->shape[0] != M || acc->shape[1] != N)
    return dsl_error("k:gemm: the accumulator is [%d, %d] but a @ b is [%d, %d]", acc->shape[0], acc->shape[1], M, N);
  if (acc->dt != DT_F32) return dsl_error("k:gemm accumulates in f32; declare the accumulator k:fragment(\"f32\", ...)");
  if (adt != b->dt)
    return dsl_error("k:gemm: the operands are %s and %s; both must have one dtype%s", ltI_dtypes[adt].name,
                     ltI_dtypes[b->dt].name, areg ? ltU_fmt(" (cast the register tile: x:cast(\"%s\"))",
                                                            ltI_dtypes[b->dt].name) : "");
  if (adt != DT_F16 && adt != DT_BF16 && adt != DT_F32)
    return dsl_error("k:gemm takes f16, bf16 or f32 operands, not %s", ltI_dtypes[adt].name);
  if (st->tf32 && adt != DT_F32)
    return dsl_error("k:gemm option tf32 rounds f32 operands; these are %s (leave tf32 out)", ltI_dtypes[adt].name);
  if (K->gemm && K->gemm->tf32 != st->tf32)
    return dsl_error("k:gemm: the gemms of a kernel share one instruction; line %d has tf32 = %s", K->gemm->line,
                     K->gemm->tf32 ? "true" : "false");
  if (K->gemm && K->gemm->shared_b->dt != b->dt)
    return dsl_error("k:gemm: the gemms of a kernel share one operand dtype (line %d has %s)", K->gemm->line,
                     ltI_dtypes[K->gemm->shared_b->dt].name);
  if (!K->gemm) K->gemm = st;
  return 0;
}

/* k:when(cond, then_fn [, else_fn]): a runtime branch on a uniform scalar;
** a Lua boolean picks the branch at generation time. */
static int k_when(lua_State *l) {
  name_locals();
  int top = lua_gettop(l);
  if (top < 3 || top > 4 || !lua_isfunction(l, 3) || (top == 4 && !lua_isfunction(l, 4)))
    return dsl_error("k:when takes (cond, function() ... end [, function() ... end])");
  if (lua_isboolean(l, 2)) {
    int pick = lua_toboolean(l, 2) ? 3 : 4;
    if (pick <= top) {
      lua_pushvalue(l, pick);
      lua_call(l, 0, 0);
    }
    return 0;
  }
  Expr *c = arg_expr(2, "k:when's condition");
  if (c->rank) return dsl_error("k:when's condition must be a scalar (the same in every thread), not a tile");
  if (c->dt != DT_BOOL) return dsl_error("k:when's condition must be a comparison such as n:eq(1)");
  Stmt *st = add_stmt(S_IF);
  st->val = c;
  check_scope(c);
  lua_pushvalue(l, 3);
  run_body(&st->body, 0);
  if (top == 4) {
    lua_pushvalue(l, 4);
    run_body(&st->orelse, 0);
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* params: tile.tensor / tile.scalar descriptors -> symbols            */

static int seq_counter;

/* core.tensor(dtype, shape, strides): a descriptor table for params. */
static int c_tensor(lua_State *l) {
  lua_settop(l, 3);
  arg_dtype(1);
  if (!lua_istable(l, 2)) return dsl_error("tile.tensor(dtype, shape): shape is a table like {\"M\", \"K\"}");
  int n = (int)luaL_len(l, 2);
  if (n < 1 || n > LT_MAXRANK) return dsl_error("tensors have 1 to %d dims, not %d", LT_MAXRANK, n);
  lua_newtable(l);
  lua_pushstring(l, "tensor");
  lua_setfield(l, -2, "lt_param");
  lua_pushvalue(l, 1);
  lua_setfield(l, -2, "dtype");
  lua_pushvalue(l, 2);
  lua_setfield(l, -2, "shape");
  if (!lua_isnil(l, 3)) {
    if (!lua_istable(l, 3) || (int)luaL_len(l, 3) != n)
      return dsl_error("tile.tensor's strides are a table with one entry per dim (%d)", n);
    lua_pushvalue(l, 3);
    lua_setfield(l, -2, "strides");
  }
  lua_pushinteger(l, ++seq_counter);
  lua_setfield(l, -2, "seq");
  lua_pushinteger(l, cur_line());
  lua_setfield(l, -2, "line");
  return 1;
}

static int c_scalar(lua_State *l) {
  Dtype dt = arg_dtype(1);
  if (dt == DT_F16 || dt == DT_BF16) return dsl_error("scalar parameters are f32 or i32");
  int positive = 0;
  if (!lua_isnoneornil(l, 2)) {
    if (!lua_istable(l, 2)) return dsl_error("tile.scalar's options are a table: { positive = true }, not %s", lua_kind(2));
    lua_pushnil(l);
    while (lua_next(l, 2)) {
      lua_pop(l, 1);
      if (lua_type(l, -1) != LUA_TSTRING || strcmp(lua_tostring(l, -1), "positive") != 0)
        return dsl_error("tile.scalar has no option '%s' (options: positive = true)", luaL_tolstring(l, -1, NULL));
    }
    lua_getfield(l, 2, "positive");
    if (!lua_isboolean(l, -1)) return dsl_error("tile.scalar's option positive is true or false, not %s", lua_kind(-1));
    positive = lua_toboolean(l, -1);
    lua_pop(l, 1);
  }
  lua_newtable(l);
  lua_pushboolean(l, positive);
  lua_setfield(l, -2, "positive");
  lua_pushstring(l, "scalar");
  lua_setfield(l, -2, "lt_param");
  lua_pushvalue(l, 1);
  lua_setfield(l, -2, "dtype");
  lua_pushinteger(l, ++seq_counter);
  lua_setfield(l, -2, "seq");
  return 1;
}

static int valid_ident(const char *s) {
  if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
  for (; *s; s++)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))) return 0;
  return 1;
}

/* Finds or makes the size / stride symbol called name. */
static Sym *param_sym(const char *name, SymKind kind, int line) {
  for (int i = 0; i < K->nsyms; i++)
    if (K->syms[i]->name && strcmp(K->syms[i]->name, name) == 0) {
      if (K->syms[i]->kind != kind) dsl_error("'%s' names both a %s and a %s", name,
                                              kind == SYM_SIZE ? "size" : "stride", "different parameter");
      return K->syms[i];
    }
  if (!valid_ident(name) || name_taken(name)) dsl_error("'%s' cannot be a size or stride name (reserved or not an identifier)", name);
  Sym *s = ltI_sym(K, kind, kind == SYM_SIZE ? DT_I32 : DT_I32, line);
  s->name = ltU_strdup(name);
  s->named = 1;
  s->nonneg = 1;
  return s;
}

/* Reads one shape or stride entry: a name or a whole number. */
static Expr *dim_entry(int idx, SymKind kind, int line) {
  if (lua_type(L, idx) == LUA_TSTRING) return ltI_ref(param_sym(lua_tostring(L, idx), kind, line), line);
  if (lua_isinteger(L, idx) && lua_tointeger(L, idx) >= (kind == SYM_SIZE ? 1 : 0))
    return ltI_const((double)lua_tointeger(L, idx), DT_I32, 0, line);
  dsl_error("a tensor %s is a name like \"N\" or a %s whole number", kind == SYM_SIZE ? "dim" : "stride",
            kind == SYM_SIZE ? "positive" : "non-negative");
  return NULL;
}

typedef struct { const char *name; int seq; int ref; } PEntry;

static int cmp_pentry(const void *a, const void *b) {
  return ((const PEntry *)a)->seq - ((const PEntry *)b)->seq;
}

/* Turns the table returned by params() (at the stack top) into symbols and
** the p table given to body (pushed). */
static void build_params(void) {
  int tab = lua_gettop(L);
  if (!lua_istable(L, tab)) dsl_error("params must return a table of tile.tensor / tile.scalar declarations");
  PEntry ents[64];
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, tab)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!key || !valid_ident(key)) dsl_error("params keys are parameter names (identifiers)");
    if (!lua_istable(L, -1)) dsl_error("params.%s must be tile.tensor(...) or tile.scalar(...)", key);
    lua_getfield(L, -1, "seq");
    if (n == 64) dsl_error("too many parameters");
    ents[n].name = key;
    ents[n].seq = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    ents[n].ref = 0;
    n++;
    lua_pop(L, 1);
  }
  qsort(ents, (size_t)n, sizeof ents[0], cmp_pentry);
  lua_newtable(L);  /* p */
  int p = lua_gettop(L);
  for (int i = 0; i < n; i++) {
    lua_getfield(L, tab, ents[i].name);
    int d = lua_gettop(L);
    lua_getfield(L, d, "lt_param");
    const char *kind = lua_tostring(L, -1);
    lua_getfield(L, d, "dtype");
    Dtype dt = (Dtype)ltI_dtype_from_name(lua_tostring(L, -1));
    lua_pop(L, 2);
    if (name_taken(ents[i].name)) dsl_error("parameter name '%s' is reserved or used twice", ents[i].name);
    if (kind && strcmp(kind, "scalar") == 0) {
      Sym *s = ltI_sym(K, SYM_SCALAR, dt, cur_line());
      s->name = ltU_strdup(ents[i].name);
      s->named = 1;
      lua_getfield(L, d, "positive");
      s->positive = s->nonneg = lua_toboolean(L, -1);
      lua_pop(L, 1);
      push_expr(ltI_ref(s, s->line));
      lua_setfield(L, p, ents[i].name);
    } else {
      lua_getfield(L, d, "line");
      int line = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
      Sym *t = ltI_sym(K, SYM_TENSOR, dt, line);
      t->name = ltU_strdup(ents[i].name);
      t->named = 1;
      lua_getfield(L, d, "shape");
      t->trank = (int)luaL_len(L, -1);
      for (int j = 0; j < t->trank; j++) {
        lua_geti(L, -1, j + 1);
        t->dims[j] = dim_entry(lua_gettop(L), SYM_SIZE, line);
        if (t->dims[j]->kind == E_SYM) {
          push_expr(t->dims[j]);
          lua_setfield(L, p, t->dims[j]->sym->name);
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      lua_getfield(L, d, "strides");
      if (lua_istable(L, -1)) {
        for (int j = 0; j < t->trank; j++) {
          lua_geti(L, -1, j + 1);
          t->strides[j] = dim_entry(lua_gettop(L), SYM_STRIDE, line);
          if (t->strides[j]->kind == E_SYM) {
            push_expr(t->strides[j]);
            lua_setfield(L, p, t->strides[j]->sym->name);
          }
          lua_pop(L, 1);
        }
      } else {  /* row-major: stride[j] = product of the later dims */
        Expr *acc = ltI_const(1, DT_I32, 0, line);
        for (int j = t->trank - 1; j >= 0; j--) {
          t->strides[j] = acc;
          acc = ltI_binary(B_MUL, acc, t->dims[j], line);
        }
      }
      lua_pop(L, 1);
      push_handle(H_TENSOR)->s = t;
      lua_setfield(L, p, ents[i].name);
    }
    lua_pop(L, 1);
  }
  lua_remove(L, tab);
}

/* ------------------------------------------------------------------ */
/* the kernel table, variants, config, -D                              */

static const luaL_Reg k_methods[] = {
  {"grid", k_grid}, {"fragment", k_fragment}, {"shared", k_shared}, {"load", k_load},
  {"store", k_store}, {"atomic_add", k_atomic_add}, {"copy", k_copy}, {"fill", k_fill}, {"assign", k_assign},
  {"reduce_sum", k_reduce_sum}, {"reduce_max", k_reduce_max}, {"reduce_min", k_reduce_min},
  {"iota", k_iota}, {"serial", k_serial}, {"pipelined", k_pipelined}, {"when", k_when},
  {"gemm", k_gemm}, {NULL, NULL},
};

static const luaL_Reg core_funcs[] = {
  {"binary", c_binary}, {"unary", c_unary}, {"where", c_where}, {"cast", c_cast},
  {"tensor", c_tensor}, {"scalar", c_scalar}, {NULL, NULL},
};

/* core.kernel(t): checks the kernel table's fields and records its line. */
static int c_kernel(lua_State *l) {
  if (!lua_istable(l, 1)) return dsl_error("tile.kernel takes a table: tile.kernel { name = ..., body = ... }");
  static const char *const fields[] = {"name",     "doc",         "variants",       "config", "target_config",
                                      "tuned_as", "unsupported", "variant_config", "params", "body",
                                      "tune",     NULL};
  lua_pushnil(l);
  while (lua_next(l, 1)) {
    const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
    int ok = 0;
    for (int i = 0; fields[i]; i++) ok |= strcmp(fields[i], key) == 0;
    if (!ok) return dsl_error("tile.kernel has no field '%s' (fields: name, doc, variants, config, target_config, tuned_as, "
                       "unsupported, variant_config, params, body, tune)", key);
    lua_pop(l, 1);
  }
  lua_getfield(l, 1, "name");
  if (!valid_ident(lua_tostring(l, -1))) return dsl_error("tile.kernel needs name = \"an_identifier\"");
  lua_getfield(l, 1, "params");
  if (!lua_isfunction(l, -1)) return dsl_error("tile.kernel needs params = function(v, c) return { ... } end");
  lua_getfield(l, 1, "body");
  if (!lua_isfunction(l, -1)) return dsl_error("tile.kernel needs body = function(k, p, c, v) ... end");
  lua_pop(l, 3);
  lua_pushinteger(l, cur_line());
  lua_setfield(l, 1, "lt_line");
  lua_pushvalue(l, 1);
  return 1;
}

/* Sorted string keys of the table at idx (for a stable variant order). */
static int sorted_keys(int idx, const char **keys, int max) {
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) dsl_error("variant and config keys are names");
    if (n < max) keys[n++] = lua_tostring(L, -1);
  }
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
      const char *t = keys[j];
      keys[j] = keys[j - 1];
      keys[j - 1] = t;
    }
  return n;
}

/* Pushes the Lua value a -D string stands for: integer, boolean or string. */
static void push_define(const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s && *end == 0) lua_pushinteger(L, v);
  else if (strcmp(s, "true") == 0) lua_pushboolean(L, 1);
  else if (strcmp(s, "false") == 0) lua_pushboolean(L, 0);
  else lua_pushstring(L, s);
}

static const char *value_text(int idx) {
  if (lua_isboolean(L, idx)) return lua_toboolean(L, idx) ? "true" : "false";
  if (lua_isinteger(L, idx)) return ltU_fmt("%lld", (long long)lua_tointeger(L, idx));
  if (lua_type(L, idx) == LUA_TSTRING) return ltU_strdup(lua_tostring(L, idx));
  dsl_error("variant and config values are numbers, strings or booleans");
  return NULL;
}

/* Reads the source lines of the kernel file for comments. */
static void read_lines(const char *text) {
  int cap = 256;
  klines = ltU_alloc(sizeof *klines * (size_t)cap);
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (nklines == cap) {
      char **q = ltU_alloc(sizeof *q * (size_t)cap * 2);
      memcpy(q, klines, sizeof *q * (size_t)cap);
      klines = q;
      cap *= 2;
    }
    char *line = ltU_alloc(n + 1);
    memcpy(line, p, n);
    klines[nklines++] = line;
    p = e ? e + 1 : p + n;
  }
}

/* Source text of a kernel-file line, trimmed, or "". */
const char *ltD_line_text(int line) {
  if (line < 1 || line > nklines) return "";
  const char *s = klines[line - 1];
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  char *r = ltU_alloc(n + 1);
  memcpy(r, s, n);
  for (size_t i = 0; i + 1 < n; i++)   /* keep comments closed */
    if ((r[i] == '*' && r[i + 1] == '/') || (r[i] == '/' && r[i + 1] == '*')) r[i] = '?';
  return r;
}

static char *slurp(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk - 1, f)) > 0) {
    chunk[n] = 0;
    if (memchr(chunk, 0, n)) { fclose(f); return NULL; }
    ltU_put(&b, chunk);
  }
  fclose(f);
  if (!b.p) ltU_put(&b, "");
  return b.p;
}

static int sandbox_index(lua_State *l) {
  static const char *const banned[] = {"os", "io", "debug", "package", "load", "loadfile", "dofile",
                                       "collectgarbage", "require", NULL};
  const char *n = lua_tostring(l, 2);
  for (int i = 0; n && banned[i]; i++)
    if (strcmp(banned[i], n) == 0)
      return dsl_error("undefined global '%s'; kernel files run sandboxed, without os, io, debug, package, load, "
                       "loadfile, dofile and collectgarbage", n);
  lua_getfield(l, LUA_REGISTRYINDEX, "lt_tile");
  lua_getfield(l, -1, n ? n : "");
  if (n && !lua_isnil(l, -1))
    return dsl_error("undefined global '%s'; declare it with local, or use tile.%s if you meant the DSL", n, n);
  return dsl_error("undefined global '%s'; declare it with local", n ? n : "?");
}

static const Target *the_target;   /* of the current run; NULL for --list */

/* k's metatable: k.target (the target's name) and k.warp (lanes per warp)
** let a kernel pick tile sizes per target; a misspelt builder method is
** named in the error. */
static int k_index(lua_State *l) {
  const char *key = lua_tostring(l, 2);
  if (key && the_target && strcmp(key, "target") == 0) {
    lua_pushstring(l, the_target->name);
    return 1;
  }
  if (key && the_target && strcmp(key, "warp") == 0) {
    lua_pushinteger(l, the_target->warp);
    return 1;
  }
  return dsl_error("the kernel builder has no field or method '%s'", key ? key : "?");
}

static int sandbox_newindex(lua_State *l) {
  return dsl_error("assignment to undefined global '%s'; declare it with local", lua_tostring(l, 2));
}

static int sandbox_require(lua_State *l) {
  const char *n = luaL_checkstring(l, 1);
  if (strcmp(n, "tile") != 0) return dsl_error("kernel files may only require \"tile\", not \"%s\"", n);
  lua_getfield(l, LUA_REGISTRYINDEX, "lt_tile");
  return 1;
}

/* Builds the kernel file's environment: safe base functions and libraries. */
static void push_sandbox(void) {
  static const char *const safe[] = {
    "assert", "error", "ipairs", "next", "pairs", "select", "tonumber", "tostring",
    "type", "rawequal", "rawget", "rawlen", "rawset", "setmetatable", "getmetatable",
    "string", "table", "math", "utf8", "print", NULL,
  };
  lua_newtable(L);
  for (int i = 0; safe[i]; i++) {
    lua_getglobal(L, safe[i]);
    lua_setfield(L, -2, safe[i]);
  }
  lua_pushcfunction(L, sandbox_require);
  lua_setfield(L, -2, "require");
  lua_pushboolean(L, 0);
  lua_pushcclosure(L, sandbox_pcall, 1);
  lua_setfield(L, -2, "pcall");
  lua_pushboolean(L, 1);
  lua_pushcclosure(L, sandbox_pcall, 1);
  lua_setfield(L, -2, "xpcall");
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "_G");
  lua_newtable(L);
  lua_pushcfunction(L, sandbox_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, sandbox_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
}

/* print() in a kernel file writes to stderr, keeping stdout for gen. */
static int l_print(lua_State *l) {
  int n = lua_gettop(l);
  for (int i = 1; i <= n; i++) {
    fputs(luaL_tolstring(l, i, NULL), stderr);
    lua_pop(l, 1);
    fputc(i < n ? '\t' : '\n', stderr);
  }
  if (n == 0) fputc('\n', stderr);
  return 0;
}

/* Sets up the Lua state, the value metatable, the prelude and the sandbox. */
static void open_state(void) {
  L = lua_newstate(lalloc, NULL);
  if (!L) ltU_error(0, "cannot start Lua");
  luaL_requiref(L, "_G", luaopen_base, 1);
  luaL_requiref(L, "string", luaopen_string, 1);
  luaL_requiref(L, "table", luaopen_table, 1);
  luaL_requiref(L, "math", luaopen_math, 1);
  luaL_requiref(L, "utf8", luaopen_utf8, 1);
  lua_pop(L, 5);
  lua_pushcfunction(L, l_print);
  lua_setglobal(L, "print");
  /* deterministic math.random for reproducible generation */
  (void)luaL_dostring(L, "math.randomseed(1)");
  lua_sethook(L, step_hook, LUA_MASKCOUNT, 1000000);

  luaL_newmetatable(L, VAL_MT);
  static const luaL_Reg mt[] = {
    {"__add", m_add}, {"__sub", m_sub}, {"__mul", m_mul}, {"__div", m_div}, {"__idiv", m_idiv},
    {"__mod", m_mod}, {"__unm", m_unm}, {"__lt", m_forbidden}, {"__le", m_forbidden},
    {"__eq", m_forbidden}, {"__index", m_index}, {"__newindex", m_newindex},
    {"__tostring", m_tostring}, {NULL, NULL},
  };
  luaL_setfuncs(L, mt, 0);
  lua_pop(L, 1);

  /* the prelude gets core and returns the tile module */
  if (luaL_loadbufferx(L, ltX_prelude, strlen(ltX_prelude), "=tile", "t") != LUA_OK)
    ltU_error(0, "internal: prelude: %s", lua_tostring(L, -1));
  lua_newtable(L);
  luaL_setfuncs(L, core_funcs, 0);
  lua_pushcfunction(L, c_kernel);
  lua_setfield(L, -2, "kernel");
  lua_call(L, 1, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lt_tile");
}

typedef struct Run {
  GenRequest *req;
  VariantFn fn;
  void *ud;
  Buf *listing;
} Run;

/* Builds and hands over one variant; the kernel table is at index 1, the
** variant table at vt and the config table at ct.  For one of nbuckets
** tuned shape buckets, bucket names it and the kernel's name gets its
** sizes (softmax_bf16_C4096_R32768); the launcher keeps vname. */
static void build_variant(Run *run, int kt, int vt, int ct, const char *vname, const char *tname, const char *vdesc,
                          const char *cdesc, const char *bucket, int nbuckets) {
  K = ltU_alloc(sizeof *K);
  lua_getfield(L, kt, "name");
  K->family = ltU_strdup(lua_tostring(L, -1));
  lua_pop(L, 1);
  K->launcher = vname;
  K->tuned = tname;
  K->name = vname;
  K->bucket = bucket;
  K->nbuckets = nbuckets;
  if (bucket) {
    Buf b = {0};
    ltU_printf(&b, "%s_", vname);
    for (const char *p = bucket; *p; p++)
      if (*p != '=') ltU_printf(&b, "%c", *p == ',' ? '_' : *p);
    K->name = b.p;
  }
  K->variant_desc = vdesc;
  K->config_desc = cdesc;
  lua_getfield(L, kt, "doc");
  K->doc = lua_isstring(L, -1) ? ltU_strdup(lua_tostring(L, -1)) : NULL;
  lua_pop(L, 1);
  lua_getfield(L, ct, "threads");
  K->threads = lua_isnil(L, -1) ? 256 : (int)lua_tointeger(L, -1);
  if (!lua_isnil(L, -1) && !lua_isinteger(L, -1)) dsl_error("config threads must be a whole number");
  lua_pop(L, 1);
  nblocks = 0;
  blocks[nblocks++] = &K->body;
  seq_counter = 0;

  lua_getfield(L, kt, "lt_line");
  K->line = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, kt, "body");
  lua_Debug ar;
  lua_getinfo(L, ">S", &ar);
  K->body_line = ar.linedefined;
  lua_getfield(L, kt, "params");
  lua_pushvalue(L, vt);
  lua_pushvalue(L, ct);
  lua_call(L, 2, 1);
  build_params();
  int p = lua_gettop(L);
  lua_getfield(L, kt, "body");
  lua_newtable(L);            /* k: a table of methods */
  luaL_setfuncs(L, k_methods, 0);
  lua_newtable(L);
  lua_pushcfunction(L, k_index);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, p);
  lua_pushvalue(L, ct);
  lua_pushvalue(L, vt);
  lua_call(L, 4, 0);
  lua_pop(L, 1);
  if (!K->ngrid)
    raise_msg(ltU_fmt("%s:%d: error: the body never called k:grid(...): say how many programs (blocks) run", kfile,
                      K->body_line));
  for (int i = 0; i < K->nsyms; i++)
    if (K->syms[i]->kind == SYM_TENSOR && !K->syms[i]->loaded && !K->syms[i]->stored) {
      Sym *t = K->syms[i];
      ltU_error(t->line, "tensor %s is declared but never loaded or stored", t->name);
    }
  run->fn(K, run->ud);
}

/* Is k one of the n names in keys? */
static int has_key(const char *const *keys, int n, const char *k) {
  for (int i = 0; i < n; i++)
    if (strcmp(keys[i], k) == 0) return 1;
  return 0;
}

/* The config of one variant, in the table at cv (the kernel's config with
** -D applied, plus the variant's values): lays the tuned entry of variant
** tname (vname's own name, or its tuned_as; tuned.c; bucket's, when not
** NULL) over it, except the keys -D set (dcfg), variant keys, and, in an
** entry borrowed by tuned_as, the keys the kernel's variant_config set for
** this variant (the nvc keys in vc), and returns its text "BC=4096
** threads=256".  When a tuned file was read, or always is set (--list
** --target), the text says where it came from: "(tuned: FILE, DEVICE,
** BUCKET)" or "(kernel defaults...)", then "; variant_config: K" and
** "; -D: K" for the keys those set. */
static const char *tuned_config(int cv, int vars, const char *vname, const char *tname, const char *bucket,
                                const char **ckeys, int nc, const char **vc, int nvc, const char **dcfg, int ndcfg,
                                int always) {
  const TunedValue *tv;
  int ntv;
  const char *origin = ltN_pick(tname, bucket, &tv, &ntv);
  int borrowed = ntv && strcmp(vname, tname) != 0;
  if (borrowed) origin = ltU_fmt("%s; %s's entry, by tuned_as", origin, tname);
  for (int i = 0; i < ntv; i++) {
    int skip = (borrowed && has_key(vc, nvc, tv[i].key)) || has_key(dcfg, ndcfg, tv[i].key);
    lua_getfield(L, vars, tv[i].key);
    skip |= !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (skip) continue;
    if (tv[i].kind == TK_INT) lua_pushinteger(L, tv[i].i);
    else if (tv[i].kind == TK_BOOL) lua_pushboolean(L, (int)tv[i].i);
    else lua_pushstring(L, tv[i].s);
    lua_setfield(L, cv, tv[i].key);
  }
  Buf b = {0};
  ltU_put(&b, "");
  for (int i = 0; i < nc; i++) {
    lua_getfield(L, cv, ckeys[i]);
    ltU_printf(&b, "%s%s=%s", i ? " " : "", ckeys[i], value_text(-1));
    lua_pop(L, 1);
  }
  if (!always && !ltN_active()) return b.p;
  ltU_printf(&b, "%s(%s", nc ? " " : "", origin);
  int nv = 0;   /* the keys variant_config decided: not those of the variant's own entry */
  for (int j = 0; j < nvc; j++) {
    int own = 0;
    for (int i = 0; i < ntv && !borrowed; i++) own |= strcmp(tv[i].key, vc[j]) == 0;
    if (!own) ltU_printf(&b, "%s%s", nv++ ? " " : "; variant_config: ", vc[j]);
  }
  for (int j = 0; j < ndcfg; j++) ltU_printf(&b, "%s%s", j ? " " : "; -D: ", dcfg[j]);
  ltU_put(&b, ")");
  return b.p;
}

/* Appends variant key's part of a variant name, for value text txt: _key
** for true, nothing for false, else _txt (softmax_bf16, loops_absolute). */
static void name_part(Buf *b, const char *key, const char *txt) {
  if (strcmp(txt, "true") == 0) ltU_printf(b, "_%s", key);
  else if (strcmp(txt, "false") != 0) ltU_printf(b, "_%s", txt);
}

/* Checks the kernel's tuned_as (kernel table at kt, variants at vars):
** { key = { value = other value } }, each key a variant key and each
** value one of its values.  Returns 0 after raising the error; line is
** tile.kernel's. */
static int tuned_as_check(int kt, int vars, int line) {
  lua_getfield(L, kt, "tuned_as");
  int ta = lua_gettop(L);
  if (lua_isnil(L, ta)) return lua_pop(L, 1), 1;
  const char *eg = "e.g. tuned_as = { hdim = { d96 = \"d128\" } }";
  if (!lua_istable(L, ta))
    return raise_msg(ltU_fmt("%s:%d: error: tuned_as is a table variant key = { value = other value }, %s", kfile, line,
                             eg)), 0;
  const char *keys[16];
  int nk = sorted_keys(ta, keys, 16);
  for (int i = 0; i < nk; i++) {
    lua_getfield(L, vars, keys[i]);
    int list = lua_gettop(L);
    if (!lua_istable(L, list))
      return raise_msg(ltU_fmt("%s:%d: error: tuned_as.%s: the kernel has no variant '%s'", kfile, line, keys[i],
                               keys[i])), 0;
    lua_getfield(L, ta, keys[i]);
    int m = lua_gettop(L);
    if (!lua_istable(L, m))
      return raise_msg(ltU_fmt("%s:%d: error: tuned_as.%s is a table value = other value, %s", kfile, line, keys[i],
                               eg)), 0;
    lua_pushnil(L);
    while (lua_next(L, m)) {
      const char *pair[2] = {value_text(-2), value_text(-1)};
      for (int j = 0; j < 2; j++) {
        int found = 0;
        for (lua_Integer x = 1; x <= luaL_len(L, list); x++) {
          lua_geti(L, list, x);
          found |= strcmp(value_text(-1), pair[j]) == 0;
          lua_pop(L, 1);
        }
        if (!found)
          return raise_msg(ltU_fmt("%s:%d: error: tuned_as.%s: %s is not one of the variant's values", kfile, line,
                                   keys[i], pair[j])), 0;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return 1;
}

/* The name of the variant whose tuned entries variant vname takes: vname
** when the tuned file has an entry for it, else the one the kernel's
** tuned_as names (the variant values in vt, some replaced), else vname. */
static const char *tuned_name(int kt, int vt, const char **vkeys, int nv, const char *kname, const char *vname) {
  const TunedValue *tv;
  int n;
  const char *found[1];
  ltN_pick(vname, NULL, &tv, &n);
  if (n || ltN_buckets(vname, found, 1)) return vname;
  lua_getfield(L, kt, "tuned_as");
  int ta = lua_gettop(L), changed = 0;
  Buf b = {0};
  ltU_put(&b, kname);
  for (int i = 0; i < nv; i++) {
    lua_getfield(L, vt, vkeys[i]);
    const char *txt = value_text(-1);
    if (lua_istable(L, ta)) {
      lua_getfield(L, ta, vkeys[i]);
      if (lua_istable(L, -1)) {
        lua_getfield(L, -1, txt);
        if (!lua_isnil(L, -1)) txt = value_text(-1), changed = 1;
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    name_part(&b, vkeys[i], txt);
  }
  lua_pop(L, 1);
  return changed ? b.p : vname;
}

/* Pushes a shallow copy of the table at index t; returns its index. */
static int push_copy(int t) {
  lua_newtable(L);
  int c = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, c);
  }
  return c;
}

/* Do the nb tuned buckets give variant vname one config?  Then it is one
** kernel, not nb copies of it under a launcher that picks among them.
** Compares the config texts up to where they say where they came from. */
static int one_config(int cv, int vars, const char *vname, const char *tname, const char **buckets, int nb,
                      const char **ckeys, int nc, const char **vc, int nvc, const char **dcfg, int ndcfg) {
  const char *first = NULL;
  size_t n0 = 0;
  for (int b = 0; b < nb; b++) {
    int cb = push_copy(cv);
    const char *c = tuned_config(cb, vars, vname, tname, buckets[b], ckeys, nc, vc, nvc, dcfg, ndcfg, 0);
    lua_settop(L, cb - 1);
    size_t n = strcspn(c, "(");
    if (!first) first = c, n0 = n;
    else if (n != n0 || strncmp(first, c, n) != 0) return 0;
  }
  return 1;
}

/* Checks the config values in the table at et against the config table
** at ct (each key one of config's, each value of its kind) and, when into
** is not 0, lays them over the table at into, except the keys in skip
** (those -D set), adding the keys it changed to changed[*nchanged] (when
** changed is not NULL; room for 64).
** what names the table in messages ("target_config.sm80").  Returns 0
** after raising the error message at line. */
static int overlay_config(int et, int ct, const char *what, int line, int into, const char **skip, int nskip,
                          const char **changed, int *nchanged) {
  const char *keys[64];
  int nk = sorted_keys(et, keys, 64);
  for (int j = 0; j < nk; j++) {
    lua_getfield(L, ct, keys[j]);
    int want = lua_type(L, -1);
    lua_getfield(L, et, keys[j]);
    int got = lua_type(L, -1);
    if (want == LUA_TNIL)
      return raise_msg(ltU_fmt("%s:%d: error: %s.%s: config has no '%s'; only the values config names can change",
                               kfile, line, what, keys[j], keys[j])), 0;
    if (got != want || lua_isinteger(L, -1) != lua_isinteger(L, -2)) {
      const char *kind = lua_isinteger(L, -2) ? "a whole number" : lua_typename(L, want);
      return raise_msg(ltU_fmt("%s:%d: error: %s.%s = %s: config %s is %s, so the value must be one too", kfile, line,
                               what, keys[j], luaL_tolstring(L, -1, NULL), keys[j], kind)), 0;
    }
    if (into && !has_key(skip, nskip, keys[j])) {
      if (changed) changed[(*nchanged)++] = ltU_strdup(keys[j]);
      lua_setfield(L, into, keys[j]);
    } else {
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  return 1;
}

/* Checks the kernel's target_config (kernel table at kt: target name ->
** { key = value }, each key one of config's with a value of its type) and
** lays the current target's entry over the config table at ct.  Returns 0
** after raising the error message; line is tile.kernel's. */
static int target_config(int kt, int ct, int line) {
  lua_getfield(L, kt, "target_config");
  int tc = lua_gettop(L);
  if (lua_isnil(L, tc)) return lua_pop(L, 1), 1;
  if (!lua_istable(L, tc))
    return raise_msg(ltU_fmt("%s:%d: error: target_config is a table target = { key = value }, e.g. "
                             "target_config = { gfx90a = { threads = 256 } }", kfile, line)), 0;
  const char *names[64];
  int n = sorted_keys(tc, names, 64);
  for (int i = 0; i < n; i++) {
    if (!ltT_find(names[i])) {
      Buf b = {0};
      for (int j = 0; ltT_all[j]; j++) ltU_printf(&b, "%s%s", j ? ", " : "", ltT_all[j]->name);
      return raise_msg(ltU_fmt("%s:%d: error: target_config.%s: no such target (targets: %s)", kfile, line, names[i],
                               b.p)), 0;
    }
    lua_getfield(L, tc, names[i]);
    if (!lua_istable(L, -1))
      return raise_msg(ltU_fmt("%s:%d: error: target_config.%s is a table of config values, e.g. { threads = 256 }",
                               kfile, line, names[i])), 0;
    int mine = the_target && strcmp(the_target->name, names[i]) == 0;
    if (!overlay_config(lua_gettop(L), ct, ltU_fmt("target_config.%s", names[i]), line, mine ? ct : 0, NULL, 0, NULL,
                        NULL))
      return 0;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

/* Calls the kernel's function field fname (variant_config or unsupported)
** with a copy of the variant table at vt and the target's name, leaving its
** one result on the stack; leaves nil when the kernel has no such field.
** Sets *line to the function's first line.  Raises an error when the field
** is not a function. */
static void call_variant_fn(int kt, int vt, const char *fname, const char *eg, int kline, int *line) {
  lua_getfield(L, kt, fname);
  *line = kline;
  if (lua_isnil(L, -1)) return;
  if (!lua_isfunction(L, -1))
    raise_msg(ltU_fmt("%s:%d: error: %s is a function(v, target), e.g. %s", kfile, kline, fname, eg));
  lua_Debug ar;
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  *line = ar.linedefined;
  push_copy(vt);
  lua_pushstring(L, the_target->name);
  lua_call(L, 2, 1);
}

/* The kernel's unsupported(v, target) for the variant at vt: NULL when the
** target runs it, else the reason it is left out (the function's string).
** *line is the function's line.  No target (--list alone): NULL. */
static const char *unsupported(int kt, int vt, int kline, int *line) {
  *line = kline;
  if (!the_target) return NULL;
  call_variant_fn(kt, vt, "unsupported", "function(v, target) if v.hdim == \"d256\" then return \"why\" end end",
                  kline, line);
  const char *why = NULL;
  if (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) > 0) why = ltU_strdup(lua_tostring(L, -1));
  else if (!lua_isnil(L, -1) && !(lua_isboolean(L, -1) && !lua_toboolean(L, -1)))
    raise_msg(ltU_fmt("%s:%d: error: unsupported returned %s; it returns nil where the target runs the variant, "
                      "else a string saying why not", kfile, *line, luaL_typename(L, -1)));
  lua_pop(L, 1);
  return why;
}

/* Lays the kernel's variant_config(v, target) for the variant at vt over
** its config table cv (checked against the config at ct), except the keys
** -D set (dcfg).  Returns how many keys it changed, named in vc (room for
** 64). */
static int apply_variant_config(int kt, int vt, int ct, int cv, const char *vname, const char **dcfg, int ndcfg,
                                int kline, const char **vc) {
  int nvc = 0;
  if (!the_target) return 0;
  int line;
  call_variant_fn(kt, vt, "variant_config", "function(v, target) if v.hdim == \"d256\" then return { BN = 32 } end end",
                  kline, &line);
  if (lua_istable(L, -1)) {
    overlay_config(lua_gettop(L), ct, ltU_fmt("variant_config(%s)", vname), line, cv, dcfg, ndcfg, vc, &nvc);
  } else if (!lua_isnil(L, -1)) {
    raise_msg(ltU_fmt("%s:%d: error: variant_config returned %s for %s; it returns nil or a table of config values, "
                      "e.g. { threads = 256 }", kfile, line, luaL_typename(L, -1), vname));
  }
  lua_pop(L, 1);
  return nvc;
}

/* Enumerates variant combinations (sorted keys, values in order). */
static int run_file(lua_State *l) {
  Run *run = lua_touserdata(l, 1);
  GenRequest *req = run->req;
  char *text = slurp(req->file);
  if (!text) return raise_msg(ltU_fmt("%s: error: cannot read the file (missing, unreadable or binary)", kfile)), 0;
  read_lines(text);
  if (luaL_loadbufferx(L, text, strlen(text), ksource, "t") != LUA_OK) return lua_error(L);
  push_sandbox();
  lua_setupvalue(L, -2, 1);
  lua_call(L, 0, 1);
  int kt = lua_gettop(L);
  if (lua_istable(L, kt)) lua_getfield(L, kt, "lt_line");
  else lua_pushnil(L);
  if (lua_isnil(L, -1))
    return raise_msg(ltU_fmt("%s: error: the file must end with: return tile.kernel { ... }", kfile)), 0;
  int kline = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);

  /* config, with -D applied */
  lua_newtable(L);
  int ct = lua_gettop(L);
  lua_getfield(L, kt, "config");
  if (!lua_isnil(L, -1) && !lua_istable(L, -1)) return dsl_error("config is a table of name = value");
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, ct);
    }
  }
  lua_pop(L, 1);
  if (!target_config(kt, ct, kline)) return 0;
  lua_getfield(L, kt, "variants");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_newtable(L); }
  if (!lua_istable(L, -1)) return dsl_error("variants is a table of name = { values }");
  int vars = lua_gettop(L);
  if (!tuned_as_check(kt, vars, kline)) return 0;   /* against the variants as written, before -D picks one */
  const char *dcfg[64];   /* config keys -D set, in command-line order */
  int ndcfg = 0;
  for (int i = 0; i < req->ndefs; i++) {
    const char *key = req->defs[i].key;
    lua_getfield(L, vars, key);
    int is_var = !lua_isnil(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, ct, key);
    int is_cfg = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!is_var && !is_cfg) {
      const char *keys[64];
      int n = sorted_keys(ct, keys, 64);
      Buf b = {0};
      for (int j = 0; j < n; j++) ltU_printf(&b, "%s%s", j ? ", " : "", keys[j]);
      n = sorted_keys(vars, keys, 64);
      for (int j = 0; j < n; j++) ltU_printf(&b, "%s%s", b.n ? ", " : "", keys[j]);
      return raise_msg(ltU_fmt("%s:%d: error: -D %s=%s: the kernel has no config or variant '%s' (it has: %s)", kfile,
                               kline, key, req->defs[i].value, key, b.p ? b.p : "none")), 0;
    }
    if (is_var) {
      lua_createtable(L, 1, 0);
      push_define(req->defs[i].value);
      lua_seti(L, -2, 1);
      lua_setfield(L, vars, key);
    } else {
      lua_getfield(L, ct, key);
      int want = lua_type(L, -1);
      lua_pop(L, 1);
      push_define(req->defs[i].value);
      if (lua_type(L, -1) != want)
        return raise_msg(ltU_fmt("%s:%d: error: -D %s=%s: config %s is a %s, so the value must be one too", kfile,
                                 kline, key, req->defs[i].value, key, lua_typename(L, want))), 0;
      lua_setfield(L, ct, key);
      if (!has_key(dcfg, ndcfg, key)) dcfg[ndcfg++] = key;
    }
  }
  const char *vkeys[16];
  int nv = sorted_keys(vars, vkeys, 16);
  int count[16], idx[16];
  for (int i = 0; i < nv; i++) {
    lua_getfield(L, vars, vkeys[i]);
    if (!lua_istable(L, -1) || luaL_len(L, -1) < 1)
      return raise_msg(ltU_fmt("%s:%d: error: variants.%s must be a non-empty list of values", kfile, kline, vkeys[i])), 0;
    count[i] = (int)luaL_len(L, -1);
    idx[i] = 0;
    lua_pop(L, 1);
  }
  const char *ckeys[64];
  int nc = sorted_keys(ct, ckeys, 64);
  Buf cdesc = {0};
  for (int i = 0; i < nc; i++) {
    lua_getfield(L, ct, ckeys[i]);
    ltU_printf(&cdesc, "%s%s=%s", i ? " " : "", ckeys[i], value_text(-1));
    lua_pop(L, 1);
  }
  lua_getfield(L, kt, "name");
  const char *kname = ltU_strdup(lua_tostring(L, -1));
  lua_pop(L, 1);
  /* the tuned-config file: checked against the config's keys and kinds */
  TunedValue tkeys[64];
  for (int i = 0; i < nc; i++) {
    lua_getfield(L, ct, ckeys[i]);
    TunedKind kind = lua_isinteger(L, -1) ? TK_INT : lua_isboolean(L, -1) ? TK_BOOL : TK_STR;
    tkeys[i] = (TunedValue){ckeys[i], kind, 0, NULL};
    lua_pop(L, 1);
  }
  ltN_load(kfile, kname, req->target, tkeys, nc);
  if (run->listing) {
    ltU_printf(run->listing, "kernel %s (%s)\n  config: %s\n", kname, kfile, cdesc.p ? cdesc.p : "(none)");
    if (!req->target && ltN_summary()) ltU_printf(run->listing, "  tuned: %s\n", ltN_summary());
    for (int i = 0; i < nv; i++) {
      ltU_printf(run->listing, "  variant %s:", vkeys[i]);
      lua_getfield(L, vars, vkeys[i]);
      for (int j = 1; j <= count[i]; j++) {
        lua_geti(L, -1, j);
        ltU_printf(run->listing, " %s", value_text(-1));
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      ltU_put(run->listing, "\n");
    }
  }
  int ngen = 0, left_line = kline;   /* variants generated; the first left out, its reason and line */
  const char *left_out = NULL, *left_why = NULL;
  for (;;) {
    /* the variant and c tables for this combination */
    lua_newtable(L);
    int vt = lua_gettop(L);
    int cv = push_copy(ct);
    Buf vname = {0}, vdesc = {0};
    ltU_put(&vname, kname);
    for (int i = 0; i < nv; i++) {
      lua_getfield(L, vars, vkeys[i]);
      lua_geti(L, -1, idx[i] + 1);
      const char *txt = value_text(-1);
      lua_pushvalue(L, -1);
      lua_setfield(L, vt, vkeys[i]);
      lua_setfield(L, cv, vkeys[i]);
      lua_pop(L, 1);
      name_part(&vname, vkeys[i], txt);
      ltU_printf(&vdesc, "%s%s=%s", i ? " " : "", vkeys[i], txt);
    }
    if (!valid_ident(vname.p))
      return raise_msg(ltU_fmt("%s:%d: error: variant name '%s' is not an identifier; use names or numbers as variant values",
                               kfile, kline, vname.p)), 0;
    int uline;
    const char *why = unsupported(kt, vt, kline, &uline);
    if (why && !left_out) left_out = vname.p, left_why = why, left_line = uline;
    if (why && run->listing) ltU_printf(run->listing, "  %s  unsupported: %s\n", vname.p, why);
    if (why) goto next;
    ngen++;
    const char *vc[64];   /* the config keys variant_config set for this variant */
    int nvc = apply_variant_config(kt, vt, ct, cv, vname.p, dcfg, ndcfg, kline, vc);
    /* several tuned buckets: one kernel each (-D applies to all), and a
    ** launcher that picks one by the call's sizes */
    const char *buckets[16];
    const char *tname = req->target ? tuned_name(kt, vt, vkeys, nv, kname, vname.p) : vname.p;
    int nb = req->target ? ltN_buckets(tname, buckets, 16) : 0;
    Buf same = {0};   /* the buckets tuned to the one config that the largest's entry gives */
    if (nb >= 2 && one_config(cv, vars, vname.p, tname, buckets, nb, ckeys, nc, vc, nvc, dcfg, ndcfg))
      for (int b = 1; b < nb; b++) ltU_printf(&same, "%s%s", b > 1 ? ", " : "; the same for ", buckets[b]);
    if (nb < 2 || same.p) nb = 0, buckets[0] = NULL;
    for (int b = 0; b < (nb ? nb : 1); b++) {
      int cb = push_copy(cv);   /* this bucket's copy of the config */
      const char *config =
          tuned_config(cb, vars, vname.p, tname, buckets[b], ckeys, nc, vc, nvc, dcfg, ndcfg,
                       run->listing && req->target);
      size_t len = strlen(config);
      if (same.p && len && config[len - 1] == ')') config = ltU_fmt("%.*s%s)", (int)len - 1, config, same.p);
      if (run->listing && req->target && nb)
        ltU_printf(run->listing, "  %s  for %s  config: %s\n", vname.p, buckets[b], config);
      else if (run->listing && req->target) ltU_printf(run->listing, "  %s  config: %s\n", vname.p, config);
      else if (run->listing) ltU_printf(run->listing, "  %s\n", vname.p);
      else build_variant(run, kt, vt, cb, vname.p, tname, vdesc.p ? vdesc.p : "", config, buckets[b], nb);
      lua_settop(L, cb - 1);
    }
  next:
    lua_settop(L, vars);
    int i = nv - 1;
    while (i >= 0 && ++idx[i] == count[i]) idx[i--] = 0;
    if (i < 0) break;
  }
  if (!ngen)
    return raise_msg(ltU_fmt("%s:%d: error: nothing to generate for %s: %s is unsupported there (%s); pick a variant "
                             "(-D) or a target that runs it", kfile, left_line, the_target->name, left_out, left_why)), 0;
  return 0;
}

/* Runs the kernel file of req; see the comment at the top. */
void ltD_run(GenRequest *req, VariantFn fn, void *ud, Buf *listing) {
  the_target = req->target;
  kfile = req->file;
  ksource = ltU_fmt("@%s", req->file);
  open_state();
  ltU_raise = raise_from_util;
  Run run = {req, fn, ud, listing};
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, run_file);
  lua_pushlightuserdata(L, &run);
  int rc = lua_pcall(L, 1, 0, 1);
  ltU_raise = NULL;
  if (rc != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (rc == LUA_ERRMEM) msg = ltU_fmt("%s: error: the kernel file used over 1 GiB of memory", kfile);
    fprintf(stderr, "%s\n", msg ? msg : "error: unknown Lua error");
    longjmp(ltU_jmp, 1);
  }
  lua_close(L);
}

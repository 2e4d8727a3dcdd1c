/*
** lua/kernel.c: tile.kernel, its params, and the IR of one variant.
**
** The kernel file returns tile.kernel { name, doc, variants, config,
** target_config, tuned_as, unsupported, variant_config, params, body,
** tune }; c_kernel checks its fields and records its line.  For each
** variant (variants.c), ltF_build_variant calls params(v, c), which
** declares tensors and scalars with tile.tensor / tile.scalar (descriptor
** tables, made here); build_params turns them, in declaration order, into
** the Kernel's parameter symbols (tensors, their sizes and strides,
** scalars) and the table p.  Then body(k, p, c, v) fills the Kernel through
** the methods of k (stmt.c), and the finished Kernel goes to the callback
** of ltD_run.
*/
#include "dsl.h"

static int seq_counter;   /* declaration order of tile.tensor / tile.scalar in this variant */

/* ------------------------------------------------------------------ */
/* tile.kernel                                                         */

/* core.kernel(t): checks the kernel table's fields and records its line. */
static int c_kernel(lua_State *l) {
  if (!lua_istable(l, 1)) return ltF_error("tile.kernel takes a table: tile.kernel { name = ..., body = ... }");
  static const char *const fields[] = {"name",     "doc",         "variants",       "config", "target_config",
                                      "tuned_as", "unsupported", "variant_config", "params", "body",
                                      "tune",     NULL};
  lua_pushnil(l);
  while (lua_next(l, 1)) {
    const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
    int ok = 0;
    for (int i = 0; fields[i]; i++) ok |= strcmp(fields[i], key) == 0;
    if (!ok) return ltF_error("tile.kernel has no field '%s' (fields: name, doc, variants, config, target_config, tuned_as, "
                       "unsupported, variant_config, params, body, tune)", key);
    lua_pop(l, 1);
  }
  lua_getfield(l, 1, "name");
  if (!ltF_valid_ident(lua_tostring(l, -1))) return ltF_error("tile.kernel needs name = \"an_identifier\"");
  lua_getfield(l, 1, "params");
  if (!lua_isfunction(l, -1)) return ltF_error("tile.kernel needs params = function(v, c) return { ... } end");
  lua_getfield(l, 1, "body");
  if (!lua_isfunction(l, -1)) return ltF_error("tile.kernel needs body = function(k, p, c, v) ... end");
  lua_pop(l, 3);
  lua_pushinteger(l, ltF_line());
  lua_setfield(l, 1, "lt_line");
  lua_pushvalue(l, 1);
  return 1;
}

/* ------------------------------------------------------------------ */
/* params: tile.tensor / tile.scalar descriptors -> symbols            */

/* core.tensor(dtype, shape, strides): a descriptor table for params. */
static int c_tensor(lua_State *l) {
  lua_settop(l, 3);
  ltF_arg_dtype(1);
  if (!lua_istable(l, 2)) return ltF_error("tile.tensor(dtype, shape): shape is a table like {\"M\", \"K\"}");
  int n = (int)luaL_len(l, 2);
  if (n < 1 || n > LT_MAXRANK) return ltF_error("tensors have 1 to %d dims, not %d", LT_MAXRANK, n);
  lua_newtable(l);
  lua_pushstring(l, "tensor");
  lua_setfield(l, -2, "lt_param");
  lua_pushvalue(l, 1);
  lua_setfield(l, -2, "dtype");
  lua_pushvalue(l, 2);
  lua_setfield(l, -2, "shape");
  if (!lua_isnil(l, 3)) {
    if (!lua_istable(l, 3) || (int)luaL_len(l, 3) != n)
      return ltF_error("tile.tensor's strides are a table with one entry per dim (%d)", n);
    lua_pushvalue(l, 3);
    lua_setfield(l, -2, "strides");
  }
  lua_pushinteger(l, ++seq_counter);
  lua_setfield(l, -2, "seq");
  lua_pushinteger(l, ltF_line());
  lua_setfield(l, -2, "line");
  return 1;
}

/* core.scalar(dtype [, {positive = bool}]): a descriptor table for params. */
static int c_scalar(lua_State *l) {
  Dtype dt = ltF_arg_dtype(1);
  if (dt == DT_F16 || dt == DT_BF16) return ltF_error("scalar parameters are f32 or i32");
  int positive = 0;
  if (!lua_isnoneornil(l, 2)) {
    if (!lua_istable(l, 2)) return ltF_error("tile.scalar's options are a table: { positive = true }, not %s", ltF_kind(2));
    lua_pushnil(l);
    while (lua_next(l, 2)) {
      lua_pop(l, 1);
      if (lua_type(l, -1) != LUA_TSTRING || strcmp(lua_tostring(l, -1), "positive") != 0)
        return ltF_error("tile.scalar has no option '%s' (options: positive = true)", luaL_tolstring(l, -1, NULL));
    }
    lua_getfield(l, 2, "positive");
    if (!lua_isboolean(l, -1)) return ltF_error("tile.scalar's option positive is true or false, not %s", ltF_kind(-1));
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
  lua_pushinteger(l, ltF_line());
  lua_setfield(l, -2, "line");
  return 1;
}

/* Is s a C identifier (letters, digits, _; not starting with a digit)? */
int ltF_valid_ident(const char *s) {
  if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
  for (; *s; s++)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))) return 0;
  return 1;
}

/* Finds or makes the size / stride symbol called name, for tensor t (a
** tensor's sizes and strides are launcher parameters; tensors may share
** them). */
static Sym *param_sym(const char *name, SymKind kind, const Sym *t) {
  const char *what = kind == SYM_SIZE ? "size" : "stride";
  Sym *had;
  const char *why = ltF_name_clash(name, &had);
  if (had && had->kind == kind) return had;
  if (had)
    ltF_error("tensor %s's %s name '%s' %s; rename one of them", t->name, what, name, why);
  if (!ltF_valid_ident(name))
    ltF_error("tensor %s's %s name '%s' is not a C identifier; use a name like \"N\"", t->name, what, name);
  if (why) ltF_error("tensor %s's %s name '%s' %s; rename it", t->name, what, name, why);
  Sym *s = ltI_sym(K, kind, kind == SYM_SIZE ? DT_I32 : DT_I32, t->line);
  s->name = ltU_strdup(name);
  s->named = 1;
  s->nonneg = 1;
  return s;
}

/* Reads one shape or stride entry of tensor t (the j-th, from 0): a name
** or a whole number. */
static Expr *dim_entry(int idx, SymKind kind, const Sym *t, int j) {
  int line = t->line;
  if (lua_type(L, idx) == LUA_TSTRING) return ltI_ref(param_sym(lua_tostring(L, idx), kind, t), line);
  if (lua_isinteger(L, idx) && lua_tointeger(L, idx) >= (kind == SYM_SIZE ? 1 : 0))
    return ltI_const((double)lua_tointeger(L, idx), DT_I32, 0, line);
  const char *what = kind == SYM_SIZE ? "dim" : "stride";
  ltF_error("tensor %s's %s %d is %s; a tensor %s is a name like \"N\" or a %s whole number", t->name, what, j + 1,
            ltF_show(idx), what, kind == SYM_SIZE ? "positive" : "non-negative");
  return NULL;
}

/* A params entry: its key, its declaration order. */
typedef struct { const char *name; int seq; int ref; } PEntry;

/* qsort order of params entries: declaration order. */
static int cmp_pentry(const void *a, const void *b) {
  return ((const PEntry *)a)->seq - ((const PEntry *)b)->seq;
}

/* Turns the table returned by params() (at the stack top) into symbols and
** the p table given to body (pushed).  No kernel-file function runs here:
** errors name the params function's line (fn_line) or the line of the
** parameter's tile.tensor / tile.scalar. */
static void build_params(int fn_line) {
  ltF_set_outer_line(fn_line);
  int tab = lua_gettop(L);
  if (!lua_istable(L, tab))
    ltF_error("params must return a table of tile.tensor / tile.scalar declarations, not %s", ltF_kind(tab));
  PEntry ents[64];
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, tab)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!key || !ltF_valid_ident(key))
      ltF_error("params keys are parameter names (identifiers), e.g. { X = tile.tensor(\"f32\", {\"N\"}) }");
    int made = 0;   /* by tile.tensor or tile.scalar */
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "lt_param");
      const char *kind = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
      made = strcmp(kind, "tensor") == 0 || strcmp(kind, "scalar") == 0;
      lua_pop(L, 1);
    }
    if (!made) ltF_error("params.%s must be tile.tensor(...) or tile.scalar(...)", key);
    lua_getfield(L, -1, "seq");
    if (n == 64) ltF_error("too many parameters (at most 64)");
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
    lua_getfield(L, d, "line");
    int line = (int)lua_tointeger(L, -1);
    lua_pop(L, 3);
    ltF_set_outer_line(line);
    Sym *had;
    const char *why = ltF_name_clash(ents[i].name, &had);
    if (had && (had->kind == SYM_SIZE || had->kind == SYM_STRIDE))
      ltF_error("parameter name '%s' %s; a tensor's sizes and strides are launcher parameters already (p.%s): "
                "drop this parameter or rename it", ents[i].name, why, ents[i].name);
    if (why) ltF_error("parameter name '%s' %s; rename it", ents[i].name, why);
    if (kind && strcmp(kind, "scalar") == 0) {
      Sym *s = ltI_sym(K, SYM_SCALAR, dt, line);
      s->name = ltU_strdup(ents[i].name);
      s->named = 1;
      lua_getfield(L, d, "positive");
      s->positive = s->nonneg = lua_toboolean(L, -1);
      lua_pop(L, 1);
      ltF_push_expr(ltI_ref(s, s->line));
      lua_setfield(L, p, ents[i].name);
    } else {
      Sym *t = ltI_sym(K, SYM_TENSOR, dt, line);
      t->name = ltU_strdup(ents[i].name);
      t->named = 1;
      lua_getfield(L, d, "shape");
      t->trank = (int)luaL_len(L, -1);
      for (int j = 0; j < t->trank; j++) {
        lua_geti(L, -1, j + 1);
        t->dims[j] = dim_entry(lua_gettop(L), SYM_SIZE, t, j);
        if (t->dims[j]->kind == E_SYM) {
          ltF_push_expr(t->dims[j]);
          lua_setfield(L, p, t->dims[j]->sym->name);
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      lua_getfield(L, d, "strides");
      if (lua_istable(L, -1)) {
        for (int j = 0; j < t->trank; j++) {
          lua_geti(L, -1, j + 1);
          t->strides[j] = dim_entry(lua_gettop(L), SYM_STRIDE, t, j);
          if (t->strides[j]->kind == E_SYM) {
            ltF_push_expr(t->strides[j]);
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
      ltF_push_handle(H_TENSOR)->s = t;
      lua_setfield(L, p, ents[i].name);
    }
    lua_pop(L, 1);
  }
  lua_remove(L, tab);
  ltF_set_outer_line(K->line);
}

/* The prelude's core functions of declarations (api.c registers them). */
const luaL_Reg ltF_kernel_funcs[] = {
  {"tensor", c_tensor}, {"scalar", c_scalar}, {"kernel", c_kernel}, {NULL, NULL},
};

/* ------------------------------------------------------------------ */
/* one variant                                                         */

/* Builds and hands over one variant (build_variant, below); `fallback`:
** its cp.async twin, named NAME_cp. */
static void build_once(Run *run, int kt, int vt, int ct, const char *vname, const char *tname, const char *vdesc,
                       const char *cdesc, const char *bucket, int nbuckets, int fallback) {
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
  K->fallback = fallback;
  if (fallback) K->name = ltU_fmt("%s_cp", K->name);
  K->variant_desc = vdesc;
  K->config_desc = cdesc;
  lua_getfield(L, kt, "doc");
  K->doc = lua_isstring(L, -1) ? ltU_strdup(lua_tostring(L, -1)) : NULL;
  lua_pop(L, 1);
  lua_getfield(L, ct, "threads");
  K->threads = lua_isnil(L, -1) ? 256 : (int)lua_tointeger(L, -1);
  if (!lua_isnil(L, -1) && !lua_isinteger(L, -1))
    ltF_error("config threads must be a whole number, not %s", ltF_show(-1));
  lua_pop(L, 1);
  ltF_begin_body(&K->body);
  seq_counter = 0;

  lua_getfield(L, kt, "lt_line");
  K->line = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, kt, "body");
  lua_Debug ar;
  lua_getinfo(L, ">S", &ar);
  K->body_line = ar.linedefined;
  lua_getfield(L, kt, "params");
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  int params_line = ar.linedefined;
  lua_pushvalue(L, vt);
  lua_pushvalue(L, ct);
  lua_call(L, 2, 1);
  build_params(params_line);
  int p = lua_gettop(L);
  lua_getfield(L, kt, "body");
  ltF_push_builder();         /* k */
  lua_pushvalue(L, p);
  lua_pushvalue(L, ct);
  lua_pushvalue(L, vt);
  lua_call(L, 4, 0);
  lua_pop(L, 1);
  if (!K->ngrid)
    ltF_error_at(K->body_line, "the body never called k:grid(...): say how many programs (blocks) run");
  for (int i = 0; i < K->nsyms; i++)
    if (K->syms[i]->kind == SYM_TENSOR && !K->syms[i]->loaded && !K->syms[i]->stored) {
      Sym *t = K->syms[i];
      ltU_error(t->line, "tensor %s is declared but never loaded or stored", t->name);
    }
  run->fn(K, run->ud);
}

/* Builds and hands over one variant; the kernel table is at kt, the
** variant table at vt and the config table at ct.  For one of nbuckets
** tuned shape buckets, bucket names it and the kernel's name gets its
** sizes (softmax_bf16_C4096_R32768); the launcher keeps vname.  On a
** target with TMA it is built twice: the second time as the cp.async twin
** (Kernel.fallback) that its launcher runs where a tensor map cannot be
** made; main.c keeps the twin only when the first took the TMA schedule. */
void ltF_build_variant(Run *run, int kt, int vt, int ct, const char *vname, const char *tname, const char *vdesc,
                       const char *cdesc, const char *bucket, int nbuckets) {
  int twins = ltF_target && ltF_target->tma ? 2 : 1;
  for (int fallback = 0; fallback < twins; fallback++)
    build_once(run, kt, vt, ct, vname, tname, vdesc, cdesc, bucket, nbuckets, fallback);
}

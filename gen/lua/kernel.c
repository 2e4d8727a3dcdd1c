/*
** lua/kernel.c: tile.kernel, its params, and the IR of one variant.
**
** The kernel file returns tile.kernel { name, doc, variants, config,
** target_config, tuned_as, unsupported, variant_config, builds, params,
** body, tune }; c_kernel checks its fields and records its line.  For each
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

/* Checks the name of the kernel at the top of the stack (a string that is
** an identifier and no reserved name); returns it. */
const char *ltF_kernel_name(int line) {
  const char *n = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  if (!ltF_valid_ident(n)) return ltF_error_at(line, "tile.kernel needs name = \"an_identifier\""), NULL;
  const char *why = ltF_name_rule(n, LT_NAME_MAX, 0);
  if (why) ltF_error_at(line, "kernel name '%s' %s; pick another, e.g. \"%s\"", n, why, ltF_name_instead(n));
  return n;
}

/* A name like n that the rules allow, for messages: without repeated,
** leading and trailing underscores, at most 40 characters, with "my_"
** before a reserved prefix and "_kernel" after a reserved word. */
const char *ltF_name_instead(const char *n) {
  char b[48];
  size_t k = 0;
  for (const char *p = n; *p && k < 40; p++)
    if (*p != '_' || (k && b[k - 1] != '_')) b[k++] = *p;
  while (k && b[k - 1] == '_') k--;
  b[k] = 0;
  const char *r = k ? b : "my";
  if (ltF_name_rule(r, LT_NAME_MAX, 0)) r = ltU_fmt("my_%s", r);
  if (ltF_name_rule(r, LT_NAME_MAX, 1)) r = ltU_fmt("%s_kernel", r);
  return ltU_strdup(r);
}

/* core.kernel(t): checks the kernel table's fields and records it, and its
** line, in the registry's table lt_kernels: the file must
** return a table made here.  Its fields are checked again where they are
** read (variants.c, ltF_build_variant), since the table can change. */
static int c_kernel(lua_State *l) {
  if (!lua_istable(l, 1)) return ltF_error("tile.kernel takes a table: tile.kernel { name = ..., body = ... }");
  static const char *const fields[] = {"name",     "doc",         "variants",       "config", "target_config",
                                      "tuned_as", "unsupported", "variant_config", "builds", "params",
                                      "body",     "tune",        NULL};
  lua_pushnil(l);
  while (lua_next(l, 1)) {
    const char *key = lua_type(l, -2) == LUA_TSTRING ? lua_tostring(l, -2) : "?";
    int ok = 0;
    for (int i = 0; fields[i]; i++) ok |= strcmp(fields[i], key) == 0;
    if (!ok) return ltF_error("tile.kernel has no field '%s' (fields: name, doc, variants, config, target_config, tuned_as, "
                       "unsupported, variant_config, builds, params, body, tune)", key);
    lua_pop(l, 1);
  }
  int line = ltF_line();
  lua_getfield(l, 1, "name");
  ltF_kernel_name(line);
  lua_getfield(l, 1, "params");
  if (!lua_isfunction(l, -1)) return ltF_error("tile.kernel needs params = function(v, c) return { ... } end");
  lua_getfield(l, 1, "body");
  if (!lua_isfunction(l, -1)) return ltF_error("tile.kernel needs body = function(k, p, c, v) ... end");
  lua_pop(l, 3);
  lua_getfield(l, LUA_REGISTRYINDEX, "lt_kernels");
  lua_pushvalue(l, 1);
  lua_pushinteger(l, line > 0 ? line : 1);
  lua_rawset(l, -3);
  lua_pop(l, 1);
  lua_pushvalue(l, 1);
  return 1;
}

/* The line of tile.kernel that made the table at idx, or 0 when no
** tile.kernel made it. */
int ltF_kernel_line(int idx) {
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, "lt_kernels");
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  int line = (int)lua_tointeger(L, -1);
  lua_pop(L, 2);
  return line;
}

/* ------------------------------------------------------------------ */
/* params: tile.tensor / tile.scalar descriptors -> symbols            */

/* Records the descriptor table at the top of the stack as one that
** tile.tensor or tile.scalar made (the registry's lt_params). */
static void made_here(void) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lt_params");
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* Ends a params descriptor on the stack's top (c_tensor, c_scalar): its
** creation order and line, and its mark as made here; returns it. */
static int descriptor_done(lua_State *l) {
  lua_pushinteger(l, ++seq_counter);
  lua_setfield(l, -2, "seq");
  lua_pushinteger(l, ltF_line());
  lua_setfield(l, -2, "line");
  made_here();
  return 1;
}

/* core.tensor(dtype, shape, strides): a descriptor table for params. */
static int c_tensor(lua_State *l) {
  lua_settop(l, 3);
  ltF_arg_dtype(1);
  if (!lua_istable(l, 2)) return ltF_error("tile.tensor(dtype, shape): shape is a table like {\"M\", \"K\"}");
  lua_Integer n = ltF_len(2);
  if (n < 1 || n > LT_MAXRANK) return ltF_error("tensors have 1 to %d dims, not %lld", LT_MAXRANK, (long long)n);
  lua_newtable(l);
  lua_pushstring(l, "tensor");
  lua_setfield(l, -2, "lt_param");
  lua_pushvalue(l, 1);
  lua_setfield(l, -2, "dtype");
  lua_pushvalue(l, 2);
  lua_setfield(l, -2, "shape");
  if (!lua_isnil(l, 3)) {
    if (!lua_istable(l, 3) || ltF_len(3) != n)
      return ltF_error("tile.tensor's strides are a table with one entry per dim (%d)", (int)n);
    lua_pushvalue(l, 3);
    lua_setfield(l, -2, "strides");
  }
  return descriptor_done(l);
}

/* core.scalar(dtype [, {positive = bool}]): a descriptor table for params. */
static int c_scalar(lua_State *l) {
  Dtype dt = ltF_arg_dtype(1);
  if (dt == DT_F16 || dt == DT_BF16 || ltI_is_fp8(dt)) return ltF_error("scalar parameters are f32, i32, i64 or u32");
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
  return descriptor_done(l);
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
  ltF_name_note(s);
  s->named = 1;
  s->nonneg = 1;
  return s;
}

/* Reads one shape or stride entry of tensor t (the j-th, from 0): a name
** or a whole number (a dim from 1 to LT_MAX_SIZE, a stride from 0 to
** 2^31 - 1). */
static Expr *dim_entry(int idx, SymKind kind, const Sym *t, int j) {
  int line = t->line;
  if (lua_type(L, idx) == LUA_TSTRING) return ltI_ref(param_sym(lua_tostring(L, idx), kind, t), line);
  long long lo = kind == SYM_SIZE ? 1 : 0, hi = kind == SYM_SIZE ? LT_MAX_SIZE : INT32_MAX;
  if (lua_isinteger(L, idx) && lua_tointeger(L, idx) >= lo && lua_tointeger(L, idx) <= hi)
    return ltI_const((double)lua_tointeger(L, idx), DT_I32, 0, line);
  const char *what = kind == SYM_SIZE ? "dim" : "stride";
  if (lua_isinteger(L, idx) && lua_tointeger(L, idx) > hi)
    ltF_error("tensor %s's %s %d is %s; a constant %s is at most %lld", t->name, what, j + 1, ltF_show(idx), what, hi);
  ltF_error("tensor %s's %s %d is %s; a tensor %s is a name like \"N\" or a %s whole number", t->name, what, j + 1,
            ltF_show(idx), what, kind == SYM_SIZE ? "positive" : "non-negative");
  return NULL;
}

/* A params entry: its key, its declaration order. */
typedef struct { const char *name; lua_Integer seq; int ref; } PEntry;

/* qsort order of params entries: declaration order. */
static int cmp_pentry(const void *a, const void *b) {
  lua_Integer x = ((const PEntry *)a)->seq, y = ((const PEntry *)b)->seq;
  return x < y ? -1 : x > y;
}

/* Pushes field name of the descriptor table at d, read raw (no metamethod
** of the kernel file's runs while C reads). */
static int raw_field(int d, const char *name) {
  lua_pushstring(L, name);
  return lua_rawget(L, d);
}

/* Reads the shape or strides table of tensor t (descriptor at d) into
** t->dims or t->strides, checked here, when it is read: the descriptor is
** a table of the kernel file, which may have changed it since tile.tensor
** made it.  Strides: nil gives row-major strides. */
static void read_dims(int d, Sym *t, SymKind kind, int p, const char *pname) {
  const char *field = kind == SYM_SIZE ? "shape" : "strides";
  int ty = raw_field(d, field);
  int tab = lua_gettop(L);
  if (kind == SYM_STRIDE && ty == LUA_TNIL) {   /* row-major: stride[j] = product of the later dims */
    Expr *acc = ltI_const(1, DT_I32, 0, t->line);
    for (int j = t->trank - 1; j >= 0; j--) {
      t->strides[j] = acc;
      if (j) acc = ltI_binary(B_MUL, acc, t->dims[j], t->line);
    }
    lua_pop(L, 1);
    return;
  }
  if (ty != LUA_TTABLE)
    ltF_error("params.%s.%s is %s; a tensor's %s is a table like {\"M\", \"K\"} (tile.tensor makes it)", pname, field,
              ltF_kind(tab), field);
  size_t n = lua_rawlen(L, tab);
  if (kind == SYM_SIZE && (n < 1 || n > LT_MAXRANK))
    ltF_error("params.%s: tensors have 1 to %d dims, not %zu", pname, LT_MAXRANK, n);
  if (kind == SYM_STRIDE && n != (size_t)t->trank)
    ltF_error("params.%s: tile.tensor's strides are a table with one entry per dim (%d), not %zu", pname, t->trank, n);
  if (kind == SYM_SIZE) t->trank = (int)n;
  for (int j = 0; j < (int)n; j++) {
    lua_rawgeti(L, tab, j + 1);
    Expr *e = dim_entry(lua_gettop(L), kind, t, j);
    *(kind == SYM_SIZE ? &t->dims[j] : &t->strides[j]) = e;
    if (e->kind == E_SYM) {
      ltF_push_expr(e);
      lua_setfield(L, p, e->sym->name);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Turns the table returned by params() (at the stack top) into symbols and
** the p table given to body (pushed).  No kernel-file function runs here:
** the tables are read raw and checked as they are read; errors name the
** params function's line (fn_line) or the line of the parameter's
** tile.tensor / tile.scalar. */
static void build_params(int fn_line) {
  ltF_set_outer_line(fn_line);
  int tab = lua_gettop(L);
  if (!lua_istable(L, tab))
    ltF_error("params must return a table of tile.tensor / tile.scalar declarations, not %s", ltF_kind(tab));
  PEntry ents[64];
  int n = 0;
  lua_getfield(L, LUA_REGISTRYINDEX, "lt_params");
  int made_by = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, tab)) {
    const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    if (!key || !ltF_valid_ident(key))
      ltF_error("params keys are parameter names (identifiers), e.g. { X = tile.tensor(\"f32\", {\"N\"}) }");
    lua_pushvalue(L, -1);
    if (lua_rawget(L, made_by) == LUA_TNIL) ltF_error("params.%s must be tile.tensor(...) or tile.scalar(...)", key);
    lua_pop(L, 1);
    if (n == 64) ltF_error("too many parameters (at most 64)");
    ents[n].name = key;
    raw_field(lua_gettop(L), "seq");
    ents[n].seq = lua_tointeger(L, -1);
    lua_pop(L, 1);
    ents[n].ref = 0;
    n++;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  qsort(ents, (size_t)n, sizeof ents[0], cmp_pentry);
  lua_newtable(L);  /* p */
  int p = lua_gettop(L);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, ents[i].name);
    lua_rawget(L, tab);
    int d = lua_gettop(L);
    raw_field(d, "line");
    lua_Integer ln = lua_tointeger(L, -1);
    int line = ln >= 1 && ln <= ltF_nlines() ? (int)ln : fn_line;
    lua_pop(L, 1);
    ltF_set_outer_line(line);
    raw_field(d, "lt_param");
    const char *kind = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    int scalar = strcmp(kind, "scalar") == 0;
    if (!scalar && strcmp(kind, "tensor") != 0)
      ltF_error("params.%s.lt_param is %s; tile.tensor and tile.scalar make it (\"tensor\" or \"scalar\")",
                ents[i].name, ltF_show(-1));
    lua_pop(L, 1);
    raw_field(d, "dtype");
    const char *dts = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int dt = dts ? ltI_dtype_from_name(dts) : -1;
    if (dt < 0 || (scalar && !ltI_is_int(dt) && dt != DT_F32))
      ltF_error("params.%s.dtype is %s; a %s is %s", ents[i].name, ltF_show(-1), scalar ? "scalar" : "tensor",
                scalar ? "\"f32\", \"i32\", \"i64\" or \"u32\"" : ltI_dtype_list());
    lua_pop(L, 1);
    Sym *had;
    const char *why = ltF_name_clash(ents[i].name, &had);
    if (had && (had->kind == SYM_SIZE || had->kind == SYM_STRIDE))
      ltF_error("parameter name '%s' %s; a tensor's sizes and strides are launcher parameters already (p.%s): "
                "drop this parameter or rename it", ents[i].name, why, ents[i].name);
    if (why) ltF_error("parameter name '%s' %s; rename it", ents[i].name, why);
    if (scalar) {
      Sym *s = ltI_sym(K, SYM_SCALAR, (Dtype)dt, line);
      s->name = ltU_strdup(ents[i].name);
      ltF_name_note(s);
      s->named = 1;
      int ty = raw_field(d, "positive");
      if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
        ltF_error("params.%s.positive is %s; it is true or false", ents[i].name, ltF_show(-1));
      s->positive = s->nonneg = lua_toboolean(L, -1);
      lua_pop(L, 1);
      ltF_push_expr(ltI_ref(s, s->line));
      lua_setfield(L, p, ents[i].name);
    } else {
      Sym *t = ltI_sym(K, SYM_TENSOR, (Dtype)dt, line);
      t->name = ltU_strdup(ents[i].name);
      ltF_name_note(t);
      t->named = 1;
      read_dims(d, t, SYM_SIZE, p, ents[i].name);
      read_dims(d, t, SYM_STRIDE, p, ents[i].name);
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
** its cp.async twin, named NAME_cp; `row`: its row twin (Kernel.as_row),
** named NAME_row. */
static void build_once(Run *run, int kt, int vt, int ct, const char *vname, const char *tname, const char *vdesc,
                       const char *cdesc, const char *bucket, int nbuckets, int fallback, int row) {
  int kline = ltF_kernel_line(kt);
  K = ltU_alloc(sizeof *K);
  K->family = run->kname;
  K->launcher = vname;
  K->tuned = tname;
  K->name = vname;
  K->bucket = bucket;
  K->nbuckets = nbuckets;
  if (bucket) {
    Buf b = {0};
    ltU_printf(&b, "%s_", vname);
    const char *alt = ltN_is_alternative(bucket) ? strstr(bucket, " (alternative") : NULL;
    size_t n = alt ? (size_t)(alt - bucket) : strlen(bucket);
    for (const char *p = bucket; p < bucket + n; p++)
      if (*p != '=') ltU_printf(&b, "%c", *p == ',' ? '_' : *p);
    int ai = 1;   /* an entry's alternative (tuned.c): _alt, _alt2, ... */
    if (alt && sscanf(alt, " (alternative %d)", &ai) != 1) ai = 1;
    if (alt) ltU_printf(&b, ai > 1 ? "_alt%d" : "_alt", ai);
    K->name = b.p;
  }
  K->as_row = row;
  if (row) K->name = ltU_fmt("%s_row", K->name);
  K->fallback = fallback;
  if (fallback) K->name = ltU_fmt("%s_cp", K->name);
  K->variant_desc = vdesc;
  K->config_desc = cdesc;
  K->line = kline;
  /* the kernel table's fields, checked as they are read: it may have
  ** changed since tile.kernel checked it */
  lua_getfield(L, kt, "doc");
  if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
    ltF_error_at(kline, "tile.kernel's doc is a string, not %s", ltF_kind(-1));
  K->doc = lua_isstring(L, -1) ? ltU_strdup(lua_tostring(L, -1)) : NULL;
  lua_pop(L, 1);
  lua_getfield(L, ct, "threads");
  if (!lua_isnil(L, -1) && !lua_isinteger(L, -1))
    ltF_error("config threads must be a whole number, not %s", ltF_show(-1));
  lua_Integer threads = lua_isnil(L, -1) ? 256 : lua_tointeger(L, -1);
  if ((threads < 1 || threads > 65536) && ltF_target)   /* else layout.c checks it against the target */
    ltF_error_at(kline, "config threads = %lld: a block needs a power of two of threads, a multiple of the %s warp "
                 "(%d) and at most %d", (long long)threads, ltF_target->name, ltF_target->warp,
                 ltF_target->max_threads);
  K->threads = (int)threads;
  lua_pop(L, 1);
  lua_getfield(L, ct, "resident");   /* rows read twice kept in shared memory (pass/resident.c) */
  if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
    ltF_error("config resident must be true or false, not %s", ltF_show(-1));
  K->resident_cfg = lua_toboolean(L, -1);
  lua_pop(L, 1);
  ltF_begin_body(&K->body);
  seq_counter = 0;

  lua_Debug ar;
  lua_getfield(L, kt, "body");
  if (!lua_isfunction(L, -1)) ltF_error_at(kline, "tile.kernel needs body = function(k, p, c, v) ... end");
  lua_getinfo(L, ">S", &ar);
  K->body_line = ar.linedefined;
  lua_getfield(L, kt, "params");
  if (!lua_isfunction(L, -1)) ltF_error_at(kline, "tile.kernel needs params = function(v, c) return { ... } end");
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  int params_line = ar.linedefined;
  lua_pushvalue(L, vt);
  lua_pushvalue(L, ct);
  ltF_phase = PH_PARAMS;
  lua_call(L, 2, 1);
  build_params(params_line);
  int p = lua_gettop(L);
  lua_getfield(L, kt, "body");
  if (!lua_isfunction(L, -1)) ltF_error_at(kline, "tile.kernel needs body = function(k, p, c, v) ... end");
  ltF_push_builder();         /* k */
  lua_pushvalue(L, p);
  lua_pushvalue(L, ct);
  lua_pushvalue(L, vt);
  ltF_phase = PH_BODY;
  lua_call(L, 4, 0);
  ltF_phase = PH_NONE;
  lua_pop(L, 1);
  if (!K->ngrid)
    ltF_error_at(K->body_line, "the body never called k:grid(...): say how many programs (blocks) run");
  K->build = run->nbuilds > 0;
  if (K->when && !run->nbuilds)
    ltU_error(K->when_line, "k:runs_when belongs to a build of the kernel's builds (builds = function(v, target) "
              "return { { \"rows16\", { BM = 16 } }, { \"rows64\", {} } } end); this variant has none");
  if (run->nbuilds && run->build < run->nbuilds - 1 && !K->when)
    ltU_error(K->body_line, "build %s is not the last of %s's builds: its body says the sizes it runs for with "
              "k:runs_when(cond, \"what\")", bucket, vname);
  if (run->nbuilds && run->build == run->nbuilds - 1 && K->when)
    ltU_error(K->when_line, "build %s is the last of %s's builds, which runs wherever no other does: it takes no "
              "k:runs_when", bucket, vname);
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
** made; main.c keeps the twin only when the first took the TMA schedule.
** Where the passes gave the first a test for a row twin (Kernel.row_when,
** pass/row.c), the row twin follows, and its cp.async twin. */
void ltF_build_variant(Run *run, int kt, int vt, int ct, const char *vname, const char *tname, const char *vdesc,
                       const char *cdesc, const char *bucket, int nbuckets) {
  int twins = ltF_target && ltF_target->tma ? 2 : 1;
  const Kernel *first = NULL;
  for (int row = 0; row < 2 && (!row || first->row_when); row++)
    for (int fallback = 0; fallback < twins; fallback++) {
      build_once(run, kt, vt, ct, vname, tname, vdesc, cdesc, bucket, nbuckets, fallback, row);
      if (!row && !fallback) first = K;
    }
}

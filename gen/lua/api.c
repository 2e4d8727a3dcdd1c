/*
** lua/api.c: the Lua embedding of the front end, and its entry ltD_run.
**
** ltD_run opens a Lua 5.4 state of its own (a memory ceiling, a count hook
** as step limit), loads the prelude dsl/tile.lua with the C functions of
** expr.c and kernel.c as its `core`, and runs variants.c's ltF_run_file
** under a message handler.  The kernel file itself runs in a sandbox: no
** os, io, debug, package, load, dofile, loadfile; reading or writing an
** undefined global is an error.
**
** Errors: everything a kernel file can get wrong is reported as one line
** "file.lua:LINE: error: ...", LINE being the innermost kernel-file frame
** (ltF_line), or, where none runs (C reading the kernel table, its configs
** and params), the outer line the caller set: tile.kernel's, the params
** function's or a parameter's.  ltF_error raises such a message as a Lua
** error (a table holding it, so that the handler passes it on as it is),
** and so does ltU_error while Lua runs.
**
** IR objects reach Lua as handles: userdata of one metatable (expr.c fills
** it) pointing to an expression, a tensor, a view or a shared tile.  The
** ltF_arg_ functions read the arguments of a DSL call as IR.
*/
#include <sys/stat.h>

#include "dsl.h"

#define MEM_LIMIT ((size_t)1 << 30)
#define STEP_LIMIT 400              /* x 1M Lua instructions */

/* State of one run of the kernel file (declared in dsl.h). */
lua_State *ltF_L;
Kernel *ltF_K;
const char *ltF_file;
const char *ltF_source;
const Target *ltF_target;

static char **klines;                 /* source lines, for comments */
static int nklines;
static size_t mem_used;
static int steps;                     /* millions of Lua instructions run */
static int fatal;                     /* set once the step limit is hit: pcall cannot catch it */
static int outer_line;                /* the line errors name where no kernel-file function runs */

/* ------------------------------------------------------------------ */
/* errors and lines                                                    */

/* Line of the innermost active function of the kernel file, or 0. */
int ltF_line(void) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0 && strcmp(ar.source, ltF_source) == 0) return ar.currentline;
  }
  return 0;
}

/* Raises a ready-made "file:line: error: ..." message as a Lua error: a
** table holding it, which msgh passes on as it is. */
static void raise_msg(const char *msg) {
  lua_newtable(L);
  lua_pushstring(L, msg);
  lua_setfield(L, -2, "lt_error");
  lua_error(L);
}

/* ltU_error while Lua runs lands here (via ltU_raise). */
static void raise_from_util(const char *msg) { raise_msg(msg); }

/* Raises fmt's message at a kernel-file line: "file:line: error: ..."
** ("file: error: ..." for line 0). */
static void raise_at(int line, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  char *msg = ltU_alloc((size_t)n + 1);
  vsnprintf(msg, (size_t)n + 1, fmt, ap);
  if (line > 0) raise_msg(ltU_fmt("%s:%d: error: %s", ltF_file, line, msg));
  raise_msg(ltU_fmt("%s: error: %s", ltF_file, msg));
}

/* Sets the line that errors name while no kernel-file function runs (the
** kernel table, its configs and its params are read from C): tile.kernel's,
** the params function's, or the line of the parameter being read. */
void ltF_set_outer_line(int line) { outer_line = line; }

/* Reports a DSL error at the current kernel-file line (ltF_line, else the
** outer line); returns an int only so that C functions of Lua can `return
** ltF_error(...)`. */
int ltF_error(const char *fmt, ...) {
  int line = ltF_line();
  va_list ap;
  va_start(ap, fmt);
  raise_at(line ? line : outer_line, fmt, ap);
  va_end(ap);
  return 0;
}

/* Reports a DSL error at the given kernel-file line: for checks made where
** no kernel-file function runs (the kernel table, params, configs). */
int ltF_error_at(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  raise_at(line, fmt, ap);
  va_end(ap);
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
  size_t fl = strlen(ltF_file);
  int line = 0;
  if (strncmp(msg, ltF_file, fl) == 0 && msg[fl] == ':') {
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
  if (!line) line = ltF_line();
  if (!line) line = outer_line;
  if (line) lua_pushstring(l, ltU_fmt("%s:%d: error: %s", ltF_file, line, msg));
  else lua_pushstring(l, ltU_fmt("%s: error: %s", ltF_file, msg));
  return 1;
}

/* ------------------------------------------------------------------ */
/* limits                                                              */

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

/* Count hook, every million Lua instructions: stops a kernel file that
** runs for too long, and marks the error fatal for sandbox_pcall. */
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
/* handles and arguments                                               */

/* Pushes a new handle of the given kind (its pointer still NULL). */
Handle *ltF_push_handle(HKind kind) {
  Handle *h = lua_newuserdatauv(L, sizeof *h, 0);
  memset(h, 0, sizeof *h);
  h->kind = kind;
  luaL_setmetatable(L, VAL_MT);
  return h;
}

/* Pushes a handle to the expression e. */
void ltF_push_expr(Expr *e) { ltF_push_handle(H_EXPR)->e = e; }

/* The handle at stack index idx, or NULL when the value there is none. */
Handle *ltF_handle(int idx) { return luaL_testudata(L, idx, VAL_MT); }

/* What the value at idx is, for messages: "a tile value", "a tensor", or
** Lua's type name. */
const char *ltF_kind(int idx) {
  Handle *h = ltF_handle(idx);
  if (!h) return luaL_typename(L, idx);
  switch (h->kind) {
  case H_EXPR: return h->e->rank ? "a tile value" : "a scalar value";
  case H_TENSOR: return "a tensor";
  case H_VIEW: return "a tensor view";
  case H_SHARED: return "a shared tile";
  default: return "the kernel builder";
  }
}

/* The value at idx as a message shows it: 2, 0.5, 1.0, true, "text", or
** what it is (a table, a tile value). */
const char *ltF_show(int idx) {
  switch (lua_type(L, idx)) {
  case LUA_TBOOLEAN: return lua_toboolean(L, idx) ? "true" : "false";
  case LUA_TSTRING: return ltU_fmt("\"%s\"", lua_tostring(L, idx));
  case LUA_TNUMBER: {
    if (lua_isinteger(L, idx)) return ltU_fmt("%lld", (long long)lua_tointeger(L, idx));
    const char *t = ltU_fmt("%.14g", lua_tonumber(L, idx));   /* as Lua prints a float */
    return strspn(t, "-0123456789") == strlen(t) ? ltU_fmt("%s.0", t) : t;
  }
  default: return ltF_kind(idx);
  }
}

/* Reads argument idx as a value: a handle to an expression or a number. */
Expr *ltF_arg_expr(int idx, const char *what) {
  int line = ltF_line();
  if (lua_type(L, idx) == LUA_TNUMBER) return ltI_const(lua_tonumber(L, idx), DT_F32, 1, line);
  if (lua_type(L, idx) == LUA_TBOOLEAN) return ltI_const(lua_toboolean(L, idx), DT_BOOL, 0, line);
  Handle *h = ltF_handle(idx);
  if (h && h->kind == H_EXPR) return h->e;
  ltF_error("%s must be a number or a value, not %s", what, ltF_kind(idx));
  return NULL;
}

/* Reads a uniform integer (a number, a size, a program id, a loop index). */
Expr *ltF_arg_index(int idx, const char *what) {
  Expr *e = ltF_arg_expr(idx, what);
  if (e->rank) ltF_error("%s must be a scalar, not a tile", what);
  if (e->weak) {
    if (e->cval != floor(e->cval)) ltF_error("%s must be an integer, not %g", what, e->cval);
    return ltI_const(e->cval, DT_I32, 0, e->line);
  }
  if (e->dt != DT_I32) ltF_error("%s must be an i32 scalar, not %s", what, ltI_dtypes[e->dt].name);
  return e;
}

/* Reads a positive integer Lua number (a tile extent). */
int ltF_arg_extent(int idx, const char *what) {
  if (!lua_isinteger(L, idx) && !(lua_isnumber(L, idx) && lua_tonumber(L, idx) == floor(lua_tonumber(L, idx))))
    ltF_error("%s must be a whole Lua number (tile sizes are fixed at generation time), not %s", what, ltF_kind(idx));
  lua_Number n = lua_tonumber(L, idx);
  if (n < 1 || n > (1 << 24)) ltF_error("%s must be between 1 and 16777216, not %g", what, n);
  return (int)n;
}

/* Reads a dtype name argument. */
Dtype ltF_arg_dtype(int idx) {
  const char *s = lua_tostring(L, idx);
  int dt = s ? ltI_dtype_from_name(s) : -1;
  if (dt < 0) ltF_error("unknown dtype '%s'; use \"f32\", \"f16\", \"bf16\" or \"i32\"", s ? s : luaL_typename(L, idx));
  return (Dtype)dt;
}

/* Reads a shape table {R, C} or {C} into a two-dim tile shape. */
int ltF_arg_shape(int idx, int shape[2]) {
  if (!lua_istable(L, idx)) ltF_error("a tile shape is a table like {128, 64} or {1024}, not %s", ltF_kind(idx));
  int n = (int)luaL_len(L, idx);
  if (n < 1 || n > 2) ltF_error("register and shared tiles have 1 or 2 dims, not %d", n);
  shape[0] = 1;
  for (int i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    shape[2 - n + i] = ltF_arg_extent(-1, "a tile dim");
    lua_pop(L, 1);
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* the kernel file and its sandbox                                     */

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

/* The text of the file at path, arena-owned; NULL when it is no regular
** file, cannot be read or holds a NUL byte (binary). */
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

/* __index of the sandbox: an undefined global is an error that says why
** (a library left out of the sandbox, a DSL name without tile.). */
static int sandbox_index(lua_State *l) {
  static const char *const banned[] = {"os", "io", "debug", "package", "load", "loadfile", "dofile",
                                       "collectgarbage", "require", NULL};
  const char *n = lua_tostring(l, 2);
  for (int i = 0; n && banned[i]; i++)
    if (strcmp(banned[i], n) == 0)
      return ltF_error("undefined global '%s'; kernel files run sandboxed, without os, io, debug, package, load, "
                       "loadfile, dofile and collectgarbage", n);
  lua_getfield(l, LUA_REGISTRYINDEX, "lt_tile");
  lua_getfield(l, -1, n ? n : "");
  if (n && !lua_isnil(l, -1))
    return ltF_error("undefined global '%s'; declare it with local, or use tile.%s if you meant the DSL", n, n);
  return ltF_error("undefined global '%s'; declare it with local", n ? n : "?");
}

/* __newindex of the sandbox: kernel files declare their variables local. */
static int sandbox_newindex(lua_State *l) {
  return ltF_error("assignment to undefined global '%s'; declare it with local", lua_tostring(l, 2));
}

/* require in a kernel file: "tile" gives the prelude's module; nothing else
** can be loaded. */
static int sandbox_require(lua_State *l) {
  const char *n = luaL_checkstring(l, 1);
  if (strcmp(n, "tile") != 0) return ltF_error("kernel files may only require \"tile\", not \"%s\"", n);
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

/* Reads the kernel file (keeping its lines for ltD_line_text) and runs it
** in the sandbox, leaving the value it returns on the stack; returns the
** number of lines of the file. */
int ltF_run_chunk(void) {
  char *text = slurp(ltF_file);
  if (!text) ltF_error_at(0, "cannot read the file (missing, unreadable or binary)");
  read_lines(text);
  if (luaL_loadbufferx(L, text, strlen(text), ltF_source, "t") != LUA_OK) lua_error(L);
  push_sandbox();
  lua_setupvalue(L, -2, 1);
  lua_call(L, 0, 1);
  return nklines;
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

/* ------------------------------------------------------------------ */
/* the Lua state                                                       */

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

  ltF_open_values();

  /* the prelude gets core and returns the tile module */
  if (luaL_loadbufferx(L, ltX_prelude, strlen(ltX_prelude), "=tile", "t") != LUA_OK)
    ltU_error(0, "internal: prelude: %s", lua_tostring(L, -1));
  lua_newtable(L);
  luaL_setfuncs(L, ltF_value_funcs, 0);
  luaL_setfuncs(L, ltF_kernel_funcs, 0);
  lua_call(L, 1, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lt_tile");
}

/* Runs the kernel file of req (see the comment at the top), calling fn
** once per variant built, or filling listing for --list. */
void ltD_run(GenRequest *req, VariantFn fn, void *ud, Buf *listing) {
  ltF_target = req->target;
  ltF_file = req->file;
  ltF_source = ltU_fmt("@%s", req->file);
  open_state();
  ltU_raise = raise_from_util;
  Run run = {req, fn, ud, listing};
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, ltF_run_file);
  lua_pushlightuserdata(L, &run);
  int rc = lua_pcall(L, 1, 0, 1);
  ltU_raise = NULL;
  if (rc != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (rc == LUA_ERRMEM) msg = ltU_fmt("%s: error: the kernel file used over 1 GiB of memory", ltF_file);
    fprintf(stderr, "%s\n", msg ? msg : "error: unknown Lua error");
    longjmp(ltU_jmp, 1);
  }
  lua_close(L);
}

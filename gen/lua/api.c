/*
** lua/api.c: the Lua embedding of the front end, and its entry ltD_run.
**
** ltD_run opens a Lua 5.4 state of its own (a memory ceiling shared with
** gen's own allocations, a count hook as step limit, a CPU-time limit),
** loads the prelude dsl/tile.lua with the C functions of expr.c and
** kernel.c as its `core`, and runs variants.c's ltF_run_file under a
** message handler.  The kernel file itself runs in a sandbox: no os, io,
** debug, package, load, dofile, loadfile, collectgarbage; reading or
** writing an undefined global is an error (the globals' metatable is
** protected); string, table, math and utf8 are copies of their own, and
** the library functions that can run long in C without Lua's hooks are
** checked (string patterns, string.rep, table.move, table.insert, ...).
** No metatable may have __gc: finalizers run where no hook stops them.
**
** Limits: 400 million Lua steps, 10 s of CPU time for the whole run (a
** backstop: past it gen stops the kernel file at its next step, or exits
** two seconds later wherever it is, having written nothing), 1 GiB of
** memory (util.c counts Lua's and gen's own allocations together).
**
** Errors: everything a kernel file can get wrong is reported as one line
** "file.lua:LINE: error: ...", LINE being the innermost kernel-file frame
** (ltF_line), or, where none runs (C reading the kernel table, its configs
** and params), the outer line the caller set: tile.kernel's, the params
** function's or a parameter's.  ltF_error raises such a message as a Lua
** error (a userdata of gen's own holding it, which a kernel file cannot
** make or change, so that the handler passes it on as it is), and so does
** ltU_error while Lua runs.  The line printed is made printable and one
** line long, whatever the kernel file put into it.
**
** IR objects reach Lua as handles: userdata of one metatable (expr.c fills
** it) pointing to an expression, a tensor, a view or a shared tile, and to
** the variant they belong to.  The ltF_arg_ functions read the arguments of
** a DSL call as IR.
*/
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "dsl.h"

#define STEP_LIMIT 400              /* x 1M Lua instructions */
#define TIME_LIMIT 10               /* seconds of CPU time for the whole run */
#define STEPS_PER_SECOND 4e8        /* about what Lua runs: the step limit is about one second */
#define ERR_MT "luatile.error"      /* the metatable of gen's error values */

/* State of one run of the kernel file (declared in dsl.h). */
lua_State *ltF_L;
Kernel *ltF_K;
const char *ltF_file;
const char *ltF_source;
const Target *ltF_target;
int ltF_phase;

static char **klines;                 /* source lines, for comments */
static int nklines;
static int steps;                     /* millions of Lua instructions run */
static long long substeps;            /* instructions' worth of library work, below a million */
static volatile sig_atomic_t fatal;   /* a limit was hit: pcall cannot catch the error */
static volatile sig_atomic_t timed_out;
static char time_msg[600];            /* what the CPU-time limit prints when it must exit */
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
** userdata of metatable ERR_MT holding it, which msgh passes on as it is
** and which no kernel file can forge or change. */
static void raise_msg(const char *msg) {
  size_t n = strlen(msg);
  char *p = lua_newuserdatauv(L, n + 1, 0);
  memcpy(p, msg, n + 1);
  luaL_setmetatable(L, ERR_MT);
  lua_error(L);
}

/* __tostring of gen's error values: the message (for a kernel file that
** catches one with pcall and prints it). */
static int err_tostring(lua_State *l) {
  lua_pushstring(l, luaL_checkudata(l, 1, ERR_MT));
  return 1;
}

/* ltU_error while Lua runs lands here (via ltU_raise). */
static void raise_from_util(const char *msg) { raise_msg(msg); }

/* Raises fmt's message at a kernel-file line: "file:line: error: ..."
** ("file: error: ..." for line 0). */
static void raise_at(int line, const char *fmt, va_list ap) {
  char *msg = ltU_vfmt(fmt, ap);
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

/* Is s, at the start of a message, a position "FILE:LINE:" of the kernel
** file?  Then returns the line (1 to one past the file's lines) and sets *rest past
** it and the spaces after it; else 0. */
static int position(const char *s, const char **rest) {
  size_t fl = strlen(ltF_file);
  if (strncmp(s, ltF_file, fl) != 0 || s[fl] != ':') return 0;
  char *end;
  long n = strtol(s + fl + 1, &end, 10);
  if (end == s + fl + 1 || *end != ':' || n < 1 || n > nklines + 1) return 0;   /* + 1: <eof> after the last newline */
  for (end++; *end == ' '; end++) {}
  *rest = end;
  return (int)n;
}

/* Message handler: turns any Lua error into the one-line form. */
static int msgh(lua_State *l) {
  const char *own = luaL_testudata(l, 1, ERR_MT);
  if (own) {
    lua_pushstring(l, own);
    return 1;
  }
  const char *msg = lua_type(l, 1) == LUA_TSTRING || lua_type(l, 1) == LUA_TNUMBER ? lua_tostring(l, 1) : NULL;
  if (!msg) msg = ltU_fmt("error() was given a %s; give it a message string", luaL_typename(l, 1));
  /* Lua prefixes "chunk:line: ", once more each time a caught message is
  ** raised again with error(e): keep the innermost line of the kernel
  ** file, drop prelude positions and the "FILE: error: " of a message gen
  ** made that the kernel file raised again */
  size_t fl = strlen(ltF_file);
  int line = 0;
  for (;;) {
    const char *rest;
    int n = position(msg, &rest);
    if (n) {
      line = n;
      msg = rest;
    } else if (strncmp(msg, ltF_file, fl) == 0 && strncmp(msg + fl, ": error: ", 9) == 0) {
      msg += fl + 9;
    } else if (line && strncmp(msg, "error: ", 7) == 0) {
      msg += 7;
    } else if ((strncmp(msg, "tile:", 5) == 0 || strncmp(msg, "[string", 7) == 0) && strstr(msg, ": ")) {
      msg = strstr(msg, ": ") + 2;
    } else {
      break;
    }
  }
  if (!line) line = ltF_line();
  if (!line) line = outer_line;
  if (line) lua_pushstring(l, ltU_fmt("%s:%d: error: %s", ltF_file, line, msg));
  else lua_pushstring(l, ltU_fmt("%s: error: %s", ltF_file, msg));
  return 1;
}

/* ------------------------------------------------------------------ */
/* limits                                                              */

/* Allocator with a ceiling (shared with gen's own memory, util.c), so a
** runaway kernel file fails cleanly. */
static void *lalloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  size_t was = ptr ? ltU_mem_cost(osize) : 0;
  if (nsize == 0) {
    free(ptr);
    ltU_mem_used -= was;
    return NULL;
  }
  size_t will = ltU_mem_cost(nsize);
  if (will > was && !ltU_mem_room(will - was)) return NULL;
  void *p = realloc(ptr, nsize);
  if (p) ltU_mem_used = ltU_mem_used - was + will;
  return p;
}

/* Raises the step limit's error; fatal, so that pcall passes it on. */
static int over_steps(lua_State *l) {
  fatal = 1;
  return luaL_error(l, "the kernel file ran for over %d million Lua steps (an endless loop?)", STEP_LIMIT);
}

/* Count hook, every million Lua instructions: stops a kernel file that
** runs for too long, and marks the error fatal for sandbox_pcall. */
static void step_hook(lua_State *l, lua_Debug *ar) {
  (void)ar;
  if (++steps > STEP_LIMIT || fatal) over_steps(l);
}

/* Counts n instructions' worth of work a library function does in C (where
** no hook runs) against the step limit. */
static void charge_steps(lua_State *l, lua_Integer n) {
  if (n > 0) substeps += n > (lua_Integer)1 << 40 ? (lua_Integer)1 << 40 : n;
  steps += (int)(substeps / 1000000);
  substeps %= 1000000;
  if (steps > STEP_LIMIT) over_steps(l);
}

/* Hook set by the CPU-time limit: stops the kernel file at its next step. */
static void time_hook(lua_State *l, lua_Debug *ar) {
  (void)ar;
  lua_sethook(l, step_hook, LUA_MASKCOUNT, 1000000);
  fatal = 1;
  luaL_error(l, "generating ran for over %d s of CPU time (an endless loop, or a library call that does not end?)",
             TIME_LIMIT);
}

/* SIGPROF, every 2 s after the first TIME_LIMIT s of CPU time: the first
** time, Lua stops at its next step (time_hook); if that does not come (a
** library function or gen's own code runs on), the next one ends gen.
** Nothing has been written yet: files are written after ltD_run returns. */
static void on_cpu_limit(int sig) {
  (void)sig;
  if (!timed_out) {
    timed_out = 1;
    fatal = 1;
    lua_sethook(L, time_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
    return;
  }
  ssize_t w = write(2, time_msg, strlen(time_msg));
  (void)w;
  _exit(1);
}

/* Starts (on) or stops the CPU-time limit. */
static void cpu_limit(int on) {
  struct itimerval it = {{0, 0}, {0, 0}};
  if (on) {
    char *m = ltU_one_line(ltU_fmt("%s: error: generating ran for over %d s of CPU time (an endless loop, or a "
                                   "library call that does not end?)", ltF_file, TIME_LIMIT), 500);
    snprintf(time_msg, sizeof time_msg, "%s\n", m);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_cpu_limit;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    it.it_value.tv_sec = TIME_LIMIT;
    it.it_interval.tv_sec = 2;
  }
  setitimer(ITIMER_PROF, &it, NULL);
}

/* Is the error at the top of the stack a Lua stack overflow (its message,
** or the "C stack overflow" of nested C calls)? */
static int stack_overflow(lua_State *l) {
  const char *m = lua_type(l, -1) == LUA_TSTRING ? lua_tostring(l, -1) : NULL;
  if (!m) return 0;
  size_t n = strlen(m);
  return (n >= 14 && strcmp(m + n - 14, "stack overflow") == 0) || strstr(m, "stack overflow (") != NULL;
}

/* pcall / xpcall for kernel files: as Lua's, except that the limits go
** through them, and so does an error raised inside a k: method (which
** may have left a statement half made: the variant cannot be finished),
** and that a stack overflow caught costs the steps that its
** CPU time is worth (growing and dropping the stack takes time that no
** hook counts: repeated, 80 s). */
static int sandbox_pcall(lua_State *l) {
  int x = lua_toboolean(l, lua_upvalueindex(1));
  int n = lua_gettop(l);
  luaL_checkany(l, 1);
  if (x) luaL_checkany(l, 2);
  int base = x ? 3 : 2;       /* pcall(f, ...) / xpcall(f, h, ...) */
  if (x) {                    /* stack: f h args -> h f args */
    lua_pushvalue(l, 2);
    lua_pushvalue(l, 1);
    lua_replace(l, 2);
    lua_replace(l, 1);
  }
  clock_t t0 = clock();
  int depth = ltF_builder_depth;
  int rc = lua_pcall(l, n - base + 1, LUA_MULTRET, x ? 1 : 0);
  if (rc != LUA_OK && (fatal || ltU_mem_over || ltF_builder_depth > depth)) return lua_error(l);
  if (rc != LUA_OK && stack_overflow(l))   /* the steps its time is worth: growing the stack is not counted */
    charge_steps(l, (lua_Integer)((double)(clock() - t0) / CLOCKS_PER_SEC * STEPS_PER_SECOND));
  lua_pushboolean(l, rc == LUA_OK);
  lua_insert(l, x ? 2 : 1);
  return lua_gettop(l) - (x ? 1 : 0);
}

/* ------------------------------------------------------------------ */
/* handles and arguments                                               */

/* Pushes a new handle of the given kind (its pointer still NULL), of the
** variant being built: only its params and body make handles. */
Handle *ltF_push_handle(HKind kind) {
  if (!ltF_phase || !K) ltF_error("values, tensors and shared tiles exist only while a variant is built: use them "
                                  "inside params and body");
  Handle *h = lua_newuserdatauv(L, sizeof *h, 0);
  memset(h, 0, sizeof *h);
  h->kind = kind;
  h->k = K;
  luaL_setmetatable(L, VAL_MT);
  return h;
}

/* Pushes a handle to the expression e. */
void ltF_push_expr(Expr *e) { ltF_push_handle(H_EXPR)->e = e; }

/* The handle at stack index idx, or NULL when the value there is none;
** one of another variant (kept in a variable outside body and used in
** the next variant's) is an error: its IR belongs to that variant. */
Handle *ltF_handle(int idx) {
  Handle *h = luaL_testudata(L, idx, VAL_MT);
  if (h && h->k != K) {
    const char *what = h->kind == H_TENSOR ? ltU_fmt("tensor %s", h->s->name) : ltF_kind(idx);
    ltF_error("%s belongs to variant %s, not to %s being built now: a variant's body uses the values of its own "
              "params and body (keep no values in variables outside body)", what, h->k->name,
              K ? K->name : "the variant");
  }
  return h;
}

/* What the value at idx is, for messages: "a tile value", "a tensor", or
** Lua's type name. */
const char *ltF_kind(int idx) {
  Handle *h = luaL_testudata(L, idx, VAL_MT);
  if (!h) return luaL_typename(L, idx);
  if (h->k != K) return "a value of another variant";
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

/* Reads argument idx as a value: a handle to an expression or a number.
** An integer must be one a double holds exactly (|n| <= 2^53). */
Expr *ltF_arg_expr(int idx, const char *what) {
  int line = ltF_line();
  if (lua_type(L, idx) == LUA_TNUMBER) {
    if (lua_isinteger(L, idx) && (lua_tointeger(L, idx) > (1LL << 53) || lua_tointeger(L, idx) < -(1LL << 53)))
      ltF_error("%s %lld is not exactly representable as a value (integers are at most 2^53 in magnitude)", what,
                (long long)lua_tointeger(L, idx));
    return ltI_const(lua_tonumber(L, idx), DT_F32, 1, line);
  }
  if (lua_type(L, idx) == LUA_TBOOLEAN) return ltI_const(lua_toboolean(L, idx), DT_BOOL, 0, line);
  Handle *h = ltF_handle(idx);
  if (h && h->kind == H_EXPR) return h->e;
  ltF_error("%s must be a number or a value, not %s", what, ltF_kind(idx));
  return NULL;
}

/* Reads a uniform integer (a number, a size, a program id, a loop index);
** a number must fit an i32. */
Expr *ltF_arg_index(int idx, const char *what) {
  Expr *e = ltF_arg_expr(idx, what);
  if (e->rank) ltF_error("%s must be a scalar, not a tile", what);
  if (e->weak) {
    if (e->cval != floor(e->cval)) ltF_error("%s must be an integer, not %g", what, e->cval);
    if (e->cval < INT32_MIN || e->cval > INT32_MAX)
      ltF_error("%s %.17g is out of the i32 range (-2^31 to 2^31 - 1)", what, e->cval);
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
  if (n < 1 || n > LT_MAX_TILE) ltF_error("%s must be between 1 and %d, not %g", what, LT_MAX_TILE, n);
  return (int)n;
}

/* Checks that a [rows, cols] tile has at most LT_MAX_TILE elements. */
void ltF_check_tile(const int shape[2], const char *what) {
  if ((long long)shape[0] * shape[1] > LT_MAX_TILE)
    ltF_error("%s [%d, %d] has %lld elements; a tile has at most %d (2^24)", what, shape[0], shape[1],
              (long long)shape[0] * shape[1], LT_MAX_TILE);
}

/* Reads a dtype name argument. */
Dtype ltF_arg_dtype(int idx) {
  const char *s = lua_tostring(L, idx);
  int dt = s ? ltI_dtype_from_name(s) : -1;
  if (dt < 0)
    ltF_error("unknown dtype '%s'; use %s", s ? s : luaL_typename(L, idx), ltI_dtype_list());
  return (Dtype)dt;
}

/* The length of the table at idx (#t, its __len if it has one), checked to
** be an integer. */
lua_Integer ltF_len(int idx) {
  lua_len(L, idx);
  int ok;
  lua_Integer n = lua_tointegerx(L, -1, &ok);
  lua_pop(L, 1);
  if (!ok) ltF_error("the length of a table (its __len) must be a whole number");
  return n;
}

/* Reads a shape table {R, C} or {C} into a two-dim tile shape. */
int ltF_arg_shape(int idx, int shape[2]) {
  if (!lua_istable(L, idx)) ltF_error("a tile shape is a table like {128, 64} or {1024}, not %s", ltF_kind(idx));
  lua_Integer len = ltF_len(idx);
  if (len < 1 || len > 2) ltF_error("register and shared tiles have 1 or 2 dims, not %lld", (long long)len);
  int n = (int)len;
  shape[0] = 1;
  for (int i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    shape[2 - n + i] = ltF_arg_extent(-1, "a tile dim");
    lua_pop(L, 1);
  }
  ltF_check_tile(shape, "a tile of shape");
  return n;
}

/* ------------------------------------------------------------------ */
/* the kernel file and its sandbox                                     */

/* Reads the source lines of the kernel file for comments; a line longer
** than LINE_MAX_BYTES is an error. */
#define LINE_MAX_BYTES 4000
#define QUOTE_MAX 200   /* characters of a line quoted in a comment of the output */
static void read_lines(const char *text) {
  int cap = 256;
  klines = ltU_alloc(sizeof *klines * (size_t)cap);
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n > LINE_MAX_BYTES)
      ltF_error_at(nklines + 1, "the line is %zu bytes long; kernel-file lines are at most %d", n, LINE_MAX_BYTES);
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

/* Source text of a kernel-file line, trimmed, fit for a // comment of the
** output, or "": control characters, a comment opener or closer and a
** trigraph's "??" become '?', a backslash at its end (which would join
** the next line to the comment) gets a '.' after it, and past QUOTE_MAX
** characters it ends in "...". */
const char *ltD_line_text(int line) {
  if (line < 1 || line > nklines) return "";
  const char *s = klines[line - 1];
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  int cut = n > QUOTE_MAX;
  if (cut) n = QUOTE_MAX;
  char *r = ltU_alloc(n + 4);
  memcpy(r, s, n);
  for (size_t i = 0; i < n; i++) {
    if ((unsigned char)r[i] < 0x20 || r[i] == 0x7f) r[i] = '?';
    if (i + 1 < n && ((r[i] == '*' && r[i + 1] == '/') || (r[i] == '/' && r[i + 1] == '*'))) r[i] = '?';   /* keep comments closed */
  }
  for (size_t i = 0; i + 2 < n; i++)
    if (r[i] == '?' && r[i + 1] == '?' && strchr("=/'()!<>-", r[i + 2])) r[i + 1] = '.';
  if (cut) memcpy(r + n, "...", 4);
  else if (n && r[n - 1] == '\\') r[n] = '.';
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

/* ---- library functions that run in C, checked ---- */

#define PATTERN_BUDGET 1e8   /* worst-case steps of one pattern search */

/* A bound on the steps Lua's matcher can take for pattern p (pl bytes) on
** a subject of n bytes: at each start (every byte, unless anchored) a
** step per pattern byte, where each repetition (* + -) or back reference
** may try every length and each ? two ways. */
static double pattern_cost(const char *p, size_t pl, size_t n, int anchorable) {
  double cost = (anchorable && pl && p[0] == '^' ? 1 : (double)n + 1) * ((double)pl + 1);
  for (size_t i = 0; i < pl && cost <= PATTERN_BUDGET * 16; i++) {
    size_t end = i + 1;   /* past one single-character class */
    if (p[i] == '%' && i + 1 < pl) {
      char c = p[i + 1];
      if (c >= '0' && c <= '9') cost *= (double)n + 1;
      end = i + 2;
      if (c == 'b') end = i + 4;
      else if (c == 'f' && i + 2 < pl && p[i + 2] == '[') {
        size_t j = i + 3;
        if (j < pl && p[j] == '^') j++;
        for (j++; j < pl && p[j] != ']'; j++)
          if (p[j] == '%') j++;
        end = j + 1;
      }
    } else if (p[i] == '[') {
      size_t j = i + 1;
      if (j < pl && p[j] == '^') j++;
      for (j++; j < pl && p[j] != ']'; j++)
        if (p[j] == '%') j++;
      end = j + 1;
    }
    if (end < pl && (p[end] == '*' || p[end] == '+' || p[end] == '-')) cost *= (double)n + 1, end++;
    else if (end < pl && p[end] == '?') cost *= 2, end++;
    i = end - 1;
  }
  return cost;
}

/* string.find / match / gmatch / gsub for kernel files: Lua's, once the
** pattern's worst case is known to stay under PATTERN_BUDGET steps (the
** matcher runs in C, where no hook can stop it). */
static int checked_pattern(lua_State *l) {
  static const char *const names[] = {"find", "match", "gmatch", "gsub"};
  int which = (int)lua_tointeger(l, lua_upvalueindex(2));
  size_t n, pl;
  luaL_checklstring(l, 1, &n);
  const char *p = luaL_checklstring(l, 2, &pl);
  int plain = which == 0 && lua_toboolean(l, 4);
  if (!plain) {
    double cost = pattern_cost(p, pl, n, 1);
    if (cost > PATTERN_BUDGET)
      return ltF_error("string.%s: the pattern \"%s\" may take over 10^8 steps on a string of %zu bytes (each * + - "
                       "can try every length); use fewer repetitions or a shorter string", names[which], p, n);
  }
  charge_steps(l, (lua_Integer)n);
  lua_pushvalue(l, lua_upvalueindex(1));
  lua_insert(l, 1);
  lua_call(l, lua_gettop(l) - 1, LUA_MULTRET);
  return lua_gettop(l);
}

/* A library function that runs a loop in C, for kernel files: Lua's, after
** charging the loop's length against the step limit (which=0 string.rep:
** its result's bytes, and an empty result at once; 1 table.move; 2
** table.insert / table.remove; 3 table.concat; 4 table.unpack; 5 table.sort;
** 6 a string function that walks its string). */
static int charged(lua_State *l) {
  int which = (int)lua_tointeger(l, lua_upvalueindex(2));
  double work = 0;
  if (which == 0) {
    size_t sl, sepl = 0;
    luaL_checklstring(l, 1, &sl);
    lua_Integer n = luaL_checkinteger(l, 2);
    if (lua_type(l, 3) == LUA_TSTRING) lua_tolstring(l, 3, &sepl);
    if (n > 0 && sl + sepl == 0) {   /* Lua would loop n times to make "" */
      lua_pushliteral(l, "");
      return 1;
    }
    work = n > 0 ? (double)n * (double)(sl + sepl) / 8 : 0;
  } else if (which == 1) {
    lua_Integer f = luaL_checkinteger(l, 2), e = luaL_checkinteger(l, 3);
    work = e >= f ? (double)e - (double)f + 1 : 0;
  } else if (which == 2 || which == 5) {
    luaL_checktype(l, 1, LUA_TTABLE);
    work = (double)lua_rawlen(l, 1);
    if (which == 5) work *= 1 + log2(work + 1);
  } else if (which == 3 || which == 4) {
    luaL_checktype(l, 1, LUA_TTABLE);
    lua_Integer i = luaL_optinteger(l, which == 3 ? 3 : 2, 1);
    lua_Integer j = lua_isnoneornil(l, which == 3 ? 4 : 3) ? (lua_Integer)lua_rawlen(l, 1)
                                                           : luaL_checkinteger(l, which == 3 ? 4 : 3);
    work = j >= i ? (double)j - (double)i + 1 : 0;
  } else {
    size_t sl;
    luaL_checklstring(l, 1, &sl);
    work = (double)sl / 8;
  }
  charge_steps(l, work > 1e15 ? (lua_Integer)1e15 : (lua_Integer)work);
  lua_pushvalue(l, lua_upvalueindex(1));
  lua_insert(l, 1);
  lua_call(l, lua_gettop(l) - 1, LUA_MULTRET);
  return lua_gettop(l);
}

/* Replaces field name of the table at the top with fn wrapping the field's
** function (upvalues: it and which). */
static void wrap(const char *name, lua_CFunction fn, int which) {
  lua_getfield(L, -1, name);
  lua_pushinteger(L, which);
  lua_pushcclosure(L, fn, 2);
  lua_setfield(L, -2, name);
}

/* Pushes a copy of the library table called name (its fields, not its
** metatable), so that what a kernel file does to it stays its own. */
static void push_lib_copy(const char *name) {
  lua_newtable(L);
  lua_getglobal(L, name);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
}

/* setmetatable for kernel files: as Lua's, but no __gc (a finalizer runs
** where no hook can stop it, even after the file is done). */
static int sandbox_setmetatable(lua_State *l) {
  if (lua_istable(l, 2)) {
    lua_pushliteral(l, "__gc");
    if (lua_rawget(l, 2) != LUA_TNIL)
      return ltF_error("metatables in kernel files cannot have __gc (a finalizer would run out of reach of the "
                       "time limit)");
    lua_pop(l, 1);
  }
  lua_pushvalue(l, lua_upvalueindex(1));
  lua_insert(l, 1);
  lua_call(l, lua_gettop(l) - 1, 1);
  return 1;
}

/* Builds the kernel file's environment: safe base functions, and copies
** of the libraries with the checked functions above; the globals' and
** strings' metatables are protected.  Leaves it on the stack. */
static void push_sandbox(void) {
  static const char *const safe[] = {
    "assert", "error", "ipairs", "next", "pairs", "select", "tonumber", "tostring",
    "type", "rawequal", "rawget", "rawlen", "rawset", "getmetatable", "print", NULL,
  };
  lua_newtable(L);
  for (int i = 0; safe[i]; i++) {
    lua_getglobal(L, safe[i]);
    lua_setfield(L, -2, safe[i]);
  }
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, sandbox_setmetatable, 1);
  lua_setfield(L, -2, "setmetatable");
  push_lib_copy("string");
  static const char *const pattern_fns[] = {"find", "match", "gmatch", "gsub"};
  for (int i = 0; i < 4; i++) wrap(pattern_fns[i], checked_pattern, i);
  wrap("rep", charged, 0);
  wrap("upper", charged, 6);
  wrap("lower", charged, 6);
  wrap("reverse", charged, 6);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "string");
  /* strings' methods ("a"):find(...) are the sandbox's string functions */
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 3);
  push_lib_copy("table");
  wrap("move", charged, 1);
  wrap("insert", charged, 2);
  wrap("remove", charged, 2);
  wrap("concat", charged, 3);
  wrap("unpack", charged, 4);
  wrap("sort", charged, 5);
  lua_setfield(L, -2, "table");
  push_lib_copy("math");
  lua_setfield(L, -2, "math");
  push_lib_copy("utf8");
  lua_setfield(L, -2, "utf8");
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
  lua_pushliteral(L, "the kernel file's globals");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
}

/* The number of lines of the kernel file. */
int ltF_nlines(void) { return nklines; }

/* Reads the kernel file (keeping its lines for ltD_line_text) and runs it
** in the sandbox, leaving the value it returns on the stack; returns the
** number of lines of the file.  As Lua's loadfile, it skips a UTF-8 byte
** order mark and a first line starting with # (#!/usr/bin/env ...). */
int ltF_run_chunk(void) {
  for (const char *p = ltF_file; *p; p++)   /* the name goes into comments of the output */
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      ltF_error_at(0, "the file's name holds a control character (a newline?); rename the file");
  char *text = slurp(ltF_file);
  if (!text) ltF_error_at(0, "cannot read the file (missing, unreadable or binary)");
  if ((unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb && (unsigned char)text[2] == 0xbf) text += 3;
  if (text[0] == '#')
    for (char *p = text; *p && *p != '\n'; p++) *p = ' ';
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
  luaL_getmetatable(L, VAL_MT);   /* getmetatable(value) gives false: its functions expect handles */
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  luaL_newmetatable(L, ERR_MT);
  lua_pushcfunction(L, err_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);

  /* the prelude gets core and returns the tile module */
  if (luaL_loadbufferx(L, ltX_prelude, strlen(ltX_prelude), "=tile", "t") != LUA_OK)
    ltU_error(0, "internal: prelude: %s", lua_tostring(L, -1));
  lua_newtable(L);
  luaL_setfuncs(L, ltF_value_funcs, 0);
  luaL_setfuncs(L, ltF_kernel_funcs, 0);
  lua_call(L, 1, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lt_tile");
  lua_newtable(L);   /* the tables tile.kernel made (kernel.c) */
  lua_setfield(L, LUA_REGISTRYINDEX, "lt_kernels");
  lua_newtable(L);   /* the descriptors tile.tensor and tile.scalar made (kernel.c) */
  lua_setfield(L, LUA_REGISTRYINDEX, "lt_params");
}

/* Runs the kernel file of req (see the comment at the top), calling fn
** once per variant built, or filling listing for --list. */
void ltD_run(GenRequest *req, VariantFn fn, void *ud, Buf *listing) {
  ltF_target = req->target;
  ltF_file = req->file;
  ltF_source = ltU_fmt("@%s", req->file);
  cpu_limit(1);
  open_state();
  ltU_raise = raise_from_util;
  Run run = {req, fn, ud, listing, NULL, 0, 0};
  lua_pushcfunction(L, msgh);
  lua_pushcfunction(L, ltF_run_file);
  lua_pushlightuserdata(L, &run);
  int rc = lua_pcall(L, 1, 0, 1);
  ltU_raise = NULL;
  cpu_limit(0);
  if (rc != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (rc == LUA_ERRMEM) msg = ltU_fmt("%s: error: the kernel file used over 1 GiB of memory", ltF_file);
    if (rc == LUA_ERRERR) msg = ltU_fmt("%s: error: an error while reporting an error (a stack overflow?)", ltF_file);
    fprintf(stderr, "%s\n", ltU_one_line(msg ? msg : "error: unknown Lua error", LT_MSG_MAX));
    longjmp(ltU_jmp, 1);
  }
  lua_close(L);
}

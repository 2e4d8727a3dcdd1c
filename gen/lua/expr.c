/*
** lua/expr.c: values of the DSL and the C names they get.
**
** Arithmetic on values (x - m, tile.exp(x), x:lt(y), x:cast("f16")) builds
** an Expr and binds it to a fresh immutable symbol: ltF_push_value appends
** an S_LET to the current block and returns a handle to its result.  The
** handles' metatable (ltF_open_values) maps Lua's operators and the methods
** and fields of values, tensors (X:tile, X:view, X.shape) and shared tiles
** onto the functions here; the prelude's core.binary / core.unary /
** core.where / core.cast are ltF_value_funcs.
**
** Names: after each builder call ltF_name_locals scans the locals of the
** kernel file's active functions, and a value held in `local m` becomes
** `m` in C (ltF_set_name: m_2 when m is taken).
*/
#include "dsl.h"

/* ------------------------------------------------------------------ */
/* values                                                              */

/* Binds e to a fresh immutable symbol (an S_LET) and pushes its handle.
** Constants and plain symbol references need no binding. */
void ltF_push_value(Expr *e) {
  if (ltF_phase != PH_BODY)
    ltF_error("values are made while body(k, p, c, v) runs, not in params or at the file's top level");
  if (e->kind == E_CONST || (e->kind == E_SYM && e->sym->kind != SYM_LET && e->rank == 0)) {
    ltF_push_expr(e);
    return;
  }
  ltF_check_scope(e);
  Sym *s = ltI_sym(K, SYM_LET, e->dt, e->line);
  s->rank = e->rank;
  s->shape[0] = e->shape[0];
  s->shape[1] = e->shape[1];
  s->nonneg = e->rank == 0 && ltI_nonneg(e);
  s->home = ltF_cur_block();
  Stmt *st = ltF_add_stmt(S_LET);
  st->dst = s;
  st->val = e;
  s->def = st;
  ltF_push_expr(ltI_ref(s, e->line));
}

/* ------------------------------------------------------------------ */
/* naming from Lua locals                                              */

/* Names of C, C++, CUDA and HIP (keywords, types, built-ins, the math
** functions the generated code calls): no symbol may have them. */
static const char *const words[] = {
  "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
  "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
  "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
  "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
  "true", "false", "new", "delete", "class", "template", "this", "namespace",
  "half", "exp", "log", "sqrt", "max", "min", "abs", "tanh", "erf", "main",
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "int64_t", "uint16_t", "uint32_t", NULL,
};

/* More names the generated code cannot give a variable or function of its
** own: the rest of the keywords of C23 and C++20, and the names of the
** standard headers the outputs include (math.h, string.h, stdint.h,
** stdio.h, stdlib.h, ...) and of the CUDA and HIP runtimes. */
static const char *const std_names[] = {
  /* C23 and C++ keywords */
  "alignas", "alignof", "constexpr", "nullptr", "static_assert", "thread_local", "typeof", "typeof_unqual",
  "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t", "compl", "concept",
  "consteval", "constinit", "const_cast", "co_await", "co_return", "co_yield", "decltype", "dynamic_cast",
  "explicit", "export", "friend", "mutable", "noexcept", "not", "not_eq", "operator", "or", "or_eq", "private",
  "protected", "public", "reinterpret_cast", "requires", "static_cast", "throw", "try", "typeid", "typename",
  "using", "virtual", "wchar_t", "xor", "xor_eq", "final", "override", "import", "module", "std",
  /* macros and types of the standard headers */
  "NULL", "EOF", "BUFSIZ", "FILE", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "errno", "assert", "offsetof",
  "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "stdin", "stdout", "stderr",
  /* string.h */
  "memcpy", "memmove", "memset", "memcmp", "memchr", "strcpy", "strncpy", "strcat", "strncat", "strcmp", "strncmp",
  "strlen", "strchr", "strrchr", "strstr", "strtok", "strerror", "strdup", "strndup", "strspn", "strcspn", "strpbrk",
  /* stdio.h, stdlib.h, unistd.h, signal.h */
  "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "vsprintf", "vsnprintf", "scanf", "sscanf",
  "puts", "fputs", "putchar", "fputc", "fgets", "fgetc", "getc", "getchar", "putc", "fopen", "fclose", "fread",
  "fwrite", "fflush", "fseek", "ftell", "rewind", "remove", "rename", "perror", "malloc", "calloc", "realloc",
  "free", "abort", "exit", "atexit", "getenv", "system", "qsort", "bsearch", "atoi", "atol", "atof", "strtol",
  "strtoul", "strtod", "strtof", "strtoll", "strtoull", "rand", "srand", "labs", "llabs", "div", "ldiv",
  "read", "write", "close", "open", "sleep", "usleep", "signal", "raise", "kill", "getpid", "fork", "pipe", "dup",
  "mmap", "munmap", "select", "time", "clock",
  /* CUDA and HIP */
  "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicExch", "atomicCAS", "warpSize", "clock64",
  "nv_bfloat16", "nv_bfloat162", "half2", "hip_bfloat16", "bfloat16", "float16", NULL,
};

/* The functions of math.h and CUDA's and HIP's math, each also with f or
** l after it (expf, logl). */
static const char *const math_fns[] = {
  "exp", "log", "sqrt", "tanh", "erf", "abs", "max", "min",
  "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "cosh", "sinh", "acosh", "asinh", "atanh", "exp2",
  "expm1", "exp10", "frexp", "ldexp", "log10", "log1p", "log2", "logb", "modf", "scalbn", "scalbln", "cbrt", "fabs",
  "hypot", "pow", "erfc", "erfinv", "lgamma", "tgamma", "ceil", "floor", "nearbyint", "rint", "lrint", "llrint",
  "round", "lround", "llround", "trunc", "fmod", "remainder", "remquo", "copysign", "nan", "nextafter",
  "nexttoward", "fdim", "fmax", "fmin", "fma", "ilogb", "isnan", "isinf", "isfinite", "signbit", "fpclassify",
  "isnormal", "rsqrt", "sincos", "saturate", "norm", "rcbrt", NULL,
};

/* The names of gen's own variables in the generated code (and every name
** that starts with lt_): no symbol may have them either. */
static const char *const gen_names[] = {
  "tid", "tx", "ty", "lane", "warp", "ri", "ci", "vi", "ei", "wi", "gr", "gc", "off",
  "ok", "raw", "acc", "vec", "h", "base", "ptr", "grid", "block", "stream", "row0", "col0", "warp_row", "warp_col",
  "dev", "sm_err", NULL,
};

/* Is n one of the names in list? */
static int in_list(const char *const *list, const char *n) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], n) == 0) return 1;
  return 0;
}

/* Does n start with a prefix that no name of a kernel file may have (one
** that adding a suffix cannot make free)?  Then the reason, else NULL. */
static const char *prefix_why(const char *n) {
  if (strstr(n, "__")) return "holds __, which C and C++ reserve";
  if (n[0] == '_' && n[1] >= 'A' && n[1] <= 'Z') return "starts with _ and a capital, which C reserves";
  if (strncmp(n, "lt_", 3) == 0 || strncmp(n, "LT_", 3) == 0 || strncmp(n, "LUATILE_", 8) == 0)
    return "starts with lt_, which is reserved for the generated code's own names";
  const char *const rt[] = {"cuda", "hip", "cu", "nv", NULL};
  for (int i = 0; rt[i]; i++) {
    size_t l = strlen(rt[i]);
    if (strncmp(n, rt[i], l) == 0 && n[l] >= 'A' && n[l] <= 'Z')
      return ltU_fmt("starts with %s and a capital, like the names of the CUDA and HIP runtimes", rt[i]);
  }
  return NULL;
}

/* Why n (an identifier) cannot name anything in the generated code, or
** NULL: a keyword or standard name of C, C++, CUDA or HIP (math functions
** with f or l after them too; CUDA's vector types float4, int2, ...), a
** name ending in _t (POSIX reserves them), or a reserved prefix. */
static const char *reserved_why(const char *n) {
  const char *p = prefix_why(n);
  if (p) return p;
  if (in_list(words, n) || in_list(std_names, n) || in_list(math_fns, n)) return "is a C, C++, CUDA or HIP name";
  size_t l = strlen(n);
  if (l > 1 && (n[l - 1] == 'f' || n[l - 1] == 'l') && in_list(math_fns, ltU_fmt("%.*s", (int)l - 1, n)))
    return "is a C, CUDA or HIP math function";
  if (l > 2 && n[l - 2] == '_' && n[l - 1] == 't') return "ends in _t, which POSIX reserves for types";
  static const char *const vec[] = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong",
                                    "ulonglong", "float", "double", NULL};
  for (int i = 0; vec[i]; i++) {
    size_t vl = strlen(vec[i]);
    if (strncmp(n, vec[i], vl) == 0 && n[vl] >= '1' && n[vl] <= '4' && !n[vl + 1])
      return "is a CUDA and HIP vector type";
  }
  return NULL;
}

/* Why n cannot be the name of a variant (an identifier its launcher and
** header take), or NULL: the rules of reserved_why, and at most max
** characters.  For a kernel's name, the start of its variants' names,
** whole = 0: only the length and the reserved prefixes. */
const char *ltF_name_rule(const char *n, size_t max, int whole) {
  if (strlen(n) > max) return ltU_fmt("is longer than %zu characters", max);
  return whole ? reserved_why(n) : prefix_why(n);
}

/* The names of the kernel being built, hashed (a kernel file can make
** 100,000 names; looking each up in every symbol made naming cubic): name
** -> its symbol, and for a name that ltF_set_name gave suffixes, the next
** suffix to try. */
typedef struct { const char *key; Sym *sym; int next; } NameSlot;
static struct { Kernel *k; NameSlot *slot; size_t cap, n; } names;

/* The slot of name n (a free one, its key NULL, when n is not there). */
static NameSlot *name_slot(const char *n) {
  if (names.k != K) {   /* a new variant: start over with its named symbols */
    names.k = K;
    names.n = 0;
    names.cap = 256;
    names.slot = ltU_alloc(sizeof *names.slot * names.cap);
    for (int i = 0; i < K->nsyms; i++)
      if (K->syms[i]->name) ltF_name_note(K->syms[i]);
  }
  size_t h = 2166136261u;
  for (const char *p = n; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
  for (size_t i = h & (names.cap - 1);; i = (i + 1) & (names.cap - 1))
    if (!names.slot[i].key || strcmp(names.slot[i].key, n) == 0) return &names.slot[i];
}

/* Fills in the slot of name n (key, and sym when not NULL). */
static NameSlot *name_put(const char *n, Sym *sym) {
  NameSlot *e = name_slot(n);
  if (!e->key) {
    if (2 * (names.n + 1) > names.cap) {   /* grow: rehash into twice the room */
      NameSlot *old = names.slot;
      size_t cap = names.cap;
      names.cap *= 2;
      names.slot = ltU_alloc(sizeof *names.slot * names.cap);
      names.n = 0;
      for (size_t i = 0; i < cap; i++)
        if (old[i].key) {
          *name_slot(old[i].key) = old[i];
          names.n++;
        }
      e = name_slot(n);
    }
    e->key = n;
    names.n++;
  }
  if (sym && !e->sym) e->sym = sym;
  return e;
}

/* Records that symbol s of the kernel being built got its name. */
void ltF_name_note(Sym *s) {
  if (names.k == K) name_put(s->name, s);
}

/* The symbol of this kernel called n, or NULL. */
static Sym *holder(const char *n) {
  return name_slot(n)->sym;
}

/* Is n unusable as a C name in this kernel: a C, CUDA or HIP word, a name
** the generated code uses, lt_..., or the name of a symbol already? */
int ltF_name_taken(const char *n) {
  return reserved_why(n) || in_list(gen_names, n) || holder(n);
}

/* Why n cannot name a parameter, as the rest of a sentence about it ("is a
** C, C++, CUDA or HIP name"), or NULL when it can.  *taken (when not
** NULL) is set to the symbol that has the name already, or NULL. */
const char *ltF_name_clash(const char *n, Sym **taken) {
  Sym *s = holder(n);
  if (taken) *taken = s;
  const char *why = ltF_name_rule(n, LT_NAME_MAX, 1);
  if (why) return why;
  if (in_list(gen_names, n)) {
    Buf b = {0};
    for (int i = 0; gen_names[i]; i++) ltU_printf(&b, "%s%s", i ? ", " : "", gen_names[i]);
    return ltU_fmt("is reserved for the generated code's own variables (%s)", b.p);
  }
  if (!s) return NULL;
  const char *what = s->kind == SYM_SIZE     ? "a tensor size"
                     : s->kind == SYM_STRIDE ? "a tensor stride"
                     : s->kind == SYM_TENSOR ? "the tensor parameter"
                     : s->kind == SYM_SCALAR ? "the scalar parameter"
                                             : "a value";
  return s->line > 0 ? ltU_fmt("is taken by %s declared at line %d", what, s->line) : ltU_fmt("is taken by %s", what);
}

/* Gives s the C name closest to want that is free in this kernel: want
** without repeated, leading and trailing underscores ("v" if nothing is
** left), "v_" before a reserved prefix, and _2, _3, ... after it while it
** is taken. */
void ltF_set_name(Sym *s, const char *want, int from_dsl) {
  if (s->name) return;
  char base[64];
  size_t n = 0;
  for (const char *p = want; *p && n < 60; p++)
    if (*p != '_' || (n && base[n - 1] != '_')) base[n++] = *p;
  while (n && base[n - 1] == '_') n--;
  base[n] = 0;
  if (!n) strcpy(base, "v");
  if (prefix_why(base)) {
    memmove(base + 2, base, n + 1);
    memcpy(base, "v_", 2);
  }
  const char *nm = base;
  if (ltF_name_taken(nm)) {
    NameSlot *b = name_put(ltU_strdup(base), NULL);
    int i = b->next > 2 ? b->next : 2;   /* the suffixes below it are taken, and stay so */
    for (;; i++) {
      nm = ltU_fmt("%s_%d", base, i);
      if (!ltF_name_taken(nm)) break;
    }
    name_slot(base)->next = i + 1;   /* the slot may have moved as the table grew */
  }
  s->name = ltU_strdup(nm);
  s->named = from_dsl;
  ltF_name_note(s);
}

/* Names unnamed values held in locals of the kernel file's active frames. */
void ltF_name_locals(void) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "S", &ar);
    if (strcmp(ar.source, ltF_source) != 0) continue;
    const char *nm;
    for (int i = 1; (nm = lua_getlocal(L, &ar, i)) != NULL; i++) {
      Handle *h = nm[0] != '(' ? ltF_handle(-1) : NULL;
      if (h && h->kind == H_EXPR && h->e->kind == E_SYM) {
        Sym *s = h->e->sym;
        if (!s->name && (s->kind == SYM_LET || s->kind == SYM_FRAG || s->kind == SYM_PID))
          ltF_set_name(s, nm, 1);
      } else if (h && h->kind == H_SHARED && !h->s->name) {
        ltF_set_name(h->s, nm, 1);
      }
      lua_pop(L, 1);
    }
  }
}

/* ------------------------------------------------------------------ */
/* value operators and methods                                         */

/* The binary operator op on arguments 1 and 2, pushed as a new value. */
static int l_binop(BinOp op) {
  int line = ltF_line();
  Expr *a = ltF_arg_expr(1, "an operand");
  Expr *b = ltF_arg_expr(2, "an operand");
  ltF_push_value(ltI_binary(op, a, b, line));
  return 1;
}

/* a + b on values (__add). */
static int m_add(lua_State *l) { (void)l; return l_binop(B_ADD); }
/* a - b on values (__sub). */
static int m_sub(lua_State *l) { (void)l; return l_binop(B_SUB); }
/* a * b on values (__mul). */
static int m_mul(lua_State *l) { (void)l; return l_binop(B_MUL); }
/* a / b on values (__div). */
static int m_div(lua_State *l) { (void)l; return l_binop(B_DIV); }
/* a // b on values (__idiv). */
static int m_idiv(lua_State *l) { (void)l; return l_binop(B_IDIV); }
/* a % b on values (__mod). */
static int m_mod(lua_State *l) { (void)l; return l_binop(B_MOD); }

/* a ^ b on values (__pow): pow(a, b) on floats. */
static int m_pow(lua_State *l) { (void)l; return l_binop(B_POW); }
/* a & b, a | b, a ~ b (xor), a << b, a >> b on integer values. */
static int m_band(lua_State *l) { (void)l; return l_binop(B_BAND); }
static int m_bor(lua_State *l) { (void)l; return l_binop(B_BOR); }
static int m_bxor(lua_State *l) { (void)l; return l_binop(B_BXOR); }
static int m_shl(lua_State *l) { (void)l; return l_binop(B_SHL); }
static int m_shr(lua_State *l) { (void)l; return l_binop(B_SHR); }

/* ~a on an integer value (__bnot). */
static int m_bnot(lua_State *l) {
  (void)l;
  ltF_push_value(ltI_unary(U_BNOT, ltF_arg_expr(1, "an operand"), ltF_line()));
  return 1;
}

/* -a on a value (__unm). */
static int m_unm(lua_State *l) {
  (void)l;
  ltF_push_value(ltI_unary(U_NEG, ltF_arg_expr(1, "an operand"), ltF_line()));
  return 1;
}

/* a < b, a <= b, a == b on values: Lua wants a boolean at generation time;
** the error names the methods that make a runtime comparison. */
static int m_forbidden(lua_State *l) {
  (void)l;
  return ltF_error("values cannot be compared with < <= == (Lua needs a boolean now, the value "
                   "exists only at run time); use a:lt(b), a:le(b), a:eq(b) ...");
}

/* The binary operations by their DSL names (tile.max, x:lt(y), ...). */
static const struct { const char *name; BinOp op; } binop_names[] = {
  {"add", B_ADD}, {"sub", B_SUB}, {"mul", B_MUL}, {"div", B_DIV}, {"max", B_MAX}, {"min", B_MIN},
  {"lt", B_LT}, {"le", B_LE}, {"gt", B_GT}, {"ge", B_GE}, {"eq", B_EQ}, {"ne", B_NE},
  {"both", B_AND}, {"either", B_OR}, {"pow", B_POW}, {NULL, 0},
};

/* Binary operations that are functions of tile only, no methods of values:
** tile.rand(seed, offset) is no method of the seed. */
static const struct { const char *name; BinOp op; } tile_binops[] = {
  {"rand", B_RAND}, {"randint", B_RANDINT}, {NULL, 0},
};

/* The unary operations by their DSL names (tile.exp, x:abs(), ...). */
static const struct { const char *name; UnOp op; } unop_names[] = {
  {"exp", U_EXP}, {"exp2", U_EXP2}, {"log", U_LOG}, {"sqrt", U_SQRT}, {"rsqrt", U_RSQRT},
  {"tanh", U_TANH}, {"erf", U_ERF}, {"abs", U_ABS}, {"negate", U_NOT}, {"sin", U_SIN}, {"cos", U_COS},
  {"sigmoid", U_SIGMOID}, {"floor", U_FLOOR}, {NULL, 0},
};

/* core.binary(name, a, b): the binary operation called name (binop_names);
** the prelude's tile.max, tile.add, ... call it. */
static int c_binary(lua_State *l) {
  const char *n = luaL_checkstring(l, 1);
  lua_remove(l, 1);
  for (int i = 0; binop_names[i].name; i++)
    if (strcmp(binop_names[i].name, n) == 0) return l_binop(binop_names[i].op);
  for (int i = 0; tile_binops[i].name; i++)
    if (strcmp(tile_binops[i].name, n) == 0) return l_binop(tile_binops[i].op);
  return ltF_error("unknown operation '%s'", n);
}

/* core.unary(name, x): the unary operation called name (unop_names);
** the prelude's tile.exp, tile.sqrt, ... call it. */
static int c_unary(lua_State *l) {
  const char *n = luaL_checkstring(l, 1);
  for (int i = 0; unop_names[i].name; i++)
    if (strcmp(unop_names[i].name, n) == 0) {
      ltF_push_value(ltI_unary(unop_names[i].op, ltF_arg_expr(2, n), ltF_line()));
      return 1;
    }
  return ltF_error("unknown operation '%s'", n);
}

/* core.where(cond, a, b): a where cond holds, else b, element by element. */
static int c_where(lua_State *l) {
  (void)l;
  int line = ltF_line();
  Expr *c = ltF_arg_expr(1, "where's condition");
  ltF_push_value(ltI_select(c, ltF_arg_expr(2, "where's first value"), ltF_arg_expr(3, "where's second value"), line));
  return 1;
}

/* core.cast(x, dtype), also x:cast(dtype): x converted to dtype; to f16
** or bf16 rounded, even from a value of that dtype (ltI_round). */
static int c_cast(lua_State *l) {
  (void)l;
  Expr *e = ltF_arg_expr(1, "cast's operand");
  Dtype dt = ltF_arg_dtype(2);
  int line = ltF_line();
  ltF_push_value(e->dt == dt ? ltI_round(e, dt, line) : ltI_cast(e, dt, line));
  return 1;
}

/* x:method(...) on a value: comparisons, math and cast as methods. */
static int expr_method(lua_State *l) {
  const char *n = lua_tostring(l, lua_upvalueindex(1));
  for (int i = 0; binop_names[i].name; i++)
    if (strcmp(binop_names[i].name, n) == 0) return l_binop(binop_names[i].op);
  for (int i = 0; unop_names[i].name; i++)
    if (strcmp(unop_names[i].name, n) == 0) {
      ltF_push_value(ltI_unary(unop_names[i].op, ltF_arg_expr(1, n), ltF_line()));
      return 1;
    }
  return c_cast(l);
}

/* ------------------------------------------------------------------ */
/* tensors and views                                                   */

/* The offset of dim i (of n) of view v at the stack's top when it is a
** tile: an i32 [R, 1] column (R: the view's rows) giving each row's index
** in that dim, a dim before the last (a gather, lower/copy.c); NULL when
** it is not a tile. */
static Expr *gather_offset(int i, lua_Integer n, const View *v, int tiles) {
  Handle *h = ltF_handle(-1);
  if (!h || h->kind != H_EXPR || h->e->rank == 0) return NULL;
  Expr *o = h->e;
  const char *fn = tiles ? "tile" : "view";
  if (tiles)
    ltF_error("%s:tile takes scalar indices; gather rows by a tile of indices with %s:view({ rows, 0 }, ...)",
              v->t->name, v->t->name);
  if (i == n - 1)
    ltF_error("the last dim's offset of %s:%s must be a scalar; a tile of offsets gathers rows (a dim before the "
              "last)", v->t->name, fn);
  if (o->dt != DT_I32 && o->dt != DT_I64)
    ltF_error("a view's row offsets must be i32 or i64, not %s", ltI_dtypes[o->dt].name);
  int R = n >= 2 ? v->ext[n - 2] : 1;
  if (i < n - 2 && v->ext[i] != 1) R = -1;   /* (reported by make_view: only the last two dims are wide) */
  if (R > 0 && (o->shape[0] != R || o->shape[1] != 1 || o->rank != 2))
    ltF_error("a view's row offsets are an i32 [%d, 1] tile (one per row of the view), not %s", R,
              o->rank == 1 ? ltU_fmt("[%d]", o->shape[1]) : ltU_fmt("[%d, %d]", o->shape[0], o->shape[1]));
  return o;
}

/* Builds a view from origins (element offsets) and extents at idx+1, idx+2. */
static int make_view(lua_State *l, int tiles) {
  Handle *h = ltF_handle(1);
  if (!h || h->kind != H_TENSOR) return ltF_error("tile/view is called on a tensor: X:tile({i, j}, {BM, BN})");
  Sym *t = h->s;
  const char *fn = tiles ? "tile" : "view";
  if (!lua_istable(l, 2) || !lua_istable(l, 3))
    return ltF_error("%s:%s takes two tables: %s and extents, e.g. %s:%s({i, 0}, {1, 1024})", t->name, fn,
                     tiles ? "tile indices" : "element offsets", t->name, fn);
  lua_Integer n = ltF_len(2), m = ltF_len(3);
  if (n != t->trank || m != t->trank)
    return ltF_error("rank mismatch: %s has %d dims, but %s got %lld %s and %lld extents", t->name, t->trank, fn,
                     (long long)n, tiles ? "indices" : "offsets", (long long)m);
  View *v = ltU_alloc(sizeof *v);
  v->t = t;
  v->line = ltF_line();
  for (int i = 0; i < n; i++) {
    lua_geti(l, 3, i + 1);
    v->ext[i] = ltF_arg_extent(-1, "a view extent");
    lua_pop(l, 1);
  }
  for (int i = 0; i < n; i++) {
    lua_geti(l, 2, i + 1);
    Expr *o = gather_offset(i, n, v, tiles);
    Handle *h = o ? NULL : ltF_handle(-1);
    if (!o && !tiles && h && h->kind == H_EXPR && h->e->rank == 0 && h->e->dt == DT_I64) o = h->e;   /* int64 math */
    if (!o) o = ltF_arg_index(-1, tiles ? "a tile index" : "a view offset");
    lua_pop(l, 1);
    if (tiles && v->ext[i] != 1) o = ltI_binary(B_MUL, o, ltI_const(v->ext[i], DT_I32, 0, v->line), v->line);
    ltF_check_scope(o);
    v->origin[i] = o;
  }
  v->rdim = n >= 2 ? n - 2 : -1;
  v->cdim = n - 1;
  int vs[2];
  ltI_view_shape(v, vs);
  ltF_check_tile(vs, ltU_fmt("the view of %s", t->name));
  for (int i = 0; i < n - 2; i++)
    if (v->ext[i] != 1)
      return ltF_error("only the last two dims of a view may be wider than 1 (dim %d of %s is %d)", i + 1, t->name,
                       v->ext[i]);
  ltF_push_handle(H_VIEW)->v = v;
  return 1;
}

/* X:at(indices): the view of the one element at (i, j, ...), every extent
** 1; k:load of it gives a scalar (a value every thread of the block holds),
** so a block table's entry or a sequence's length read from memory can be a
** view offset, a loop bound or a mask's limit. */
static int tensor_at(lua_State *l) {
  Handle *h = ltF_handle(1);
  if (!h || h->kind != H_TENSOR) return ltF_error("at is called on a tensor: X:at({b, j})");
  if (!lua_istable(l, 2) || !lua_isnone(l, 3))
    return ltF_error("%s:at takes one table, the element's indices, e.g. %s:at({b, j})", h->s->name, h->s->name);
  lua_Integer n = ltF_len(2);
  if (n != h->s->trank)
    return ltF_error("rank mismatch: %s has %d dims, but at got %lld indices", h->s->name, h->s->trank, (long long)n);
  lua_createtable(l, (int)n, 0);
  for (int i = 1; i <= n; i++) {
    lua_pushinteger(l, 1);
    lua_seti(l, 3, i);
  }
  make_view(l, 0);
  Handle *v = ltF_handle(-1);
  v->v->scalar = 1;
  return 1;
}

/* X:tile(indices, extents): the view of tile (i, j, ...) of extents' size. */
static int tensor_tile(lua_State *l) { return make_view(l, 1); }

/* X:view(offsets, extents): the view at element offsets (i, j, ...). */
static int tensor_view(lua_State *l) { return make_view(l, 0); }

/* ------------------------------------------------------------------ */
/* fields and methods of handles                                       */

/* __index: methods and fields of values, tensors and shared tiles. */
static int m_index(lua_State *l) {
  Handle *h = ltF_handle(1);
  if (!h) return ltF_error("a field of %s read through the values' metatable", ltF_kind(1));
  const char *key = lua_type(l, 2) == LUA_TSTRING ? lua_tostring(l, 2) : NULL;
  if (!key) return ltF_error("%s has no numeric fields", ltF_kind(1));
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
    if (strcmp(key, "at") == 0) { lua_pushcfunction(l, tensor_at); return 1; }
    if (strcmp(key, "dtype") == 0) { lua_pushstring(l, ltI_dtypes[h->s->dt].name); return 1; }
    if (strcmp(key, "rank") == 0) { lua_pushinteger(l, h->s->trank); return 1; }
    if (strcmp(key, "shape") == 0) {
      lua_createtable(l, h->s->trank, 0);
      for (int i = 0; i < h->s->trank; i++) {
        Expr *d = h->s->dims[i];
        if (d->kind == E_CONST) lua_pushinteger(l, (lua_Integer)d->cval);
        else ltF_push_expr(d);
        lua_seti(l, -2, i + 1);
      }
      return 1;
    }
  }
  return ltF_error("%s has no field or method '%s'", ltF_kind(1), key);
}

/* __newindex: values, tensors and shared tiles have no fields to set. */
static int m_newindex(lua_State *l) {
  return ltF_error("%s is read-only (field '%s'); use k:assign to change a fragment",
                   ltF_kind(1), lua_tostring(l, 2) ? lua_tostring(l, 2) : "?");
}

/* __tostring: "<a tile value m>", for print() in kernel files. */
static int m_tostring(lua_State *l) {
  Handle *h = luaL_testudata(l, 1, VAL_MT);
  if (!h || h->k != K) {
    lua_pushfstring(l, "<%s>", ltF_kind(1));
    return 1;
  }
  const char *n = h->kind == H_EXPR && h->e->kind == E_SYM ? h->e->sym->name :
                  (h->kind == H_TENSOR || h->kind == H_SHARED) ? h->s->name : NULL;
  lua_pushfstring(l, "<%s %s>", ltF_kind(1), n ? n : "");
  return 1;
}

/* Makes the metatable of handles: the operators and fields above. */
void ltF_open_values(void) {
  luaL_newmetatable(L, VAL_MT);
  static const luaL_Reg mt[] = {
    {"__add", m_add}, {"__sub", m_sub}, {"__mul", m_mul}, {"__div", m_div}, {"__idiv", m_idiv},
    {"__mod", m_mod}, {"__unm", m_unm}, {"__pow", m_pow}, {"__band", m_band}, {"__bor", m_bor},
    {"__bxor", m_bxor}, {"__shl", m_shl}, {"__shr", m_shr}, {"__bnot", m_bnot},
    {"__lt", m_forbidden}, {"__le", m_forbidden},
    {"__eq", m_forbidden}, {"__index", m_index}, {"__newindex", m_newindex},
    {"__tostring", m_tostring}, {NULL, NULL},
  };
  luaL_setfuncs(L, mt, 0);
  lua_pop(L, 1);
}

/* The prelude's core functions of values (api.c registers them). */
const luaL_Reg ltF_value_funcs[] = {
  {"binary", c_binary}, {"unary", c_unary}, {"where", c_where}, {"cast", c_cast}, {NULL, NULL},
};

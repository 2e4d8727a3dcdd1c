/*
** ir.c: constructors for the tile IR, with the typing rules of the DSL.
**
** Expressions are checked as they are built, so that a mistake is reported
** at the DSL line that made it:
**   - shapes broadcast as in NumPy: equal dims, or one of them 1; a uniform
**     scalar (rank 0) goes with any shape;
**   - a bare Lua number is "weak" and takes the type of the other operand;
**   - otherwise both sides must have the same dtype, except that a uniform
**     i32 scalar (a size, a loop index) meets a float or i64 operand as that
**     type;
**   - every integer constant fits its dtype (ltI_check_fits), or the line
**     that made it is an error;
**   - f16 and bf16 values are computed in f32 and rounded when stored.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lt.h"

/* The 8-bit float formats: OCP's e4m3 (bias 7, no infinity, S.1111.111
** NaN) and e5m2 (bias 15, IEEE's infinities and NaNs), and their FNUZ
** twins (bias 8 and 16, no infinity, no -0, one NaN 0x80).  CDNA3's MFMA
** fp8 (e4m3) and bf8 (e5m2) read FNUZ bytes: OCP ones are mapped to them
** first; wgmma reads OCP bytes only. */
static const Fp8Format e4m3 = {3, -6, 448, 0, "fp8", "lt_fp8e4m3x4_fnuz", "e4m3"};
static const Fp8Format e5m2 = {2, -14, 57344, 0, "bf8", "lt_fp8e5m2x4_fnuz", "e5m2"};
static const Fp8Format e4m3fnuz = {3, -7, 240, 1, "fp8", NULL, NULL};
static const Fp8Format e5m2fnuz = {2, -15, 57344, 1, "bf8", NULL, NULL};

const DtypeInfo ltI_dtypes[DT_COUNT] = {
  [DT_F32] = {"f32", 4, 1, NULL},
  [DT_F16] = {"f16", 2, 1, NULL},
  [DT_BF16] = {"bf16", 2, 1, NULL},
  [DT_I32] = {"i32", 4, 0, NULL},
  [DT_I64] = {"i64", 8, 0, NULL},
  [DT_U32] = {"u32", 4, 0, NULL},
  [DT_FP8E4M3] = {"fp8e4m3", 1, 1, &e4m3},
  [DT_FP8E5M2] = {"fp8e5m2", 1, 1, &e5m2},
  [DT_FP8E4M3FNUZ] = {"fp8e4m3fnuz", 1, 1, &e4m3fnuz},
  [DT_FP8E5M2FNUZ] = {"fp8e5m2fnuz", 1, 1, &e5m2fnuz},
  [DT_BOOL] = {"bool", 1, 0, NULL},
};

const char *const ltI_unop_names[U_COUNT] = {
  [U_NEG] = "-", [U_NOT] = "negate", [U_EXP] = "exp", [U_EXP2] = "exp2",
  [U_LOG] = "log", [U_SQRT] = "sqrt", [U_RSQRT] = "rsqrt", [U_TANH] = "tanh",
  [U_ERF] = "erf", [U_ABS] = "abs", [U_SIN] = "sin", [U_COS] = "cos", [U_SIGMOID] = "sigmoid",
  [U_FLOOR] = "floor", [U_BNOT] = "~", [U_GELU] = "gelu",
};

const char *const ltI_binop_names[B_COUNT] = {
  [B_ADD] = "+", [B_SUB] = "-", [B_MUL] = "*", [B_DIV] = "/", [B_IDIV] = "//",
  [B_MOD] = "%", [B_MAX] = "max", [B_MIN] = "min", [B_LT] = "lt", [B_LE] = "le",
  [B_GT] = "gt", [B_GE] = "ge", [B_EQ] = "eq", [B_NE] = "ne", [B_AND] = "both",
  [B_OR] = "either", [B_POW] = "pow", [B_BAND] = "&", [B_BOR] = "|", [B_BXOR] = "~", [B_SHL] = "<<",
  [B_SHR] = ">>", [B_RAND] = "rand", [B_RANDINT] = "randint",
};

/* Returns the dtype named s ("f32", "bf16", ...) or -1. */
int ltI_dtype_from_name(const char *s) {
  for (int i = 0; i < DT_BOOL; i++)
    if (strcmp(ltI_dtypes[i].name, s) == 0) return i;
  return -1;
}

/* The names of the dtypes a tensor may have, quoted, for messages:
** "\"f32\", \"f16\", ... or \"fp8e5m2fnuz\"". */
const char *ltI_dtype_list(void) {
  const char *s = "";
  for (int i = 0; i < DT_BOOL; i++)
    s = ltU_fmt("%s%s\"%s\"", s, i == 0 ? "" : i == DT_BOOL - 1 ? " or " : ", ", ltI_dtypes[i].name);
  return s;
}

/* The type arithmetic on t is carried out in (fp8: the type its values are held in). */
Dtype ltI_compute_type(Dtype t) {
  return (t == DT_F16 || t == DT_BF16 || ltI_is_fp8(t)) ? DT_F32 : t;
}

/* Is t an fp8 dtype (OCP or FNUZ)? */
int ltI_is_fp8(Dtype t) {
  return ltI_dtypes[t].fp8 != NULL;
}

/* Reports at line an fp8 operand of `what` (an operation on values): fp8
** values are cast, stored or fed to k:gemm; arithmetic says where it rounds
** by casting to f32 first. */
static void no_fp8(const Expr *x, const char *what, int line) {
  if (x && !x->weak && ltI_is_fp8(x->dt))
    ltU_error(line, "%s takes no %s value: fp8 values are stored, cast or fed to k:gemm; cast it first with "
                    ":cast(\"f32\")", what, ltI_dtypes[x->dt].name);
}

/* Is t an integer dtype (i32, i64, u32)? */
int ltI_is_int(Dtype t) {
  return t == DT_I32 || t == DT_I64 || t == DT_U32;
}

/* The least and greatest value of integer dtype t.  i64 stops at 2^53:
** gen holds constants in a double, which is exact only that far. */
void ltI_int_range(Dtype t, double *lo, double *hi) {
  *lo = t == DT_U32 ? 0 : t == DT_I64 ? -9007199254740992.0 : -2147483648.0;
  *hi = t == DT_U32 ? 4294967295.0 : t == DT_I64 ? 9007199254740992.0 : 2147483647.0;
}

/* Reports at line a constant v that is not a value of integer dtype t: a
** fraction, or out of t's range (no check for the other dtypes). */
void ltI_check_fits(double v, Dtype t, int line) {
  if (!ltI_is_int(t)) return;
  const char *n = ltI_dtypes[t].name;
  if (v != floor(v)) ltU_error(line, "the number %.17g cannot be an %s value; write an integer", v, n);
  double lo, hi;
  ltI_int_range(t, &lo, &hi);
  const char *range = t == DT_U32 ? "0 to 2^32 - 1" : t == DT_I64 ? "-2^53 to 2^53, exact in a double" : "-2^31 to 2^31 - 1";
  if (v < lo || v > hi) ltU_error(line, "the number %.17g is out of the %s range (%s)", v, n, range);
}

/* Makes a symbol and records it in the kernel, in creation order. */
Sym *ltI_sym(Kernel *k, SymKind kind, Dtype dt, int line) {
  if (k->nsyms >= LT_MAX_SYMS)
    ltU_error(line, "the variant makes more than %d values, tiles and parameters (a Lua loop that builds without "
                    "end?); gen's passes take time growing with their square", LT_MAX_SYMS);
  Sym *s = ltU_alloc(sizeof *s);
  s->kind = kind;
  s->dt = dt;
  s->line = line;
  s->seq = k->nsyms;
  if (k->nsyms == k->capsyms) {
    int cap = k->capsyms ? 2 * k->capsyms : 64;
    Sym **p = ltU_alloc(sizeof *p * (size_t)cap);
    if (k->nsyms) memcpy(p, k->syms, sizeof *p * (size_t)k->nsyms);
    k->syms = p;
    k->capsyms = cap;
  }
  k->syms[k->nsyms++] = s;
  return s;
}

static Expr *expr(ExprKind kind, Dtype dt, int line) {
  Expr *e = ltU_alloc(sizeof *e);
  e->kind = kind;
  e->dt = dt;
  e->line = line;
  e->depth = 1;
  return e;
}

/* Sets e's depth from its operands' and checks it against LT_MAX_DEPTH:
** the passes and the emitter walk expressions recursively, so a chain of
** 100,000 additions would run out of C stack. */
static void set_depth(Expr *e) {
  int d = 0;
  if (e->a && e->a->depth > d) d = e->a->depth;
  if (e->b && e->b->depth > d) d = e->b->depth;
  if (e->c && e->c->depth > d) d = e->c->depth;
  e->depth = d + 1;
  if (e->depth > LT_MAX_DEPTH)
    ltU_error(e->line, "expression nested deeper than %d operations; break the chain: keep a running value in a "
                       "k:fragment (k:assign), or call a k: method between steps so that the values in locals get "
                       "names", LT_MAX_DEPTH);
}

/* A constant; weak when it came from a bare Lua number.  A constant of an
** integer dtype must be one of its values (ltI_check_fits). */
Expr *ltI_const(double v, Dtype dt, int weak, int line) {
  if (!weak) ltI_check_fits(v, dt, line);
  Expr *e = expr(E_CONST, dt, line);
  e->cval = v;
  e->weak = weak;
  return e;
}

/* A reference to a symbol's value. */
Expr *ltI_ref(Sym *s, int line) {
  Expr *e = expr(E_SYM, s->dt, line);
  e->sym = s;
  if (s->kind == SYM_LET && !s->named && s->def && s->def->kind == S_LET && s->def->val)   /* inline.c may fold it in */
    e->depth = s->def->val->depth + 1;
  e->rank = s->rank;
  e->shape[0] = s->shape[0];
  e->shape[1] = s->shape[1];
  return e;
}

int ltI_is_tile(const Expr *e) { return e->rank > 0; }

/* The bytes of shared tile s: rows x columns x its element's size, one
** stage of its ring. */
long long ltI_stage_bytes(const Sym *s) {
  return (long long)s->shape[0] * s->shape[1] * ltI_dtypes[s->dt].bytes;
}

/* The bytes of shared tile s, every stage of its ring. */
long long ltI_shared_bytes(const Sym *s) {
  return ltI_stage_bytes(s) * (s->stages > 1 ? s->stages : 1);
}

static const char *shape_str(const Expr *e) {
  if (e->rank == 0) return "scalar";
  if (e->rank == 1) return ltU_fmt("[%d]", e->shape[1]);
  return ltU_fmt("[%d, %d]", e->shape[0], e->shape[1]);
}

/* Sets e's shape to the broadcast of a and b, or reports a mismatch. */
static void broadcast(Expr *e, const Expr *a, const Expr *b, const char *op) {
  if (a->rank == 0 || b->rank == 0) {
    const Expr *t = a->rank ? a : b;
    e->rank = t->rank;
    e->shape[0] = t->shape[0];
    e->shape[1] = t->shape[1];
    return;
  }
  for (int i = 0; i < 2; i++) {
    int x = a->shape[i], y = b->shape[i];
    if (x != y && x != 1 && y != 1)
      ltU_error(e->line,
                "shape mismatch in %s: %s and %s; dims must be equal or 1 to broadcast",
                op, shape_str(a), shape_str(b));
    e->shape[i] = x > y ? x : y;
  }
  e->rank = a->rank > b->rank ? a->rank : b->rank;
  if ((long long)e->shape[0] * e->shape[1] > LT_MAX_TILE)
    ltU_error(e->line, "%s of %s and %s makes a [%d, %d] tile, over %d elements; a tile has at most %d (2^24)", op,
              shape_str(a), shape_str(b), e->shape[0], e->shape[1], LT_MAX_TILE, LT_MAX_TILE);
}

/* v cast to fp8 dtype dt as the kernels do (templates/fp8.h): rounded to
** nearest even at its binade's quantum (the subnormals' below the smallest
** normal 2^emin), past the largest finite value saturated, NaN kept; a
** zero of an FNUZ dtype is +0 (it has no -0). */
static double fp8_value(double v, Dtype dt) {
  const Fp8Format *f = ltI_dtypes[dt].fp8;
  int e;
  if (isnan(v)) return v;
  if (isinf(v)) return copysign(f->max, v);
  frexp(v, &e);   /* |v| = f * 2^e, f in [0.5, 1): its leading bit is 2^(e - 1) */
  int q = (e - 1 > f->emin ? e - 1 : f->emin) - f->man;
  double r = ldexp(nearbyint(ldexp(v, -q)), q);
  if (r == 0 && f->fnuz) return 0;
  return fabs(r) > f->max ? copysign(f->max, v) : r;
}

/* Converts a weak constant to the type of its partner (an fp8 one rounded
** to its value there). */
static Expr *settle(Expr *c, Dtype dt, int line) {
  if (ltI_is_int(dt) && c->cval != floor(c->cval))
    ltU_error(line, "the number %g cannot be an %s operand; write an integer",
              c->cval, ltI_dtypes[dt].name);
  if (ltI_is_fp8(dt)) return ltI_const(fp8_value(c->cval, dt), dt, 0, line);
  return ltI_const(c->cval, dt, 0, line);
}

/* Brings a and b to one dtype by the rules at the top of this file. */
static void unify(Expr **pa, Expr **pb, const char *op, int line) {
  Expr *a = *pa, *b = *pb;
  if (a->weak && b->weak) return;
  if (a->weak) { *pa = settle(a, b->dt, line); return; }
  if (b->weak) { *pb = settle(b, a->dt, line); return; }
  if (a->dt == b->dt) return;
  if (a->rank == 0 && a->dt == DT_I32 && (ltI_dtypes[b->dt].is_float || b->dt == DT_I64)) {
    *pa = ltI_cast(a, b->dt, line);
    return;
  }
  if (b->rank == 0 && b->dt == DT_I32 && (ltI_dtypes[a->dt].is_float || a->dt == DT_I64)) {
    *pb = ltI_cast(b, a->dt, line);
    return;
  }
  Dtype wide = a->dt == DT_F32 || b->dt == DT_F32 ? DT_F32 : b->dt;   /* suggest the cast that loses nothing */
  if (ltI_is_int(a->dt) && ltI_is_int(b->dt)) wide = a->dt == DT_I64 || b->dt == DT_I64 ? DT_I64 : b->dt;
  ltU_error(line, "dtype mismatch in %s: %s and %s; cast one side with :cast(\"%s\")",
            op, ltI_dtypes[a->dt].name, ltI_dtypes[b->dt].name, ltI_dtypes[wide].name);
}

static double fold(BinOp op, double x, double y, int is_int) {
  switch (op) {
  case B_ADD: return x + y;
  case B_SUB: return x - y;
  case B_MUL: return x * y;
  case B_DIV: return is_int ? trunc(x / y) : x / y;
  case B_IDIV: return trunc(x / y);          /* as C does: the emitted code divides in C */
  case B_MOD: return fmod(x, y);
  case B_MAX: return x > y ? x : y;
  case B_MIN: return x < y ? x : y;
  case B_LT: return x < y;
  case B_LE: return x <= y;
  case B_GT: return x > y;
  case B_GE: return x >= y;
  case B_EQ: return x == y;
  case B_NE: return x != y;
  case B_AND: return x && y;
  case B_OR: return x || y;
  case B_POW: return pow(x, y);
  default: return 0;   /* bit operations do not fold (ltI_binary) */
  }
}

/* A unary operation; math functions need a float operand, ~ an integer
** one, - and abs a signed one. */
Expr *ltI_unary(UnOp op, Expr *a, int line) {
  Dtype dt = a->dt;
  no_fp8(a, ltI_unop_names[op], line);
  if (op == U_NOT) {
    if (dt != DT_BOOL) ltU_error(line, "negate needs a bool operand (a comparison), not %s", ltI_dtypes[dt].name);
  } else if (op == U_BNOT) {
    if (a->weak || !ltI_is_int(dt))
      ltU_error(line, "~ needs an i32, i64 or u32 value, not %s", a->weak ? "a Lua number" : ltI_dtypes[dt].name);
  } else if (op == U_NEG || op == U_ABS) {
    if (dt == DT_BOOL) ltU_error(line, "%s needs a number, not a bool", ltI_unop_names[op]);
    if (dt == DT_U32 && !a->weak)
      ltU_error(line, "%s needs a signed number, not u32; cast it with :cast(\"i64\")", ltI_unop_names[op]);
  } else {
    if (a->weak) dt = DT_F32;
    else if (!ltI_dtypes[dt].is_float)
      ltU_error(line, "%s needs a float operand, not %s; cast it with :cast(\"f32\")",
                ltI_unop_names[op], ltI_dtypes[dt].name);
  }
  if (a->kind == E_CONST && a->weak && (op == U_NEG || op == U_ABS))
    return ltI_const(op == U_NEG ? -a->cval : fabs(a->cval), a->dt, 1, line);
  Expr *e = expr(E_UNARY, dt, line);
  e->op = op;
  e->a = a->weak && dt != a->dt ? settle(a, dt, line) : a;
  e->rank = a->rank;
  e->shape[0] = a->shape[0];
  e->shape[1] = a->shape[1];
  set_depth(e);
  return e;
}

/* Integer identities, so index arithmetic prints the way a person writes
** it: x * 1 = x, x + 0 = x, (x + a) - b = x + (a - b). */
static Expr *simplify(Expr *e) {
  long long a = 0, b = 0;
  int ca = ltI_const_int(e->a, &a), cb = ltI_const_int(e->b, &b);
  if (e->op == B_MUL && cb && b == 1 && e->a->rank == e->rank) return e->a;
  if (e->op == B_MUL && ca && a == 1 && e->b->rank == e->rank) return e->b;
  if ((e->op == B_ADD || e->op == B_SUB) && cb && b == 0 && e->a->rank == e->rank) return e->a;
  if (e->op == B_ADD && ca && a == 0 && e->b->rank == e->rank) return e->b;
  if ((e->op == B_ADD || e->op == B_SUB) && cb && e->a->kind == E_BINARY && e->a->op == B_ADD) {
    long long inner;
    if (ltI_const_int(e->a->b, &inner)) {
      long long v = inner + (e->op == B_ADD ? b : -b);
      Expr *k = ltI_const((double)v, DT_I32, 0, e->line);
      Expr *r = ltU_alloc(sizeof *r);
      *r = *e;
      r->op = B_ADD;
      r->a = e->a->a;
      r->b = k;
      return simplify(r);
    }
  }
  return e;
}

/* a << b or a >> b: a an integer value (a Lua number takes b's dtype), b
** an integer value of any of the integer dtypes or a Lua number from 0 to
** the width of a's dtype less 1.  Arithmetic shift right for i32 and i64,
** logical for u32 (emit/text.c prints counts known only at run time
** through helpers that give 0 or the sign past the width). */
static Expr *shift(BinOp op, Expr *a, Expr *b, int line) {
  const char *name = ltI_binop_names[op];
  if (a->weak && b->weak) ltU_error(line, "%s of two Lua numbers: compute it in Lua", name);
  if (a->weak) a = settle(a, b->dt, line);
  if (!ltI_is_int(a->dt) || (!b->weak && !ltI_is_int(b->dt)))
    ltU_error(line, "%s needs i32, i64 or u32 operands, not %s", name, ltI_dtypes[ltI_is_int(a->dt) ? b->dt : a->dt].name);
  int width = 8 * ltI_dtypes[a->dt].bytes;
  if (b->kind == E_CONST && (b->cval != floor(b->cval) || b->cval < 0 || b->cval >= width))
    ltU_error(line, "%s shifts a %d-bit %s value by %.17g; a constant count is from 0 to %d", name, width,
              ltI_dtypes[a->dt].name, b->cval, width - 1);
  if (b->weak) b = ltI_const(b->cval, DT_I32, 0, line);
  Expr *e = expr(E_BINARY, a->dt, line);
  e->op = op;
  e->a = a;
  e->b = b;
  broadcast(e, a, b, name);
  set_depth(e);
  return e;
}

/* tile.rand(seed, offset) and tile.randint: seed a uniform integer (a
** scalar parameter, a number), offset an integer value whose shape the
** result takes; f32 in [0, 1) or u32 (the stream: templates/bits.h). */
static Expr *rand_op(BinOp op, Expr *seed, Expr *off, int line) {
  const char *name = ltI_binop_names[op];
  if (seed->rank) ltU_error(line, "%s's seed is a scalar (the same for every element), not a tile", name);
  if (seed->weak) seed = settle(seed, seed->cval < 0 || seed->cval > 2147483647.0 ? DT_I64 : DT_I32, line);
  if (off->weak) off = settle(off, DT_I32, line);
  if (!ltI_is_int(seed->dt) || !ltI_is_int(off->dt))
    ltU_error(line, "%s takes an integer seed and integer offsets, not %s and %s", name, ltI_dtypes[seed->dt].name,
              ltI_dtypes[off->dt].name);
  Expr *e = expr(E_BINARY, op == B_RAND ? DT_F32 : DT_U32, line);
  e->op = op;
  e->a = seed;
  e->b = off;
  broadcast(e, seed, off, name);
  set_depth(e);
  return e;
}

/* A binary operation with broadcasting; constants fold. */
Expr *ltI_binary(BinOp op, Expr *a, Expr *b, int line) {
  const char *name = ltI_binop_names[op];
  no_fp8(a, name, line);
  no_fp8(b, name, line);
  if (op == B_SHL || op == B_SHR) return shift(op, a, b, line);
  if (op == B_RAND || op == B_RANDINT) return rand_op(op, a, b, line);
  unify(&a, &b, name, line);
  Dtype dt = a->weak ? b->dt : a->dt;
  int is_cmp = op >= B_LT && op <= B_NE;
  if ((op == B_BAND || op == B_BOR || op == B_BXOR) && !ltI_is_int(dt))
    ltU_error(line, "%s needs i32, i64 or u32 operands, not %s%s", name, ltI_dtypes[dt].name,
              dt == DT_BOOL ? " (for bools: both, either)" : "");
  if (op == B_AND || op == B_OR) {
    if (a->dt != DT_BOOL || b->dt != DT_BOOL)
      ltU_error(line, "%s needs bool operands (comparisons)", name);
  } else if (dt == DT_BOOL) {
    ltU_error(line, "%s needs numbers, not bools", name);
  }
  if ((op == B_IDIV || op == B_MOD) && ltI_dtypes[dt].is_float && !(a->weak && b->weak))
    ltU_error(line, "%s needs integer operands; use / for floats", name);
  if (op == B_POW && (a->weak ? !b->weak && !ltI_dtypes[b->dt].is_float : !ltI_dtypes[a->dt].is_float))
    ltU_error(line, "pow needs float operands, not %s; cast with :cast(\"f32\")", ltI_dtypes[dt].name);
  if ((op == B_DIV || op == B_IDIV || op == B_MOD) && b->kind == E_CONST && b->cval == 0 &&
      (a->kind == E_CONST || !ltI_dtypes[dt].is_float))
    ltU_error(line, "%sdivision by the constant 0", ltI_dtypes[dt].is_float ? "" : ltU_fmt("%s ", ltI_dtypes[dt].name));
  if (a->kind == E_CONST && b->kind == E_CONST && op < B_BAND) {
    int is_int = !ltI_dtypes[dt].is_float;
    double v = fold(op, a->cval, b->cval, is_int);
    double lo, hi;
    ltI_int_range(dt, &lo, &hi);
    if (ltI_is_int(dt) && !is_cmp && !(a->weak && b->weak) && (v < lo || v > hi))
      ltU_error(line, "%s arithmetic on constants overflows: %.17g %s %.17g is %.17g, out of the %s range",
                ltI_dtypes[dt].name, a->cval, name, b->cval, v, ltI_dtypes[dt].name);
    return ltI_const(v, is_cmp ? DT_BOOL : dt, a->weak && b->weak && !is_cmp, line);
  }
  Expr *e = expr(E_BINARY, is_cmp ? DT_BOOL : dt, line);
  e->op = op;
  e->a = a;
  e->b = b;
  broadcast(e, a, b, name);
  set_depth(e);
  return dt == DT_I32 && !is_cmp ? simplify(e) : e;
}

/* where(c, a, b): c must be bool; a and b follow the binary rules. */
Expr *ltI_select(Expr *c, Expr *a, Expr *b, int line) {
  if (c->dt != DT_BOOL) ltU_error(line, "where needs a bool condition (a comparison), not %s", ltI_dtypes[c->dt].name);
  no_fp8(a, "where", line);
  no_fp8(b, "where", line);
  unify(&a, &b, "where", line);
  Expr *e = expr(E_SELECT, a->weak ? b->dt : a->dt, line);
  e->c = c;
  e->a = a;
  e->b = b;
  Expr tmp = {0};
  tmp.line = line;
  broadcast(&tmp, a, b, "where");
  broadcast(e, c, &tmp, "where");
  if (a->weak && b->weak) e->dt = DT_F32;
  set_depth(e);
  return e;
}

/* Converts a value to dtype dt (rounding to nearest for narrower floats).
** A constant converted to an integer dtype folds, and must fit it. */
Expr *ltI_cast(Expr *a, Dtype dt, int line) {
  if (a->weak) return settle(a, dt, line);
  if (a->dt == dt) return a;
  if (a->kind == E_CONST && ltI_is_int(dt)) {
    double v = ltI_dtypes[a->dt].is_float ? trunc(a->cval) : a->cval;
    double lo, hi;
    ltI_int_range(dt, &lo, &hi);
    if (v < lo || v > hi || isnan(v))
      ltU_error(line, "the %s constant %.17g cast to %s is out of the %s range", ltI_dtypes[a->dt].name, a->cval,
                ltI_dtypes[dt].name, ltI_dtypes[dt].name);
    return ltI_const(v, dt, 0, line);
  }
  return ltI_round(a, dt, line);
}

/* a converted to dt, always: for f16 and bf16 (and fp8) rounded to the
** type even when a already has it (x:cast("bf16") on a bf16 value holding
** an f32 sum), except where a is known to hold a value of dt already. */
Expr *ltI_round(Expr *a, Dtype dt, int line) {
  if (a->weak) return settle(a, dt, line);
  if (a->dt == dt && (!(dt == DT_F16 || dt == DT_BF16 || ltI_is_fp8(dt)) || ltI_exact(a))) return a;
  Expr *e = expr(E_CAST, dt, line);
  e->a = a;
  e->rank = a->rank;
  e->shape[0] = a->shape[0];
  e->shape[1] = a->shape[1];
  set_depth(e);
  return e;
}

/* Does e hold a value of its dtype exactly, so that rounding it to that
** dtype would change nothing?  Always for f32 and the integers; for f16
** and bf16 a value loaded from a tensor or read from a fragment of its
** dtype (assignments round), a cast, small whole constants, and -, abs,
** max, min and where of such values.  Anything else: no (gen rounds). */
int ltI_exact(const Expr *e) {
  if (e->dt != DT_F16 && e->dt != DT_BF16) return 1;
  switch (e->kind) {
  case E_CONST: return e->cval == 0 || isinf(e->cval) || (e->cval == floor(e->cval) && fabs(e->cval) <= 256);
  case E_CAST: return 1;
  case E_SELECT: return ltI_exact(e->a) && ltI_exact(e->b);
  case E_UNARY: return (e->op == U_NEG || e->op == U_ABS) && ltI_exact(e->a);
  case E_BINARY: return (e->op == B_MAX || e->op == B_MIN) && ltI_exact(e->a) && ltI_exact(e->b);
  case E_SYM: {
    const Sym *s = e->sym;
    if (s->kind == SYM_FRAG) return 1;
    if (s->kind != SYM_LET || !s->def) return 0;
    if (s->def->kind == S_LOAD) return !s->def->other || ltI_exact(s->def->other);
    return s->def->kind == S_LET && s->def->val && ltI_exact(s->def->val);
  }
  default: return 0;
  }
}

/* True if the uniform value e is known never to be negative. */
int ltI_nonneg(const Expr *e) {
  switch (e->kind) {
  case E_CONST: return e->cval >= 0;
  case E_SYM: return e->sym->nonneg;
  case E_BINARY:
    switch (e->op) {
    case B_ADD: case B_MUL: case B_DIV: case B_IDIV: case B_MOD: case B_MIN:
      return ltI_nonneg(e->a) && ltI_nonneg(e->b);
    case B_MAX: return ltI_nonneg(e->a) || ltI_nonneg(e->b);
    default: return 0;
    }
  default: return 0;
  }
}

/* Is the uniform integer value e known to be a multiple of m (m > 0) for
** every value the launcher accepts?  Constants, sums and differences of
** multiples, products with a multiple, and `local`s defined by one; a
** size, a program id, a loop index or a value read from memory is not
** (copy.c then tests it at run time). */
int ltI_multiple_of(const Expr *e, long long m) {
  if (m <= 1) return 1;
  if (e->rank || e->depth > 200) return 0;
  switch (e->kind) {
  case E_CONST: return e->cval == floor(e->cval) && fmod(e->cval, (double)m) == 0;
  case E_SYM: {
    const Sym *s = e->sym;
    return s->kind == SYM_LET && s->def && s->def->kind == S_LET && s->def->val && ltI_multiple_of(s->def->val, m);
  }
  case E_UNARY: return e->op == U_NEG && ltI_multiple_of(e->a, m);
  case E_BINARY:
    switch (e->op) {
    case B_ADD: case B_SUB: return ltI_multiple_of(e->a, m) && ltI_multiple_of(e->b, m);
    case B_MUL: return ltI_multiple_of(e->a, m) || ltI_multiple_of(e->b, m);
    default: return 0;
    }
  case E_SELECT: return ltI_multiple_of(e->a, m) && ltI_multiple_of(e->b, m);
  default: return 0;
  }
}

/* The bits k of x, a tile right shift by a constant k or a mask by the
** constant 2^k - 1 (1 to 16 bits); 0 for any other expression. */
long long ltI_shift_bits(const Expr *x) {
  long long k, m;
  if (x->kind != E_BINARY || !x->rank) return 0;
  if (x->op == B_SHR && ltI_const_int(x->b, &k) && k >= 1 && k <= 16) return k;
  if (x->op == B_BAND && ltI_const_int(x->b, &m) && m > 0 && m < 65536 && !(m & (m + 1))) {
    for (k = 0; 1LL << k <= m; k++) {}
    return k;
  }
  return 0;
}

/* The terms of ltI_column_sum, the iotas counted in *iotas. */
static int column_terms(const Expr *x, int cols, long long k, const Expr **sc, int *n, int *iotas) {
  long long m, p = 1LL << k;
  if (x->kind == E_IOTA) return x->op == 1 && x->shape[1] == cols && ++*iotas == 1;
  if (x->kind == E_BINARY && x->op == B_ADD && x->rank)
    return column_terms(x->a, cols, k, sc, n, iotas) && column_terms(x->b, cols, k, sc, n, iotas);
  if (x->rank || *n == 4) return 0;
  int whole = (ltI_const_int(x, &m) && m % p == 0) ||
              (x->kind == E_BINARY && x->op == B_MUL &&
               ((ltI_const_int(x->b, &m) && m % p == 0) || (ltI_const_int(x->a, &m) && m % p == 0)));
  if (whole) sc[(*n)++] = x;
  return whole;
}

/* Is tile x a column sum that a right shift by k divides a term at a
** time: one iota of the columns of a tile `cols` wide, plus at most 4
** uniform terms, each a constant multiple of 2^k or a product by one
** (collected into sc, *n of them)?  pass/colshift.c and emit/text.c's
** column_shift take the same forms. */
int ltI_column_sum(const Expr *x, int cols, long long k, const Expr **sc, int *n) {
  int iotas = 0;
  *n = 0;
  return column_terms(x, cols, k, sc, n, &iotas) && iotas == 1;
}

/* Bounds [*lo, *hi] of the value of i32 expression e, computed without
** wrapping, for every value the launcher accepts: sizes 1 to LT_MAX_SIZE,
** program ids below their grid's extent, loop indices below their loop's
** end; a value read from memory, a scalar parameter or a tile may be any
** i32.  Interval arithmetic in 64 bits, each bound kept within 2^62; a
** bound outside the i32 range means that int arithmetic could wrap there. */
void ltI_range(const Expr *e, long long *lo, long long *hi) {
  const long long LIM = (long long)1 << 62;
  *lo = INT32_MIN, *hi = INT32_MAX;
  if (e->rank || e->depth > 200) return;
  long long a0, a1, b0, b1;
  switch (e->kind) {
  case E_CONST:
    *lo = *hi = (long long)e->cval;
    return;
  case E_SYM: {
    const Sym *s = e->sym;
    if (s->kind == SYM_SIZE) *lo = 1, *hi = LT_MAX_SIZE;
    else if ((s->kind == SYM_PID || s->kind == SYM_LOOP) && s->extent) {
      ltI_range(s->extent, &a0, &a1);
      *lo = s->kind == SYM_PID || s->nonneg ? 0 : INT32_MIN, *hi = a1 - 1 < 0 ? 0 : a1 - 1;
      if (*hi > INT32_MAX) *hi = INT32_MAX;
    } else if (s->kind == SYM_LET && s->def && s->def->kind == S_LET && s->def->val) {
      ltI_range(s->def->val, lo, hi);
    } else if (s->nonneg) {
      *lo = 0;
    }
    return;
  }
  case E_BINARY:
    ltI_range(e->a, &a0, &a1);
    ltI_range(e->b, &b0, &b1);
    switch (e->op) {
    case B_ADD: *lo = a0 + b0, *hi = a1 + b1; break;
    case B_SUB: *lo = a0 - b1, *hi = a1 - b0; break;
    case B_MUL: {
      double p[4] = {(double)a0 * b0, (double)a0 * b1, (double)a1 * b0, (double)a1 * b1};
      double l = p[0], h = p[0];
      for (int i = 1; i < 4; i++) l = p[i] < l ? p[i] : l, h = p[i] > h ? p[i] : h;
      *lo = l < -(double)LIM ? -LIM : (long long)l, *hi = h > (double)LIM ? LIM : (long long)h;
      break;
    }
    case B_IDIV:
      if (b0 < 1) return;   /* (a divisor that may be 0 or negative: any i32) */
      *lo = a0 < 0 ? a0 : a0 / b1, *hi = a1 < 0 ? a1 / b1 : a1 / b0;
      break;
    case B_MOD:
      if (b0 < 1) return;
      *lo = a0 < 0 ? -(b1 - 1) : 0, *hi = b1 - 1;
      break;
    case B_MAX: *lo = a0 > b0 ? a0 : b0, *hi = a1 > b1 ? a1 : b1; break;
    case B_MIN: *lo = a0 < b0 ? a0 : b0, *hi = a1 < b1 ? a1 : b1; break;
    default: return;
    }
    if (*lo < -LIM) *lo = -LIM;
    if (*hi > LIM) *hi = LIM;
    return;
  case E_SELECT:
    ltI_range(e->a, &a0, &a1);
    ltI_range(e->b, &b0, &b1);
    *lo = a0 < b0 ? a0 : b0, *hi = a1 > b1 ? a1 : b1;
    return;
  default:
    return;
  }
}

/* Is i32 scalar e made only of sizes, program ids, loop indices and
** constants within LT_MAX_SIZE?  gen's int index math on those stays in
** int (the launcher bounds sizes below 2^30, and a tile adds at most 2^24). */
static int tame(const Expr *e) {
  if (e->rank || e->depth > 200) return 0;
  switch (e->kind) {
  case E_CONST: return fabs(e->cval) <= LT_MAX_SIZE;
  case E_SYM: {
    const Sym *s = e->sym;
    if (s->kind == SYM_SIZE || s->kind == SYM_PID || s->kind == SYM_LOOP) return 1;
    return s->kind == SYM_LET && s->def && s->def->kind == S_LET && s->def->val && tame(s->def->val);
  }
  case E_UNARY: return e->op == U_NEG && tame(e->a);
  case E_BINARY: return tame(e->a) && tame(e->b);
  case E_SELECT: return tame(e->a) && tame(e->b);
  default: return 0;
  }
}

/* Can index math in int on i32 expression e, and e + add (0 <= add <=
** 2^24), not overflow for any value the launcher accepts?  Yes when e is
** tame; else when its bounds (ltI_range) and those of its parts are i32.
** A value read from memory or a scalar parameter in an offset then makes
** the emitter compute the offset in int64. */
int ltI_fits_int(const Expr *e, long long add) {
  if (e->dt != DT_I32) return 0;   /* an i64 offset: int64 math */
  if (tame(e)) return 1;
  long long lo, hi;
  ltI_range(e, &lo, &hi);
  if (lo < INT32_MIN || hi + add > INT32_MAX) return 0;
  if (e->kind == E_BINARY || e->kind == E_SELECT) return ltI_fits_int(e->a, 0) && ltI_fits_int(e->b, 0);
  if (e->kind == E_UNARY) return ltI_fits_int(e->a, 0);
  if (e->kind == E_SYM && e->sym->kind == SYM_LET && e->sym->def && e->sym->def->kind == S_LET && e->sym->def->val)
    return ltI_fits_int(e->sym->def->val, 0);
  return 1;
}

/* Is an offset of view v a tile (row r of the view at the indices its
** element r gives: a gather, or a scatter for a store)? */
int ltI_view_gathers(const View *v) {
  for (int d = 0; d < v->t->trank; d++)
    if (v->origin[d]->rank) return 1;
  return 0;
}

/* The [rows, cols] of view v as a tile: [1, cols] when it has no row dim. */
void ltI_view_shape(const View *v, int shape[2]) {
  shape[0] = v->rdim >= 0 ? v->ext[v->rdim] : 1;
  shape[1] = v->ext[v->cdim];
}

/* Can view v never lie wholly inside its tensor?  When along some dim both
** its origin and the tensor's size are constants and the window runs past
** the end (a head dim of 96 read in 128-wide tiles): then the emitter
** keeps only the masked path. */
int ltI_view_never_inside(const View *v) {
  for (int d = 0; d < v->t->trank; d++) {
    long long o, n;
    if (ltI_const_int(v->origin[d], &o) && ltI_const_int(v->t->dims[d], &n) && o + v->ext[d] > n) return 1;
  }
  return 0;
}

/* Are expressions a and b the same computation: the same tree of
** operators, constants and symbols? */
int ltI_same(const Expr *a, const Expr *b) {
  if (a == b) return 1;
  if (!a || !b || a->kind != b->kind || a->op != b->op || a->dt != b->dt || a->rank != b->rank) return 0;
  if (a->kind == E_CONST) return a->cval == b->cval;
  if (a->kind == E_SYM) return a->sym == b->sym;
  return ltI_same(a->a, b->a) && ltI_same(a->b, b->b) && ltI_same(a->c, b->c);
}

/* If e folds to an integer constant, stores it and returns 1. */
int ltI_const_int(const Expr *e, long long *out) {
  if (e->kind != E_CONST || e->cval != floor(e->cval)) return 0;
  *out = (long long)e->cval;
  return 1;
}

/* A statement of the given kind at a DSL line. */
Stmt *ltI_stmt(StmtKind kind, int line) {
  Stmt *s = ltU_alloc(sizeof *s);
  s->kind = kind;
  s->line = line;
  return s;
}

/* Points b->last at the final statement again after a pass edited the list. */
void ltI_fix_last(Block *b) {
  b->last = NULL;
  for (Stmt *s = b->first; s; s = s->next) b->last = s;
}

void ltI_append(Block *b, Stmt *s) {
  if (b->last) b->last->next = s;
  else b->first = s;
  b->last = s;
}

static void count_expr(Expr *e, void *ctx) {
  (void)ctx;
  if (!e) return;
  if (e->kind == E_SYM) e->sym->uses++;
  count_expr(e->a, NULL);
  count_expr(e->b, NULL);
  count_expr(e->c, NULL);
}

/* Calls fn(e, ctx) on each expression the statements of b (and of the
** blocks inside them) hold directly: values, bounds, view origins and masks. */
void ltI_each_expr(Block *b, void (*fn)(Expr *e, void *ctx), void *ctx) {
  for (Stmt *s = b->first; s; s = s->next) {
    Expr *es[] = {s->val, s->other, s->lo, s->hi, s->step};
    for (int i = 0; i < 5; i++)
      if (es[i]) fn(es[i], ctx);
    if (s->view)
      for (int i = 0; i < s->view->t->trank; i++)
        if (s->view->origin[i]) fn(s->view->origin[i], ctx);
    if (s->view && s->view->mask) fn(s->view->mask, ctx);
    if (s->view && s->view->rlo) fn(s->view->rlo, ctx);
    if (s->view && s->view->rhi) fn(s->view->rhi, ctx);
    ltI_each_expr(&s->body, fn, ctx);
    ltI_each_expr(&s->orelse, fn, ctx);
  }
}

/* Recounts how often each symbol is read by an expression. */
void ltI_count_uses(Kernel *k) {
  for (int i = 0; i < k->nsyms; i++) k->syms[i]->uses = 0;
  ltI_each_expr(&k->body, count_expr, NULL);
}

/* e as the launcher can compute it: over sizes, strides, scalars and
** constants only, each named immutable value (S_LET) replaced by its
** definition; NULL where e reads anything else (a program id, a loop
** index, a tile, a fragment). */
Expr *ltI_host_expr(Expr *e) {
  if (!e) return NULL;
  if (e->rank || e->kind == E_IOTA) return NULL;
  if (e->kind == E_CONST) return e;
  if (e->kind == E_SYM) {
    Sym *s = e->sym;
    if (s->kind == SYM_SIZE || s->kind == SYM_STRIDE || s->kind == SYM_SCALAR) return e;
    if (s->kind == SYM_LET && s->rank == 0 && s->def && s->def->kind == S_LET) return ltI_host_expr(s->def->val);
    return NULL;
  }
  Expr *a = ltI_host_expr(e->a), *b = NULL, *c = NULL;
  if (!a || (e->b && !(b = ltI_host_expr(e->b))) || (e->c && !(c = ltI_host_expr(e->c)))) return NULL;
  if (a == e->a && b == e->b && c == e->c) return e;
  Expr *x = ltU_alloc(sizeof *x);
  *x = *e;
  x->a = a;
  x->b = b;
  x->c = c;
  return x;
}

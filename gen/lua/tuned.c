/*
** lua/tuned.c: the tuned-config file of a kernel (docs/runtime.md).
**
** runtime/tune.lua records the fastest config it found in tuned/<kernel>.lua
** beside the kernel file's folder (dsl/kernels/x.lua -> dsl/tuned/<name>.lua):
**
**   return { kernel = "softmax", entries = {
**     { target = "sm80", device = "NVIDIA H200", variant = "softmax_f32",
**       bucket = "C=4096,R=4096", config = { BC = 4096, threads = 256 }, ... } } }
**
** gen reads that file as data: this file parses the table constructor
** itself (literals, nested tables and comments; nothing in it runs), so a
** tuned file cannot compute, loop or read anything.  Every entry is checked
** against the kernel (config keys and value types, known targets, well
** formed buckets, no duplicates); a bad one is "file:LINE: error: ...".
**
** For the target of the run, one device is chosen (--device, else the only
** device the target's entries name), and for each variant one entry of that
** device (--shape's bucket, else the largest bucket).  A bucket names
** powers of two (the tuner rounds each size up to one), except a bucket of
** one size (a row length), which may name any: "C=5120" between "C=4096"
** and "C=8192" takes the row lengths up to 5120 (ltN_bucket_limit).
** Entries whose device is "any" are a rule (a model fitted to measurements, for any device):
** they name no device to choose, and a variant takes them when the chosen
** device has no entry for it, or when no device is chosen.  variants.c lays the
** entry's config over the kernel's config; -D still wins.  ltN_pick says
** where a variant's config came from, for --list, --explain and the
** generated file's header comment.  The queries (ltN_pick, ltN_buckets, and
** the rest of a bucket's) are tuned_query.c's; what the two files share,
** tuned.h.
*/
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tuned.h"

extern jmp_buf ltU_jmp;
extern void (*ltU_raise)(const char *msg);   /* set by api.c while Lua runs */

#define MAX_BYTES (16 << 20)   /* a tuned file is a few KB; this stops a runaway */
#define MAX_DEPTH 32           /* table nesting */

/* ------------------------------------------------------------------ */
/* the data reader: `return` and one table constructor of literals      */

typedef enum { V_NIL, V_BOOL, V_INT, V_NUM, V_STR, V_TABLE } VKind;

typedef struct Val Val;

typedef struct Field {
  const char *key;      /* NULL: a positional field */
  Val *v;
  int line;             /* of the key, or of a positional value */
} Field;

struct Val {
  VKind kind;
  int line;
  long long i;          /* V_INT; V_BOOL: 0 / 1 */
  double d;             /* V_NUM */
  const char *s;        /* V_STR */
  Field *f;             /* V_TABLE */
  int nf, cap;
};

typedef struct Lex {
  const char *p;        /* next character */
  int line;
} Lex;


/* Reports an error at a line of the tuned file and unwinds like ltU_error:
** through Lua while the kernel file runs, else straight to main. */
static void tuned_error(int line, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *path = ltN_run.tpath;
  const char *full = line > 0 ? ltU_fmt("%s:%d: error: %s", path, line, msg) : ltU_fmt("%s: error: %s", path, msg);
  if (ltU_raise) ltU_raise(full);
  fprintf(stderr, "%s\n", full);
  longjmp(ltU_jmp, 1);
}

/* tuned_error for the passes and emitters: an error at a line of the tuned file. */
void ltN_error_at(int line, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tuned_error(line, "%s", msg);
}

/* A copy of s fit for one line of a C comment: control characters become
** '?', and so does the first character of a comment opener or closer. */
const char *ltN_clean(const char *s) {
  char *r = ltU_strdup(s);
  for (char *q = r; *q; q++) {
    if ((unsigned char)*q < 0x20 || *q == 0x7f) *q = '?';
    if ((q[0] == '*' && q[1] == '/') || (q[0] == '/' && q[1] == '*')) *q = '?';
  }
  return r;
}

/* The token at p, for "near '...'" in messages (at most 20 characters). */
static const char *near(const char *p) {
  if (!*p) return "the end of the file";
  int n = 0;
  while (p[n] && p[n] != '\n' && p[n] != ' ' && p[n] != '\t' && n < 20) n++;
  if (n == 0) n = 1;
  return ltU_fmt("'%s'", ltN_clean(ltU_fmt("%.*s", n, p)));
}

/* Level of a long bracket [[ / [=[ ... starting at p, or -1 if none. */
static int long_open(const char *p) {
  if (*p != '[') return -1;
  int n = 0;
  while (p[1 + n] == '=') n++;
  return p[1 + n] == '[' ? n : -1;
}

/* Reads a long bracket of the given level at lx->p (the opener included)
** and returns its text; the first newline is dropped, as in Lua. */
static const char *long_text(Lex *lx, int level) {
  int line = lx->line;
  lx->p += level + 2;
  if (*lx->p == '\r') lx->p++;
  if (*lx->p == '\n') lx->p++, lx->line++;
  const char *start = lx->p;
  for (;; lx->p++) {
    if (!*lx->p) tuned_error(line, "unfinished long string or comment (it starts here)");
    if (*lx->p == '\n') lx->line++;
    if (*lx->p == ']') {
      int n = 0;
      while (lx->p[1 + n] == '=') n++;
      if (n == level && lx->p[1 + n] == ']') {
        const char *text = ltU_fmt("%.*s", (int)(lx->p - start), start);
        lx->p += level + 2;
        return text;
      }
    }
  }
}

/* Skips blanks, newlines and comments. */
static void skip(Lex *lx) {
  for (;;) {
    char c = *lx->p;
    if (c == '\n') lx->line++, lx->p++;
    else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') lx->p++;
    else if (c == '-' && lx->p[1] == '-') {
      lx->p += 2;
      int level = long_open(lx->p);
      if (level >= 0) long_text(lx, level);
      else while (*lx->p && *lx->p != '\n') lx->p++;
    } else return;
  }
}

/* Character classes of Lua names and numerals (ASCII only, as in Lua):
** can c start a name? */
static int is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

/* Is c a decimal digit? */
static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Can c continue a name? */
static int is_name_char(char c) { return is_name_start(c) || is_digit(c); }

/* Reads a name (an identifier or a keyword) at lx->p. */
static const char *read_name(Lex *lx) {
  const char *s = lx->p;
  while (is_name_char(*lx->p)) lx->p++;
  return ltU_fmt("%.*s", (int)(lx->p - s), s);
}

/* Is s a reserved word of Lua (not a field name without brackets)? */
static int is_keyword(const char *s) {
  static const char *const kw[] = {"and", "break", "do", "else", "elseif", "end", "false", "for", "function",
                                   "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
                                   "true", "until", "while", NULL};
  for (int i = 0; kw[i]; i++)
    if (strcmp(kw[i], s) == 0) return 1;
  return 0;
}

/* Appends the UTF-8 bytes of code point u. */
static void put_utf8(Buf *b, unsigned long u) {
  char s[8] = {0};
  if (u < 0x80) s[0] = (char)u;
  else if (u < 0x800) s[0] = (char)(0xC0 | (u >> 6)), s[1] = (char)(0x80 | (u & 0x3F));
  else if (u < 0x10000)
    s[0] = (char)(0xE0 | (u >> 12)), s[1] = (char)(0x80 | ((u >> 6) & 0x3F)), s[2] = (char)(0x80 | (u & 0x3F));
  else
    s[0] = (char)(0xF0 | (u >> 18)), s[1] = (char)(0x80 | ((u >> 12) & 0x3F)),
    s[2] = (char)(0x80 | ((u >> 6) & 0x3F)), s[3] = (char)(0x80 | (u & 0x3F));
  ltU_put(b, s);
}

/* Value of a hex digit, or -1. */
static int hexval(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads a quoted string with Lua's escapes at lx->p (the quote). */
static const char *read_string(Lex *lx) {
  char q = *lx->p++;
  int line = lx->line;
  Buf b = {0};
  ltU_put(&b, "");
  for (;;) {
    char c = *lx->p;
    if (!c || c == '\n' || c == '\r') tuned_error(line, "unfinished string");
    lx->p++;
    if (c == q) break;
    if (c != '\\') {
      char s[2] = {c, 0};
      ltU_put(&b, s);
      continue;
    }
    c = *lx->p++;
    const char *simple = strchr("abfnrtv\\\"'", c);
    if (c && simple) {
      static const char out[] = "\a\b\f\n\r\t\v\\\"'";
      char s[2] = {out[simple - "abfnrtv\\\"'"], 0};
      ltU_put(&b, s);
    } else if (c == '\n' || c == '\r') {   /* backslash-newline: a newline */
      if ((*lx->p == '\n' || *lx->p == '\r') && *lx->p != c) lx->p++;
      lx->line++;
      ltU_put(&b, "\n");
    } else if (c == 'z') {
      while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r' || *lx->p == '\f' || *lx->p == '\v')
        lx->line += *lx->p++ == '\n';
    } else if (c == 'x' && hexval(lx->p[0]) >= 0 && hexval(lx->p[1]) >= 0) {
      int v = hexval(lx->p[0]) * 16 + hexval(lx->p[1]);
      lx->p += 2;
      if (!v) tuned_error(lx->line, "strings in a tuned-config file cannot hold a zero byte");
      char s[2] = {(char)v, 0};
      ltU_put(&b, s);
    } else if (is_digit(c)) {
      int v = c - '0';
      for (int k = 0; k < 2 && is_digit(*lx->p); k++) v = v * 10 + (*lx->p++ - '0');
      if (v > 255) tuned_error(lx->line, "decimal escape too large in a string");
      if (!v) tuned_error(lx->line, "strings in a tuned-config file cannot hold a zero byte");
      char s[2] = {(char)v, 0};
      ltU_put(&b, s);
    } else if (c == 'u' && *lx->p == '{') {
      unsigned long u = 0;
      int n = 0;
      for (lx->p++; hexval(*lx->p) >= 0 && n < 8; lx->p++, n++) u = u * 16 + (unsigned long)hexval(*lx->p);
      if (!n || *lx->p != '}' || u > 0x10FFFF) tuned_error(lx->line, "bad \\u{...} escape in a string");
      lx->p++;
      if (!u) tuned_error(lx->line, "strings in a tuned-config file cannot hold a zero byte");
      put_utf8(&b, u);
    } else {
      tuned_error(lx->line, "invalid escape sequence '\\%c' in a string", c ? c : '0');
    }
  }
  return b.p;
}

/* Reads a numeral (Lua's: decimal or hex, integer or float) at lx->p. */
static Val *read_number(Lex *lx) {
  const char *s = lx->p;
  int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char *e = s + (hex ? 2 : 0);
  int is_float = 0;
  for (;; e++) {
    char c = *e;
    if ((c == 'e' || c == 'E') && !hex) is_float = 1, e += e[1] == '+' || e[1] == '-';
    else if ((c == 'p' || c == 'P') && hex) is_float = 1, e += e[1] == '+' || e[1] == '-';
    else if (c == '.') is_float = 1;
    else if (!is_name_char(c)) break;
  }
  const char *tok = ltU_fmt("%.*s", (int)(e - s), s);
  Val *v = ltU_alloc(sizeof *v);
  v->line = lx->line;
  char *end;
  errno = 0;
  if (!is_float && hex) {
    v->kind = V_INT;
    v->i = (long long)strtoull(tok + 2, &end, 16);   /* wraps around, as in Lua */
    if (end == tok + 2) end = (char *)tok;
  } else if (!is_float) {
    v->kind = V_INT;
    v->i = strtoll(tok, &end, 10);
    if (errno == ERANGE) v->kind = V_NUM, v->d = strtod(tok, &end);
  } else {
    v->kind = V_NUM;
    v->d = strtod(tok, &end);
  }
  if (*end || end == tok) tuned_error(lx->line, "malformed number near '%s'", ltN_clean(tok));
  lx->p = e;
  return v;
}

static Val *read_value(Lex *lx, int depth);

/* Adds a field to table t. */
static void add_field(Val *t, const char *key, Val *v, int line) {
  if (t->nf == t->cap) {
    int cap = t->cap ? t->cap * 2 : 8;
    Field *f = ltU_alloc(sizeof *f * (size_t)cap);
    if (t->nf) memcpy(f, t->f, sizeof *f * (size_t)t->nf);
    t->f = f;
    t->cap = cap;
  }
  t->f[t->nf++] = (Field){key, v, line};
}

/* Reads a table constructor at lx->p ('{'): `name = v`, `["key"] = v` and
** positional values, separated by ',' or ';'. */
static Val *read_table(Lex *lx, int depth) {
  if (depth > MAX_DEPTH) tuned_error(lx->line, "tables nested more than %d deep", MAX_DEPTH);
  Val *t = ltU_alloc(sizeof *t);
  t->kind = V_TABLE;
  t->line = lx->line;
  lx->p++;
  for (;;) {
    skip(lx);
    if (*lx->p == '}') {
      lx->p++;
      return t;
    }
    int line = lx->line;
    const char *key = NULL;
    if (*lx->p == '[' && long_open(lx->p) < 0) {
      lx->p++;
      skip(lx);
      Val *k = read_value(lx, depth + 1);
      if (k->kind != V_STR) tuned_error(line, "only string keys in brackets, [\"name\"] = value");
      key = k->s;
      skip(lx);
      if (*lx->p != ']') tuned_error(lx->line, "']' expected near %s", near(lx->p));
      lx->p++;
      skip(lx);
      if (*lx->p != '=') tuned_error(lx->line, "'=' expected near %s", near(lx->p));
      lx->p++;
    } else if (is_name_start(*lx->p)) {
      const char *save = lx->p;
      int save_line = lx->line;
      const char *name = read_name(lx);
      skip(lx);
      if (*lx->p == '=' && lx->p[1] != '=') {
        if (is_keyword(name)) tuned_error(line, "'%s' is a Lua keyword; write [\"%s\"] = ...", name, name);
        key = name;
        lx->p++;
      } else {
        lx->p = save;   /* a value: true, false or nil */
        lx->line = save_line;
      }
    }
    for (int i = 0; key && i < t->nf; i++)
      if (t->f[i].key && strcmp(t->f[i].key, key) == 0)
        tuned_error(line, "%s is given twice in one table (also at line %d)", ltN_clean(key), t->f[i].line);
    skip(lx);
    Val *v = read_value(lx, depth + 1);
    add_field(t, key, v, key ? line : v->line);
    skip(lx);
    if (*lx->p == ',' || *lx->p == ';') lx->p++;
    else if (*lx->p != '}')
      tuned_error(lx->line, "'}' or ',' expected near %s (a tuned-config file holds only literals)", near(lx->p));
  }
}

/* Reads one literal: a string, a number (with an optional sign, and an
** optional /number for the tuner's 0/0 and 1/0), true, false, nil or a
** table. */
static Val *read_value(Lex *lx, int depth) {
  skip(lx);
  char c = *lx->p;
  if (c == '{') return read_table(lx, depth);
  Val *v;
  if (c == '"' || c == '\'' || long_open(lx->p) >= 0) {
    v = ltU_alloc(sizeof *v);
    v->kind = V_STR;
    v->line = lx->line;
    v->s = c == '[' ? long_text(lx, long_open(lx->p)) : read_string(lx);
    return v;
  }
  if (is_name_start(c)) {
    int line = lx->line;
    const char *name = read_name(lx);
    v = ltU_alloc(sizeof *v);
    v->line = line;
    if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0) v->kind = V_BOOL, v->i = name[0] == 't';
    else if (strcmp(name, "nil") == 0) v->kind = V_NIL;
    else tuned_error(line, "a value must be a literal (string, number, boolean or table), not '%s'", ltN_clean(name));
    return v;
  }
  if (c == '-' && lx->p[1] != '-') {
    lx->p++;
    skip(lx);
    if (!is_digit(*lx->p) && !(*lx->p == '.' && is_digit(lx->p[1])))
      tuned_error(lx->line, "a number expected after '-' near %s", near(lx->p));
    v = read_value(lx, depth);
    if (v->kind == V_INT) v->i = (long long)(0ULL - (unsigned long long)v->i);
    else v->d = -v->d;
    return v;
  }
  if (is_digit(c) || (c == '.' && is_digit(lx->p[1]))) {
    v = read_number(lx);
    skip(lx);
    if (*lx->p == '/' && lx->p[1] != '/') {   /* 0/0, 1/0, -1/0: how the tuner writes NaN and infinities */
      lx->p++;
      skip(lx);
      if (!is_digit(*lx->p)) tuned_error(lx->line, "a number expected after '/' near %s", near(lx->p));
      Val *d = read_number(lx);
      double a = v->kind == V_INT ? (double)v->i : v->d, b = d->kind == V_INT ? (double)d->i : d->d;
      v->kind = V_NUM;
      v->d = a / b;
    }
    return v;
  }
  tuned_error(lx->line, "a value expected near %s (a tuned-config file holds only literals)", near(lx->p));
  return NULL;
}

/* Reads the file at tpath: `return {...}`.  Errors are tuned_error. */
static Val *read_file(void) {
  struct stat st;
  FILE *f = NULL;
  if (stat(ltN_run.tpath, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= MAX_BYTES) f = fopen(ltN_run.tpath, "rb");
  if (!f) tuned_error(0, "cannot read the tuned-config file (missing, unreadable, not a file or over 16 MB)");
  char *text = ltU_alloc((size_t)st.st_size + 1);
  size_t n = fread(text, 1, (size_t)st.st_size, f);
  fclose(f);
  if (n != (size_t)st.st_size) tuned_error(0, "cannot read the tuned-config file");
  if (memchr(text, 0, n)) tuned_error(0, "the tuned-config file is binary (it holds a zero byte)");
  Lex lx = {text, 1};
  if (text[0] == '#') while (*lx.p && *lx.p != '\n') lx.p++;   /* a #! line, as Lua allows */
  skip(&lx);
  if (!is_name_start(*lx.p) || strcmp(read_name(&lx), "return") != 0)
    tuned_error(lx.line, "a tuned-config file is `return { kernel = \"NAME\", entries = { ... } }`");
  skip(&lx);
  if (*lx.p != '{') tuned_error(lx.line, "'{' expected after return near %s", near(lx.p));
  Val *v = read_table(&lx, 0);
  skip(&lx);
  if (*lx.p == ';') lx.p++, skip(&lx);
  if (*lx.p) tuned_error(lx.line, "nothing may follow the returned table (near %s)", near(lx.p));
  return v;
}

/* Field key of table t, or NULL. */
static Field *field(const Val *t, const char *key) {
  for (int i = 0; i < t->nf; i++)
    if (t->f[i].key && strcmp(t->f[i].key, key) == 0) return &t->f[i];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* shapes and buckets                                                  */


/* Parses "K=V,K=V" (names, whole numbers) into s, keys sorted; NULL when
** well formed, else why not. */
const char *ltN_parse_shape(const char *text, Shape *s) {
  s->n = 0;
  const char *p = text;
  for (;;) {
    while (*p == ' ') p++;
    if (!is_name_start(*p)) return ltU_fmt("'%s' is not NAME=NUMBER,...", text);
    const char *k = p;
    while (is_name_char(*p)) p++;
    const char *key = ltU_fmt("%.*s", (int)(p - k), k);
    while (*p == ' ') p++;
    if (*p++ != '=') return ltU_fmt("'%s' is not NAME=NUMBER,...", text);
    while (*p == ' ') p++;
    if (!is_digit(*p)) return ltU_fmt("'%s' is not NAME=NUMBER,...", text);
    long long v = 0;
    for (; is_digit(*p); p++) {
      v = v * 10 + (*p - '0');
      if (v > (1LL << 40)) return ltU_fmt("size %s in '%s' is too large", key, text);
    }
    while (*p == ' ') p++;
    for (int i = 0; i < s->n; i++)
      if (strcmp(s->keys[i], key) == 0) return ltU_fmt("'%s' gives %s twice", text, key);
    if (s->n == (int)(sizeof s->keys / sizeof s->keys[0])) return ltU_fmt("'%s' has too many sizes", text);
    int j = s->n++;
    for (; j > 0 && strcmp(s->keys[j - 1], key) > 0; j--) s->keys[j] = s->keys[j - 1], s->vals[j] = s->vals[j - 1];
    s->keys[j] = key;
    s->vals[j] = v;
    if (!*p) return NULL;
    if (*p++ != ',') return ltU_fmt("'%s' is not NAME=NUMBER,...", text);
  }
}

/* The text of a shape, keys sorted: "C=4096,R=4096". */
static const char *shape_text(const Shape *s) {
  Buf b = {0};
  ltU_put(&b, "");
  for (int i = 0; i < s->n; i++) ltU_printf(&b, "%s%s=%lld", i ? "," : "", s->keys[i], s->vals[i]);
  return b.p;
}

/* log2 of v rounded up to a power of two (0 for v <= 1). */
int ltN_log2_up(long long v) {
  int e = 0;
  while (1LL << e < v) e++;
  return e;
}

/* Rounds every size up to a power of two (0 and 1 become 1), as the tuner's
** bucket does; returns the sum of the exponents (the bucket's log2 size). */
static int to_bucket(Shape *s) {
  int log = 0;
  for (int i = 0; i < s->n; i++) {
    int e = ltN_log2_up(s->vals[i]);
    s->vals[i] = 1LL << e;
    log += e;
  }
  return log;
}

/* ------------------------------------------------------------------ */
/* the entries and the choice (the queries: tuned_query.c)             */

static TunedOptions opts;
TunedRun ltN_run;   /* the file read and the run's choice (tuned.h) */

/* Keeps the command line's tuned-file options (main.c). */
void ltN_set_options(const TunedOptions *o) { opts = *o; }

/* NULL when text is a well-formed --shape value, else why not. */
const char *ltN_shape_error(const char *text) {
  Shape s;
  return ltN_parse_shape(text, &s);
}

/* The tuned file for a kernel file: tuned/<kernel>.lua in the parent of
** the kernel file's folder, the rule the tuner's default --out follows. */
static const char *default_path(const char *kernel_file, const char *kernel) {
  const char *slash = strrchr(kernel_file, '/');
  const char *dir = slash ? ltU_fmt("%.*s", (int)(slash - kernel_file), kernel_file) : ".";
  if (slash == kernel_file) dir = "/";
  const char *last = strrchr(dir, '/');
  const char *base = last ? last + 1 : dir;
  const char *parent;
  if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || !*base) parent = ltU_fmt("%s/..", dir);
  else if (!last) parent = ".";
  else if (last == dir) parent = "/";
  else parent = ltU_fmt("%.*s", (int)(last - dir), dir);
  return ltU_fmt("%s%stuned/%s.lua", parent, parent[strlen(parent) - 1] == '/' ? "" : "/", kernel);
}

/* The last three components of path's real path ("dsl/tuned/softmax.lua"):
** the same text from any working directory and any spelling of the kernel
** file's path, for the generated files. */
static const char *shown_name(const char *path) {
  char *real = realpath(path, NULL);
  const char *p = real ? real : path;
  const char *s = p + strlen(p);
  for (int n = 0; s > p; s--)
    if (s[-1] == '/' && ++n == 3) break;
  const char *r = ltN_clean(s);
  free(real);
  return r;
}

/* How a message names a config kind. */
static const char *kind_name(TunedKind k) {
  return k == TK_INT ? "a whole number" : k == TK_BOOL ? "a boolean" : "a string";
}

/* A value as the file spells it, for messages. */
static const char *val_text(const Val *v) {
  switch (v->kind) {
  case V_NIL: return "nil";
  case V_BOOL: return v->i ? "true" : "false";
  case V_INT: return ltU_fmt("%lld", v->i);
  case V_NUM: {   /* as Lua prints a float: 512.0, 0.5, inf */
    const char *t = ltU_fmt("%.14g", v->d);
    return strspn(t, "-0123456789") == strlen(t) ? ltU_fmt("%s.0", t) : t;
  }
  case V_STR: return ltU_fmt("\"%s\"", ltN_clean(v->s));
  default: return "a table";
  }
}

/* A required string field of entry e. */
static const char *entry_string(const Val *e, const char *key) {
  Field *f = field(e, key);
  if (!f) tuned_error(e->line, "the entry has no %s (an entry has target, device, variant, bucket, config)", key);
  if (f->v->kind != V_STR) tuned_error(f->line, "%s must be a string, not %s", key, val_text(f->v));
  return f->v->s;
}

/* Checks and converts config table c (an entry's config, or its
** alternative's keys; what names it in messages) against the kernel's
** config into vals (room for c's fields); returns how many. */
static int config_values(const Val *c, const char *what, const char *kernel, const TunedValue *cfg, int ncfg,
                         TunedValue *vals) {
  int nvals = 0;
  for (int i = 0; i < c->nf; i++) {
    const Field *kv = &c->f[i];
    if (!kv->key) tuned_error(kv->line, "%s holds name = value pairs, not a bare %s", what, val_text(kv->v));
    const TunedValue *want = NULL;
    for (int j = 0; j < ncfg; j++)
      if (strcmp(cfg[j].key, kv->key) == 0) want = &cfg[j];
    if (!want) {
      Buf b = {0};
      for (int j = 0; j < ncfg; j++) ltU_printf(&b, "%s%s", j ? ", " : "", cfg[j].key);
      tuned_error(kv->line, "tuned config key '%s' is not a config key of %s (it has: %s)", ltN_clean(kv->key), kernel,
                  b.p ? b.p : "none");
    }
    TunedValue *tv = &vals[nvals++];
    tv->key = want->key;
    tv->kind = want->kind;
    int ok = (want->kind == TK_INT && kv->v->kind == V_INT) || (want->kind == TK_BOOL && kv->v->kind == V_BOOL) ||
             (want->kind == TK_STR && kv->v->kind == V_STR);
    if (!ok)
      tuned_error(kv->line, "tuned config %s = %s: config %s of %s is %s, so the value must be one too", kv->key,
                  val_text(kv->v), kv->key, kernel, kind_name(want->kind));
    tv->i = kv->v->i;
    tv->s = kv->v->s;
  }
  return nvals;
}

/* Checks and converts one entry's config table against the kernel's. */
static void entry_config(Entry *en, const Val *e, const char *kernel, const TunedValue *cfg, int ncfg) {
  Field *f = field(e, "config");
  if (!f) tuned_error(e->line, "the entry has no config (an entry has target, device, variant, bucket, config)");
  if (f->v->kind != V_TABLE) tuned_error(f->line, "config must be a table of name = value, not %s", val_text(f->v));
  en->vals = ltU_alloc(sizeof *en->vals * (size_t)(f->v->nf + 1));
  en->nvals = config_values(f->v, "config", kernel, cfg, ncfg, en->vals);
}

/* Entry en's alternative a (index i; line: its own, or alternative's) of
** config keys over its config, after the others (a1 ... ai-1): checked and
** laid over its config into en->alt[i]. */
static void one_alternative(Entry *en, const Val *a, int line, const char *kernel, const TunedValue *cfg, int ncfg) {
  int i = en->nalts;
  const char *what = i || line != a->line ? ltU_fmt("alternative %d", i + 1) : "alternative";
  TunedValue *over = ltU_alloc(sizeof *over * (size_t)(a->nf + 1));
  int nover = config_values(a, what, kernel, cfg, ncfg, over);
  if (!nover) tuned_error(line, "%s is empty; give the config keys whose values differ from the entry's", what);
  TunedValue *v = ltU_alloc(sizeof *v * (size_t)(en->nvals + nover + 1));
  int n = 0, differs = 0;
  for (int j = 0; j < en->nvals; j++) v[n++] = en->vals[j];
  for (int j = 0; j < nover; j++) {
    int m = 0;
    while (m < n && strcmp(v[m].key, over[j].key) != 0) m++;
    if (m == n) n++, differs = 1;
    else differs |= en->vals[m].i != over[j].i || (en->vals[m].s != over[j].s &&
                    (!en->vals[m].s || !over[j].s || strcmp(en->vals[m].s, over[j].s) != 0));
    v[m] = over[j];
  }
  if (!differs) tuned_error(line, "%s gives the entry's own config; give values that differ from it", what);
  for (int o = 0; o < i; o++) {   /* as many keys, each with the same value */
    int same = en->nalt[o] == n;
    for (int j = 0; same && j < n; j++) {
      const TunedValue *w = NULL;
      for (int m = 0; m < n; m++)
        if (strcmp(en->alt[o][m].key, v[j].key) == 0) w = &en->alt[o][m];
      same = w && w->i == v[j].i && (w->s == v[j].s || (w->s && v[j].s && strcmp(w->s, v[j].s) == 0));
    }
    if (same) tuned_error(line, "%s gives the config of alternative %d; give each a config of its own", what, o + 1);
  }
  en->alt[i] = v;
  en->nalt[i] = n;
  en->alt_line[i] = line;
  en->nalts++;
}

/* An entry's optional alternative = { BM = 64, BN = 192, stages = 6 }, or
** a list of up to LT_MAX_ALTS of them, { { BM = 128, BN = 128 }, { BM = 64,
** BN = 192 } }: more configs for the bucket, each the entry's config with
** its keys laid over it.  The launcher runs whichever of the bucket's
** configs leaves the busiest multiprocessor least work at the call's sizes
** (dispatch.c: programs a multiprocessor, rounded up, times a program's
** tile, pass/waves.c). */
static void entry_alternative(Entry *en, const Val *e, const char *kernel, const TunedValue *cfg, int ncfg) {
  Field *f = field(e, "alternative");
  if (!f) return;
  if (f->v->kind != V_TABLE)
    tuned_error(f->line, "alternative must be a table of config name = value (the keys that differ from the entry's "
                "config), or a list of such tables, not %s", val_text(f->v));
  if (en->off_grid)
    tuned_error(f->line, "an entry takes off_grid or alternative, not both (off_grid at line %d)", en->off_line);
  const Val *a = f->v;
  if (a->nf == 0 || a->f[0].key || a->f[0].v->kind != V_TABLE) {   /* one alternative */
    one_alternative(en, a, f->line, kernel, cfg, ncfg);
    return;
  }
  for (int i = 0; i < a->nf; i++) {   /* a list of them */
    const Field *x = &a->f[i];
    if (x->key || x->v->kind != V_TABLE)
      tuned_error(x->line, "alternative is a list of tables of config name = value: { { ... }, { ... } }, not %s%s",
                  x->key ? x->key : val_text(x->v), x->key ? " = ..." : "");
    if (i == LT_MAX_ALTS)
      tuned_error(x->line, "alternative lists %d configs, more than the %d an entry takes", a->nf, LT_MAX_ALTS);
    one_alternative(en, x->v, x->line, kernel, cfg, ncfg);
  }
}

/* An entry's optional off_grid = "C=6144": the bucket whose config runs
** the rows of this bucket that start off the 16-byte grid (a row length or
** base not a multiple of 16 bytes; dispatch.c).  Both buckets name the one
** same size (s: this entry's, parsed); check_off_grid checks that the
** named bucket has an entry. */
static void entry_off_grid(Entry *en, const Val *e, const Shape *s) {
  Field *f = field(e, "off_grid");
  if (!f) return;
  if (f->v->kind != V_STR) tuned_error(f->line, "off_grid must be a string (a bucket: \"C=6144\"), not %s", val_text(f->v));
  Shape o;
  const char *why = ltN_parse_shape(f->v->s, &o);
  if (!why && (s->n != 1 || o.n != 1 || strcmp(s->keys[0], o.keys[0]) != 0))
    why = ltU_fmt("an off_grid bucket names the one size that its entry's bucket (%s) names", en->bucket);
  if (!why && o.vals[0] == s->vals[0]) why = "off_grid names the entry's own bucket";
  if (why) tuned_error(f->line, "bad off_grid \"%s\": %s", ltN_clean(f->v->s), why);
  en->off_grid = shape_text(&o);
  en->off_line = f->line;
}

/* Entry en's off_grid bucket, where it has one, must be the bucket of
** another entry of its target, device and variant, one with no off_grid
** itself (one step: the launcher tests the row once). */
static void check_off_grid(const Entry *en) {
  if (!en->off_grid) return;
  for (int j = 0; j < ltN_run.nentries; j++) {
    const Entry *o = &ltN_run.entries[j];
    if (strcmp(o->target, en->target) != 0 || strcmp(o->device, en->device) != 0 ||
        strcmp(o->variant, en->variant) != 0 || strcmp(o->bucket, en->off_grid) != 0)
      continue;
    if (o->off_grid)
      tuned_error(en->off_line, "off_grid \"%s\" names a bucket with an off_grid of its own (line %d); name that "
                  "bucket's instead", en->off_grid, o->off_line);
    return;
  }
  tuned_error(en->off_line, "off_grid \"%s\" names no entry of %s, %s, %s; it names another bucket of the variant",
              en->off_grid, ltN_clean(en->target), ltN_clean(en->device), ltN_clean(en->variant));
}

/* Reads and checks every entry of the file. */
static void read_entries(const Val *top, const char *kernel, const TunedValue *cfg, int ncfg) {
  Field *k = field(top, "kernel");
  if (k && k->v->kind != V_STR) tuned_error(k->line, "kernel must be a string, not %s", val_text(k->v));
  if (k && strcmp(k->v->s, kernel) != 0)
    tuned_error(k->line, "this tuned-config file is for kernel '%s', not '%s'", ltN_clean(k->v->s), kernel);
  Field *es = field(top, "entries");
  if (!es) tuned_error(top->line, "the table has no entries = { ... }");
  if (es->v->kind != V_TABLE) tuned_error(es->line, "entries must be a list of tables, not %s", val_text(es->v));
  const Val *list = es->v;
  ltN_run.entries = ltU_alloc(sizeof *ltN_run.entries * (size_t)(list->nf + 1));
  ltN_run.nentries = 0;
  for (int i = 0; i < list->nf; i++) {
    const Field *f = &list->f[i];
    if (f->key) tuned_error(f->line, "entries is a list: { target = ... }, { ... }, not %s = ...", f->key);
    if (f->v->kind != V_TABLE) tuned_error(f->line, "an entry must be a table, not %s", val_text(f->v));
    const Val *e = f->v;
    Entry *en = &ltN_run.entries[ltN_run.nentries++];
    en->line = e->line;
    en->target = entry_string(e, "target");
    if (!ltT_find(en->target)) {
      Buf b = {0};
      for (int j = 0; ltT_all[j]; j++) ltU_printf(&b, "%s%s", j ? ", " : "", ltT_all[j]->name);
      tuned_error(field(e, "target")->line, "unknown target '%s' (targets: %s)", ltN_clean(en->target), b.p);
    }
    en->device = entry_string(e, "device");
    en->variant = entry_string(e, "variant");
    const char *bucket = entry_string(e, "bucket");
    Shape s;
    const char *why = ltN_parse_shape(bucket, &s);
    Shape r = s;
    en->size_log = to_bucket(&r);
    en->one = !why && s.n == 1 ? s.vals[0] : 0;
    if (!why && s.n == 1 && s.vals[0] < 1) why = ltU_fmt("%s=%lld is not a size (at least 1)", s.keys[0], s.vals[0]);
    for (int j = 0; !why && s.n > 1 && j < s.n; j++)
      if (s.vals[j] != r.vals[j])
        why = ltU_fmt("%s=%lld is not a power of two (a bucket of several sizes names powers of two; one of a "
                      "single size may name any)", s.keys[j], s.vals[j]);
    if (why) tuned_error(field(e, "bucket")->line, "bad bucket \"%s\": %s", ltN_clean(bucket), why);
    en->bucket = shape_text(&s);
    entry_config(en, e, kernel, cfg, ncfg);
    entry_off_grid(en, e, &s);
    entry_alternative(en, e, kernel, cfg, ncfg);
    for (int j = 0; j < ltN_run.nentries - 1; j++) {
      const Entry *o = &ltN_run.entries[j];
      if (strcmp(o->target, en->target) == 0 && strcmp(o->device, en->device) == 0 &&
          strcmp(o->variant, en->variant) == 0 && strcmp(o->bucket, en->bucket) == 0)
        tuned_error(en->line, "a second entry for %s, %s, %s, bucket %s (the first is at line %d)",
                    ltN_clean(en->target), ltN_clean(en->device), ltN_clean(en->variant), en->bucket, o->line);
    }
  }
  for (int i = 0; i < ltN_run.nentries; i++) check_off_grid(&ltN_run.entries[i]);
}

/* Chooses the device for the run's target: --device, else the only device
** the target's entries name (a rule's "any" is none); sets no_device when
** there is none. */
static void choose_device(void) {
  const char *seen[64];
  int n = 0, more = 0;
  for (int i = 0; i < ltN_run.nentries; i++) {
    const Entry *e = &ltN_run.entries[i];
    if (strcmp(e->target, ltN_run.target->name) != 0 || strcmp(e->device, RULE) == 0) continue;
    if (opts.device && strcmp(e->device, opts.device) != 0) continue;
    int j = 0;
    while (j < n && strcmp(seen[j], e->device) != 0) j++;
    if (j < n) continue;
    if (n == 64) { more = 1; continue; }
    for (j = n++; j > 0 && strcmp(seen[j - 1], e->device) > 0; j--) seen[j] = seen[j - 1];
    seen[j] = e->device;
  }
  if (n == 1 && !more) {
    ltN_run.device = seen[0];
  } else if (n == 0 && opts.device) {
    ltN_run.no_device =
        ltU_fmt("%s has no entry for %s on %s", ltN_run.shown, ltN_run.target->name, ltN_clean(opts.device));
  } else if (n == 0) {
    ltN_run.no_device = ltU_fmt("%s has no entry for %s", ltN_run.shown, ltN_run.target->name);
  } else {
    Buf b = {0};
    for (int j = 0; j < n; j++) ltU_printf(&b, "%s%s", j ? "; " : "", ltN_clean(seen[j]));
    ltN_run.no_device = ltU_fmt("%s has %s entries for %d devices (%s%s); choose one with --device", ltN_run.shown,
                                ltN_run.target->name, n, b.p, more ? "; ..." : "");
  }
}

/* Finds and reads the kernel's tuned file, unless --no-tuned; checks every
** entry against the kernel's config (cfg: each key with the kind of its
** value) and chooses the device for target t (NULL: --list without a
** target).  No file at the default place is not an error. */
void ltN_load(const char *kernel_file, const char *kernel, const Target *t, const TunedValue *cfg, int ncfg) {
  ltN_run.tpath = NULL;
  ltN_run.target = t;
  ltN_run.device = ltN_run.no_device = ltN_run.want_bucket = NULL;
  if (opts.off) return;
  const char *path = opts.file ? opts.file : default_path(kernel_file, kernel);
  struct stat st;
  if (!opts.file && stat(path, &st) != 0) return;
  ltN_run.tpath = path;
  ltN_run.shown = opts.file ? ltN_clean(opts.file) : shown_name(path);
  read_entries(read_file(), kernel, cfg, ncfg);
  if (opts.shape) {
    Shape s;
    ltN_parse_shape(opts.shape, &s);   /* main checked it */
    ltN_run.want_shape = s;
    to_bucket(&s);
    ltN_run.want_bucket = shape_text(&s);
  }
  if (t) choose_device();
}

/* Was a tuned file read for this run? */
int ltN_active(void) { return ltN_run.tpath != NULL; }

/* --list without --target: one line on the file, or NULL when none. */
const char *ltN_summary(void) {
  if (!ltN_run.tpath) return NULL;
  Buf b = {0};
  int n = 0;
  for (int i = 0; ltT_all[i]; i++) {
    int c = 0;
    for (int j = 0; j < ltN_run.nentries; j++) c += strcmp(ltN_run.entries[j].target, ltT_all[i]->name) == 0;
    if (c) ltU_printf(&b, "%s%s %d", n++ ? ", " : "", ltT_all[i]->name, c);
  }
  return ltU_fmt("%s, %d entr%s%s%s; --list --target T shows the config each variant gets", ltN_run.tpath,
                 ltN_run.nentries, ltN_run.nentries == 1 ? "y" : "ies", n ? ": " : "", n ? b.p : "");
}

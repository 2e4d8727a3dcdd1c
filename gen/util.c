/*
** util.c: memory, growable text buffers and error reporting for gen.
**
** gen is a short-lived program: everything is allocated from the C heap and
** never freed (the process exits after writing its files).  A user error
** prints one line "file:line: error: message" and longjmps back to main,
** which exits with code 1 before any output file is written.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lt.h"

const char *ltU_file = "?";
jmp_buf ltU_jmp;            /* set by main around the whole run */
void (*ltU_raise)(const char *msg);

/* Memory: gen's own allocations (this arena, Bufs) and the Lua state's
** (lua/api.c) count against one ceiling, LT_MEM_LIMIT, as the C heap
** spends it (a block's header and rounding included).  Going over it is a
** user error, once: ltU_mem_over stays set, so that the error can be
** reported (which allocates) and no pcall of the kernel file swallows it. */
#define LT_MEM_LIMIT ((size_t)1 << 30)
size_t ltU_mem_used;
int ltU_mem_over;

/* What the C heap spends on a block of n bytes (glibc: a 16-byte aligned
** chunk with an 8-byte header, 32 bytes at least). */
size_t ltU_mem_cost(size_t n) {
  size_t c = (n + 8 + 15) & ~(size_t)15;
  return c < 32 ? 32 : c;
}

/* Is there room for n more bytes under the ceiling (cost included)? */
int ltU_mem_room(size_t n) { return !ltU_mem_over && n <= LT_MEM_LIMIT && ltU_mem_used <= LT_MEM_LIMIT - n; }

/* Counts n bytes more of gen's own memory; past the ceiling, a user error. */
static void charge(size_t n) {
  if (!ltU_mem_room(n) && !ltU_mem_over) {
    ltU_mem_over = 1;
    ltU_mem_used += n;
    ltU_error(0, "the kernel file used over 1 GiB of memory");
  }
  ltU_mem_used += n;
}

/* Allocates n zeroed bytes; out of memory ends the program (exit 3). */
void *ltU_alloc(size_t n) {
  charge(ltU_mem_cost(n));
  void *p = calloc(1, n ? n : 1);
  if (!p) {
    fputs("gen: out of memory\n", stderr);
    exit(3);
  }
  return p;
}

/* Copies a NUL-terminated string into the heap. */
char *ltU_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = ltU_alloc(n);
  memcpy(p, s, n);
  return p;
}

/* Formats fmt with ap like vprintf into arena-owned text of any length. */
char *ltU_vfmt(const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  char *p = ltU_alloc((size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

/* Formatted text, arena-owned, as long as it is. */
char *ltU_fmt(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = ltU_vfmt(fmt, ap);
  va_end(ap);
  return p;
}

/* Makes room for n more bytes (plus the terminating NUL). */
static void reserve(Buf *b, size_t n) {
  if (b->n + n + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + n + 1) cap *= 2;
  charge(ltU_mem_cost(cap) - (b->cap ? ltU_mem_cost(b->cap) : 0));
  char *p = realloc(b->p, cap);
  if (!p) {
    fputs("gen: out of memory\n", stderr);
    exit(3);
  }
  b->p = p;
  b->cap = cap;
}

/* Appends a string. */
void ltU_put(Buf *b, const char *s) { ltU_putn(b, s, strlen(s)); }

/* Appends the n bytes at s (no NUL among them). */
void ltU_putn(Buf *b, const char *s, size_t n) {
  reserve(b, n);
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

/* Appends formatted text. */
void ltU_printf(Buf *b, const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  reserve(b, (size_t)n);
  vsnprintf(b->p + b->n, (size_t)n + 1, fmt, aq);
  va_end(aq);
  b->n += (size_t)n;
}

/* Appends two spaces per nesting level. */
void ltU_indent(Buf *b, int depth) {
  for (int i = 0; i < depth; i++) ltU_put(b, "  ");
}

/* The length of the UTF-8 sequence at p (2 to 4) when it is well formed and
** no control, line-breaking or direction-changing character (C1 controls,
** U+2028/9, bidi overrides and isolates); else 0. */
static int utf8_printable(const unsigned char *p) {
  unsigned c = p[0], n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (!n) return 0;
  unsigned cp = c & (0x7f >> n);
  for (unsigned i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (p[i] & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp < 0xe000)) return 0;
  if (cp < 0xa0 || cp == 0x2028 || cp == 0x2029 || (cp >= 0x200e && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff)
    return 0;
  return (int)n;
}

/* A copy of s fit to print as one line of a message: control characters,
** malformed UTF-8 and the characters that move the cursor or the text's
** direction become '?', and past max bytes it ends in "...". */
char *ltU_one_line(const char *s, size_t max) {
  size_t n = strlen(s);
  char *r = malloc((n < max ? n : max) + 4);
  if (!r) return (char *)"(a message too large to print)";
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p && o < max;) {
    int u = *p >= 0x80 ? utf8_printable(p) : 0;
    if (u && o + (size_t)u <= max) {
      memcpy(r + o, p, (size_t)u);
      o += (size_t)u;
      p += u;
    } else {
      r[o++] = *p < 0x20 || *p >= 0x7f ? '?' : (char)*p;
      p += *p >= 0x80 && u ? u : 1;
    }
    if (o >= max && *p) {
      memcpy(r + o, "...", 3);
      o += 3;
    }
  }
  r[o] = 0;
  return r;
}

/* Reports a user error at a DSL line and unwinds: through Lua (ltU_raise,
** set by lua/api.c while the kernel file runs) or straight to main. */
void ltU_error(int line, const char *fmt, ...) {
  va_list ap;
  Buf b = {0};
  char msg[1024];
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) ltU_printf(&b, "%s:%d: error: %s", ltU_file, line, msg);
  else ltU_printf(&b, "%s: error: %s", ltU_file, msg);
  if (ltU_raise) ltU_raise(b.p);
  fprintf(stderr, "%s\n", ltU_one_line(b.p, LT_MSG_MAX));
  longjmp(ltU_jmp, 1);
}

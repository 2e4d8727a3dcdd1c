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

/* Allocates n zeroed bytes; out of memory ends the program (exit 3). */
void *ltU_alloc(size_t n) {
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

/* Formats like printf into a fresh heap string. */
char *ltU_fmt(const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = ltU_alloc((size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, aq);
  va_end(aq);
  return p;
}

/* Makes room for n more bytes (plus the terminating NUL). */
static void reserve(Buf *b, size_t n) {
  if (b->n + n + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + n + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    fputs("gen: out of memory\n", stderr);
    exit(3);
  }
  b->p = p;
  b->cap = cap;
}

/* Appends a string. */
void ltU_put(Buf *b, const char *s) {
  size_t n = strlen(s);
  reserve(b, n);
  memcpy(b->p + b->n, s, n + 1);
  b->n += n;
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
  fprintf(stderr, "%s\n", b.p);
  longjmp(ltU_jmp, 1);
}

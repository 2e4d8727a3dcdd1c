/*
** error.c: status names and the per-thread "last failure" line.
**
** Each failing runtime call records one line with lt_fail (what it tried,
** on what, and the vendor's words where there are any); lt_error_detail
** returns it.  The buffer is thread-local, so threads do not see each
** other's failures.  Public calls clear it when they start, so after a
** successful call it is "".
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

static _Thread_local char detail[512];

/* Formats the failure into this thread's buffer; returns status unchanged
** so callers can write "return lt_fail(LT_ERR_INVALID, ...)". */
int lt_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  return status;
}

/* Empties this thread's failure line. */
void lt_clear(void) { detail[0] = 0; }

/* Returns this thread's last failure line, "" if there was none. */
const char *lt_error_detail(void) { return detail; }

/* Short name of a status; never NULL, "unknown status" past the list. */
const char *lt_status_string(int status) {
  switch (status) {
  case LT_OK: return "ok";
  case LT_ERR_INVALID: return "invalid argument";
  case LT_ERR_NO_RUNTIME: return "vendor runtime not found";
  case LT_ERR_NO_DEVICE: return "no such device";
  case LT_ERR_NO_MEMORY: return "out of memory";
  case LT_ERR_LOAD: return "cannot load module";
  case LT_ERR_SYMBOL: return "unknown symbol";
  case LT_ERR_LAUNCH: return "launch failed";
  case LT_ERR_VENDOR: return "vendor runtime error";
  }
  return "unknown status";
}

static const char *const backend_names[] = { "cpu", "cuda", "hip" };

/* Name of a backend, "unknown" when out of range. */
const char *lt_backend_name(int backend) {
  if (backend < 0 || backend > 2) return "unknown";
  return backend_names[backend];
}

/* Backend from its name ("cpu", "cuda", "hip"); also accepts "c". */
int lt_backend_parse(const char *name, int *backend) {
  lt_clear();
  if (!name || !backend) return lt_fail(LT_ERR_INVALID, "lt_backend_parse: NULL argument");
  if (strcmp(name, "c") == 0) { *backend = LT_BACKEND_CPU; return LT_OK; }
  for (int i = 0; i < 3; i++)
    if (strcmp(name, backend_names[i]) == 0) { *backend = i; return LT_OK; }
  return lt_fail(LT_ERR_INVALID, "unknown backend '%s' (cpu, cuda, hip)", name);
}

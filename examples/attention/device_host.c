/*
** device_host.c: device.h for the c target: "device" memory is host
** memory, and a launch has finished when the launcher returns.
*/
#include <stdlib.h>
#include <string.h>

#include "device.h"

const char *dev_name(void) { return "CPU (c target)"; }

void *dev_alloc(size_t bytes) { return malloc(bytes); }

int dev_upload(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return 0;
}

int dev_download(void *dst, const void *src, size_t bytes) {
  memcpy(dst, src, bytes);
  return 0;
}

int dev_fill(void *dst, int byte, size_t bytes) {
  memset(dst, byte, bytes);
  return 0;
}

int dev_sync(void) { return 0; }

/* The c target's launchers return 1 for a bad argument. */
const char *dev_error(int code) { return code == 1 ? "bad argument (null or misaligned pointer, bad size)" : "error"; }

void dev_free(void *p) { free(p); }

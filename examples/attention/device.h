/*
** device.h: the little the example needs from "the device": memory and a
** wait.  device_cuda.c implements it with the CUDA runtime (pointers on the
** GPU), device_host.c with malloc (the c target's launchers take host
** pointers and run before they return).  Each returns 0 on success.
*/
#ifndef EXAMPLE_DEVICE_H
#define EXAMPLE_DEVICE_H

#include <stddef.h>

const char *dev_name(void);                                   /* "CUDA" or "CPU (c target)" */
void *dev_alloc(size_t bytes);                                /* NULL on failure */
int dev_upload(void *dst, const void *src, size_t bytes);     /* host -> device */
int dev_download(void *dst, const void *src, size_t bytes);   /* device -> host */
int dev_fill(void *dst, int byte, size_t bytes);              /* memset on the device */
int dev_sync(void);                                           /* wait for the launches; their error */
const char *dev_error(int code);                              /* text of a launcher's return code */
void dev_free(void *p);

#endif

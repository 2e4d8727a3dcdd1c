/*
** lua/tuned.h: what the tuned-config file's reader (tuned.c) shares with
** its queries (tuned_query.c): the entries it read, the run's choice of
** device and bucket, and the helpers both use.  Not for the rest of gen,
** which asks through the ltN_ functions of lt.h.
*/
#ifndef LT_TUNED_H
#define LT_TUNED_H

#include "lt.h"

/* A bucket or --shape: sizes by name ("C=4096,R=32768"). */
typedef struct Shape {
  const char *keys[LT_MAXRANK * 4];
  long long vals[LT_MAXRANK * 4];
  int n;
} Shape;

/* One entry of the file, checked (tuned.c, read_entries). */
typedef struct Entry {
  const char *target, *device, *variant;
  const char *bucket;   /* canonical: keys sorted */
  int size_log;         /* log2 of the bucket's element count, each size rounded up to a power of two */
  long long one;        /* a bucket of one size: that size; else 0 */
  TunedValue *vals;
  int nvals;
  int line;
  const char *off_grid; /* the bucket whose config runs this bucket's rows off the 16-byte grid, or NULL */
  int off_line;         /* of off_grid */
  TunedValue *alt[LT_MAX_ALTS];   /* the entry's alternatives: its config with each one's keys laid over */
  int nalt[LT_MAX_ALTS];
  int alt_line[LT_MAX_ALTS];      /* of each */
  int nalts;
} Entry;

/* The file read and the choice made for the run (ltN_load). */
typedef struct TunedRun {
  const char *tpath;        /* the tuned file as opened; NULL: none read */
  const char *shown;        /* tpath in messages: --tuned as given, else by its last components */
  Entry *entries;
  int nentries;
  const Target *target;     /* of the run; NULL for --list without --target */
  const char *device;       /* chosen for target, or NULL */
  const char *no_device;    /* why none was chosen */
  const char *want_bucket;  /* --shape as a bucket, or NULL */
  Shape want_shape;         /* --shape as given (want_bucket not NULL) */
} TunedRun;
extern TunedRun ltN_run;

#define RULE "any"   /* the device of a rule's entries */

const char *ltN_parse_shape(const char *text, Shape *s);   /* NULL, or why text is not "K=V,K=V" */
int ltN_log2_up(long long v);                              /* log2 of v rounded up to a power of two */
const char *ltN_clean(const char *s);                      /* s fit for one line of a C comment */

#endif

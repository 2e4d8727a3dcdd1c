/*
** main.c: the command line of gen and the flat list of passes.
**
**   gen FILE.lua --target T -o DIR [-D key=value]...   write DIR/<variant>.{cu,hip,c,h}
**   gen FILE.lua --list [--target T]                   variants and config
**   gen FILE.lua --target T --explain                  the plan, no files
**   gen FILE.lua --target T --emulate -o DIR           DIR/<variant>.emu.cpp: the GPU
**                                                      code, run on the CPU lane by lane
**
** The config defaults come from the kernel's tuned-config file when there
** is one (lua/tuned.c; --device, --shape, --tuned, --no-tuned), then -D.
**
** Every variant is generated in memory first; files are written only when
** all of them succeeded, so a failed run leaves no output behind.  The
** files of a run replace those of an earlier one as a whole (write_outputs):
** under a lock on DIR/.gen.lock they are written into a fresh folder
** DIR/.gen.XXXXXX (mkdtemp; each file opened O_EXCL | O_NOFOLLOW, so no
** planted name or link is written through), then renamed into DIR.  A run
** that fails leaves DIR as it was; one killed before its renames leaves
** the old files, and one killed during them (microseconds) leaves a
** marked folder that the next run into DIR completes first.  Then (and
** after --explain's plan) the notes on config values without effect on
** the target (pass/plan.c) go to stderr, each once.  Exit: 0 ok, 1 user
** error, 2 usage.
*/
#define _DEFAULT_SOURCE   /* mkdtemp, flock, O_NOFOLLOW, DT_ */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lt.h"

extern jmp_buf ltU_jmp;

/* The passes, in order, for one variant (gen/pass/); then emit/ prints it. */
static void run_passes(Kernel *k, const Target *t) {
  ltP_row(k);                       /* row.c: a row twin's A read as rows; another's test for one */
  ltP_inline(k);                    /* inline.c: unnamed temporaries into their one use */
  ltP_mma(k, t);                    /* mma.c: the gemms' instruction, warp grid, accumulator layouts */
  ltP_row_keep(k);                  /* row.c: that test kept for the swapped operands only */
  ltP_layout(k, t);                 /* layout.c: every register tile's layout */
  ltP_colshift(k);                  /* colshift.c: shifted columns read their definition, not a let */
  ltP_resident(k, t);               /* resident.c: rows read twice kept in shared memory (config resident) */
  ltP_issue(k, t);                  /* issue.c: the loads of a step, issued together */
  ltP_plan_loops(k, t);             /* plan.c: how each k:pipelined loop runs on t */
  ltP_pipeline(k);                  /* pipeline.c: the stage rings that needs */
  ltP_smem(k, t);                   /* smem.c: reduction scratch, offsets, staged stores */
  ltP_resident_place(k, t);         /* resident.c: the kept rows' tile, after those */
  ltP_early(k, t);                  /* early.c: loads after a warp-specialized loop, staged before it */
  if (t->warp > 1) ltP_barrier(k);  /* barrier.c: the block barriers */
  ltP_plan(k, t);                   /* plan.c: the rest of the plan, and the notes */
  ltP_plan_join(k);                 /* join.c: no wgmmas in flight across a branch join */
  ltP_fastdiv(k);                   /* fastdiv.c: a persistent grid's index divisions by multiply and shift */
}

typedef struct Gen {
  const Target *target;
  int explain;
  int emulate;              /* --emulate */
  int no_share;             /* --no-share: every tuned bucket its own kernel (pass/share.c) */
  Buf explained;
  const char *names[256], *srcs[256], *hdrs[256];
  int n;
  Kernel *group[LT_MAX_BUCKETS];   /* a variant's tuned buckets so far */
  int ngroup;
  Kernel *last;             /* the last kernel that was not a cp.async twin */
  const char *notes[64];    /* the variants' notes (plan.c), each text once */
  int nnotes;
} Gen;

/* Keeps the notes of variant k that no variant before gave: printed once
** every variant has succeeded (print_notes). */
static void keep_notes(Gen *g, const Kernel *k) {
  for (const Note *n = k->notes; n; n = n->next) {
    int seen = 0;
    for (int i = 0; i < g->nnotes && !seen; i++) seen = strcmp(g->notes[i], n->text) == 0;
    if (!seen && g->nnotes < 64) g->notes[g->nnotes++] = n->text;
  }
}

/* Prints the notes kept, on stderr after what went to stdout. */
static void print_notes(const Gen *g) {
  fflush(stdout);
  for (int i = 0; i < g->nnotes; i++) fprintf(stderr, "%s\n", g->notes[i]);
}

/* Prints the variant whose kernels (one, or one per tuned bucket) are in
** g->group. */
static void emit_group(Gen *g) {
  Kernel *k = g->group[0];
  if (g->n == 256) ltU_error(k->line, "more than 256 variants; pick some with -D, or split the kernel");
  ltP_row_group(g->group, g->ngroup);   /* row.c: the row twins that M = 1 reaches */
  BucketTexts bt;   /* share.c: buckets whose kernels print alike share one */
  if (!g->no_share) ltE_bucket_texts(g->group, g->ngroup, g->target, g->emulate, &bt);
  ltP_share(g->group, g->ngroup, g->no_share ? NULL : bt.text);
  ltP_waves(g->group, g->ngroup);   /* waves.c: the tiles an alternative's pick weighs */
  Output o = ltE_emit(g->group, g->ngroup, g->target, g->emulate, g->no_share ? NULL : &bt);
  g->names[g->n] = k->launcher;
  g->srcs[g->n] = o.src;
  g->hdrs[g->n] = o.hdr;
  g->n++;
  g->ngroup = 0;
}

/* Is k, a build of bucket kernel first (first itself, or one of its
** twins), the last of first's builds, and first's bucket the variant's
** last?  Each bucket comes as its kernel, then on a target with TMA its
** cp.async twin, then where it has a row twin's test (Kernel.row_when)
** the row twin and on a target with TMA that one's cp.async twin. */
static int last_build(const Gen *g, const Kernel *first, const Kernel *k) {
  return g->ngroup == first->nbuckets + !first->nbuckets && (!first->row_when || k->as_row) &&
         (!g->target->tma || k->fallback);
}

/* Called by the front end (lua/) once per variant with its IR, or once per
** tuned shape bucket of a variant that has several (k->nbuckets): those are
** written into one file when the last arrives, buckets of one resolved
** config sharing one kernel (pass/share.c).  On a target with TMA each
** comes twice, the second time as its cp.async twin (k->fallback): kept,
** as the first's twin, only when the first took the warp-specialized TMA
** schedule (k->ws), and neither explained nor noted on its own.  A kernel
** with a row twin's test (pass/row.c) is followed by its row twin (and
** that one's cp.async twin), kept as Kernel.row.  Under
** --explain, a variant's config and where it came from follow its plan
** when a tuned file was read (lua/variants.c puts the origin into
** config_desc). */
static void on_variant(Kernel *k, void *ud) {
  Gen *g = ud;
  run_passes(k, g->target);
  if (k->fallback || k->as_row) {
    Kernel *first = g->last;
    if (!k->fallback) first->row = k;
    else if (k->as_row && first->row->ws) first->row->twin = k;
    else if (!k->as_row && first->ws) first->twin = k;
    if (!g->explain && last_build(g, first, k)) emit_group(g);
    return;
  }
  g->last = k;
  keep_notes(g, k);
  if (g->explain) {
    ltE_explain(k, g->target, &g->explained);
    if (ltN_active()) ltU_printf(&g->explained, "  config: %s\n", k->config_desc);
    return;
  }
  g->group[g->ngroup++] = k;
  if (last_build(g, k, k)) emit_group(g);   /* else at its last twin */
}

/* Prints the usage text (--help) to f. */
static void usage(FILE *f) {
  fputs("usage: gen FILE.lua --target TARGET -o DIR [-D key=value]... [tuned options]\n"
        "       gen FILE.lua --list [--target TARGET] [tuned options]\n"
        "       gen FILE.lua --target TARGET --explain [-D key=value]... [tuned options]\n"
        "\n"
        "Runs a luatile kernel file and writes one source file and one header per\n"
        "variant into DIR.  Options:\n"
        "  --target T   one of:", f);
  for (int i = 0; ltT_all[i]; i++) fprintf(f, " %s", ltT_all[i]->name);
  fputs("\n"
        "  -o DIR       output directory (made if missing)\n"
        "  -D key=value override a config value or pick one variant value\n"
        "  --list       print the kernel's variants and config; with --target, each\n"
        "               variant's config and where it comes from\n"
        "  --explain    print the plan (grid, block, layouts, shared memory)\n"
        "  --emulate    write DIR/<variant>.emu.cpp: the GPU code with a preamble that\n"
        "               runs it on the CPU, lane by lane (CUDA and HIP targets)\n"
        "  --no-share   a kernel for every tuned shape bucket, also where several\n"
        "               buckets' kernels are the same code (by default they share one)\n"
        "  --help, --version\n"
        "\n"
        "Tuned configs (docs/runtime.md): each variant's config defaults come from its\n"
        "entry in tuned/<kernel>.lua beside the kernel file's folder (written by\n"
        "runtime/tune.lua) for the target, device and shape bucket; -D still wins.\n"
        "  --device NAME    the device the entries were tuned on, as the tuner names it\n"
        "                   (default: the one device the target's entries name; when\n"
        "                   they name several, none: the kernel's config)\n"
        "  --shape K=V,...  sizes whose bucket (each rounded up to a power of two)\n"
        "                   picks the entry (default: the largest bucket)\n"
        "  --tuned FILE     read this tuned-config file instead\n"
        "  --no-tuned       read none: the kernel's own config\n"
        "Exit status: 0 ok, 1 error in the kernel file or the tuned file, 2 usage error.\n", f);
}

/* Prints a usage error (fmt with one %s) and returns exit status 2. */
static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "gen: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(gen --help for usage)\n");
  return 2;
}

/* ------------------------------------------------------------------ */
/* writing the outputs: all of a run's files or none                  */

#define COMMIT ".commit"   /* in a temporary folder: its files are complete, rename them in */
#define OLD ".old."        /* in a temporary folder: a link to the file a rename replaces */

/* Writes n bytes to fd; 0 on success. */
static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Creates dir/name, which must not exist (no link is followed), holding
** text; 0 on success. */
static int create_file(const char *dir, const char *name, const char *text) {
  int fd = open(ltU_fmt("%s/%s", dir, name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  int ok = write_all(fd, text, strlen(text)) == 0;
  int e = errno;
  if (close(fd) != 0) ok = 0;
  else errno = e;
  return ok ? 0 : -1;
}

/* Removes the temporary folder tmp and the files in it (it has no
** folders); 0 on success. */
static int remove_tmp(const char *tmp) {
  DIR *d = opendir(tmp);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(ltU_fmt("%s/%s", tmp, e->d_name));
    closedir(d);
  }
  return rmdir(tmp);
}

/* Finishes or undoes what a run killed while writing into dir left: a
** temporary folder with its COMMIT mark has its files renamed in (the
** run had started to), one without is removed (the old files stand). */
static void recover(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char *left[64];
  int n = 0;
  while ((e = readdir(d)) && n < 64)
    if (strncmp(e->d_name, ".gen.", 5) == 0 && strcmp(e->d_name, ".gen.lock") != 0) left[n++] = ltU_strdup(e->d_name);
  closedir(d);
  for (int i = 0; i < n; i++) {
    const char *tmp = ltU_fmt("%s/%s", dir, left[i]);
    struct stat st;
    if (lstat(tmp, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (lstat(ltU_fmt("%s/%s", tmp, COMMIT), &st) == 0) {
      DIR *t = opendir(tmp);
      if (!t) continue;
      while ((e = readdir(t)))
        if (e->d_name[0] != '.') rename(ltU_fmt("%s/%s", tmp, e->d_name), ltU_fmt("%s/%s", dir, e->d_name));
      closedir(t);
    }
    remove_tmp(tmp);
  }
}

/* Takes the lock of dir (DIR/.gen.lock, flock): one run at a time writes
** into a folder.  Returns the lock file's descriptor, or -1.  A lock file
** unlinked by the run that held it is not the lock any more: try again. */
static int lock_dir(const char *dir) {
  const char *path = ltU_fmt("%s/.gen.lock", dir);
  for (;;) {
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    struct stat a, b;
    if (flock(fd, LOCK_EX) != 0 || fstat(fd, &a) != 0) {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    if (lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) return fd;
    close(fd);
  }
}

/* Replaces the files names[i] of dir with texts[i] (n of them) as one
** change (see the top of this file); on failure, says why in *why and
** leaves dir as it was; 0 on success. */
static int write_outputs(const char *dir, const char **names, const char **texts, int n, const char **why) {
  int lock = lock_dir(dir);
  if (lock < 0) return *why = ltU_fmt("cannot lock '%s/.gen.lock': %s", dir, strerror(errno)), -1;
  recover(dir);
  char *tmp = ltU_fmt("%s/.gen.XXXXXX", dir);
  int rc = -1, moved = 0;
  if (!mkdtemp(tmp)) {
    *why = ltU_fmt("cannot make a temporary folder in '%s': %s", dir, strerror(errno));
    goto unlock;
  }
  for (int i = 0; i < n; i++) {
    struct stat st;
    const char *path = ltU_fmt("%s/%s", dir, names[i]);
    if (create_file(tmp, names[i], texts[i]) != 0) {
      *why = ltU_fmt("cannot write '%s/%s': %s", tmp, names[i], strerror(errno));
      goto undo;
    }
    if (lstat(path, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        *why = ltU_fmt("cannot write '%s': it is a folder", path);
        goto undo;
      }
      link(path, ltU_fmt("%s/%s%s", tmp, OLD, names[i]));   /* to put it back should a later rename fail */
    }
  }
  if (create_file(tmp, COMMIT, "") != 0) {
    *why = ltU_fmt("cannot write into '%s': %s", tmp, strerror(errno));
    goto undo;
  }
  for (; moved < n; moved++)
    if (rename(ltU_fmt("%s/%s", tmp, names[moved]), ltU_fmt("%s/%s", dir, names[moved])) != 0) {
      *why = ltU_fmt("cannot rename a file into '%s': %s", dir, strerror(errno));
      unlink(ltU_fmt("%s/%s", tmp, COMMIT));
      goto undo;
    }
  rc = 0;
  goto cleanup;
undo:   /* the files renamed in so far go back to what they were */
  for (int i = 0; i < moved; i++) {
    const char *old = ltU_fmt("%s/%s%s", tmp, OLD, names[i]), *path = ltU_fmt("%s/%s", dir, names[i]);
    struct stat st;
    if (lstat(old, &st) == 0) rename(old, path);
    else unlink(path);
  }
cleanup:
  remove_tmp(tmp);
unlock:
  unlink(ltU_fmt("%s/.gen.lock", dir));
  close(lock);
  return rc;
}

/* Makes dir and its missing parents; 0 on success. */
static int make_dir(const char *dir) {
  char *p = ltU_strdup(dir);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
      *s = '/';
    }
  if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
  return 0;
}

/* Records one -D key=value; reports a usage error and returns -1 if bad. */
static int add_define(GenRequest *req, const char *v) {
  const char *eq = strchr(v, '=');
  if (!eq || eq == v) return usage_error("-D takes key=value, not '%s'", v), -1;
  if (req->ndefs == 64) return usage_error("too many -D options%s", ""), -1;
  req->defs[req->ndefs].key = ltU_fmt("%.*s", (int)(eq - v), v);
  req->defs[req->ndefs].value = eq + 1;
  req->ndefs++;
  return 0;
}

/* Reads the command line, runs the kernel file and writes what it gives. */
int main(int argc, char **argv) {
  GenRequest req = {0};
  Gen g = {0};
  TunedOptions tuned = {0};
  const char *volatile outdir = NULL;   /* volatile: read after the setjmp below */
  const char *target = NULL;
  Define defs[64];
  req.defs = defs;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("luatile gen %s (Lua 5.4)\n", LT_VERSION);
      return 0;
    } else if (strcmp(a, "--list") == 0) {
      req.list = 1;
    } else if (strcmp(a, "--explain") == 0) {
      g.explain = 1;
    } else if (strcmp(a, "--emulate") == 0) {
      g.emulate = 1;
    } else if (strcmp(a, "--no-share") == 0) {
      g.no_share = 1;
    } else if (strcmp(a, "--no-tuned") == 0) {
      tuned.off = 1;
    } else if (strcmp(a, "--device") == 0 || strcmp(a, "--shape") == 0 || strcmp(a, "--tuned") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a value", a);
      const char *v = argv[++i];
      if (a[2] == 'd') tuned.device = v;
      else if (a[2] == 't') tuned.file = v;
      else if (ltN_shape_error(v)) return usage_error("--shape %s", ltN_shape_error(v));
      else tuned.shape = v;
    } else if (strcmp(a, "--target") == 0 || strcmp(a, "-o") == 0 || strcmp(a, "-D") == 0) {
      if (i + 1 >= argc) return usage_error("%s needs a value", a);
      const char *v = argv[++i];
      if (a[1] == 'o') outdir = v;
      else if (a[1] == '-') target = v;
      else if (add_define(&req, v) != 0) return 2;
    } else if (strncmp(a, "-D", 2) == 0 && a[2]) {
      if (add_define(&req, a + 2) != 0) return 2;
    } else if (a[0] == '-') {
      return usage_error("unknown option '%s'", a);
    } else if (req.file) {
      return usage_error("one kernel file at a time (got a second: '%s')", a);
    } else {
      req.file = a;
    }
  }
  if (!req.file) return usage_error("no kernel file given%s", "");
  if (tuned.off && tuned.file) return usage_error("--tuned and --no-tuned contradict each other%s", "");
  if (target && !(g.target = ltT_find(target)))
    return usage_error("unknown target '%s' (targets: sm80, sm90a, gfx90a, gfx942, gfx1100, c)", target);
  if (!req.list) {
    if (!target) return usage_error("--target is required (one of sm80, sm90a, gfx90a, gfx942, gfx1100, c)%s", "");
    if (!outdir && !g.explain) return usage_error("-o DIR is required to write files (or use --explain)%s", "");
    if (g.emulate && g.target->lang == LANG_C)
      return usage_error("--emulate is for the CUDA and HIP targets; the c target already runs on the CPU%s", "");
  }
  req.target = g.target;
  ltN_set_options(&tuned);
  ltU_file = req.file;
  if (setjmp(ltU_jmp)) return 1;   /* a user error was reported */
  Buf listing = {0};
  ltD_run(&req, on_variant, &g, req.list ? &listing : NULL);
  if (req.list) {
    fputs(listing.p, stdout);
    return 0;
  }
  if (g.explain) {
    fputs(g.explained.p ? g.explained.p : "", stdout);
    print_notes(&g);
    return 0;
  }
  if (make_dir(outdir) != 0) {
    fprintf(stderr, "gen: %s\n", ltU_one_line(ltU_fmt("cannot make the output directory '%s': %s", outdir,
                                                      strerror(errno)), LT_MSG_MAX));
    return 1;
  }
  const char *names[512], *texts[512], *why = NULL;
  for (int i = 0; i < g.n; i++) {
    names[2 * i] = ltU_fmt("%s%s", g.names[i], g.emulate ? LT_EMU_EXT : g.target->ext);
    texts[2 * i] = g.srcs[i];
    names[2 * i + 1] = ltU_fmt("%s.h", g.names[i]);
    texts[2 * i + 1] = g.hdrs[i];
  }
  if (write_outputs(outdir, names, texts, 2 * g.n, &why) != 0) {
    fprintf(stderr, "gen: %s\n", ltU_one_line(why, LT_MSG_MAX));
    return 1;
  }
  print_notes(&g);
  return 0;
}

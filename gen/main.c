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
** all of them succeeded, each through a temporary name and a rename, so a
** failed run leaves no output behind.  Then (and after --explain's plan)
** the notes on config values without effect on the target (pass/plan.c)
** go to stderr, each once.  Exit: 0 ok, 1 user error, 2 usage.
*/
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lt.h"

extern jmp_buf ltU_jmp;

/* The passes, in order, for one variant (gen/pass/); then emit/ prints it. */
static void run_passes(Kernel *k, const Target *t) {
  ltP_inline(k);                    /* inline.c: unnamed temporaries into their one use */
  ltP_mma(k, t);                    /* mma.c: the gemms' instruction, warp grid, accumulator layouts */
  ltP_layout(k, t);                 /* layout.c: every register tile's layout */
  ltP_plan_loops(k, t);             /* plan.c: how each k:pipelined loop runs on t */
  ltP_pipeline(k);                  /* pipeline.c: the stage rings that needs */
  ltP_smem(k, t);                   /* smem.c: reduction scratch, offsets, staged stores */
  if (t->warp > 1) ltP_barrier(k);  /* barrier.c: the block barriers */
  ltP_plan(k, t);                   /* plan.c: the rest of the plan, and the notes */
}

typedef struct Gen {
  const Target *target;
  int explain;
  int emulate;              /* --emulate */
  Buf explained;
  const char *names[256], *srcs[256], *hdrs[256];
  int n;
  Kernel *group[16];        /* a variant's tuned buckets so far */
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
  Output o = ltE_emit(g->group, g->ngroup, g->target, g->emulate);
  g->names[g->n] = k->launcher;
  g->srcs[g->n] = o.src;
  g->hdrs[g->n] = o.hdr;
  g->n++;
  g->ngroup = 0;
}

/* Called by the front end (lua/) once per variant with its IR, or once per
** tuned shape bucket of a variant that has several (k->nbuckets): those are
** written into one file when the last arrives.  On a target with TMA each
** comes twice, the second time as its cp.async twin (k->fallback): kept,
** as the first's twin, only when the first took the warp-specialized TMA
** schedule (k->ws), and neither explained nor noted on its own.  Under
** --explain, a variant's config and where it came from follow its plan
** when a tuned file was read (lua/variants.c puts the origin into
** config_desc). */
static void on_variant(Kernel *k, void *ud) {
  Gen *g = ud;
  run_passes(k, g->target);
  if (k->fallback) {
    Kernel *first = g->last;
    if (first->ws) first->twin = k;
    if (!g->explain && g->ngroup == first->nbuckets + !first->nbuckets) emit_group(g);
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
  if (g->ngroup == k->nbuckets + !k->nbuckets && !g->target->tma) emit_group(g);   /* else at its twin */
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

/* Writes text to dir/name through a temporary file; 0 on success. */
static int write_file(const char *dir, const char *name, const char *text, const char **written, int *nw) {
  char *path = ltU_fmt("%s/%s", dir, name);
  char *tmp = ltU_fmt("%s/.%s.tmp%ld", dir, name, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path) != 0) {
    remove(tmp);
    return -1;
  }
  written[(*nw)++] = path;
  return 0;
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
    fprintf(stderr, "gen: cannot make the output directory '%s': %s\n", outdir, strerror(errno));
    return 1;
  }
  const char *written[512];
  int nw = 0;
  for (int i = 0; i < g.n; i++) {
    const char *ext = g.emulate ? LT_EMU_EXT : g.target->ext;
    if (write_file(outdir, ltU_fmt("%s%s", g.names[i], ext), g.srcs[i], written, &nw) != 0 ||
        write_file(outdir, ltU_fmt("%s.h", g.names[i]), g.hdrs[i], written, &nw) != 0) {
      fprintf(stderr, "gen: cannot write into '%s': %s\n", outdir, strerror(errno));
      for (int j = 0; j < nw; j++) remove(written[j]);
      return 1;
    }
  }
  print_notes(&g);
  return 0;
}

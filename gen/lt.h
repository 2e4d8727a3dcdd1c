/*
** lt.h: the internal header of gen (emit/emit.h adds the emitter's own).
**
** gen turns a kernel file written in the Lua DSL into CUDA, HIP or C source.
** Lua runs the kernel file (lua/); every DSL call appends to a typed tile IR
** made of the structures below: symbols (tensors, sizes, fragments, shared
** tiles, temporaries), expressions over them, and statements in nested blocks.
** The passes listed in main.c then rewrite and annotate that IR (pass/inline.c,
** pass/layout.c, ...; pass/plan.c last takes the decisions the printing
** follows) and emit/ prints it for one Target (target.c), through the
** lowerings in lower/.  Every node keeps the DSL line it came from.
**
** Public names carry a prefix per module: ltU_ (util.c), ltI_ (ir.c),
** ltD_ (the front end, lua/), ltN_ (lua/tuned.c), ltP_ (pass/), ltE_ (emit/),
** ltT_ (target.c).  Two prefixes stay inside their folder: ltF_ names are
** shared among the files of lua/ (lua/dsl.h declares them), ltL_ names among
** lower/ and emit/ (emit/emit.h declares them with emit/'s internal ones).
*/
#ifndef LT_H
#define LT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LT_VERSION "0.1.0"
#define LT_MAX_SIZE 1073741823   /* largest size a launcher takes: 2^30 - 1 */
#define LT_C_STACK (1 << 20)   /* c target: bytes of arrays a block function keeps on its stack */
#define LT_MAX_TILE (1 << 24)    /* elements of a register or shared tile, at most */
#define LT_MAX_DEPTH 1000        /* nesting of an expression, at most (the passes and emit.c recurse on it) */
#define LT_MAX_SYMS 65536        /* symbols of a variant, at most (some passes take time growing with their square) */
#define LT_ISSUE_VECTORS 6       /* 16-byte vectors a thread of one group of loads issued together (pass/issue.c; 8: attention_bwd_pre d128, 75 -> 92 registers) */
#define LT_EMU_EXT ".emu.cpp"   /* gen --emulate's source files */

/* ---- util.c: arena, growable strings, errors ---- */

void *ltU_alloc(size_t n);                  /* zeroed; freed at exit */
char *ltU_strdup(const char *s);
char *ltU_fmt(const char *fmt, ...);        /* formatted, arena-owned */
char *ltU_vfmt(const char *fmt, va_list ap); /* the same, from a va_list */

typedef struct Buf { char *p; size_t n, cap; } Buf;
void ltU_put(Buf *b, const char *s);
void ltU_putn(Buf *b, const char *s, size_t n);
void ltU_printf(Buf *b, const char *fmt, ...);
void ltU_indent(Buf *b, int depth);
char *ltU_one_line(const char *s, size_t max);   /* printable, one line, cut at max bytes with "..." */
#define LT_MSG_MAX 2000                           /* an error message's bytes at most */

/* A user error at a DSL line: prints "file:line: error: msg" and unwinds to
** main (exit code 1).  line 0 prints "file: error: msg". */
void ltU_error(int line, const char *fmt, ...);
extern const char *ltU_file;                /* kernel file, as given */

/* ---- ir.c: data types ---- */

/* fp8e4m3 and fp8e5m2 are the OCP 8-bit floats (PyTorch's float8_e4m3fn and float8_e5m2), fp8e4m3fnuz
** and fp8e5m2fnuz AMD's FNUZ ones (float8_e4m3fnuz, float8_e5m2fnuz): storage types, held as f32 in
** registers; a value of them is cast, stored or fed to k:gemm, no arithmetic. */
typedef enum {
  DT_F32, DT_F16, DT_BF16, DT_I32, DT_I64, DT_U32, DT_FP8E4M3, DT_FP8E5M2, DT_FP8E4M3FNUZ, DT_FP8E5M2FNUZ,
  DT_BOOL, DT_COUNT   /* BOOL last of the named */
} Dtype;

/* An 8-bit float format (templates/fp8.h, templates/fp8_fnuz_dtypes.h): what gen's constant
** folding and its choice of matrix instruction read of it. */
typedef struct Fp8Format {
  int man, emin;       /* mantissa bits; the smallest normal value is 2^emin */
  double max;          /* the largest finite value */
  int fnuz;            /* FNUZ: no infinity, no -0, 0x80 the one NaN (else OCP's) */
  const char *mfma;    /* CDNA3's MFMA operand type of this width ("fp8": e4m3, "bf8": e5m2), on FNUZ bytes */
  const char *remap;   /* OCP: the helper mapping four bytes to those MFMA's FNUZ (templates/fp8_fnuz.h);
                          FNUZ: NULL, the bytes go as they are */
  const char *wgmma;   /* wgmma's operand type, or NULL: wgmma reads OCP bytes only */
} Fp8Format;

typedef struct DtypeInfo {
  const char *name;   /* DSL spelling */
  int bytes;
  int is_float;
  const Fp8Format *fp8;   /* an 8-bit float's format, else NULL */
} DtypeInfo;

extern const DtypeInfo ltI_dtypes[DT_COUNT];
int ltI_dtype_from_name(const char *s);     /* -1 if unknown */
const char *ltI_dtype_list(void);           /* the tensor dtypes' names, quoted, for messages */
Dtype ltI_compute_type(Dtype t);            /* f16/bf16 compute in f32 */
int ltI_is_int(Dtype t);                    /* i32, i64, u32 */
int ltI_is_fp8(Dtype t);                    /* fp8e4m3, fp8e5m2 and their FNUZ twins */
void ltI_int_range(Dtype t, double *lo, double *hi);   /* the values an integer dtype holds (i64: +-2^53, exact in a double) */
void ltI_check_fits(double v, Dtype t, int line);      /* an error at line when constant v is not a value of t */

/* ---- ir.c: symbols, expressions, statements ---- */

typedef struct Sym Sym;
typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Layout Layout;

typedef enum {
  SYM_SIZE,     /* symbolic tensor size: launcher parameter, int */
  SYM_STRIDE,   /* explicit tensor stride: launcher parameter, int64 */
  SYM_SCALAR,   /* scalar parameter (eps, alpha): launcher parameter */
  SYM_PID,      /* program id along a grid axis */
  SYM_LOOP,     /* runtime loop index */
  SYM_LET,      /* immutable value defined by an S_LET */
  SYM_FRAG,     /* mutable register tile (k:fragment) */
  SYM_SHARED,   /* shared-memory tile (k:shared, reduction scratch) */
  SYM_TENSOR    /* global tensor parameter */
} SymKind;

#define LT_MAXRANK 4

struct Sym {
  SymKind kind;
  const char *name;     /* C identifier; NULL until named */
  int named;            /* name came from the DSL (a Lua local or key) */
  Dtype dt;
  int rank;             /* 0: uniform scalar; 1 or 2: tile */
  int shape[2];         /* tiles: always two dims ([1, C] for rank 1) */
  int line;
  int seq;              /* creation order */
  int uses;             /* expression references */
  Stmt *def;            /* S_LET / S_FRAG declaration */
  int nonneg;           /* scalar known to be >= 0 */
  int positive;         /* scalar parameter the launcher requires to be > 0 */
  int device;           /* SYM_SCALAR k:sm_count: the launcher queries it (not a launcher parameter) */
  /* tensors */
  int trank;
  Expr *dims[LT_MAXRANK];
  Expr *strides[LT_MAXRANK];
  int loaded, stored;
  /* grid axis (SYM_PID) */
  int axis;
  Expr *extent;         /* SYM_PID: the grid's extent; SYM_LOOP: the loop's end (ltI_range) */
  /* shared tiles */
  int smem_offset, smem_bytes;
  int scratch;          /* compiler-made reduction scratch */
  int stages;           /* ring of this many copies (pipeline.c); 0 or 1: one */
  int swizzle;          /* XOR-swizzled in 16-byte chunks (mma.c) */
  int staging;          /* holds a register operand of a gemm on its way in (mma.c) */
  const Sym *copy_of;   /* a tf32 wgmma's B [K, N] that the consumers copy into this tile K-major (mma.c) */
  int over;             /* a store's staging tile, laid over the other shared tiles, dead by then (smem.c; on a
                           persistent grid after them) */
  int wgmma;            /* read by wgmma through a descriptor: aligned to its swizzle atom, rows of
                           more than 128 bytes stored as 64-column panels (mma.c) */
  int tma_out;          /* a TMA store's staging tile (smem.c): a ring of one [rows, cols] tile a consumer
                           warpgroup (stages), in 128-byte-row panels with the 128-byte swizzle, as wgmma's;
                           with over, one tile of the whole accumulator laid over the tile of the copies before
                           the warp-specialized loop, each warpgroup its own rows (Kernel.pre_out) */
  int bulk_red;         /* an atomic store's staging tile (smem.c, red_tiles): f32 rows padded by 8 elements, each
                           added into global memory by one cp.reduce.async.bulk (lower/store_reduce.c) */
  /* fragments and lets of tile rank */
  Layout *layout;
  struct Block *home;   /* block that defines it (scope check) */
};

typedef enum { E_CONST, E_SYM, E_UNARY, E_BINARY, E_SELECT, E_CAST, E_IOTA } ExprKind;

typedef enum {
  U_NEG, U_NOT, U_BNOT, U_SIGMOID,   /* printed as operators, the rest through Target.unop_f32 */
  U_GELU,   /* 0.5 x (1 + erf(x / sqrt 2)), made by pass/gelu.c alone, always fast: printed lt_gelu (CUDA) */
  U_EXP, U_EXP2, U_LOG, U_SQRT, U_RSQRT, U_TANH, U_ERF, U_ABS, U_SIN, U_COS, U_FLOOR, U_COUNT
} UnOp;

typedef enum {
  B_ADD, B_SUB, B_MUL, B_DIV, B_IDIV, B_MOD, B_MAX, B_MIN,
  B_LT, B_LE, B_GT, B_GE, B_EQ, B_NE, B_AND, B_OR,
  B_POW, B_BAND, B_BOR, B_BXOR, B_SHL, B_SHR,
  B_RAND, B_RANDINT,    /* tile.rand(seed, offset), tile.randint: a seed, an offset tile (templates/bits.h) */
  B_COUNT
} BinOp;

struct Expr {
  ExprKind kind;
  int op;               /* UnOp / BinOp */
  Dtype dt;
  int weak;             /* a bare Lua number: takes the other side's type */
  int rank;             /* 0: uniform scalar */
  int shape[2];
  int line;
  double cval;          /* E_CONST */
  Sym *sym;             /* E_SYM */
  Expr *a, *b, *c;      /* operands; E_IOTA: a unused, op = axis (0/1) */
  int depth;            /* nesting, counting the unnamed values inline.c may fold in (at most LT_MAX_DEPTH) */
  int fast;             /* B_DIV of floats: to 2 ulp, without IEEE division's slow path; U_EXP: 2^(x log2 e) on the
                           special-function unit (lt_exp2), subnormal results flushed (fast.c, fast_divisions);
                           U_ERF: a polynomial and ex2.approx (lt_erf, fast.c, fast_divisions); U_GELU: always
                           (lt_gelu, gelu.c); U_LOG:
                           lg2.approx times ln 2 (fast.c, fast_logs) */
  int div;              /* B_IDIV / B_MOD of a persistent kernel's per-program scalars: 1 + its divisor's place in
                           Kernel.divs, divided by multiply and shift (pass/fastdiv.c); 0: by the C operator */
};

enum { CACHE_NONE, CACHE_STREAM, CACHE_KEEP };

/* A window of a global tensor: origin (element offsets per dim) and extent. */
typedef struct View {
  Sym *t;
  Expr *origin[LT_MAXRANK];
  int ext[LT_MAXRANK];
  int rdim, cdim;       /* tensor dims that map to tile rows / cols (-1: none) */
  int scalar;           /* X:at(indices): one element; k:load of it gives a uniform scalar */
  Expr *mask;           /* k:load / k:store's { mask = m }: a bool tile (or scalar) broadcast to the view; the
                           elements where it is false are not read (other) or not written */
  int cache;            /* { cache = ... }: CACHE_NONE, CACHE_STREAM (read or written once: L2 evict-first),
                           CACHE_KEEP (reused across programs: L2 evict-last) */
  Expr *rlo, *rhi;      /* a view of X:rows(lo, hi): the rows of dim rdim outside [rlo, rhi) (i32 scalars) are
                           outside, as those outside the tensor are; NULL for a view of the whole tensor */
  int split;            /* a register tile's load or store of 16-byte chunks along a row (layout.c): in the
                           kernel's split twin (Kernel.split_of), where the row starts off the 16-byte grid, a
                           load reads the two aligned vectors a chunk straddles, a store writes the chunk as
                           aligned words (lower/copy.c, templates/vec.h) */
  int ahead;            /* a register tile's load of two to four 16-byte chunks a thread (layout.c): every chunk's
                           vector is issued before any is converted or used (lower/copy.c) */
  int pieces;           /* a copy into shared memory on a target with cp.async whose rows may start off the 16-byte
                           grid (a row stride not known to be a multiple of 16 bytes; plan.c): the smallest piece,
                           8 or 4 bytes, that a 16-byte chunk of such a row goes in where it is that aligned
                           (lt_cp_async_pieces, lt_cp_async_pieces4; lower/copy.c's zero-filling path); 0: none */
  int line;
} View;

typedef enum {
  S_LET,        /* dst = val (new immutable value) */
  S_FRAG,       /* declare mutable fragment dst, val = initial value or NULL */
  S_ASSIGN,     /* dst (fragment) = val */
  S_LOAD,       /* dst = view, masked: other */
  S_STORE,      /* view = val, masked (atomic: view += val) */
  S_REDUCE,     /* dst = reduce(op, val, axis) */
  S_SLOAD,      /* dst (fragment) = shared tile src */
  S_SSTORE,     /* shared tile dst2 = val (fragment expression) */
  S_G2S,        /* shared tile dst2 = view (masked, other) */
  S_FOR,        /* for var in [lo, hi) step */
  S_IF,         /* if (val) body else orelse */
  S_GEMM,       /* dst (f32 fragment) += shared @ shared_b */
  S_BARRIER     /* placed by barrier.c */
} StmtKind;

/* The matrix instructions gen knows (mma.c picks one per kernel). */
typedef enum {
  MMA_FMA,        /* plain multiply-adds: any target, any dtype */
  MMA_SYNC,       /* mma.sync.m16n8k16 with ldmatrix (NVIDIA sm80+) */
  MMA_MFMA32,     /* v_mfma_f32_32x32x8 (AMD CDNA, wave64) */
  MMA_MFMA16,     /* v_mfma_f32_16x16x16 (AMD CDNA, wave64) */
  MMA_WMMA,       /* v_wmma_f32_16x16x16 (AMD RDNA3, wave32) */
  MMA_TF32,       /* mma.sync.m16n8k8 tf32: f32 operands rounded to tf32 (NVIDIA sm80+, opt-in) */
  MMA_WGMMA       /* wgmma.mma_async m64nNk16: B (and a shared A) by descriptor (NVIDIA sm90a) */
} MmaKind;

typedef struct Block {
  Stmt *first, *last;
} Block;

enum { RES_NONE, RES_STAGE, RES_READ };   /* Stmt.resident */

/* How a loop runs (plan.c decides; lower/sched_*.c print it).  k:serial
** loops, and k:pipelined loops that cannot overlap anything on the target,
** are plain; the others overlap the copies of later iterations with this
** one's work. */
typedef enum {
  SCHED_PLAIN,      /* one iteration after another */
  SCHED_RING,       /* cp.async into a ring of `stages` shared buffers; the copies for iteration
                       i + stages - 1 are issued at the body's top (lower/sched_ring.c) */
  SCHED_REFILL,     /* the same, the copies issued after the wgmma gemm that opens the body (open_gemm) */
  SCHED_TURNS,      /* SCHED_REFILL, and the block's two warpgroups take turns at that gemm (ping-pong) */
  SCHED_GEMM,       /* the ring, and the body's one mma.sync gemm (open_gemm) with it as one software
                       pipeline over K steps of 16 (lower/sched_gemm.c) */
  SCHED_PREFETCH,   /* no cp.async (CDNA): iteration i + 1's copies go through registers while iteration
                       i computes (lower/sched_prefetch.c) */
  SCHED_WARPSPEC    /* warp-specialized (sm90a): a producer warpgroup issues each stage's copies by TMA into a
                       ring of `stages` buffers with a full and an empty mbarrier each; the block's own
                       warpgroups (the consumers) wait on full, run the wgmmas, release on empty, then run
                       what follows the loop (lower/sched_warpspec.c) */
} Sched;

/* Stmt.roles: which roles of a warp-specialized kernel read a value. */
enum { ROLE_PRODUCER = 1, ROLE_CONSUMER = 2 };

struct Stmt {
  StmtKind kind;
  int line;
  const char *what;     /* DSL text for the comment, e.g. "m = reduce_max(x, 2)" */
  Sym *dst;
  Sym *shared;          /* S_SLOAD source, S_SSTORE / S_G2S destination */
  Expr *val, *other;
  View *view;
  int op, axis;         /* reduction op (B_ADD / B_MAX / B_MIN), axis 0/1 */
  Sym *scratch;         /* reduction scratch (smem.c) */
  Sym *var;             /* loop index */
  Expr *lo, *hi, *step;
  int stages;           /* S_FOR made by k:pipelined: shared-memory stages */
  int copies_first;     /* S_FOR made by k:pipelined: refill at the body's top, not after the wgmma gemm that opens it */
  Sym *shared_b;        /* S_GEMM: the second operand */
  Sym *via;             /* S_STORE: a shared tile the stored accumulator goes out through (smem.c) */
  Sym *unit_skip;       /* S_ASSIGN acc = acc * r in a warp-specialized loop, acc a wgmma accumulator, r a row
                           factor: a warp skips it where every r its lanes hold is 1 (pass/rescale.c) */
  const View *row_skip; /* S_GEMM wgmma, the consumers' one statement of a warp-specialized loop, whose accumulator
                           leaves only through stores of this view: a warpgroup whose first row lies at or past the
                           view's row bound (its tensor's end, rows(lo, hi)'s hi) runs the loop without it
                           (pass/rowskip.c, lower/sched_warpspec.c) */
  int wg_skip;          /* S_STORE by TMA of such an accumulator, a staging tile a consumer warpgroup: a warpgroup
                           whose 64 rows all lie past the view's row bound skips it (pass/rowskip.c) */
  int direct;           /* S_STORE of an accumulator with no tile to go through (via NULL): when the whole tile
                           is inside, each lane's vectors go out from registers with no test (smem.c) */
  Sym *areg;            /* S_GEMM: a register-tile first operand fed from registers (mma.c) */
  int trans_a, trans_b; /* S_GEMM: operands stored [K, M] / [N, K] */
  int tf32;             /* S_GEMM: f32 operands may be rounded to tf32 for the tensor cores */
  int atomic;           /* S_STORE: adds val to the tensor's elements, atomically (k:atomic_add) */
  int lead_in;          /* S_G2S: issued by cp.async ahead of the pipelined loop after it, landing with its
                           first stage (pipeline.c); before a SCHED_WARPSPEC loop, by TMA, landing before it
                           (plan.c) */
  int map;              /* S_G2S of or before a SCHED_WARPSPEC loop: 1 + the index of its tensor map in
                           Kernel.maps; S_STORE through a TMA staging tile (via->tma_out): its map's, for the
                           TMA stores */
  /* the plan (plan.c): what the emitter and --explain read */
  Sched sched;          /* S_FOR: how it runs */
  int roles;            /* S_LET / S_LOAD of a scalar before the SCHED_WARPSPEC loop of a persistent kernel: the
                           roles that read it, ROLE_PRODUCER | ROLE_CONSUMER (each computes its own, a program) */
  Stmt *open_gemm;      /* S_FOR SCHED_GEMM: its gemm; SCHED_REFILL / SCHED_TURNS: the wgmma gemm that opens its body;
                           SCHED_WARPSPEC: that gemm where the two consumer warpgroups take turns at it, or NULL */
  const Sym **carried;  /* S_FOR SCHED_RING / REFILL / TURNS: the accumulators of the wgmmas its body leaves in
                           flight across the back edge; its copies then go one iteration less ahead;
                           SCHED_WARPSPEC: those left in flight, one group of them past the stage's release */
  int ncarried;
  int own_lane;         /* S_FOR SCHED_RING / REFILL / TURNS: makes its ldmatrix addresses from its own copy of
                           the lane index (two gemms or more) */
  MmaKind inst;         /* S_GEMM: its instruction */
  int fnuz;             /* S_GEMM MFMA of fp8 operands (gfx942): the matrix cores read FNUZ bytes, so OCP bytes
                           (Fp8Format.remap) are mapped as they are gathered and each K tile's sum, in a fresh
                           accumulator, is added to dst times 4; FNUZ dtypes' bytes go as they are (mma.c,
                           lower/gemm_amd.c) */
  const char *why_inst; /* S_GEMM of fp8 or tf32 operands on a wgmma target, or of fp8 on an AMD one, not taking
                           the target's fp8 or tf32 instruction: why not (--explain) */
  int a_words;          /* S_GEMM wgmma of tf32 operands, A stored [K, M] (or, swapped, B stored [K, N]): each
                           thread reads the instruction's A fragment, f32 words, from that shared tile into
                           registers (no transpose bits for tf32; mma.c) */
  Sym *b_t;             /* S_GEMM wgmma of tf32 operands, A [K, M] and B [K, N]: a shared tile [N, K], one a stage,
                           that the consumers copy B into K-major before the wgmmas read it (mma.c) */
  int ldsm_ring;        /* S_GEMM mma.sync: double-buffered fragments, the next 16 of K loaded during this one's mmas */
  int fuse;             /* S_LET / S_LOAD of a tile: the assignment after it runs in its loops, element by element */
  Sym *early;           /* S_LOAD after a SCHED_WARPSPEC loop: the shared tile its cp.async copy lands in, issued
                           at the program's top, before the loop (pass/early.c, lower/early.c) */
  int stage_bytes;      /* S_FOR SCHED_WARPSPEC: the bytes its TMA copies deliver into a stage */
  int drain;            /* S_FOR SCHED_WARPSPEC: its consumers wait for all of an iteration's wgmmas at its end and
                           give that iteration's stage back (a gemm of Stmt.a_words: its A registers die there) */
  int roll;             /* S_FOR SCHED_WARPSPEC whose consumers' body is one gemm of Stmt.a_words, and that gemm:
                           its fragment slots (0: none), a ring of them, one commit group per 8 of K, each slot
                           rewritten after the wait for the group that last read it, so the wgmmas stay in flight
                           across the back edge; the stage before goes back at the body's end (plan.c,
                           lower/gemm_wgmma.c) */
  int early_release;    /* S_FOR SCHED_WARPSPEC with carried wgmmas: its body waits for all of them at its top
                           level, and gives the stage before back there (lower/sched_warpspec.c) */
  const char *why_plain;   /* S_FOR with stages on a warpspec target, not SCHED_WARPSPEC: why not (--explain) */
  Stmt *defer;          /* S_FOR SCHED_WARPSPEC: a gemm whose wgmmas go to the next iteration, issued behind
                           the opening gemm's (attention: O += P V after S = Q K^T; pass/defer.c) */
  int deferred;         /* S_GEMM in such a loop: packs its register A where it stands; the loop issues it */
  Stmt *lates[2];       /* S_FOR SCHED_WARPSPEC: the gemms of its masked / unmasked step (the then branch's) whose
                           wgmmas go to the next iteration, behind late_after's (attention backward: dV after the
                           next S^T and dP^T; pass/defer_bwd.c); each such gemm of both branches is `deferred` */
  int nlates;
  Stmt *late_after;
  int late_stage;       /* S_FOR SCHED_WARPSPEC: its third stage is gen's, for the deferred gemm (the DSL said 2) */
  Stmt *issue_first;    /* S_LOAD of a group of loads issued together (pass/issue.c): the group's first load, before
                           which every vector of the group is issued (lower/copy.c, ltL_issue) */
  Stmt *issue_next;     /* the group's next load, or NULL */
  int issue_group;      /* the group's first load: the group's number in the kernel (1, 2, ...) */
  int resident;         /* S_LOAD of a chunk of the row that Kernel.row_res keeps in shared memory (pass/resident.c):
                           RES_STAGE, a first pass's load, which also writes its chunk there; RES_READ, a later
                           pass's, which reads it back from there where the row fits (lower/copy.c) */
  Block body, orelse;
  Stmt *next;
};

/* A note on a config value that has no effect on the target (plan.c):
** "file:line: note: ...", printed once per run by main.c. */
typedef struct Note {
  const char *text;
  struct Note *next;
} Note;

/* A launcher precondition (k:require): cond, over sizes, strides and
** scalars only, must hold or the launcher returns its invalid-value error. */
typedef struct Require {
  Expr *cond;           /* host-evaluable (ltI_host_expr) */
  const char *text;     /* the kernel file's words for it */
  int line;
  struct Require *next;
} Require;

/* A function of the sizes exported beside the launcher (k:export):
** `int64_t <launcher>_<name>(sizes and scalars it reads)`, which returns
** value, e.g. the workspace a call needs. */
typedef struct Export {
  const char *name;
  Expr *value;          /* host-evaluable (ltI_host_expr) */
  const char *text;     /* the kernel file's words for it */
  int line;
  struct Export *next;
} Export;

/* A tensor map of a warp-specialized kernel (plan.c): the launcher encodes
** one for each tensor and box its TMA copies read (templates/cuda_tma.h),
** and passes it as a kernel parameter (const __grid_constant__ CUtensorMap). */
typedef struct TensorMap {
  const Sym *t;         /* the tensor */
  const char *name;     /* the kernel parameter: A_map, A_map2, ... */
  int box[LT_MAXRANK];  /* the box, innermost dimension (the tensor's last) first; 1 in the dims not copied */
  int swizzle;          /* bytes: 32, 64, 128 (the shared tile's, wgmma's) */
  int store;            /* written by TMA stores (an epilogue's, smem.c), not read */
  int rows;             /* read by copies of X:rows(lo, hi) views (plan.c): one dimension more, after the rows', whose
                           index is where the rows end (hi), so the copy engine zero-fills past hi as past the
                           tensor's end (launcher.c, lower/sched_warpspec.c) */
} TensorMap;

#define LT_MAXMAPS 8
#define LT_MAXSPLIT 8
#define LT_MAX_ALTS 3   /* alternatives a tuned entry names, at most (lua/tuned.c) */
#define LT_MAXDIVS 8
#define LT_MINDIVS 2   /* fewer prepared divisors than this: the C operator (pass/fastdiv.c) */

typedef struct Kernel {
  const char *name;     /* variant function name, e.g. softmax_bf16 */
  const char *family;   /* kernel name, e.g. softmax */
  const char *launcher; /* the launcher's name: name, or for one of a variant's
                           tuned shape buckets, the variant's (name less _C4096_R...) */
  const char *bucket;   /* that bucket ("C=4096,R=32768"), else NULL */
  const char *tuned;    /* the variant whose tuned entries it takes: launcher, or its tuned_as */
  int nbuckets;         /* how many buckets the variant has (0: no dispatch) */
  int build;            /* the bucket is a build of the kernel's `builds`, not a tuned one (lua/variants.c) */
  struct Kernel *shared;   /* an earlier bucket of the variant whose kernel and launcher print the same text as
                           this one's, names aside, and serve this bucket too: this one is not printed
                           (pass/share.c) */
  const char *serves;   /* a kernel that serves other buckets too: all of them, "M=16,N=8192 and M=16,N=16384"
                           (pass/share.c), else NULL */
  Expr *when;           /* k:runs_when: the sizes this build runs for (the launcher tries the builds in order) */
  const char *when_text;
  int when_line;
  const char *doc;
  const char *variant_desc;   /* "dtype=bf16" */
  const char *config_desc;    /* "BC=4096 threads=256" */
  int line, body_line;        /* of tile.kernel { and of body = function */
  int threads;
  Sym *grid[3];
  int ngrid;
  Sym **syms;           /* every symbol, creation order */
  int nsyms, capsyms;
  Block body;
  Layout *layouts;      /* one per tile shape family (layout.c) */
  int smem_bytes;
  int smem_dynamic;     /* shared memory is carved from the launch's dynamic size */
  Stmt *gemm;           /* the kernel's first k:gemm (all share one warp grid, mma.c) */
  MmaKind mma;          /* the instruction of every gemm of the kernel (mma.c) */
  int warps_m, warps_n; /* warp grid over the gemm accumulators */
  int vec_bytes;        /* the target's widest access (layout.c) */
  Note *notes;          /* in the order made (plan.c) */
  /* the Hopper execution model (plan.c, on targets with tma and warpspec) */
  int fallback;         /* built with the TMA schedule off: the cp.async twin of the kernel before it (lua/) */
  struct Kernel *twin;  /* of a kernel with a SCHED_WARPSPEC loop: that twin, which its launcher runs when a
                           tensor map cannot be made (main.c) */
  int as_row;           /* the row twin of the kernel before it: its gemm's A, stored [K, M], read as [M, K] rows
                           (pass/row.c, lua/kernel.c); named NAME_row */
  struct Kernel *row;   /* that row twin, which its launcher runs where row_when holds (main.c), or NULL */
  Expr *row_when;       /* where the gemm's A is stored [K, M] and the gemm runs on the swapped operands: the test,
                           M == 1 and K's stride 1, under which A's bytes are one row [1, K] (pass/row.c) */
  const Sym *row_a;     /* with row_when: that A tensor */
  Stmt *ws;             /* the SCHED_WARPSPEC loop, or NULL */
  int producers;        /* threads of the producer warpgroup, after the `threads` consumers (128) */
  int reg_producer, reg_consumer;   /* setmaxnreg's per-thread limits of each role (0: none) */
  int mbar_offset;      /* where the ring's mbarriers lie in shared memory (smem.c) */
  int pre_bytes;        /* with ws: the bytes the TMA copies before the loop deliver (0: none), landing on an
                           mbarrier of their own after the ring's */
  int persistent;       /* with ws: a block an SM, each taking programs blockIdx.x, + gridDim.x, ... in the grid's
                           order, so one program's epilogue overlaps the next one's copies */
  int one_a_block;      /* k:grid(..., { persistent = false }): one program a block, never a persistent grid */
  int dynamic;          /* k:grid(..., { dynamic = true }): on a persistent grid, the blocks take the programs from a
                           counter as they free up (Kernel.queue) */
  int uneven;           /* with ws: the loop's trip count differs between programs (its bounds are not the same
                           in every program); without pre_bytes, then not persistent (plan.c) */
  int pre_reload;       /* with persistent and pre_bytes: the copies before the loop go again for each program,
                           once the consumers gave their one buffer back (mbarrier _pre_empty; plan.c) */
  int snake;            /* with persistent: a block takes its programs in snake order, round r (gridDim.x programs
                           a round) from the front for even r and from the back for odd r, so that programs whose
                           loops shorten along the grid's order (causal attention) even out (plan.c) */
  int queue;            /* with persistent and dynamic: after its first (blockIdx.x), each block takes the next
                           program in the grid's order from a counter in the launcher's workspace (lt_queue) as it
                           frees up; without one the launcher runs one program a block (plan.c,
                           lower/sched_warpspec.c) */
  int pingpong;         /* with persistent and one consumer warpgroup (threads 128): two consumer warpgroups,
                           each running every other program of the block, taking turns at the ring, so one's
                           epilogue runs under the other's wgmmas (plan.c, lower/sched_warpspec.c) */
  int splitk;           /* with pingpong, a loop whose consumers' work is one gemm into a zeroed accumulator: the
                           launcher may split the loop's range over lt_splits programs a tile, whose partial
                           accumulators meet in a workspace (plan.c, lower/splitk.c) */
  struct Kernel *alt[LT_MAX_ALTS];   /* a bucket kernel whose tuned entry names alternatives: their bucket kernels,
                           which the launcher runs where one leaves the busiest SM least work (pass/waves.c) */
  int nalts;
  long long tile_work;  /* with nalts, of each and of the kernel that runs its bucket: a program's tile in elements */
  long long tile_fixed; /* and a program's fixed part, in elements of tile (pass/waves.c) */
  const char *tile_what;   /* its words for the comments ("128 x 128, the k:gemm accumulator") */
  TensorMap maps[LT_MAXMAPS];
  int nmaps;
  Require *requires;    /* k:require, in the order written */
  Export *exports;      /* k:export, in the order written */
  Sym *sm_count;        /* k:sm_count's symbol, or NULL */
  int tma_stores;       /* with ws: stores go out by TMA (smem.c): the consumers wait for them before they end */
  int pre_out;          /* with pre_reload: a TMA store's staging tile lies over the tile of the copies before the
                           loop (smem.c, pre_tile): the consumers give that back (_pre_empty) once the store has
                           read it (lower/store_staged.c), not after their last wgmma (sched_warpspec.c) */
  int bulk_reds;        /* atomic stores go out by bulk reduce-adds (smem.c, red_tiles): the issuing threads wait
                           for them before they end */
  const Sym *split_of[LT_MAXSPLIT];   /* the tensors of its split views (View.split, layout.c): where a row of one
                           of them starts off the 16-byte grid, the launcher runs the kernel's split twin, printed
                           beside it with those views by whole vectors; elsewhere the kernel as without them */
  int nsplit;
  Expr *divs[LT_MAXDIVS];   /* with persistent: the divisors of the per-program scalars' index math that are the same
                           in every program, over sizes, scalars and constants (ltI_host_expr), each prepared once a
                           block before the programs (pass/fastdiv.c, lower/sched_warpspec.c) */
  int div_line[LT_MAXDIVS]; /* the DSL line of each one's first division (for the comment) */
  int ndivs;
  /* config resident (pass/resident.c): the rows a program reads twice, kept in shared memory */
  int resident_cfg;     /* the config asks for it (config resident = true) */
  const Sym *row_res;   /* the tensor whose rows are kept (in <name>_row: dynamic shared memory after the other
                           tiles, its size known at run time), or NULL */
  int row_res_offset;   /* where that tile starts in the dynamic shared memory */
  Expr *row_res_len;    /* elements of one row there: the later pass's chunks times a chunk's columns (host-evaluable) */
  int row_res_rows;     /* rows of it: the view's rows */
  Stmt *row_res_at;     /* where the rows are copied whole into the tile before the first pass (cp.async targets,
                           16-byte chunks): before this statement of the block that holds both passes; the first
                           pass's RES_STAGE loads then read the tile as RES_READ's do (lower/copy.c,
                           ltL_resident_copy); NULL: each RES_STAGE load stores its chunk.  The split twin keeps
                           the chunk stores (its rows are off the 16-byte grid) */
  View *row_res_view;   /* that copy's view: the later load's, its column origin row_res_j * its columns */
  Sym *row_res_j;       /* the copy loop's chunk index, 0 .. row_res_n - 1 */
  Expr *row_res_n;      /* chunks a row (host-evaluable) */
  const Sym *row_res_dst;   /* the later load's tile: its layout gives each thread the elements it reads back */
  const char *why_res;  /* config resident and no row_res: why not (--explain) */
} Kernel;

Sym *ltI_sym(Kernel *k, SymKind kind, Dtype dt, int line);
Expr *ltI_const(double v, Dtype dt, int weak, int line);
Expr *ltI_ref(Sym *s, int line);
Expr *ltI_unary(UnOp op, Expr *a, int line);
Expr *ltI_binary(BinOp op, Expr *a, Expr *b, int line);
Expr *ltI_select(Expr *c, Expr *a, Expr *b, int line);
Expr *ltI_cast(Expr *a, Dtype dt, int line);
Expr *ltI_round(Expr *a, Dtype dt, int line);   /* x:cast(dt): rounds to f16 / bf16 even from a value of dt */
int ltI_exact(const Expr *e);                   /* e holds a value of its dtype exactly (no rounding left to do) */
Stmt *ltI_stmt(StmtKind kind, int line);
void ltI_append(Block *b, Stmt *s);
void ltI_fix_last(Block *b);
int ltI_is_tile(const Expr *e);
long long ltI_stage_bytes(const Sym *s);    /* a shared tile's bytes, one stage of its ring (ir.c) */
long long ltI_shared_bytes(const Sym *s);   /* and every stage of it */
int ltI_nonneg(const Expr *e);
int ltI_multiple_of(const Expr *e, long long m);   /* known a multiple of m? (ir.c) */
long long ltI_shift_bits(const Expr *x);   /* k of a tile >> k or & (2^k - 1), else 0 (ir.c) */
int ltI_column_sum(const Expr *x, int cols, long long k, const Expr **sc, int *n);   /* (ir.c) */
int ltI_const_int(const Expr *e, long long *out); /* folds constants */
int ltI_same(const Expr *a, const Expr *b);       /* the same tree of operators, constants and symbols (ir.c) */
void ltI_view_shape(const View *v, int shape[2]); /* its [rows, cols] as a tile */
int ltI_view_never_inside(const View *v);        /* statically runs past its tensor's end */
int ltI_view_gathers(const View *v);
void ltI_range(const Expr *e, long long *lo, long long *hi);   /* bounds of an i32 scalar's value (ir.c) */
int ltI_fits_int(const Expr *e, long long add);   /* e and e + add (>= 0) stay inside int32 */             /* an offset is a tile: rows gathered (or scattered) by index */
void ltI_count_uses(Kernel *k);
void ltI_each_expr(Block *b, void (*fn)(Expr *e, void *ctx), void *ctx);
Expr *ltI_host_expr(Expr *e);                     /* e over launcher arguments only, or NULL */
extern const char *const ltI_unop_names[U_COUNT];
extern const char *const ltI_binop_names[B_COUNT];

/* ---- target.c ---- */

typedef enum { LANG_CUDA, LANG_HIP, LANG_C } Lang;


typedef struct Target {
  const char *name;         /* sm80, gfx942, c ... */
  const char *desc;
  Lang lang;
  const char *ext;          /* .cu .hip .c */
  const char *arch;         /* sm_80, gfx942 */
  const char *build_hint;   /* how to compile one generated file */
  int warp;                 /* lanes per warp / wavefront; 1 for c */
  int max_threads;          /* threads per block */
  int smem_static;          /* shared bytes per block without opt-in */
  int smem_max;             /* with opt-in */
  int vec_bytes;            /* widest global access per thread */
  MmaKind mma;              /* matrix instruction for f16/bf16 gemm */
  int async_copy;           /* cp.async: pipelined loops get a stage ring */
  int reg_prefetch;         /* else a pipelined gemm loop loads ahead into registers (pipeline.c) */
  int wgmma;                /* has wgmma: gemms that fit its shape take it (mma.c) */
  int mfma_fp8;             /* has MFMA fp8 (CDNA3: 32x32x16, 16x16x32 on FNUZ bytes): fp8 gemms take it (mma.c) */
  int int_row_strides;      /* row strides reach the kernel as int (emit/kernel.c, ltE_narrow_stride) */
  int tma;                  /* has the bulk tensor copy engine (TMA) and mbarriers; the launcher encodes tensor maps */
  int warpspec;             /* a pipelined loop of TMA copies and wgmma gemms runs warp-specialized (plan.c) */
  int persistent;           /* a warp-specialized kernel runs on a persistent grid: a block an SM, taking the
                               programs in turn, its ring running on across them (plan.c) */
  int regs;                 /* registers a block (setmaxnreg's pool) */
  const char *type_names[DT_COUNT];   /* (not fp8: emit/text.c names those after the dtype) */
  const char *to_f32[DT_COUNT];     /* "%s" converted to float */
  const char *from_f32[DT_COUNT];   /* float "%s" rounded to the type */
  const char *shfl_xor;     /* "%s" value, "%d" lane mask */
  const char *barrier;
  const char *unop_f32[U_COUNT];    /* function per unary op on float */
  const char *err_invalid, *err_misaligned, *err_config, *err_last;
} Target;

const Target *ltT_find(const char *name);
const char *ltT_prologue(const Target *t, Kernel *const *ks, int n, int emulate, int wide_used);
extern const Target *const ltT_all[];      /* NULL-terminated */

/* ---- layout.c ---- */

/* How a [rows, cols] register tile is spread over the block's threads:
** thread tid = ty * tc + tx holds, for each of its nr rows and nc column
** chunks, vec consecutive elements:
**     row = ri * tr + ty,   col = (ci * tc + tx) * vec + v.
** Slices ([rows, 1], [1, cols]) of the tile use the same threads and keep
** only the dimension they have; the other is replicated.                */
struct Layout {
  int rows, cols, vec;
  int tr, tc, nr, nc;
  int threads;
  int active;           /* threads holding elements: all, but fewer in a copy layout smaller than the block (0: mma) */
  int line;
  Layout *next;
  /* How the thread index reads in the text: "tx" / "ty" for the kernel's
  ** main layout, "tid % 4" / "tid / 4" for others, NULL when 0. */
  const char *tx, *ty;
  /* Accumulator of a gemm (mma != MMA_FMA): per warp and lane instead:
  **     row = row0 + ri * rstride,   col = col0 + ci * cstride + v
  ** where row0 / col0 are per-thread values the kernel computes first. */
  MmaKind mma;
  int rstride, cstride;
  int rgap;             /* wgmma with several m64 row blocks a warpgroup: rows come in pairs, a pair per
                           block: row = row0 + ri % 2 * rstride + ri / 2 * rgap (rgap 64); 0: the above */
  int swap;             /* wgmma run on the swapped operands, C^T = B^T A^T (mma.c: the tile has fewer rows than
                           wgmma's 64): a warpgroup's 64 rows of the instruction are 64 columns of the tile, the
                           instruction's N its rows; lane l holds rows 2 (l % 4) + 8 (i / 2) + i % 2 and columns
                           l / 4 + 8 j (vec 1) */
  int wtm, wtn;         /* warp tile (with rgap: the rows a warp holds, 16 a block, and its columns) */
  /* The names of the thread's coordinates in the text: its warp's first
  ** row and column, and its own (warp_row, warp_col, row0, col0; mma.c
  ** gives an accumulator shape split differently names of its own). */
  const char *wrow, *wcol, *row0, *col0;
  int im, in;           /* instruction tile: rows, cols of one instruction's result */
  int family;           /* register tiles live in it (else: a layout for copies only) */
};

/* ---- passes ---- */

void ltP_inline(Kernel *k);                    /* inline.c */
void ltP_mma(Kernel *k, const Target *t);      /* mma.c */
void ltP_pipeline(Kernel *k);                  /* pipeline.c */
int ltP_is_producer(const Stmt *s);            /* a pipelined body's copies and their scalars */
void ltP_layout(Kernel *k, const Target *t);   /* layout.c */
void ltP_colshift(Kernel *k);                  /* colshift.c */
void ltP_issue(Kernel *k, const Target *t);    /* issue.c */
void ltP_note(Kernel *k, const Target *t, int line, const char *fmt, ...)   /* plan.c: "file:line: note: ..." (none on c) */
    __attribute__((format(printf, 4, 5)));
void ltP_resident(Kernel *k, const Target *t); /* resident.c: rows read twice kept in shared memory (config resident) */
void ltP_resident_place(Kernel *k, const Target *t);   /* resident.c: their tile, after smem.c's */
long long ltP_resident_room(const Kernel *k, const Target *t);   /* resident.c: the bytes of rows a program may keep */
void ltP_smem(Kernel *k, const Target *t);     /* smem.c */
void ltP_early(Kernel *k, const Target *t);    /* early.c: loads after a warp-specialized loop, staged before it */
void ltP_barrier(Kernel *k);                   /* barrier.c */
void ltP_plan_loops(Kernel *k, const Target *t);  /* plan.c: each k:pipelined loop's schedule, before its rings */
void ltP_plan(Kernel *k, const Target *t);     /* plan.c: the rest of the plan, on the final statements */
void ltP_plan_join(Kernel *k);                 /* join.c: no wgmmas in flight across a branch join */
void ltP_fast(Kernel *k, Stmt *first);         /* fast.c: fast arithmetic in a warp-specialized loop's epilogue */
void ltP_gelu(Expr *x);                        /* gelu.c: GELU's erf form as lt_gelu, where its erf is fast */
void ltP_fastdiv(Kernel *k);                   /* fastdiv.c: a persistent grid's index divisions by multiply and shift */
void ltP_row(Kernel *k);                       /* row.c: a one-row A stored [K, M] read as a row (the row twin) */
void ltP_row_keep(Kernel *k);                  /* row.c: the row twin only for the swapped operands */
void ltP_row_group(Kernel **ks, int n);        /* row.c: only the buckets of the fewest rows keep theirs */
void ltP_share(Kernel **ks, int n, const char *const *texts);   /* share.c: tuned buckets whose kernels' texts
                                                                  (ltE_bucket_texts) are equal share one */
int ltP_waits_for(const Sym *const *inflight, int n, const Stmt *s, int chain);  /* must wgmmas in flight be done
                                                                                   before s? */
int ltP_add_inflight(const Sym **set, int n, const Sym *acc);         /* -1 past 8 */
int ltP_uses(const Stmt *first, const Sym *x);    /* does a statement from first on name x? */
int ltP_gemms(const Stmt *first);                /* plan.c: the gemms an iteration from first runs */
void ltP_plan_defer(Kernel *k, Stmt *loop);      /* defer.c: Stmt.defer of a warp-specialized loop */
void ltP_late_stage(Kernel *k, Stmt *loop, const Target *t);  /* defer_bwd.c: a third stage for Stmt.lates */
void ltP_plan_defer_bwd(Kernel *k, Stmt *loop);  /* defer_bwd.c: Stmt.lates of a warp-specialized loop */
void ltP_plan_rescale(Stmt *loop);               /* rescale.c: Stmt.unit_skip in a warp-specialized loop */
void ltP_plan_rowskip(Kernel *k, Stmt *loop);    /* rowskip.c: Stmt.row_skip, wg_skip of a warp-specialized loop */
int ltP_wait_keep(const Sym *const *inflight, int n, const Stmt *s);  /* defer.c: the newest wgmma groups that
                                                                          may stay in flight before s */
int ltP_names(const Stmt *s, const Sym *x);       /* does statement s itself name x? */
Layout *ltP_layout_of(Kernel *k, const int shape[2], Dtype dt);
Layout *ltP_copy_layout(Kernel *k, const int shape[2], Dtype dt);
const Layout *ltP_expr_layout(const Expr *e);     /* of its tile operands, or NULL */
const Layout *ltP_mma_layout(const Kernel *k);    /* the first accumulator's, or NULL */
int ltP_wgmma_row(const Sym *sh);                 /* row bytes of wgmma's swizzle atom (mma.c) */
const char *ltP_wgmma_type(Dtype dt);            /* wgmma's operand type: f16 bf16 e4m3 e5m2 tf32 (mma.c) */
const char *ltP_mma_name(MmaKind m);
int ltP_elems(const Layout *l, const int shape[2]);  /* per thread */
int ltP_reduce_groups(const Layout *l, int axis, int warp);

/* ---- emit/ (the rest in emit/emit.h) ---- */

typedef struct Output { const char *src, *hdr; } Output;
/* A variant's tuned buckets as the emitter prints them (ltE_bucket_texts,
** emit/source.c): each one's kernels and launcher while it serves no other
** bucket, its names marked, and the scratch bytes they need (c target).
** pass/share.c compares the texts; ltE_emit prints them, names put back. */
#define LT_MAX_BUCKETS 24
typedef struct BucketTexts {
  const char *text[LT_MAX_BUCKETS];
  long long scratch[LT_MAX_BUCKETS];
} BucketTexts;
Output ltE_emit(Kernel **ks, int n, const Target *t, int emulate, const BucketTexts *bt);   /* n > 1: a variant's
                                                                                             tuned buckets */
void ltE_explain(Kernel *k, const Target *t, Buf *b);
void ltE_bucket_texts(Kernel **ks, int n, const Target *t, int emulate, BucketTexts *bt);

/* ---- lua/: the front end (ltD_run in lua/api.c) ---- */

typedef struct Define { const char *key, *value; } Define;

typedef struct GenRequest {
  const char *file;
  const Target *target;     /* NULL for --list */
  Define *defs;
  int ndefs;
  int list;
} GenRequest;

/* Runs the kernel file; calls back once per variant with its IR. */
typedef void (*VariantFn)(Kernel *k, void *ud);
void ltD_run(GenRequest *req, VariantFn fn, void *ud, Buf *listing);
const char *ltD_line_text(int line);   /* a kernel-file line, trimmed, for comments in the output */

/* ---- embedded text (build/embed.c, made by build.sh) ---- */
extern const char ltX_prelude[];    /* dsl/tile.lua */
extern const char ltX_cuda[];       /* templates/cuda.h */
extern const char ltX_hip[];        /* templates/hip.h */
extern const char ltX_c[];          /* templates/c.h */
extern const char ltX_cuda_mma[];   /* templates/cuda_mma.h: ldmatrix, mma.sync, cp.async */
extern const char ltX_cuda_wgmma[]; /* templates/cuda_wgmma.h: wgmma's descriptor, fences, barrier */
extern const char ltX_cuda_tma[];   /* templates/cuda_tma.h: TMA, mbarrier, setmaxnreg, tensor maps */
extern const char ltX_cuda_fast[];   /* templates/cuda_fast.h: division by multiply and shift, fast logs and erfs */
extern const char ltX_cuda_tma_rows[];   /* templates/cuda_tma_rows.h: tensor maps of X:rows(lo, hi) views */
extern const char ltX_cuda_queue[];      /* templates/cuda_queue.h: a persistent grid's programs from a counter */
extern const char ltX_cuda_hint[];  /* templates/cuda_hint.h: loads and stores with an L2 eviction policy */
extern const char ltX_hip_hint[];   /* templates/hip_hint.h: non-temporal loads and stores */
extern const char ltX_hip_mfma[];   /* templates/hip_mfma.h: MFMA */
extern const char ltX_hip_wmma[];   /* templates/hip_wmma.h: WMMA */
extern const char ltX_bits[];       /* templates/bits.h: i64, u32 and shift helpers, Philox */
extern const char ltX_fp8[];        /* templates/fp8.h: fp8 conversions */
extern const char ltX_fp8_fnuz[];   /* templates/fp8_fnuz.h: OCP fp8 bytes for CDNA3's FNUZ matrix cores */
extern const char ltX_fp8_fnuz_dtypes[];   /* templates/fp8_fnuz_dtypes.h: the FNUZ fp8 dtypes' conversions */
extern const char ltX_hip_mfma_fp8[];   /* templates/hip_mfma_fp8.h: MFMA fp8 (gfx942) */
extern const char ltX_vec[];        /* templates/vec.h: 16-byte pieces of rows not 16-byte aligned */
extern const char ltX_cuda_pieces[]; /* templates/cuda_pieces.h: cp.async of 16- or 8-byte pieces (View.pieces) */
extern const char ltX_cuda_pieces4[]; /* templates/cuda_pieces4.h: cp.async of 4-byte pieces (View.pieces) */
extern const char ltX_wide[];       /* templates/wide.h: the launcher's 64-bit max and min */
extern const char ltX_emu[];        /* templates/emu.h: CPU emulation, common part */
extern const char ltX_emu_cuda[];   /* templates/emu_cuda.h: CUDA intrinsics on the CPU */
extern const char ltX_emu_hip[];    /* templates/emu_hip.h: HIP intrinsics on the CPU */

/* ---- lua/tuned.c (prefix ltN_): the tuned-config file, tuned/<kernel>.lua (docs/runtime.md) ---- */

typedef enum { TK_INT, TK_BOOL, TK_STR } TunedKind;

/* A config value: of a tuned entry, or (key and kind only) of the kernel. */
typedef struct TunedValue {
  const char *key;
  TunedKind kind;
  long long i;          /* TK_INT; TK_BOOL: 0 or 1 */
  const char *s;        /* TK_STR */
} TunedValue;

typedef struct TunedOptions {
  const char *file;     /* --tuned FILE; NULL: tuned/<kernel>.lua beside the kernel's folder */
  const char *device;   /* --device NAME, or NULL */
  const char *shape;    /* --shape K=V,..., or NULL */
  int off;              /* --no-tuned */
} TunedOptions;

void ltN_set_options(const TunedOptions *o);
const char *ltN_shape_error(const char *text);   /* NULL when a --shape value is well formed */
void ltN_load(const char *kernel_file, const char *kernel, const Target *t, const TunedValue *cfg, int ncfg);
int ltN_active(void);                            /* a tuned file was read */
const char *ltN_summary(void);                   /* --list without --target */
const char *ltN_pick(const char *variant, const char *bucket, const TunedValue **vals, int *n);
int ltN_buckets(const char *variant, const char **out, int max);   /* several: gen dispatches on the shape */
int ltN_bucket_sizes(const char *variant, const char *bucket, const char *const *sizes, int nsizes, const char **keys,
                     long long *vals, int *log2s);   /* keys: room for LT_MAXRANK * 4 */
long long ltN_bucket_limit(long long lo, long long hi);   /* the largest size bucket lo takes below bucket hi */
const char *ltN_off_grid(const char *variant, const char *bucket);   /* its rows off the 16-byte grid run this bucket */
#define LT_ALT_SUFFIX " (alternative)"   /* ltN_buckets' text of an entry's alternative: its bucket's, then this */
const char *ltN_alternative(const char *variant, const char *bucket, int i, int *line);   /* its alternative i's
                                                                                          bucket text */
int ltN_is_alternative(const char *b);   /* an entry's alternative (ltN_buckets), not a bucket */
int ltN_alternatives(const char *variant, int *with);   /* how many alternatives its entries name, and how
                                                          many entries name one */
void ltN_error_at(int line, const char *fmt, ...);   /* an error at a line of the tuned file */
void ltP_waves(Kernel **ks, int n);   /* waves.c: each bucket's alternative and the tiles the launcher weighs */

#endif

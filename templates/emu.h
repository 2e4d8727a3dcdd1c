/*
** templates/emu.h: runs a generated CUDA or HIP kernel on the CPU, lane by
** lane, with GPU semantics (gen --emulate).  Plain C++17, no GPU toolkit.
**
** How it works.  lt_emu_launch runs the blocks of the grid one after
** another on the calling OS thread.  Each GPU thread of a block gets its own
** stack and runs as a fiber (a coroutine): it runs until it reaches a
** barrier or a warp-wide operation (shuffle, ldmatrix, mma, wgmma, MFMA, WMMA),
** then switches back to the scheduler, which resumes the next thread that
** can go on.  A barrier opens when every thread of the block waits at it.
** A warp operation runs once, for the whole warp, when its last lane
** arrives: it reads and writes each lane's operands in place (they live on
** the lanes' own stacks).  When no thread can go on and some have not
** finished, the block is stuck: some threads wait at a barrier or a warp
** operation that the others never reach, and the emulator says which.
**
** Shared memory.  __shared__ arrays become thread_local arrays (one copy
** per OS thread, so all fibers of the block share it).  The dynamic shared
** memory lt_smem is one thread_local buffer, filled with 0xff bytes (NaN in
** every float format) at the start of every block.  Shared bytes have a
** shadow state: who wrote it, who read it since the last barrier, in
** which barrier interval and after how many warp operations of their
** warp, whether a cp.async to it is in flight.  The intrinsics (ldmatrix,
** cp.async) keep it.  Built with clang's load/store tracing (see "plain
** accesses" below), so do the kernel's plain loads and stores, for lt_smem
** and the __shared__ arrays alike: a read of a byte not written in this
** block, or an access racing with another thread's since the last barrier,
** is reported at its line.  Built without (g++), only lt_smem is tracked,
** and plain stores are found by comparing the buffer with a copy, for the
** 16 bytes an intrinsic touches and for the whole buffer at every barrier.
**
** Errors are printed as "FILE:LINE: error: lt_emu: KERNEL, block (x,y,z):
** ..." with FILE:LINE the generated source, then that line and the DSL line
** of the nearest "// K.lua:N:" comment above it.  The block stops, the
** launch returns LT_EMU_ERR_LAUNCH.
**
** Settings, from the environment, read at each launch:
**   LT_EMU_SCHEDULE  the order in which ready threads are resumed: forward
**                    (default: thread 0 to n-1, each to its next sync point),
**                    reverse, random[:SEED], or warps (each warp alone, lanes
**                    in reverse order, until it waits at a barrier: a warp
**                    runs as far ahead of the others as the code allows).  A
**                    race between threads shows up as results that differ
**                    between orders.
**   LT_EMU_TRACK=0   no shadow state for shared memory (and no checks of
**                    plain accesses).
**   LT_EMU_STACK     bytes of stack per GPU thread (default 256 KiB).
**   LT_EMU_TIMEOUT   seconds: report the running thread and exit after that.
**   LT_EMU_ABORT=1   abort() at the first error (for a debugger).
*/
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <link.h>

#if !defined(__x86_64__) && !defined(LT_EMU_UCONTEXT)
#define LT_EMU_UCONTEXT 1   /* no hand-written switch for this CPU */
#endif
#ifdef LT_EMU_UCONTEXT
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define LT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LT_EMU_ASAN 1
#endif
#endif
#ifdef LT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* The emulator's own functions: not instrumented by the sanitizers (the
** generated kernel code is); a third of the run time under ASan otherwise.
** Accesses to the kernel's memory they make go through lt_emu::copy_in
** (memcpy, which the sanitizer checks) or are range-checked here.  Under
** clang not by SanitizerCoverage either: only the kernel's own loads and
** stores reach the shared-memory hooks (see "plain accesses" below). */
#if defined(__clang__)
#define LT_EMU_NO_SANITIZE no_sanitize("address", "undefined", "coverage")
#else
#define LT_EMU_NO_SANITIZE no_sanitize("address", "undefined")
#endif
#define LT_EMU_FN inline __attribute__((LT_EMU_NO_SANITIZE, unused))

/* Generated code carries "#pragma unroll" for nvcc and hipcc: g++ 13 and
** later stop warning about it here (g++ 12 needs -Wno-unknown-pragmas),
** clang stops warning about loops it does not unroll. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpass-failed"
#endif

/* ------------------------------------------------------------------ */
/* the GPU dialect common to CUDA and HIP                               */

#define __global__ static
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ thread_local
#define __align__(n) __attribute__((aligned(n)))

namespace lt_emu {
namespace {
void check_vector(const void *a, const void *b, size_t bytes);
}
}

/* Vector types of the GPU headers; may_alias because generated code reads
** and writes them through pointers to other types.  Copying one checks
** that both sides are aligned to its size, as the GPU's vector loads and
** stores require (a misaligned one faults there).  In an unnamed
** namespace: each translation unit checks against its own launch. */
namespace {
struct __attribute__((may_alias, aligned(16))) uint4 {
  unsigned x, y, z, w;
  uint4() = default;
  uint4(const uint4 &o) : x(o.x), y(o.y), z(o.z), w(o.w) { lt_emu::check_vector(this, &o, 16); }
  uint4 &operator=(const uint4 &o) {
    lt_emu::check_vector(this, &o, 16);
    x = o.x, y = o.y, z = o.z, w = o.w;
    return *this;
  }
};
struct __attribute__((may_alias, aligned(8))) uint2 {
  unsigned x, y;
  uint2() = default;
  uint2(const uint2 &o) : x(o.x), y(o.y) { lt_emu::check_vector(this, &o, 8); }
  uint2 &operator=(const uint2 &o) {
    lt_emu::check_vector(this, &o, 8);
    x = o.x, y = o.y;
    return *this;
  }
};
}  // namespace
struct __attribute__((may_alias, aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((may_alias, aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((may_alias, aligned(8))) float2 { float x, y; };
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

#define LT_EMU_SMEM_CAP (227 * 1024)   /* the largest dynamic shared memory of any target */
#define LT_EMU_ERR_LAUNCH 719          /* cudaErrorLaunchFailure, hipErrorLaunchFailure */
#define LT_EMU_ERR_CONFIG 9            /* cudaErrorInvalidConfiguration, hipErrorInvalidConfiguration */
#define LT_EMU_ERR_VALUE 1             /* cudaErrorInvalidValue, hipErrorInvalidValue */

/* Dynamic shared memory (extern __shared__ ... lt_smem[] in a kernel).
** inline: one buffer for all translation units. */
inline thread_local __attribute__((aligned(1024))) unsigned char lt_smem[LT_EMU_SMEM_CAP];

/* ------------------------------------------------------------------ */
/* plain accesses: the SanitizerCoverage hooks                         */

/* Built with clang's -fsanitize-coverage=func,inline-bool-flag,
** trace-loads,trace-stores (trace-* need one of the coverage kinds; func
** with inline-bool-flag is the cheapest), every load and store of the
** kernel code calls __sanitizer_cov_{load,store}{1,2,4,8,16}(addr) first.  Those below pass
** it to lt_emu_traced, which hands what falls in `lo .. lo + n` (the TLS
** block of the kernel's module: lt_smem and the __shared__ arrays, which
** are thread_local) to the launch running on this OS thread.  The
** emulator's own functions are not instrumented (LT_EMU_FN), so every
** access seen there is the kernel's.  One LtEmuTrace pointer for all
** translation units (inline): each launch installs its own. */
struct LtEmuTrace {
  uintptr_t lo, n;
  void (*access)(uintptr_t addr, unsigned bytes, int store, void *pc);
};
inline thread_local LtEmuTrace *lt_emu_trace;

/* Where the hooks below jump: the access of `bytes` bytes at p (a store
** when `store`), called from the kernel code at the return address.
** Assumes nothing: outside a launch lt_emu_trace is NULL.  Weak: one copy
** for the program (every copy is the same). */
extern "C" __attribute__((weak, visibility("hidden"), noinline, LT_EMU_NO_SANITIZE)) void
lt_emu_traced(void *p, unsigned bytes, int store) {
  LtEmuTrace *t = lt_emu_trace;
  if (!t || (uintptr_t)p - t->lo >= t->n) return;
  t->access((uintptr_t)p, bytes, store, __builtin_return_address(0));
}

/* The coverage kinds' flag registration, which the instrumented code's
** module constructor calls: a no-op, for a build that links no sanitizer
** runtime (clang without its compiler-rt package); weak, so a runtime's own
** definition wins where there is one.  The flags themselves go unused. */
extern "C" __attribute__((weak, LT_EMU_NO_SANITIZE)) void __sanitizer_cov_bool_flag_init(bool *, bool *) {}

/* The hooks themselves, in assembly: strong symbols (the sanitizer
** runtimes define weak no-op ones, which a weak definition here would not
** reliably replace) in COMDAT groups (every translation unit has them, the
** linker keeps one).  Each jumps to lt_emu_traced with the size and the
** kind in the second and third argument registers, so lt_emu_traced
** returns straight to the kernel.  x86-64 ELF only: elsewhere the
** runtime's no-op hooks stay, the probe at launch (probe_traced) sees
** that, and the plain accesses go unchecked. */
#if defined(__x86_64__) && defined(__ELF__)
#define LT_EMU_HOOK(name, bytes, store)                                                           \
  ".section .text." name ",\"axG\",@progbits," name ",comdat\n"                                 \
  ".globl " name "\n.hidden " name "\n.type " name ",@function\n" name ":\n"                    \
  "  movl $" #bytes ", %esi\n  movl $" #store ", %edx\n  jmp lt_emu_traced\n.size " name ", .-" name "\n"
__asm__(LT_EMU_HOOK("__sanitizer_cov_load1", 1, 0) LT_EMU_HOOK("__sanitizer_cov_load2", 2, 0)
        LT_EMU_HOOK("__sanitizer_cov_load4", 4, 0) LT_EMU_HOOK("__sanitizer_cov_load8", 8, 0)
        LT_EMU_HOOK("__sanitizer_cov_load16", 16, 0) LT_EMU_HOOK("__sanitizer_cov_store1", 1, 1)
        LT_EMU_HOOK("__sanitizer_cov_store2", 2, 1) LT_EMU_HOOK("__sanitizer_cov_store4", 4, 1)
        LT_EMU_HOOK("__sanitizer_cov_store8", 8, 1) LT_EMU_HOOK("__sanitizer_cov_store16", 16, 1) ".text\n");
#undef LT_EMU_HOOK
#endif

/* ------------------------------------------------------------------ */
/* context switch                                                       */

#ifndef LT_EMU_UCONTEXT
/* lt_emu_swap_x64(save, to): pushes the callee-saved registers and the
** SSE/x87 control words on the current stack, stores the stack pointer in
** *save, loads `to` and pops the same from there.  Weak: every translation
** unit with an emulated kernel carries a copy, the linker keeps one. */
extern "C" void lt_emu_swap_x64(void **save, void *to);
__asm__(".text\n"
        ".weak lt_emu_swap_x64\n"
        ".hidden lt_emu_swap_x64\n"
        ".type lt_emu_swap_x64,@function\n"
        "lt_emu_swap_x64:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size lt_emu_swap_x64, .-lt_emu_swap_x64\n");
#endif

namespace lt_emu {
namespace {

/* A saved execution context: a stack pointer (x86-64), or a ucontext. */
struct Ctx {
#ifdef LT_EMU_UCONTEXT
  ucontext_t uc;
#else
  void *sp;
#endif
};

/* Saves the running context in `from` and resumes `to`. */
LT_EMU_FN void ctx_swap(Ctx *from, Ctx *to) {
#ifdef LT_EMU_UCONTEXT
  swapcontext(&from->uc, &to->uc);
#else
  lt_emu_swap_x64(&from->sp, to->sp);
#endif
}

/* Prepares c to start fn() on the stack [stack, stack + size); fn must
** never return.  The first frame has a null return address and frame
** pointer, where backtraces stop. */
LT_EMU_FN void ctx_make(Ctx *c, char *stack, size_t size, void (*fn)(void)) {
#ifdef LT_EMU_ASAN
  ASAN_UNPOISON_MEMORY_REGION(stack, size);   /* frames of an abandoned fiber */
#endif
#ifdef LT_EMU_UCONTEXT
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = NULL;
  makecontext(&c->uc, fn, 0);
#else
  uintptr_t hi = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  void **p = (void **)hi;
  p[-1] = NULL;          /* return address of fn: none */
  p[-2] = (void *)fn;    /* popped by ret */
  for (int i = 3; i <= 8; i++) p[-i] = NULL;   /* rbp rbx r12 r13 r14 r15 */
  unsigned char *ctl = (unsigned char *)(hi - 72);
  __asm__ volatile("stmxcsr (%0)\n fnstcw 4(%0)" : : "r"(ctl) : "memory");
  c->sp = ctl;
#endif
}

/* ------------------------------------------------------------------ */
/* state of a launch                                                    */

enum { RUN, WAIT_WARP, WAIT_BAR, WAIT_NBAR, WAIT_MBAR, WAIT_REGS, DONE };

struct Thread;
struct Site;
/* A warp operation: runs once per warp on all lanes (lanes[0..n-1]). */
typedef void (*WarpFn)(Thread *lanes, int n);

/* One cp.async in flight (16 bytes, or an 8- or 4-byte piece): lands in
** shared memory at a wait_group of its thread that covers its group. */
struct Copy {
  int tid, group;
  unsigned char *dst;
  unsigned char data[16];
  int size;               /* cp-size: 16, 8 or 4 */
  int bytes;              /* src-size: the rest of the size is zero-filled */
  const char *file;
  int line;
};

/* One GPU thread: its fiber, where it is, and what it waits for. */
struct Thread {
  Ctx ctx;
  char *stack;
  size_t stack_size;
  uint3 idx;              /* threadIdx */
  int tid, warp, lane;
  int state;
  unsigned wait_gen;      /* the warp's or the barrier's generation it waits past */
  int wait_bar;           /* WAIT_NBAR: the named barrier (1..15) */
  const char *file;       /* last sync point reached: file, line, what */
  int line;
  const char *what;
  WarpFn op;              /* warp operation it waits in, with its operands */
  void *args;
  int group;              /* cp.async: the open (uncommitted) group */
  int bgroup;             /* bulk (TMA) stores: the open group (emu_cuda.h) */
  uint32_t fences;        /* fence.proxy.async executed (Shadow.wfence) */
  int wait_mbar;          /* WAIT_MBAR: the mbarrier (index in State.mbars) */
#ifdef LT_EMU_ASAN
  void *fake_stack;
#endif
};

/* Per byte of shared memory: who last wrote it and read it, and when.
** "When" is the barrier epoch (barriers the block completed) and, for
** ordering lanes of one warp, the count of warp-wide operations the
** warp completed (Warp.gen).  An entry whose `block` is not the running
** block's serial describes an earlier block: it reads as all zero. */
struct Shadow {
  uint32_t block;         /* State.serial of the block it describes */
  uint16_t writer;        /* thread id + 1 (LT_EMU_PLAIN: a plain store seen untraced); 0: not written in this block */
  uint16_t pending;       /* thread id + 1 of a cp.async in flight to it; 0: none */
  uint16_t reader;        /* thread id + 1 of the reads in epoch repoch; LT_EMU_MANY: several threads */
  uint16_t rwarp;         /* their warp + 1; LT_EMU_MANY: several warps */
  uint32_t wepoch, repoch;
  uint32_t wsync, rsync;  /* the warp's operation count at the write, at the last read */
  uint32_t wclock;        /* the writer warp's clock at the write (ordering through mbarriers, see Warp.clock) */
  uint32_t wfence;        /* the writer's fence.proxy.async count at the write (Thread.fences) */
};

#define LT_EMU_ASYNC 0x8000   /* Shadow.pending: a TMA copy (emu_cuda.h), with its thread id + 1 below */
#define LT_EMU_TMA 0xfffd     /* Shadow.writer of bytes a TMA copy delivered */

/* One warp: its lanes, how many wait at its current operation, and the
** operation's generation (moves on when the operation completes). */
struct Warp {
  int size, arrived;
  unsigned gen;
  int wg_group;           /* wgmma (emu_cuda.h): the groups it committed, the open group's number */
  int wg_fenced;          /* a wgmma.fence since its last commit_group: its open group may issue */
  /* Ordering through mbarriers and named barriers (State.vc_on): the warp's
  ** clock moves on at each release it makes (an mbarrier arrive, a barrier);
  ** its row of State.vc holds, for every warp, the clock up to which that
  ** warp's accesses are ordered before this warp's next ones, and for every
  ** mbarrier the phases whose completion is ordered before them. */
  uint32_t clock;
  int regs;               /* setmaxnreg (emu_cuda.h): the per-thread register limit now; 0 unknown */
  int reg_want;           /* a setmaxnreg.inc waiting for registers: the limit asked for; 0 none */
  int nsetmax;            /* setmaxnreg executed, and the first ones (inc: +R, dec: -R) */
  int setmax[8];
  const char *setmax_file;
  int setmax_line;
};

/* One mbarrier (emu_cuda.h), kept beside the 8 bytes of shared memory at
** `addr`: the arrivals a phase needs, those the current phase still needs,
** its tx-count, the phases completed; who initialized it; what the
** arrivals of the current phase and the last completed one release
** (vector clocks: entry w < nwarps the warps' clocks, entry nwarps + i
** the phases of mbarrier i completed, which a TMA copy's data needs). */
#define LT_EMU_MAXMBAR 64                    /* mbarriers a block may have (emu_cuda.h) */
#define LT_EMU_VCMAX (32 + LT_EMU_MAXMBAR)   /* entries of a vector clock: the warps, then the mbarriers */

struct Mbar {
  unsigned char *addr;
  int count, pending;
  long tx;
  uint32_t phase;
  int had_tx;             /* an expect-tx in the current phase; done_tx: in the last completed one */
  int done_tx, done_by;   /* done_by: thread id + 1 of the arrival that completed the last phase */
  int init_tid;
  uint32_t init_epoch;
  const char *file;       /* the init */
  int line;
  uint32_t vc_cur[LT_EMU_VCMAX], vc_done[LT_EMU_VCMAX];
};

/* One TMA load in flight (emu_cuda.h): the box read at issue, landing in
** shared memory at `dst` when delivered, then completing `bytes`
** transaction bytes on mbarrier `bar` (index in State.mbars). */
struct TmaOp {
  int tid, bar;
  uint32_t phase;         /* the mbarrier's phase at the issue */
  unsigned char *dst;
  size_t bytes;
  unsigned char *data;
  const char *file;
  int line;
};

/* One TMA store whose read of shared memory [src, src + bytes) is not yet
** covered by a cp.async.bulk.wait_group.read of its thread. */
struct BulkOp {
  int tid, group;
  unsigned char *src;
  size_t bytes;
  const char *file;
  int line;
};

/* Per 16 bytes of lt_smem, in a launch that uses mbarriers or TMA: the
** element reads of wgmmas in flight and the TMA stores still reading it;
** the TMA copy that wrote it last (tma_tid: its thread + 1, 0 none; it
** completed on phase tma_phase of mbarrier tma_bar; the line of the
** issue); per warp, the warp's clock at its last read (0 none). */
struct AsyncChunk {
  uint32_t block;
  uint16_t wg_reads, bulk_reads;
  int tma_tid, tma_bar, tma_line;
  uint32_t tma_phase;
  uint32_t rclock[32];
};

/* One warp's wgmma in flight (emu_cuda.h): its operands as read at issue
** (the warp's 16 rows of A, all of B), where its result goes, and the
** accumulators' values at issue (the lanes' registers hold a poison
** until the wait_group that completes it). */
struct WgOp {
  int warp, group, n, kind, ta, tb, scale_d;   /* kind: the operand type, 0 f16, 1 bf16, 2 e4m3, 3 e5m2, 4 tf32 */
  int chained;            /* into an accumulator an earlier wgmma in flight writes: C is that one's result */
  int swap;               /* registers in the swapped operands' order (lt_wgmma_..._ss_t): i = 4 j + 2 v + h */
  uint64_t da, db;        /* descriptors of A (0: A from registers) and B */
  float a[16][32], b[32][256];   /* K: 16 (16-bit types), 32 (fp8), 8 (tf32) */
  float *d[32];           /* each lane's accumulator registers */
  float c[32][128];
  const uint32_t *ar[32]; /* A from registers: each lane's, and their values at issue (checked at the wait) */
  uint32_t av[32][4];
  const char *file;
  int line;
};

/* The launch being run on this OS thread. */
struct State {
  const char *kernel, *file;
  int line;                 /* launch site */
  int warp;                 /* lanes per warp */
  dim3 grid, block;
  uint3 bidx;               /* blockIdx */
  int nthreads, nwarps;
  Thread *threads;
  Warp *warps;
  int *order;
  int bar_arrived;
  unsigned bar_gen, epoch;  /* epoch: barriers completed in this block */
  int nbar_arrived[16];     /* named barriers 1..15 (bar.sync / bar.arrive id, count) */
  int nbar_count[16];       /* the thread count of the phase in progress; 0: none */
  unsigned nbar_gen[16];
  bool nbar_or[16], nbar_or_done[16];   /* bar.red.or: the phase in progress's OR, the last completed phase's */
  const char *nbar_file[16];
  int nbar_line[16];        /* where the pending phase's first arrival was */
  Thread *cur;              /* the thread running, NULL in the scheduler */
  Ctx sched;
  int error;
  char msg[2048];
  void (*invoke)(void *);   /* calls the kernel with the launch's arguments */
  void *invoke_arg;
  int schedule;             /* 0 forward, 1 reverse, 2 random, 3 warps */
  uint64_t rng;
  size_t smem_bytes;        /* dynamic shared memory of the launch */
  int track;                /* keep the shadow state of lt_smem */
  int traced;               /* plain loads and stores reach traced_access (probe_traced) */
  int probe_hits;           /* accesses seen while probing; -1: not probing */
  uint32_t serial;          /* the running block, for Shadow.block */
  unsigned char *snap;
  Shadow *shadow;           /* of lt_smem[0 .. smem_bytes] */
  int own_shadow;           /* shadow allocated for this launch (not part of sshadow) */
  Shadow *sshadow;          /* of the TLS block (trace.lo, trace.n): the __shared__ arrays */
  LtEmuTrace trace, *outer_trace;
  Copy *copies;             /* cp.async in flight, in issue order */
  size_t ncopies, capcopies;
  WgOp *wg;                 /* wgmmas in flight, in issue order (emu_cuda.h) */
  size_t nwg, capwg;
  /* mbarriers, TMA, setmaxnreg (emu_cuda.h); vc_on once the launch uses an
  ** mbarrier or a TMA copy: then barriers, named barriers and mbarriers
  ** order shared-memory accesses through the warps' vector clocks */
  int vc_on;
  int vcw;                  /* entries of a vector clock: nwarps + LT_EMU_MAXMBAR */
  uint32_t *vc;             /* nwarps x vcw: row w is warp w's vector clock */
  uint32_t nbar_vc[16][LT_EMU_VCMAX];   /* what the arrivals of a named barrier's phase release */
  Mbar *mbars;
  size_t nmbar, capmbar;
  TmaOp *tmas;
  size_t ntma, captma;
  BulkOp *bulks;
  size_t nbulk, capbulk;
  AsyncChunk *ash;          /* of lt_smem[0 .. smem_bytes], by 16 bytes; NULL until used */
  int reg_pool;             /* setmaxnreg: registers (per thread x 32) the block's warps may hold */
  /* set by emu_cuda.h when used: delivers every TMA copy in flight (1 if
  ** any), reports a read of / a write over bytes a TMA copy has not
  ** delivered, checks what must be settled when the block ends */
  int (*async_deliver)(struct State *s);
  void (*async_read_pending)(struct State *s, Thread *t, uintptr_t a, const char *what, const Site *at);
  void (*async_write_pending)(struct State *s, Thread *t, uintptr_t a, const char *what, const Site *at);
  void (*async_end)(struct State *s);
#ifdef LT_EMU_ASAN
  void *sched_fake;
  const void *sched_bottom;
  size_t sched_size;
#endif
};

thread_local State *g;
thread_local int last_error;   /* cudaGetLastError / hipGetLastError */
thread_local int index_reports;  /* row indices outside their tensor this launch met (index()) */
thread_local int last_traced;  /* whether the last launch traced plain accesses (traced()) */
thread_local char last_msg[2048];

/* The last error message of this OS thread (for tests of the emulator). */
LT_EMU_FN const char *message(void) { return last_msg; }

/* ------------------------------------------------------------------ */
/* reporting                                                            */

/* Prints the text of line `line` of `file` and the DSL line of the nearest
** "// NAME.lua:N: text" comment above it, when the file can be read. */
LT_EMU_FN void show_source(const char *file, int line) {
  FILE *f = file ? fopen(file, "r") : NULL;
  if (!f) return;
  char buf[1024], dsl[1024] = "";
  for (int n = 1; n <= line && fgets(buf, sizeof buf, f); n++) {
    char *p = buf;
    while (*p == ' ') p++;
    if (strncmp(p, "// ", 3) == 0 && strstr(p, ".lua:")) snprintf(dsl, sizeof dsl, "%s", p + 3);
    if (n == line) {
      buf[strcspn(buf, "\n")] = 0;
      fprintf(stderr, "  %5d | %s\n", line, buf);
    }
  }
  fclose(f);
  if (*dsl) fprintf(stderr, "  from %s", dsl);
}

/* Switches from the running GPU thread back to the scheduler; `final`:
** the fiber will never be resumed. */
LT_EMU_FN void leave(State *s, Thread *t, bool final) {
#ifdef LT_EMU_ASAN
  __sanitizer_start_switch_fiber(final ? NULL : &t->fake_stack, s->sched_bottom, s->sched_size);
#else
  (void)final;
#endif
  ctx_swap(&t->ctx, &s->sched);
#ifdef LT_EMU_ASAN
  __sanitizer_finish_switch_fiber(t->fake_stack, &s->sched_bottom, &s->sched_size);
#endif
}

/* Reports an error at file:line of the generated source and stops the
** launch: inside a GPU thread it never returns (the block is abandoned). */
LT_EMU_FN void fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
LT_EMU_FN void fail(const char *file, int line, const char *fmt, ...) {
  State *s = g;
  char text[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (s && !s->error) {
    snprintf(s->msg, sizeof s->msg, "%s, block (%u,%u,%u): %s", s->kernel, s->bidx.x, s->bidx.y, s->bidx.z, text);
    snprintf(last_msg, sizeof last_msg, "%s", s->msg);
    fprintf(stderr, "%s:%d: error: lt_emu: %s\n", file ? file : "?", line, s->msg);
    show_source(file, line);
    s->error = LT_EMU_ERR_LAUNCH;
    const char *ab = getenv("LT_EMU_ABORT");
    if (ab && *ab == '1') abort();
  } else if (!s) {
    snprintf(last_msg, sizeof last_msg, "%s", text);
    fprintf(stderr, "%s:%d: error: lt_emu: %s\n", file ? file : "?", line, text);
  }
  if (s && s->cur) {
    Thread *t = s->cur;
    for (;;) leave(s, t, true);
  }
}

/* Appends "a-b, c, ..." for the ids i of [0, n) with pick(i) true. */
template <class F>
LT_EMU_FN void ranges(char *out, size_t cap, int n, F pick) {
  size_t len = strlen(out);
  int first = 1;
  for (int i = 0; i < n; i++) {
    if (!pick(i)) continue;
    int j = i;
    while (j + 1 < n && pick(j + 1)) j++;
    int w = j > i ? snprintf(out + len, cap - len, "%s%d-%d", first ? "" : ", ", i, j)
                  : snprintf(out + len, cap - len, "%s%d", first ? "" : ", ", i);
    if (w < 0 || (size_t)w >= cap - len) return;
    len += (size_t)w;
    first = 0;
    i = j;
  }
}

/* memcpy through a pointer: the call is not expanded inline, so the
** sanitizer's memcpy checks the kernel's addresses. */
static void *(*volatile copy_in)(void *, const void *, size_t) = memcpy;

/* ------------------------------------------------------------------ */
/* shadow state of shared memory                                        */

/* Offset of [p, p + n) in lt_smem, or -1 when outside it. */
LT_EMU_FN long smem_offset(const void *p, size_t n) {
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)lt_smem;
  if (a < lo || a + n > lo + LT_EMU_SMEM_CAP) return -1;
  return (long)(a - lo);
}

#define LT_EMU_PLAIN 0xfffe   /* Shadow.writer of bytes written by plain stores seen untraced */
#define LT_EMU_MANY 0xffff    /* Shadow.reader, Shadow.rwarp: several */

/* Entry i of the shadow `base` for the running block: one left by an
** earlier block is cleared first. */
LT_EMU_FN Shadow *shadow_at(State *s, Shadow *base, size_t i) {
  Shadow *h = &base[i];
  if (h->block != s->serial) {
    memset((void *)h, 0, sizeof *h);
    h->block = s->serial;
  }
  return h;
}

/* Whether thread t, now, comes after an access by thread `other` made in
** barrier epoch `epoch` when the other's warp had completed `sync` warp
** operations: t itself made it, a barrier completed since, or it was a
** lane of t's warp and a warp-wide operation (shuffle, ldmatrix, mma,
** MFMA, WMMA) completed since.  Assumes, as warp_sync guarantees, that
** all running lanes of a warp have passed the same operations. */
LT_EMU_FN bool ordered(State *s, Thread *t, int other, uint32_t epoch, uint32_t sync, uint32_t clock) {
  return other == t->tid || epoch != s->epoch || (other / s->warp == t->warp && sync != s->warps[t->warp].gen) ||
         (s->vc_on && other < s->nthreads && clock && s->vc[(size_t)t->warp * s->vcw + other / s->warp] >= clock);
}

/* The AsyncChunk of the lt_smem byte at a for the running block, or NULL
** (no mbarrier or TMA in the launch, or not lt_smem); one left by an
** earlier block is cleared first. */
LT_EMU_FN AsyncChunk *chunk_at(State *s, uintptr_t a) {
  uintptr_t d = a - (uintptr_t)lt_smem;
  if (!s->ash || d >= s->smem_bytes) return NULL;
  AsyncChunk *c = &s->ash[d / 16];
  if (c->block != s->serial) {
    memset((void *)c, 0, sizeof *c);
    c->block = s->serial;
  }
  return c;
}

/* Whether a TMA store still reads the lt_smem byte at a. */
LT_EMU_FN bool bulk_busy(State *s, uintptr_t a) {
  AsyncChunk *c = chunk_at(s, a);
  return c && c->bulk_reads;
}

/* Records a read of the lt_smem byte at a by thread t's warp, at its clock. */
LT_EMU_FN void async_read(State *s, Thread *t, uintptr_t a) {
  AsyncChunk *c = chunk_at(s, a);
  if (c) c->rclock[t->warp] = s->warps[t->warp].clock;
}

/* Whether bytes a TMA copy delivered (chunk c) are ordered before what
** thread t does now: its warp has seen, through waits and barriers, the
** completion of the mbarrier phase the copy completed on. */
LT_EMU_FN bool tma_ordered(State *s, Thread *t, const AsyncChunk *c) {
  return !c || !c->tma_tid || s->vc[(size_t)t->warp * s->vcw + s->nwarps + c->tma_bar] > c->tma_phase;
}

/* Records a read of the byte of entry h by thread t; `in_op`: by the warp
** operation now running (ldmatrix), which does not itself order the read
** before what the other lanes do after it, so it counts as made after. */
LT_EMU_FN void note_read(State *s, Thread *t, Shadow *h, int in_op) {
  uint16_t me = (uint16_t)(t->tid + 1), w = (uint16_t)(t->warp + 1);
  if (h->repoch != s->epoch || !h->reader) {
    h->reader = me, h->rwarp = w;
  } else {
    if (h->reader != me) h->reader = LT_EMU_MANY;
    if (h->rwarp != w) h->rwarp = LT_EMU_MANY;
  }
  h->repoch = s->epoch;
  h->rsync = s->warps[t->warp].gen + (uint32_t)in_op;
}

/* Whether the reads recorded in h come before a write by thread t now
** (as `ordered`; for several readers of t's warp, its last warp operation
** must follow the last read). */
LT_EMU_FN bool reads_ordered(State *s, Thread *t, Shadow *h, uintptr_t a) {
  if (!h->reader || h->repoch != s->epoch || h->reader == t->tid + 1) return true;
  if (h->rwarp == t->warp + 1 && h->rsync != s->warps[t->warp].gen) return true;
  AsyncChunk *c = s->vc_on ? chunk_at(s, a) : NULL;   /* through mbarriers: each warp's last read of the chunk */
  if (!c) return false;
  for (int w = 0; w < s->nwarps; w++)
    if (c->rclock[w] > s->vc[(size_t)t->warp * s->vcw + w]) return false;
  return true;
}

/* Where a message points: the generated source line, or a code address
** (pc, a return address into the kernel code) to find it from. */
struct Site {
  const char *file;
  int line;
  void *pc;
};

/* The generated source line of the code at return address pc, into
** file[cap] and *line: the outermost of the frames inlined there, which
** is the kernel's own line rather than that of a helper inlined into it
** (uint4's copy, say).  Needs the sanitizer runtime's symbolizer (clang's
** finds llvm-symbolizer on the PATH or at ASAN_SYMBOLIZER_PATH); false
** without one. */
LT_EMU_FN bool pc_line(void *pc, char *file, size_t cap, int *line) {
#ifdef LT_EMU_ASAN
  char buf[4096];
  memset(buf, 0, sizeof buf);
  __sanitizer_symbolize_pc((char *)pc - 1, "%s:%l", buf, sizeof buf);
  const char *last = NULL;   /* frames: strings one after the other, innermost first */
  for (const char *p = buf; p < buf + sizeof buf && *p; p += strlen(p) + 1) last = p;
  const char *colon = last ? strrchr(last, ':') : NULL;
  if (!colon || colon == last || atoi(colon + 1) <= 0 || strncmp(last, "??", 2) == 0) return false;
  snprintf(file, cap, "%.*s", (int)(colon - last), last);
  *line = atoi(colon + 1);
  return true;
#else
  (void)pc, (void)file, (void)cap, (void)line;
  return false;
#endif
}

/* Reports an error of thread t at `at`: its line, or the line of its code
** address; without a symbolizer the thread's last sync point, marked
** "after this line".  Never returns inside a GPU thread (see fail). */
LT_EMU_FN void fail_site(Thread *t, const Site *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
LT_EMU_FN void fail_site(Thread *t, const Site *at, const char *fmt, ...) {
  static thread_local char file[1024];
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  int line = 0;
  if (!at->pc) fail(at->file, at->line, "%s", text);
  else if (pc_line(at->pc, file, sizeof file, &line)) fail(file, line, "%s", text);
  else fail(t->file, t->line, "%s (after this line)", text);
}

/* Names shared byte a for messages, in buf[cap]: dynamic by its offset,
** a __shared__ array by its address. */
LT_EMU_FN const char *place(char *buf, size_t cap, uintptr_t a) {
  long off = smem_offset((const void *)a, 1);
  if (off >= 0) snprintf(buf, cap, "shared memory (dynamic, offset %ld)", off);
  else snprintf(buf, cap, "a __shared__ array (static, at %p)", (void *)a);
  return buf;
}

/* Names the reader of a load for messages, in buf[cap]: "thread N", or
** "WHAT of lane N" for an intrinsic. */
LT_EMU_FN const char *who(char *buf, size_t cap, Thread *t, const char *what) {
  if (what) snprintf(buf, cap, "%s of lane %d", what, t->lane);
  else snprintf(buf, cap, "thread %d", t->tid);
  return buf;
}

/* Checks a read by thread t (what: the intrinsic, or NULL for a plain
** load) of shared byte a, with shadow entry h, when stores are traced:
** written in this block, not by a cp.async in flight, by t or before the
** last barrier (or the last warp operation, for a lane of t's warp).
** Then records the read (what: as made by the warp operation running). */
LT_EMU_FN void load_byte(State *s, Thread *t, Shadow *h, uintptr_t a, const char *what, const Site *at) {
  char w[96], p[96];
  if (h->pending & LT_EMU_ASYNC) s->async_read_pending(s, t, a, what, at);
  if (h->pending)
    fail_site(t, at, "%s reads %s that a cp.async of thread %d is still copying (missing cp.async wait)",
              who(w, sizeof w, t, what), place(p, sizeof p, a), h->pending - 1);
  if (!h->writer)
    fail_site(t, at, "%s reads %s that no thread wrote in this block", who(w, sizeof w, t, what), place(p, sizeof p, a));
  if (h->writer == LT_EMU_TMA) {
    const AsyncChunk *c = chunk_at(s, a);
    if (!tma_ordered(s, t, c))
      fail_site(t, at, "%s reads %s that the TMA copy of line %d delivered, completing phase %u of the mbarrier at "
                "offset %ld, and its warp has not waited for that phase (a missing or wrong-parity mbarrier wait)",
                who(w, sizeof w, t, what), place(p, sizeof p, a), c->tma_line, c->tma_phase,
                (long)(s->mbars[c->tma_bar].addr - lt_smem));
  } else if (!ordered(s, t, h->writer - 1, h->wepoch, h->wsync, h->wclock)) {
    fail_site(t, at, "%s reads %s that thread %d wrote since the last barrier (missing barrier)",
              who(w, sizeof w, t, what), place(p, sizeof p, a), h->writer - 1);
  }
  note_read(s, t, h, what != NULL);
  async_read(s, t, a);
}

/* Checks a plain store by thread t to shared byte a, with shadow entry h,
** when stores are traced: no cp.async in flight to it, and every read and
** write of it by another thread since the last barrier ordered before (a
** lane of t's warp: by a warp operation since).  Then records the write. */
LT_EMU_FN void store_byte(State *s, Thread *t, Shadow *h, uintptr_t a, const Site *at) {
  char p[96];
  AsyncChunk *c = chunk_at(s, a);
  if ((h->pending & LT_EMU_ASYNC) || (c && c->bulk_reads)) s->async_write_pending(s, t, a, "a plain store", at);
  if (h->pending)
    fail_site(t, at, "a plain store of thread %d wrote %s while a cp.async of thread %d to it was in flight (no "
              "cp.async wait before the store)", t->tid, place(p, sizeof p, a), h->pending - 1);
  if (!reads_ordered(s, t, h, a)) {
    char r[32];
    if (h->reader == LT_EMU_MANY) snprintf(r, sizeof r, "several threads");
    else snprintf(r, sizeof r, "thread %d", h->reader - 1);
    fail_site(t, at, "a plain store of thread %d overwrote %s that %s read since the last barrier (missing barrier "
              "before the store)", t->tid, place(p, sizeof p, a), r);
  }
  if (h->writer == LT_EMU_TMA && !tma_ordered(s, t, c))
    fail_site(t, at, "a plain store of thread %d overwrote %s that the TMA copy of line %d delivered, in an mbarrier "
              "phase its warp has not waited for", t->tid, place(p, sizeof p, a), c->tma_line);
  if (h->writer && h->writer != LT_EMU_TMA && !ordered(s, t, h->writer - 1, h->wepoch, h->wsync, h->wclock))
    fail_site(t, at, "a plain store of thread %d overwrote %s that thread %d wrote since the last barrier (two "
              "stores with no barrier between)", t->tid, place(p, sizeof p, a), h->writer - 1);
  h->writer = (uint16_t)(t->tid + 1);
  h->wepoch = s->epoch;
  h->wsync = s->warps[t->warp].gen;
  h->wclock = s->warps[t->warp].clock;
  h->wfence = t->fences;
}

/* The shadow entry of shared byte a when the launch traces plain
** accesses (dynamic or __shared__ array), or NULL for other memory. */
LT_EMU_FN Shadow *traced_entry(State *s, uintptr_t a) {
  uintptr_t d = a - (uintptr_t)lt_smem;
  if (d < s->smem_bytes && s->shadow) return shadow_at(s, s->shadow, d);
  if (d < LT_EMU_SMEM_CAP || a - s->trace.lo >= s->trace.n) return NULL;
  return shadow_at(s, s->sshadow, a - s->trace.lo);
}

/* A plain load or store of the kernel code, from lt_emu_traced: n bytes at
** a (inside the TLS block: lt_smem or a __shared__ array), called from
** return address pc.  Checks each byte against its shadow and records
** it; dynamic shared memory past the launch's is an error.  The usual
** case (an entry of this block, no cp.async, the last write by this
** thread or before the last barrier, no read by another thread since the
** barrier for a store) is decided here; the rest by load_byte and
** store_byte.  While the launch probes (probe_traced) it only counts. */
LT_EMU_FN void traced_access(uintptr_t a, unsigned n, int store, void *pc) {
  State *s = g;
  if (!s) return;
  if (s->probe_hits >= 0) {
    s->probe_hits++;
    return;
  }
  Thread *t = s->cur;
  if (!t || !s->traced) return;
  Site at = {NULL, 0, pc};
  uintptr_t d = a - (uintptr_t)lt_smem;
  Shadow *h;
  if (d < LT_EMU_SMEM_CAP) {
    if (d + n > s->smem_bytes)
      fail_site(t, &at, "thread %d %s dynamic shared offset %zu..%zu, outside the %zu bytes of the launch", t->tid,
                store ? "writes" : "reads", (size_t)d, (size_t)d + n - 1, s->smem_bytes);
    h = s->shadow + d;
  } else {
    uintptr_t off = a - s->trace.lo;
    if (off + n > s->trace.n) n = (unsigned)(s->trace.n - off);
    h = s->sshadow + off;
  }
  uint32_t serial = s->serial, epoch = s->epoch, gen = s->warps[t->warp].gen, clock = s->warps[t->warp].clock;
  uint16_t me = (uint16_t)(t->tid + 1);
  for (unsigned i = 0; i < n; i++, h++) {
    if (h->block == serial && !h->pending && h->writer != LT_EMU_TMA) {
      if (!store && h->writer && (h->writer == me || h->wepoch != epoch)) {
        note_read(s, t, h, 0);
        if (s->ash) async_read(s, t, a + i);
        continue;
      }
      if (store && (h->repoch != epoch || !h->reader || h->reader == me) &&
          (!h->writer || h->writer == me || h->wepoch != epoch) && !bulk_busy(s, a + i)) {
        h->writer = me, h->wepoch = epoch, h->wsync = gen, h->wclock = clock, h->wfence = t->fences;
        continue;
      }
    }
    Shadow *e = shadow_at(s, h, 0);
    if (store) store_byte(s, t, e, a + i, &at);
    else load_byte(s, t, e, a + i, NULL, &at);
  }
}

/* The shadow entry of the byte at a that a cp.async to it keeps: any
** shared byte when plain accesses are traced, else a byte of lt_smem
** when it is tracked; NULL for none. */
LT_EMU_FN Shadow *copy_entry(State *s, uintptr_t a) {
  if (s->traced) return traced_entry(s, a);
  long off = smem_offset((const void *)a, 1);
  return off >= 0 && s->track ? shadow_at(s, s->shadow, (size_t)off) : NULL;
}

/* Brings the shadow state of lt_smem[off, off + n) up to date with plain
** stores when they are not traced: a byte that differs from the copy
** taken at the last look was written by a plain store (of some thread) in
** the current barrier interval.  Checks that store against a cp.async in
** flight to the byte and against an ldmatrix of another thread reading it
** earlier in the interval (the store came after the read: it needed a
** barrier).  In a launch with mbarriers (State.vc_on) the storing thread,
** unknown here, may be ordered after the read through them or a named
** barrier: that check is then the traced build's (reads_ordered). */
LT_EMU_FN void reconcile(State *s, size_t off, size_t n, const char *file, int line) {
  if (s->traced) return;
  unsigned char *snap = s->snap;
  for (size_t c = off; c < off + n; c += 64) {
    size_t m = off + n - c < 64 ? off + n - c : 64;
    if (memcmp(lt_smem + c, snap + c, m) == 0) continue;
    for (size_t i = c; i < c + m; i++) {
      if (lt_smem[i] == snap[i]) continue;
      Shadow *h = shadow_at(s, s->shadow, i);
      if ((h->pending & LT_EMU_ASYNC) || bulk_busy(s, (uintptr_t)(lt_smem + i))) {
        Site at = {file, line, NULL};
        s->async_write_pending(s, s->cur, (uintptr_t)(lt_smem + i), "a plain store", &at);
      }
      if (h->pending)
        fail(file, line, "a plain store wrote shared memory (dynamic, offset %zu) while a cp.async of thread %d to it "
             "was in flight (no cp.async wait before the store)", i, h->pending - 1);
      if (h->reader && h->repoch == s->epoch && !s->vc_on)
        fail(file, line, "a plain store overwrote shared memory (dynamic, offset %zu) that %s read with ldmatrix "
             "since the last barrier (missing barrier before the store)", i,
             h->reader == LT_EMU_MANY ? "several threads" : "a thread");
      h->writer = LT_EMU_PLAIN;
      h->wepoch = s->epoch;
      snap[i] = lt_smem[i];
    }
  }
}

/* Checks a read of n bytes at p by lane t of an intrinsic `what`
** (ldmatrix, 16-bit elements): written in this block, not by a cp.async
** in flight, not by another thread since the last barrier.  Traced, that
** is load_byte's rule, for lt_smem and the __shared__ arrays.  Untraced
** (lt_smem only), a plain store that leaves a byte as it was (0xff, the
** poison) cannot be seen, so the two bytes of an element count as written
** when either is; both 0xff is a NaN, which real data does not hold. */
LT_EMU_FN void check_read(State *s, Thread *t, const void *p, size_t n, const char *what, const char *file, int line) {
  if (s->traced) {
    Site at = {file, line, NULL};
    for (size_t i = 0; i < n; i++) {
      Shadow *h = traced_entry(s, (uintptr_t)p + i);
      if (h) load_byte(s, t, h, (uintptr_t)p + i, what, &at);
    }
    return;
  }
  long off = smem_offset(p, n);
  if (off < 0 || !s->track) return;
  reconcile(s, (size_t)off, n, file, line);
  int me = t->tid + 1;
  for (size_t i = (size_t)off; i < (size_t)off + n; i++) {
    Shadow *h = shadow_at(s, s->shadow, i), *pair = shadow_at(s, s->shadow, i ^ 1);
    if (!h->writer && pair->writer == LT_EMU_PLAIN) h->writer = pair->writer, h->wepoch = pair->wepoch;
    if (h->pending & LT_EMU_ASYNC) {
      Site at = {file, line, NULL};
      s->async_read_pending(s, t, (uintptr_t)(lt_smem + i), what, &at);
    }
    if (h->writer == LT_EMU_TMA) {
      const AsyncChunk *c = chunk_at(s, (uintptr_t)(lt_smem + i));
      if (!tma_ordered(s, t, c))
        fail(file, line, "%s of lane %d reads shared memory (dynamic, offset %zu) that the TMA copy of line %d delivered, "
             "completing phase %u of the mbarrier at offset %ld, and its warp has not waited for that phase (a missing "
             "or wrong-parity mbarrier wait)", what, t->lane, i, c->tma_line, c->tma_phase,
             (long)(s->mbars[c->tma_bar].addr - lt_smem));
      note_read(s, t, h, 1);
      async_read(s, t, (uintptr_t)(lt_smem + i));
      continue;
    }
    if (h->pending)
      fail(file, line, "%s of lane %d reads shared memory (dynamic, offset %zu) that a cp.async of thread %d is still "
           "copying (missing cp.async wait)", what, t->lane, i, h->pending - 1);
    if (!h->writer)
      fail(file, line, "%s of lane %d reads shared memory (dynamic, offset %zu) that no thread wrote in this block",
           what, t->lane, i);
    if (h->writer == LT_EMU_PLAIN && h->wepoch == s->epoch && !s->vc_on)
      fail(file, line, "%s of lane %d reads shared memory (dynamic, offset %zu) that a plain store wrote since the "
           "last barrier (missing barrier)", what, t->lane, i);
    if (h->writer != me && h->writer != LT_EMU_PLAIN && h->wepoch == s->epoch &&
        !ordered(s, t, h->writer - 1, h->wepoch, h->wsync, h->wclock))
      fail(file, line, "%s of lane %d reads shared memory (dynamic, offset %zu) that a cp.async of thread %d wrote "
           "since the last barrier (missing barrier)", what, t->lane, i, h->writer - 1);
    note_read(s, t, h, 1);
    async_read(s, t, (uintptr_t)(lt_smem + i));
  }
}

/* Checks that [p, p + n) is shared memory usable by this launch: inside
** the dynamic part the launch asked for, or outside lt_smem (a __shared__
** array). */
LT_EMU_FN void check_shared(State *s, const void *p, size_t n, const char *what, const char *file, int line) {
  uintptr_t a = (uintptr_t)p, lo = (uintptr_t)lt_smem;
  if (a + n > lo && a < lo + LT_EMU_SMEM_CAP && (a < lo || a + n > lo + s->smem_bytes))
    fail(file, line, "%s at dynamic shared offset %ld..%ld is outside the %zu bytes of the launch", what,
         (long)(a - lo), (long)(a - lo + n) - 1, s->smem_bytes);
}

/* ------------------------------------------------------------------ */
/* barriers and warp operations                                         */

/* Waits in the scheduler until `ready`: a barrier or warp generation moved. */
LT_EMU_FN void block_on(State *s, Thread *t, int state, unsigned gen) {
  t->state = state;
  t->wait_gen = gen;
  leave(s, t, false);
  t->state = RUN;
}

/* __syncthreads: waits until all threads of the block are here.  The
** last one to arrive checks they all wait at the same barrier. */
LT_EMU_FN void barrier(const char *file, int line, const char *what) {
  State *s = g;
  Thread *t = s->cur;
  t->file = file, t->line = line, t->what = what;
  if (++s->bar_arrived < s->nthreads) {
    block_on(s, t, WAIT_BAR, s->bar_gen);
    return;
  }
  Thread *th = s->threads, *t0 = &th[0];
  for (int i = 1; i < s->nthreads; i++) {
    Thread *o = &th[i];
    if (o->line == t0->line && strcmp(o->file, t0->file) == 0) continue;
    char m[1024] = "";
    snprintf(m, sizeof m, "%s at line %d reached by only some threads: threads ", t0->what, t0->line);
    ranges(m, sizeof m, s->nthreads, [&](int k) { return th[k].line == t0->line; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " wait there; threads ");
    ranges(m, sizeof m, s->nthreads, [&](int k) { return th[k].line == o->line; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " wait at the %s at line %d", o->what, o->line);
    fail(t0->file, t0->line, "%s", m);
  }
  if (s->track && !s->traced) reconcile(s, 0, s->smem_bytes, file, line);
  s->bar_arrived = 0;
  s->bar_gen++;
  s->epoch++;
  /* every warp's accesses so far, and what any warp acquired, come before every warp's next accesses */
  uint32_t *j = s->vc;   /* row 0 becomes the join */
  for (int u = 0; u < s->nwarps; u++) j[u] = s->warps[u].clock;
  for (int w = 1; w < s->nwarps; w++)
    for (int u = s->nwarps; u < s->vcw; u++) j[u] = j[u] > s->vc[(size_t)w * s->vcw + u] ? j[u] : s->vc[(size_t)w * s->vcw + u];
  for (int w = 1; w < s->nwarps; w++) memcpy(s->vc + (size_t)w * s->vcw, j, (size_t)s->vcw * sizeof *j);
  for (int u = 0; u < s->nwarps; u++) s->warps[u].clock++;
}

/* Vector clocks: warp w releases (its accesses so far, and what it has
** acquired) into acc[0 .. nwarps - 1]; its clock moves on. */
LT_EMU_FN void vc_release(State *s, int w, uint32_t *acc) {
  const uint32_t *r = s->vc + (size_t)w * s->vcw;
  for (int u = 0; u < s->vcw; u++) acc[u] = acc[u] > r[u] ? acc[u] : r[u];
  if (acc[w] < s->warps[w].clock) acc[w] = s->warps[w].clock;
  s->warps[w].clock++;
}

/* Warp w acquires what acc released. */
LT_EMU_FN void vc_acquire(State *s, int w, const uint32_t *acc) {
  uint32_t *r = s->vc + (size_t)w * s->vcw;
  for (int u = 0; u < s->vcw; u++) r[u] = r[u] > acc[u] ? r[u] : acc[u];
}

/* bar.sync / bar.arrive on named barrier id (1..15) with `count` threads
** (a multiple of the warp): the arrival that makes `count` completes the
** phase and releases the threads that wait in it; `wait`: this thread
** waits too (bar.sync), else it goes on (bar.arrive).  Every arrival of a
** phase must give the same count.  Without mbarriers these barriers only
** order the threads (the kernels take turns with them) and are no point of
** the shared-memory checks; in a launch with mbarriers (State.vc_on) the
** accesses of the arriving warps come before those of the waiting ones. */
LT_EMU_FN void named_barrier(int id, int count, bool wait, const char *file, int line, const char *what) {
  State *s = g;
  Thread *t = s->cur;
  t->file = file, t->line = line, t->what = what;
  if (id < 1 || id > 15 || count <= 0 || count % s->warp != 0 || count > s->nthreads)
    fail(file, line, "%s: barrier %d with %d threads (ids 1..15, a multiple of the warp up to the block)", what, id, count);
  if (s->nbar_count[id] && s->nbar_count[id] != count)
    fail(file, line, "%s: barrier %d arrived at with %d threads, its phase in progress (from line %d) with %d", what, id,
         count, s->nbar_line[id], s->nbar_count[id]);
  if (!s->nbar_count[id]) s->nbar_count[id] = count, s->nbar_file[id] = file, s->nbar_line[id] = line;
  vc_release(s, t->warp, s->nbar_vc[id]);
  if (++s->nbar_arrived[id] == count) {
    s->nbar_or_done[id] = s->nbar_or[id];
    s->nbar_or[id] = false;
    s->nbar_arrived[id] = 0;
    s->nbar_count[id] = 0;
    s->nbar_gen[id]++;
    for (int i = 0; i < s->nthreads; i++)   /* the threads that wait in the phase acquire what it released */
      if (s->threads[i].state == WAIT_NBAR && s->threads[i].wait_bar == id) vc_acquire(s, s->threads[i].warp, s->nbar_vc[id]);
    if (wait) vc_acquire(s, t->warp, s->nbar_vc[id]);
    memset(s->nbar_vc[id], 0, sizeof s->nbar_vc[id]);
    return;
  }
  if (!wait) return;
  t->wait_bar = id;
  block_on(s, t, WAIT_NBAR, s->nbar_gen[id]);
}

/* bar.red.or.pred on named barrier id: named_barrier's bar.sync, returning
** whether pred held in any thread of the phase.  The phase's OR is kept
** until every thread of it is back (they all wait in it, so none can
** start the next phase before this thread reads it). */
LT_EMU_FN bool named_barrier_or(int id, int count, bool pred, const char *file, int line) {
  State *s = g;
  if (id >= 1 && id <= 15) s->nbar_or[id] = s->nbar_or[id] || pred;
  named_barrier(id, count, true, file, line, "bar.red.or.pred (named barrier)");
  return s->nbar_or_done[id];
}

/* A warp-wide operation: every lane of the warp must reach the same one
** (same code, same line).  The last lane to arrive runs fn for all lanes;
** the others wait.  args: this lane's operands, read by fn. */
LT_EMU_FN void warp_sync(WarpFn fn, void *args, const char *what, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  t->file = file, t->line = line, t->what = what;
  t->op = fn, t->args = args;
  Warp *w = &s->warps[t->warp];
  if (++w->arrived < w->size) {
    block_on(s, t, WAIT_WARP, w->gen);
    return;
  }
  Thread *lanes = &s->threads[t->warp * s->warp];
  Thread *l0 = &lanes[0];
  for (int l = 1; l < w->size; l++) {
    Thread *o = &lanes[l];
    if (o->op == l0->op && o->line == l0->line && strcmp(o->file, l0->file) == 0) continue;
    char m[1024] = "";
    snprintf(m, sizeof m, "%s at line %d reached by only some lanes of warp %d: lanes ", l0->what, l0->line, t->warp);
    ranges(m, sizeof m, w->size, [&](int k) { return lanes[k].line == l0->line && lanes[k].op == l0->op; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " are there; lanes ");
    ranges(m, sizeof m, w->size, [&](int k) { return lanes[k].line == o->line && lanes[k].op == o->op; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " are at %s at line %d", o->what, o->line);
    fail(l0->file, l0->line, "%s", m);
  }
  fn(lanes, w->size);
  w->arrived = 0;
  w->gen++;
  for (int l = 0; l < w->size; l++) lanes[l].op = NULL;
}

/* Operands of a shuffle: this lane's value and where its result goes. */
template <class T>
struct ShflArgs {
  T val, res;
  int mask, width;
};

/* The xor shuffle over a warp: lane l reads lane l ^ mask of its group of
** `width` lanes; a lane past its group reads its own value, as on the GPU. */
template <class T>
LT_EMU_FN void shfl_xor_run(Thread *lanes, int n) {
  for (int l = 0; l < n; l++) {
    ShflArgs<T> *a = (ShflArgs<T> *)lanes[l].args;
    int w = a->width, src = l ^ a->mask;
    if (w <= 0 || (w & (w - 1)) || w > g->warp)
      fail(lanes[l].file, lanes[l].line, "shuffle width %d is not a power of two up to the warp size %d", w, g->warp);
    if ((src & ~(w - 1)) != (l & ~(w - 1))) src = l;
    if (src >= n)
      fail(lanes[l].file, lanes[l].line, "lane %d of warp %d shuffles from lane %d, which does not exist (a warp of %d lanes)",
           l, lanes[l].warp, src, n);
    a->res = ((ShflArgs<T> *)lanes[src].args)->val;
  }
}

/* __shfl_xor_sync / __shfl_xor for any 4- or 8-byte value. */
template <class T>
LT_EMU_FN T shfl_xor(unsigned long long member_mask, T v, int lane_mask, int width, const char *what, const char *file, int line) {
  State *s = g;
  unsigned long long all = s->warps[s->cur->warp].size >= 64 ? ~0ull : (1ull << s->warps[s->cur->warp].size) - 1;
  if ((member_mask & all) != all)
    fail(file, line, "%s with member mask %#llx: only full-warp shuffles are emulated", what, member_mask);
  ShflArgs<T> a;
  a.val = v;
  a.mask = lane_mask;
  a.width = width;
  warp_sync(shfl_xor_run<T>, &a, what, file, line);
  return a.res;
}

/* ------------------------------------------------------------------ */
/* cp.async (per thread; lands at a covering wait_group)                */

/* Lands the copies of thread t whose group is <= upto, in issue order. */
LT_EMU_FN void land_copies(State *s, Thread *t, int upto) {
  size_t k = 0;
  for (size_t i = 0; i < s->ncopies; i++) {
    Copy &c = s->copies[i];
    if (c.tid != t->tid || c.group > upto) {
      s->copies[k++] = c;
      continue;
    }
    long off = smem_offset(c.dst, c.size);
    if (off >= 0 && s->track) reconcile(s, (size_t)off, c.size, c.file, c.line);
    memcpy(c.dst, c.data, (size_t)c.size);
    for (int b = 0; b < c.size; b++) {
      Shadow *h = copy_entry(s, (uintptr_t)c.dst + (uintptr_t)b);
      if (!h) continue;
      h->pending = 0;
      h->writer = (uint16_t)(t->tid + 1);
      h->wepoch = s->epoch;
      h->wsync = s->warps[t->warp].gen;
      h->wclock = s->warps[t->warp].clock;
      h->wfence = t->fences;
      if (!s->traced) s->snap[(size_t)off + (size_t)b] = c.dst[b];
    }
  }
  s->ncopies = k;
}

/* cp.async.cg.shared.global [dst], [src], 16, src_bytes (and .ca's 8 and
** 4 bytes: size): reads src_bytes bytes now, lands them (zero-filled to
** size) at a later covering wait. */
LT_EMU_FN void cp_async(void *dst, const void *src, int size, int src_bytes, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  if (src_bytes < 0 || src_bytes > size) fail(file, line, "cp.async src-size %d is not in 0..%d", src_bytes, size);
  if ((uintptr_t)dst % size) fail(file, line, "cp.async destination %p is not %d-byte aligned", dst, size);
  if (src_bytes > 0 && (uintptr_t)src % size) fail(file, line, "cp.async source %p is not %d-byte aligned", src, size);
  check_shared(s, dst, size, "cp.async destination", file, line);
  Copy c;
  c.tid = t->tid;
  c.group = t->group;
  c.dst = (unsigned char *)dst;
  memset(c.data, 0, 16);
  if (src_bytes > 0) copy_in(c.data, src, (size_t)src_bytes);
  c.size = size;
  c.bytes = src_bytes;
  c.file = file;
  c.line = line;
  long off = smem_offset(dst, size);
  if (off >= 0 && s->track) reconcile(s, (size_t)off, size, file, line);
  for (int b = 0; b < size; b++) {
    uintptr_t a = (uintptr_t)dst + (uintptr_t)b;
    Shadow *h = copy_entry(s, a);
    if (!h) continue;
    char p[96];
    if ((h->pending & LT_EMU_ASYNC) || bulk_busy(s, a)) {
      Site at = {file, line, NULL};
      s->async_write_pending(s, t, a, "a cp.async", &at);
    }
    if (h->pending)
      fail(file, line, "cp.async to %s while an earlier cp.async of thread %d to it is still in flight",
           place(p, sizeof p, a), h->pending - 1);
    if (!reads_ordered(s, t, h, a))
      fail(file, line, "cp.async overwrites %s that thread %d read since the last barrier (missing barrier before the "
           "copy)", place(p, sizeof p, a), h->reader == LT_EMU_MANY ? -1 : h->reader - 1);
    if (h->writer && h->writer != LT_EMU_TMA && h->writer != LT_EMU_PLAIN &&
        !ordered(s, t, h->writer - 1, h->wepoch, h->wsync, h->wclock))
      fail(file, line, "cp.async overwrites %s that another thread wrote since the last barrier", place(p, sizeof p, a));
    if (h->writer == LT_EMU_PLAIN && h->wepoch == s->epoch)
      fail(file, line, "cp.async overwrites %s that a plain store wrote since the last barrier", place(p, sizeof p, a));
    h->pending = (uint16_t)(t->tid + 1);
  }
  if (s->ncopies == s->capcopies) {
    s->capcopies = s->capcopies ? 2 * s->capcopies : 256;
    s->copies = (Copy *)realloc(s->copies, s->capcopies * sizeof(Copy));
    if (!s->copies) fail(file, line, "out of memory for cp.async records");
  }
  s->copies[s->ncopies++] = c;
}

LT_EMU_FN void cp_async16(void *dst, const void *src, int src_bytes, const char *file, int line) {
  cp_async(dst, src, 16, src_bytes, file, line);
}

/* lt_cp_async_pieces (templates/cuda_pieces.h): a 16-byte chunk as one
** piece of 16 bytes (src 16-byte aligned) or two of 8; lt_cp_async_pieces4
** (cuda_pieces4.h, `four`): as four of 4.  Each piece reads its part of
** src_bytes (0..16) from src, one that reads nothing naming src itself. */
LT_EMU_FN void cp_async_pieces(void *dst, const void *src, int src_bytes, int four, const char *file, int line) {
  if (src_bytes < 0 || src_bytes > 16) fail(file, line, "cp.async pieces' src-size %d is not in 0..16", src_bytes);
  int size = four ? 4 : (uintptr_t)src % 16 == 0 ? 16 : 8;
  for (int p = 0; p < 16 / size; p++) {
    int n = src_bytes - p * size;
    n = n < 0 ? 0 : n > size ? size : n;
    cp_async((unsigned char *)dst + p * size, (const unsigned char *)src + (n > 0 ? p * size : 0), size, n, file, line);
  }
}

/* cp.async.commit_group: closes this thread's open group. */
LT_EMU_FN void cp_async_commit(const char *file, int line) {
  (void)file, (void)line;
  g->cur->group++;
}

/* cp.async.wait_group n: lands this thread's committed groups but the n
** most recent. */
LT_EMU_FN void cp_async_wait(int n, const char *file, int line) {
  State *s = g;
  Thread *t = s->cur;
  if (n < 0) fail(file, line, "cp.async.wait_group %d", n);
  land_copies(s, t, t->group - 1 - n);
}

/* lt_cp_async_wait<N>() in emulation: an object made at the call site
** (for its file and line) whose member template does the wait. */
struct CpWait {
  const char *file;
  int line;
  CpWait(const char *f, int l) : file(f), line(l) {}
  template <int N>
  void wait(void) const { cp_async_wait(N, file, line); }
};

/* ------------------------------------------------------------------ */
/* the scheduler                                                        */

/* First code of every fiber: runs the kernel, then leaves for good. */
LT_EMU_FN void fiber_main(void) {
  State *s = g;
  Thread *t = s->cur;
#ifdef LT_EMU_ASAN
  __sanitizer_finish_switch_fiber(NULL, &s->sched_bottom, &s->sched_size);
#endif
  s->invoke(s->invoke_arg);
  t->state = DONE;
  for (;;) leave(s, t, true);
}

/* Resumes GPU thread t until it blocks or finishes. */
LT_EMU_FN void enter(State *s, Thread *t) {
  s->cur = t;
#ifdef LT_EMU_ASAN
  __sanitizer_start_switch_fiber(&s->sched_fake, t->stack, t->stack_size);
#endif
  ctx_swap(&s->sched, &t->ctx);
#ifdef LT_EMU_ASAN
  __sanitizer_finish_switch_fiber(s->sched_fake, NULL, NULL);
#endif
  s->cur = NULL;
}

/* Whether thread t can run now. */
LT_EMU_FN bool ready(State *s, Thread *t) {
  if (t->state == RUN) return true;
  if (t->state == WAIT_WARP) return s->warps[t->warp].gen != t->wait_gen;
  if (t->state == WAIT_BAR) return s->bar_gen != t->wait_gen;
  if (t->state == WAIT_NBAR) return s->nbar_gen[t->wait_bar] != t->wait_gen;
  if (t->state == WAIT_MBAR) return s->mbars[t->wait_mbar].phase != t->wait_gen;
  if (t->state == WAIT_REGS) return s->warps[t->warp].reg_want == 0;
  return false;
}

/* Explains a stuck block: which threads wait where, which finished. */
LT_EMU_FN void report_stuck(State *s) {
  int n = s->nthreads;
  Thread *th = s->threads;
  char m[1536] = "";
  for (int i = 0; i < n; i++) {   /* a warp operation some lanes never reach */
    Thread *t = &th[i];
    if (t->state != WAIT_WARP) continue;
    Thread *lanes = &th[t->warp * s->warp];
    int size = s->warps[t->warp].size;
    snprintf(m, sizeof m, "%s reached by only some lanes of warp %d: lanes ", t->what, t->warp);
    ranges(m, sizeof m, size, [&](int k) { return lanes[k].state == WAIT_WARP; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " wait at it");
    for (int k = 0; k < size; k++) {
      Thread *o = &lanes[k];
      if (o->state == WAIT_WARP) continue;
      snprintf(m + strlen(m), sizeof m - strlen(m), "; lane %d %s", k,
               o->state == DONE ? "finished the kernel" : "waits at a barrier");
      if (o->state == WAIT_BAR) snprintf(m + strlen(m), sizeof m - strlen(m), " (%s, line %d)", o->what, o->line);
      break;
    }
    fail(t->file, t->line, "%s", m);
    return;
  }
  int first = -1;   /* mbarrier phases nothing can complete any more, registers never given back: every such wait */
  for (int i = 0; i < n && first < 0; i++)
    if (th[i].state == WAIT_MBAR || th[i].state == WAIT_REGS) first = i;
  if (first >= 0) {
    snprintf(m, sizeof m, "hang: no thread can go on and no TMA copy is in flight (a wrong parity, a missing arrive, an "
             "expect-tx of other than the bytes delivered, or registers never given back):");
    const char *sep = " ";
    for (size_t b = 0; b < s->nmbar; b++) {
      bool any = false;
      for (int k = 0; k < n && !any; k++) any = th[k].state == WAIT_MBAR && th[k].wait_mbar == (int)b;
      if (!any) continue;
      const Mbar *mb = &s->mbars[b];
      snprintf(m + strlen(m), sizeof m - strlen(m), "%sthreads ", sep);
      ranges(m, sizeof m, n, [&](int k) { return th[k].state == WAIT_MBAR && th[k].wait_mbar == (int)b; });
      snprintf(m + strlen(m), sizeof m - strlen(m), " wait for phase %u (parity %u) of the mbarrier at offset %ld (%d of "
               "%d arrivals missing, tx-count %ld)", mb->phase, mb->phase & 1, (long)(mb->addr - lt_smem), mb->pending,
               mb->count, mb->tx);
      sep = "; ";
    }
    bool regs = false;
    for (int w = 0; w < s->nwarps; w++) regs = regs || s->warps[w].reg_want;
    if (regs) {
      int held = 0, want = 0;
      for (int w = 0; w < s->nwarps; w++) held += s->warps[w].regs * 32, want = s->warps[w].reg_want ? s->warps[w].reg_want : want;
      snprintf(m + strlen(m), sizeof m - strlen(m), "%swarps ", sep);
      ranges(m, sizeof m, s->nwarps, [&](int w) { return s->warps[w].reg_want != 0; });
      snprintf(m + strlen(m), sizeof m - strlen(m), " wait in setmaxnreg.inc %d for registers the block's pool never "
               "frees (its %d threads started with %d registers each; the warps hold %d)", want, n,
               s->reg_pool / (s->nwarps * 32), held);
    }
    fail(th[first].file, th[first].line, "%s", m);
    return;
  }
  for (int i = 0; i < n; i++) {   /* a named barrier short of its count */
    Thread *t = &th[i];
    if (t->state != WAIT_NBAR) continue;
    int id = t->wait_bar;
    snprintf(m, sizeof m, "%s: barrier %d waits for %d threads and %d arrived; threads ", t->what, id,
             s->nbar_count[id], s->nbar_arrived[id]);
    ranges(m, sizeof m, n, [&](int k) { return th[k].state == WAIT_NBAR && th[k].wait_bar == id; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " wait in it");
    fail(t->file, t->line, "%s", m);
    return;
  }
  for (int i = 0; i < n; i++) {
    Thread *t = &th[i];
    if (t->state != WAIT_BAR) continue;
    snprintf(m, sizeof m, "%s reached by only some threads: threads ", t->what);
    ranges(m, sizeof m, n, [&](int k) { return th[k].state == WAIT_BAR; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " wait at it; threads ");
    ranges(m, sizeof m, n, [&](int k) { return th[k].state == DONE; });
    snprintf(m + strlen(m), sizeof m - strlen(m), " finished the kernel without reaching it");
    fail(t->file, t->line, "%s", m);
    return;
  }
  fail(s->file, s->line, "block stuck with no thread waiting (emulator bug)");
}

/* Orders the threads for the next pass of the scheduler. */
LT_EMU_FN void shuffle_order(State *s) {
  int n = s->nthreads;
  for (int i = n - 1; i > 0; i--) {
    s->rng ^= s->rng << 13, s->rng ^= s->rng >> 7, s->rng ^= s->rng << 17;
    int j = (int)(s->rng % (uint64_t)(i + 1));
    int x = s->order[i];
    s->order[i] = s->order[j], s->order[j] = x;
  }
}

/* ------------------------------------------------------------------ */
/* setting up the tracing of plain accesses                             */

thread_local uint32_t block_serial;   /* the last block run on this OS thread (Shadow.block) */
thread_local unsigned char probe_byte;

/* A load and a store of *p, compiled like the kernel code (not LT_EMU_FN),
** so that they call the SanitizerCoverage hooks when the kernel's do. */
__attribute__((noinline, unused)) void probe_access(volatile unsigned char *p) { *p = (unsigned char)(*p + 1); }

/* probe_access through a pointer the compiler cannot see through: what it
** infers of probe_access before the hooks are added (that it touches only
** *p) would let it assume the probe leaves State.probe_hits alone. */
void (*volatile probe_fn)(volatile unsigned char *) = probe_access;

/* The TLS block that holds `inside`, looked up by tls_block_of. */
struct TlsBlock {
  uintptr_t inside, lo, n;
};

/* dl_iterate_phdr callback: stops at the module whose TLS block (for the
** calling OS thread) holds f->inside, and notes that block. */
LT_EMU_FN int tls_block_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  TlsBlock *f = (TlsBlock *)arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_TLS || !info->dlpi_tls_data) continue;
    uintptr_t lo = (uintptr_t)info->dlpi_tls_data, n = (uintptr_t)info->dlpi_phdr[i].p_memsz;
    if (f->inside - lo < n) {
      f->lo = lo, f->n = n;
      return 1;
    }
  }
  return 0;
}

/* This OS thread's TLS block of the module of this translation unit: the
** kernel's __shared__ arrays (thread_local, see __shared__) and, in the
** usual build, lt_smem live there.  n = 0 when it cannot be found.  The
** static shadow of the block, allocated on first use and kept. */
thread_local TlsBlock tls_block;
thread_local Shadow *tls_shadow;

/* Whether this translation unit's plain loads and stores reach
** traced_access: installs the launch's trace and runs probe_access on a
** byte of the TLS block; traced when both accesses arrive.  Sets up the
** static shadow too.  Leaves the trace installed (free_state removes it). */
LT_EMU_FN bool probe_traced(State *s) {
  if (!tls_block.n) {
    tls_block.inside = (uintptr_t)&probe_byte;
    dl_iterate_phdr(tls_block_cb, &tls_block);
    if (!tls_block.n) return false;
  }
  if (!tls_shadow) {
    void *p = mmap(NULL, tls_block.n * sizeof(Shadow), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return false;
    tls_shadow = (Shadow *)p;   /* zero: Shadow.block 0, which no block has */
  }
  s->sshadow = tls_shadow;
  s->trace.lo = tls_block.lo, s->trace.n = tls_block.n;
  s->trace.access = traced_access;
  lt_emu_trace = &s->trace;
  s->probe_hits = 0;
  probe_fn(&probe_byte);
  bool traced = *(volatile int *)&s->probe_hits == 2;
  s->probe_hits = -1;
  return traced;
}

/* Runs one block to the end; returns 0 or the error. */
LT_EMU_FN int run_block(State *s) {
  int n = s->nthreads;
  for (int i = 0; i < n; i++) {
    Thread *t = &s->threads[i];
    ctx_make(&t->ctx, t->stack, t->stack_size, fiber_main);
    t->state = RUN;
    t->file = s->file, t->line = s->line, t->what = "kernel start";
    t->op = NULL;
    t->group = 0;
    t->bgroup = 0;
    t->fences = 0;
  }
  for (int w = 0; w < s->nwarps; w++) {
    Warp *wp = &s->warps[w];
    wp->arrived = 0, wp->wg_group = 0, wp->wg_fenced = 0;
    wp->clock = 1, wp->regs = s->reg_pool / (s->nwarps * 32), wp->reg_want = 0, wp->nsetmax = 0;
  }
  memset(s->vc, 0, (size_t)s->nwarps * s->vcw * sizeof *s->vc);
  memset(s->nbar_vc, 0, sizeof s->nbar_vc);
  for (size_t i = 0; i < s->ntma; i++) free(s->tmas[i].data);
  s->nmbar = s->ntma = s->nbulk = 0;
  s->bar_arrived = 0;
  for (int id = 0; id < 16; id++) s->nbar_arrived[id] = s->nbar_count[id] = 0;
  s->epoch = 0;
  s->ncopies = 0;
  s->nwg = 0;
  if (++block_serial == 0) block_serial = 1;   /* every shadow entry of an earlier block reads as clear */
  s->serial = block_serial;
  if (s->smem_bytes) {
    memset(lt_smem, 0xff, s->smem_bytes);   /* NaN in every float format */
    if (s->track && !s->traced) memset(s->snap, 0xff, s->smem_bytes);
  }
  for (;;) {
    if (s->schedule == 2) shuffle_order(s);
    int any = 0, left = 0;
    if (s->schedule == 3) {   /* each warp alone while it can go on */
      for (int w = 0; w < s->nwarps; w++)
        for (int ran = 1; ran;) {
          ran = 0;
          for (int l = s->warps[w].size - 1; l >= 0; l--) {
            Thread *t = &s->threads[w * s->warp + l];
            if (t->state == DONE || !ready(s, t)) continue;
            ran = any = 1;
            enter(s, t);
            if (s->error) return s->error;
          }
        }
      for (int i = 0; i < n; i++) left |= s->threads[i].state != DONE;
    } else {
      for (int k = 0; k < n; k++) {
        Thread *t = &s->threads[s->order[k]];
        if (t->state == DONE) continue;
        left = 1;
        if (!ready(s, t)) continue;
        any = 1;
        enter(s, t);
        if (s->error) return s->error;
      }
    }
    for (int id = 1; id < 16 && !left; id++)
      if (s->nbar_arrived[id])
        fail(s->nbar_file[id], s->nbar_line[id], "barrier %d still has %d of its %d arrivals when the block ends (an "
             "arrival no bar.sync takes)", id, s->nbar_arrived[id], s->nbar_count[id]);
    if (s->error) return s->error;
    if (!left && s->async_end) s->async_end(s);
    if (s->error) return s->error;
    if (!left && s->nwg)
      fail(s->wg[0].file, s->wg[0].line, "warp %d's wgmma is still in flight when the block ends (missing "
           "wgmma.wait_group)", s->wg[0].warp);
    if (!left) return s->error;
    if (!any) {
      if (s->async_deliver && s->async_deliver(s)) continue;   /* the copy engine goes on while every thread waits */
      if (s->error) return s->error;
      report_stuck(s);
      return s->error;
    }
  }
}

/* Stacks of the GPU threads, kept for the next launches of this OS
** thread; each has a guard page below it. */
thread_local char *stack_pool[1024];
thread_local int stack_pool_n;
thread_local size_t stack_pool_size;

/* The stack of GPU thread i, `size` bytes above a guard page. */
LT_EMU_FN char *get_stack(int i, size_t size) {
  if (stack_pool_size != size) {
    for (int k = 0; k < stack_pool_n; k++) munmap(stack_pool[k] - 4096, stack_pool_size + 4096);
    stack_pool_n = 0;
    stack_pool_size = size;
  }
  while (stack_pool_n <= i) {
    void *p = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    mprotect(p, 4096, PROT_NONE);
    stack_pool[stack_pool_n++] = (char *)p + 4096;
  }
  return stack_pool[i];
}

/* Prints where the running GPU thread is when a signal stops the
** program (a crash or LT_EMU_TIMEOUT), then lets the default action run. */
LT_EMU_FN void on_signal(int sig) {
  State *s = g;
  char m[512];
  int len;
  if (s && s->cur) {
    Thread *t = s->cur;
    len = snprintf(m, sizeof m, "%s:%d: error: lt_emu: %s, block (%u,%u,%u), thread %d: %s; this is its last sync point%s\n",
                   t->file, t->line, s->kernel, s->bidx.x, s->bidx.y, s->bidx.z, t->tid,
                   sig == SIGALRM ? "timed out (LT_EMU_TIMEOUT)" : strsignal(sig),
                   sig == SIGALRM ? "" : " (build with -fsanitize=address,undefined for the exact line)");
  } else {
    len = snprintf(m, sizeof m, "lt_emu: %s outside a GPU thread\n", sig == SIGALRM ? "timed out" : strsignal(sig));
  }
  if (len > 0) {
    ssize_t w = write(2, m, (size_t)len);
    (void)w;
  }
  signal(sig, SIG_DFL);
  if (sig == SIGALRM) _exit(124);
  raise(sig);
}

/* Reads a non-negative integer setting from the environment. */
LT_EMU_FN long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  long x = strtol(v, &end, 0);
  return *end || x < 0 ? dflt : x;
}

/* Calls the closure at p (the kernel with the launch's arguments). */
template <class L>
LT_EMU_FN void run_closure(void *p) {
  (*(L *)p)();
}

/* Per-kernel opt-in of dynamic shared memory above 48 KiB
** (cudaFuncSetAttribute), keyed by the kernel's address. */
struct OptIn {
  const void *kernel;
  int bytes;
};
thread_local OptIn smem_optin[256];
thread_local int smem_optin_n;

/* The dynamic shared memory kernel k may launch with. */
LT_EMU_FN int smem_allowed(const void *k) {
  for (int i = 0; i < smem_optin_n; i++)
    if (smem_optin[i].kernel == k) return smem_optin[i].bytes;
  return 48 * 1024;
}

/* Records a kernel's dynamic shared memory opt-in; checks the size. */
LT_EMU_FN int set_smem_optin(const void *k, int bytes, int max_bytes) {
  if (bytes < 0 || bytes > max_bytes) return LT_EMU_ERR_VALUE;
  for (int i = 0; i < smem_optin_n; i++)
    if (smem_optin[i].kernel == k) {
      smem_optin[i].bytes = bytes;
      return 0;
    }
  if (smem_optin_n == 256) return LT_EMU_ERR_VALUE;
  smem_optin[smem_optin_n].kernel = k;
  smem_optin[smem_optin_n++].bytes = bytes;
  return 0;
}

/* Frees what a launch allocated and removes its trace. */
LT_EMU_FN void free_state(State *s) {
  if (lt_emu_trace == &s->trace) lt_emu_trace = s->outer_trace;
  free(s->threads);
  free(s->warps);
  free(s->order);
  free(s->snap);
  if (s->own_shadow) free(s->shadow);
  free(s->copies);
  free(s->wg);
  free(s->vc);
  for (size_t i = 0; i < s->ntma; i++) free(s->tmas[i].data);
  free(s->mbars);
  free(s->tmas);
  free(s->bulks);
  free(s->ash);
}

/* Checks the launch configuration and sets up the launch's state, or
** returns an error. */
LT_EMU_FN int setup(State *s, const void *kern, int warp, int smem_max) {
  dim3 grid = s->grid, block = s->block;
  long nt = (long)block.x * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || nt > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u) {
    fail(s->file, s->line, "launch with grid (%u,%u,%u) and block (%u,%u,%u): invalid configuration", grid.x, grid.y,
         grid.z, block.x, block.y, block.z);
    return LT_EMU_ERR_CONFIG;
  }
  int allowed = smem_allowed(kern);
  if (s->smem_bytes > (size_t)smem_max || s->smem_bytes > (size_t)allowed) {
    int target = s->smem_bytes > (size_t)smem_max;
    fail(s->file, s->line, "launch with %zu bytes of dynamic shared memory: more than %s (%d bytes)", s->smem_bytes,
         target ? "the target has" : "the kernel's opt-in (cudaFuncSetAttribute MaxDynamicSharedMemorySize)",
         target ? smem_max : allowed);
    return LT_EMU_ERR_VALUE;
  }
  int n = (int)nt;
  s->warp = warp;
  s->nthreads = n;
  s->nwarps = (n + warp - 1) / warp;
  s->threads = (Thread *)calloc((size_t)n, sizeof(Thread));
  s->warps = (Warp *)calloc((size_t)s->nwarps, sizeof(Warp));
  s->order = (int *)calloc((size_t)n, sizeof(int));
  if (!s->threads || !s->warps || !s->order) {
    fail(s->file, s->line, "out of memory for %d threads", n);
    return LT_EMU_ERR_LAUNCH;
  }
  for (int w = 0; w < s->nwarps; w++) s->warps[w].size = n - w * warp < warp ? n - w * warp : warp;
  s->vcw = s->nwarps + LT_EMU_MAXMBAR;
  s->vc = (uint32_t *)calloc((size_t)s->nwarps * s->vcw, sizeof *s->vc);
  if (!s->vc) {
    fail(s->file, s->line, "out of memory for %d warps' clocks", s->nwarps);
    return LT_EMU_ERR_LAUNCH;
  }
  /* setmaxnreg: each thread starts with the registers a block of this size
  ** gets on a 65536-register multiprocessor (at most 255, a multiple of 8) */
  int regs = 65536 / (s->nwarps * 32) / 8 * 8;
  s->reg_pool = (regs > 248 ? 248 : regs) * s->nwarps * 32;
  size_t ssize = (size_t)env_long("LT_EMU_STACK", 256 * 1024);
  ssize = (ssize + 4095) & ~(size_t)4095;
  if (ssize < 65536) ssize = 65536;
  for (int i = 0; i < n; i++) {
    Thread *t = &s->threads[i];
    t->tid = i, t->warp = i / warp, t->lane = i % warp;
    t->idx.x = (unsigned)i % block.x;
    t->idx.y = (unsigned)i / block.x % block.y;
    t->idx.z = (unsigned)i / (block.x * block.y);
    t->stack = get_stack(i, ssize);
    t->stack_size = ssize;
    if (!t->stack) {
      fail(s->file, s->line, "no memory for %d thread stacks of %zu bytes", n, ssize);
      return LT_EMU_ERR_LAUNCH;
    }
  }
  const char *sch = getenv("LT_EMU_SCHEDULE");
  s->schedule = !sch ? 0 : strcmp(sch, "reverse") == 0 ? 1 : strncmp(sch, "random", 6) == 0 ? 2 : strcmp(sch, "warps") == 0 ? 3 : 0;
  s->rng = 0x9e3779b97f4a7c15ull ^ (s->schedule == 2 && sch[6] == ':' ? strtoull(sch + 7, NULL, 0) : 1);
  for (int i = 0; i < n; i++) s->order[i] = s->schedule == 1 ? n - 1 - i : i;
  int track = env_long("LT_EMU_TRACK", 1) != 0;
  s->track = s->smem_bytes > 0 && track;
  s->traced = track && probe_traced(s);
  if (s->track) {
    /* lt_smem's part of the TLS block's shadow when it lies there (kept
    ** from launch to launch), else one for the launch (+ 1: element
    ** pairs; calloc: Shadow.block 0, clear) */
    uintptr_t d = (uintptr_t)lt_smem - tls_block.lo;
    if (tls_shadow && d < tls_block.n && tls_block.n - d >= LT_EMU_SMEM_CAP) {
      s->shadow = tls_shadow + d;
    } else {
      s->shadow = (Shadow *)calloc(s->smem_bytes + 1, sizeof(Shadow));
      s->own_shadow = 1;
    }
    if (!s->traced) s->snap = (unsigned char *)malloc(s->smem_bytes);
    if ((!s->traced && !s->snap) || !s->shadow) {
      fail(s->file, s->line, "out of memory for the shadow of %zu bytes of shared memory", s->smem_bytes);
      return LT_EMU_ERR_LAUNCH;
    }
  }
  return 0;
}

/* Runs the blocks of a set-up launch in order, with the signal handlers
** (or AddressSanitizer's poisoning of unused shared memory) in place. */
LT_EMU_FN int run_grid(State *s) {
  int err = 0;
  /* crashes: AddressSanitizer's own report when built with it, else ours;
  ** the timeout: ours */
#ifdef LT_EMU_ASAN
  size_t smem = s->smem_bytes;
  ASAN_POISON_MEMORY_REGION(lt_smem + smem, LT_EMU_SMEM_CAP - smem);
  static const int sigs[] = {SIGALRM};
#else
  static const int sigs[] = {SIGALRM, SIGSEGV, SIGBUS, SIGFPE};
#endif
  enum { NSIGS = sizeof sigs / sizeof sigs[0] };
  struct sigaction sa, old[NSIGS];
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK;
  static thread_local char altstack[65536];
  stack_t ss, oldss;
  ss.ss_sp = altstack, ss.ss_size = sizeof altstack, ss.ss_flags = 0;
  sigaltstack(&ss, &oldss);
  for (int i = 0; i < NSIGS; i++) sigaction(sigs[i], &sa, &old[i]);
  long timeout = env_long("LT_EMU_TIMEOUT", 0);
  if (timeout) alarm((unsigned)timeout);
  for (unsigned z = 0; z < s->grid.z && !err; z++)
    for (unsigned y = 0; y < s->grid.y && !err; y++)
      for (unsigned x = 0; x < s->grid.x && !err; x++) {
        s->bidx.x = x, s->bidx.y = y, s->bidx.z = z;
        err = run_block(s);
      }
  if (timeout) alarm(0);
#ifdef LT_EMU_ASAN
  ASAN_UNPOISON_MEMORY_REGION(lt_smem + smem, LT_EMU_SMEM_CAP - smem);
#endif
  for (int i = 0; i < NSIGS; i++) sigaction(sigs[i], &old[i], NULL);
  sigaltstack(&oldss, NULL);
  return err;
}

/* Runs kernel kern over grid x block on the CPU (see the top of the
** file); name, file and line: the launch site, for messages; warp: lanes
** per warp; smem_max: the target's dynamic shared memory. */
template <class... P, class... A>
LT_EMU_FN int launch(const char *name, const char *file, int line, int warp, int smem_max, void (*kern)(P...), dim3 grid,
           dim3 block, size_t smem, void *stream, A... args) {
  (void)stream;
  auto call = [kern, args...]() { kern(args...); };
  State st;
  memset((void *)&st, 0, sizeof st);
  State *outer = g;
  if (outer && outer->cur) {
    fail(file, line, "%s launched from inside a kernel", name);
    return LT_EMU_ERR_LAUNCH;
  }
  st.kernel = name, st.file = file, st.line = line;
  st.grid = grid, st.block = block, st.smem_bytes = smem;
  st.invoke = &run_closure<decltype(call)>, st.invoke_arg = &call;
  st.probe_hits = -1;
  st.outer_trace = lt_emu_trace;
  index_reports = 0;
  g = &st;
  int err = setup(&st, (const void *)kern, warp, smem_max);
  last_traced = st.traced;
  if (!err) err = run_grid(&st);
  free_state(&st);
  g = outer;
  if (err) last_error = err;
  return err;
}

/* A uint4 or uint2 copy between a and b: both must be aligned to `bytes`.
** The line is the thread's last sync point (build with -fsanitize=alignment
** under g++ for the exact one). */
LT_EMU_FN void check_vector(const void *a, const void *b, size_t bytes) {
  if (((uintptr_t)a | (uintptr_t)b) % bytes == 0) return;
  State *s = g;
  const void *bad = (uintptr_t)a % bytes ? a : b;
  if (s && s->cur)
    fail(s->cur->file, s->cur->line, "thread %d: a %zu-byte vector access at %p, which is not %zu-byte aligned (after "
         "this line)", s->cur->tid, bytes, bad, bytes);
}

/* A gathered or scattered row's index g outside [0, n) (a view whose row
** offsets are a tile, gen's lower/copy.c): the access is masked (a load
** gives its other value, a store is dropped), as documented; reported once
** a launch on stderr, "file.lua:LINE: warning: lt_emu: ...", and counted
** (index_outside()). */
LT_EMU_FN void index(long long i, long long n, const char *where) {
  if (i >= 0 && i < n) return;
  State *s = g;
  if (index_reports++ == 0)
    fprintf(stderr, "%s: warning: lt_emu: %s, block (%u,%u,%u), thread %d: row index %lld is outside [0, %lld): "
            "masked (a load reads its other value, a store is dropped)\n", where, s ? s->kernel : "?",
            s ? s->bidx.x : 0, s ? s->bidx.y : 0, s ? s->bidx.z : 0, s && s->cur ? s->cur->tid : -1, i, n);
}

/* How many row indices outside their tensor the last launch met (for the
** emulator's tests). */
LT_EMU_FN int index_outside(void) { return index_reports; }

/* The running thread's threadIdx / blockIdx (read by the macros below). */
LT_EMU_FN const uint3 &thread_idx(void) { return g->cur->idx; }
LT_EMU_FN const uint3 &block_idx(void) { return g->bidx; }

/* blockDim, gridDim, warpSize: by value, read here (not in the kernel
** code, whose reads of the TLS block count as shared memory). */
LT_EMU_FN dim3 block_dim(void) { return g->block; }
LT_EMU_FN dim3 grid_dim(void) { return g->grid; }
LT_EMU_FN int warp_size(void) { return g->warp; }

/* Whether the last launch on this OS thread traced plain shared-memory
** accesses (for tests of the emulator). */
LT_EMU_FN int traced(void) { return last_traced; }

}  // namespace
}  // namespace lt_emu

#define threadIdx (lt_emu::thread_idx())
#define lt_emu_index(i, n, where) (lt_emu::index((i), (n), (where)))
#define blockIdx (lt_emu::block_idx())
#define blockDim (lt_emu::block_dim())
#define gridDim (lt_emu::grid_dim())
#define warpSize (lt_emu::warp_size())

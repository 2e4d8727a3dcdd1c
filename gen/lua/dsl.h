/*
** lua/dsl.h: the front end's internal header, shared by the .c files of gen/lua/ only.
**
** The front end runs a kernel file in Lua 5.4 and builds the IR of lt.h.
** api.c embeds Lua (sandbox, limits, errors, reading arguments), expr.c
** makes values, stmt.c the k: builder methods, kernel.c tile.kernel, its
** params and one variant's IR, variants.c the loop over variants and the
** config each gets; tuned.c reads tuned-config files (its ltN_ names are in
** lt.h).  Names shared between these files carry the prefix ltF_.
**
** Include this header last: it names the run's Lua state L and the kernel
** being built K (macros for ltF_L and ltF_K, so that the linker sees
** prefixed names), which would rename parameters of headers after it.
** (It is not called lua.h so that it cannot hide Lua's own <lua.h>.)
*/
#ifndef LT_LUA_DSL_H
#define LT_LUA_DSL_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lt.h"

extern jmp_buf ltU_jmp;                      /* util.c: main's exit for user errors */
extern void (*ltU_raise)(const char *msg);   /* util.c: set by api.c while Lua runs */
extern size_t ltU_mem_used;                  /* util.c: bytes of Lua's and gen's memory */
extern int ltU_mem_over;                     /* util.c: the memory ceiling was passed */
size_t ltU_mem_cost(size_t n);               /* util.c: what the C heap spends on n bytes */
int ltU_mem_room(size_t n);                  /* util.c: n more bytes stay under the ceiling */

/* ---- the state of the one run of a kernel file (api.c) ---- */

extern lua_State *ltF_L;           /* the Lua state */
extern Kernel *ltF_K;              /* the variant being built */
extern const char *ltF_file;       /* the kernel file, as given */
extern const char *ltF_source;     /* "@" and the file: Lua's name for the chunk, to find its frames */
extern const Target *ltF_target;   /* of the run; NULL for --list alone */
extern int ltF_phase;              /* what runs: PH_NONE, PH_PARAMS or PH_BODY of the variant K */

enum { PH_NONE, PH_PARAMS, PH_BODY };

#define L ltF_L
#define K ltF_K

/* What ltD_run was asked for, handed to variants.c and kernel.c. */
typedef struct Run {
  GenRequest *req;
  VariantFn fn;     /* called once per variant built */
  void *ud;
  Buf *listing;     /* --list: the text to fill instead of building */
  const char *kname;   /* the kernel's name, as checked when first read (variants.c) */
  int build, nbuilds;  /* building build `build` (0-based) of the variant's nbuilds (0: no builds) */
} Run;

/* ---- api.c: errors ---- */

int ltF_line(void);                        /* line of the innermost kernel-file frame, or 0 */
int ltF_error(const char *fmt, ...);       /* raises fmt at ltF_line() (or the outer line); no return */
int ltF_error_at(int line, const char *fmt, ...);   /* raises fmt at line (0: none); does not return */
void ltF_set_outer_line(int line);         /* the line of errors where no kernel-file function runs */
int ltF_run_chunk(void);                   /* runs the kernel file, leaving its result; returns its lines */
int ltF_nlines(void);                      /* the lines of the kernel file */

/* ---- api.c: handles (Lua userdata for IR objects) and arguments ---- */

#define VAL_MT "luatile.value"   /* the metatable of every handle (expr.c fills it) */

typedef enum { H_EXPR, H_TENSOR, H_VIEW, H_SHARED, H_KERNEL } HKind;

typedef struct Handle {
  HKind kind;
  Kernel *k;      /* the variant it belongs to */
  Expr *e;        /* H_EXPR */
  Sym *s;         /* H_TENSOR, H_SHARED */
  Expr *rlo, *rhi; /* H_TENSOR made by X:rows(lo, hi): its rows [lo, hi) of dim rank - 1; NULL: the whole tensor */
  View *v;        /* H_VIEW */
} Handle;

Handle *ltF_push_handle(HKind kind);
void ltF_push_expr(Expr *e);
Handle *ltF_handle(int idx);               /* NULL when the value at idx is no handle */
const char *ltF_kind(int idx);             /* "a tile value", "a tensor", ... for messages */
const char *ltF_show(int idx);             /* 0.5, "text", or ltF_kind: a value in a message */
Expr *ltF_arg_expr(int idx, const char *what);
Expr *ltF_arg_index(int idx, const char *what);
int ltF_arg_extent(int idx, const char *what);
Dtype ltF_arg_dtype(int idx);
int ltF_arg_shape(int idx, int shape[2]);
lua_Integer ltF_len(int idx);              /* #t, checked to be an integer */
void ltF_check_tile(const int shape[2], const char *what);   /* at most LT_MAX_TILE elements */

/* ---- expr.c: values and their names ---- */

void ltF_open_values(void);                /* makes the handles' metatable */
extern const luaL_Reg ltF_value_funcs[];   /* core.binary, unary, where, cast */
void ltF_push_value(Expr *e);              /* binds e to a let and pushes its handle */
int ltF_name_taken(const char *n);
const char *ltF_name_clash(const char *n, Sym **taken);   /* why n cannot name a parameter, or NULL */
const char *ltF_name_rule(const char *n, size_t max, int whole);   /* why n cannot name a variant (whole) or start one */
#define LT_NAME_MAX 64                     /* characters of a kernel's or a parameter's name, at most */
#define LT_VARIANT_NAME_MAX 128            /* characters of a variant's name (kernel and values), at most */
void ltF_set_name(Sym *s, const char *want, int from_dsl);
void ltF_name_note(Sym *s);                /* s (of the kernel being built) got its name */
void ltF_name_locals(void);

/* ---- stmt.c: blocks and the k: builder ---- */

void ltF_begin_body(Block *body);          /* the kernel's body becomes the only open block */
Block *ltF_cur_block(void);
void ltF_check_scope(Expr *e);
Stmt *ltF_add_stmt(StmtKind kind);
void ltF_push_builder(void);               /* pushes k: its methods and metatable */
extern int ltF_builder_depth;              /* k: methods running (an error inside one leaves it raised) */

/* ---- kernel.c: tile.kernel, params, one variant ---- */

extern const luaL_Reg ltF_kernel_funcs[];  /* core.tensor, scalar, kernel */
int ltF_valid_ident(const char *s);
const char *ltF_kernel_name(int line);     /* checks the name at the stack top; returns it */
const char *ltF_name_instead(const char *n);   /* a name like n that the rules allow, for messages */
int ltF_kernel_line(int idx);              /* the line of tile.kernel that made the table at idx, or 0 */
void ltF_build_variant(Run *run, int kt, int vt, int ct, const char *vname, const char *tname, const char *vdesc,
                       const char *cdesc, const char *bucket, int nbuckets);

/* ---- variants.c: the variants and their configs ---- */

int ltF_run_file(lua_State *l);            /* lua_CFunction: the whole run, under ltD_run's pcall */

#endif

/* python/luatile/_fast.c: the common case of each luatile op in one C call.
 *
 * Part of every launcher call module (python/luatile/_calls.py appends this
 * file to the generated thunks).  rows_fast, add_fast, matmul_fast and
 * attention_fast take the same arguments as the Python functions of that name
 * in python/luatile/_kernels.py and do the same: read the tensors' dtype,
 * layout, shape, strides and device through their attributes, check the
 * common case (plain CPU or CUDA tensors on the current device, the dtypes,
 * shapes and strides the kernel reads as they are, sizes below 2^30, nothing
 * wanting a gradient and no dispatch or function mode, functorch transform or
 * profiler where gate is true), allocate the output with torch, and call the
 * launcher on the device's current stream.  Anything else returns None, and
 * the caller takes the general path, which checks everything, copies what must
 * be copied and raises the errors; so a case this file does not know is slower,
 * never wrong.  A launcher's non-zero return raises through Library.fail.
 *
 * The torch objects compared against (Tensor, Parameter, torch.strided, the
 * dtypes) and the torch functions called (grad mode, modes, current device and
 * stream, empty_like) are handed over once by fast_setup.  Launchers are found
 * through the package's resolver, resolve(kind, name) -> (address, signature,
 * release_gil, library) (None: no library for that device kind yet, False: the
 * library has no such launcher), and kept in a table per device kind and
 * variant until fast_reset (the package calls it whenever a library is loaded).
 * A launcher whose prototype is not the one called here is never called.
 * matmul_fast calls a variant's NAME_ws where the library has one (sm90a's
 * split-K, gen/lower/splitk.c), with the workspace of the device's current
 * stream from the package's matmul_workspace(dev, stream) -> (address, bytes),
 * the last one of each device kept here until fast_reset.
 */

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LT_MAXDIM 8
#define LT_MAX_SIZE ((1 << 30) - 1)   /* every launcher takes sizes below 2^30 */
#define LT_INT32 2147483648LL

enum { LT_F32, LT_F16, LT_BF16, LT_NDT };
static const char *const lt_dt_name[LT_NDT] = {"f32", "f16", "bf16"};

/* The launchers' prototypes (build/lib/libluatile_<target>.h), by the signature codes checked before a call. */
typedef int (*lt_rmsnorm_fn)(const void *, const void *, void *, int, int, float, void *);                 /* PPPIIFP */
typedef int (*lt_layernorm_fn)(const void *, const void *, const void *, void *, int, int, float, void *); /* PPPPIIFP */
typedef int (*lt_softmax_fn)(const void *, void *, int, int, void *);                                      /* PPIIP */
typedef int (*lt_bias_gelu_fn)(const void *, const void *, void *, int, int, void *);                      /* PPPIIP */
typedef int (*lt_add_fn)(const void *, const void *, void *, int, void *);                                 /* PPPIP */
typedef int (*lt_matmul_fn)(const void *, const void *, const void *, void *, int, int, int, int, int64_t, int64_t,
                            int64_t, int64_t, int64_t, int64_t, float, float, void *);        /* PPPPIIIILLLLLLFFP */
typedef int (*lt_matmul_bias_fn)(const void *, const void *, const void *, void *, const void *, int, int, int, int,
                                 int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, float,
                                 void *);                                                    /* PPPPPIIIILLLLLLFFP */
typedef int (*lt_matmul_ws_fn)(const void *, const void *, const void *, void *, int, int, int, int, int64_t, int64_t,
                               int64_t, int64_t, int64_t, int64_t, float, float, void *, int64_t,
                               void *);                                                   /* PPPPIIIILLLLLLFFPLP */
typedef int (*lt_matmul_bias_ws_fn)(const void *, const void *, const void *, void *, const void *, int, int, int, int,
                                    int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, float, void *, int64_t,
                                    void *);                                             /* PPPPPIIIILLLLLLFFPLP */
typedef int (*lt_attention_fn)(const void *, const void *, const void *, void *, void *, int, int, int, int, int,
                               int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                               int64_t, int64_t, int64_t, float, int, int, void *);  /* PPPPPIIIIILLLLLLLLLLLLFIIP */
typedef int (*lt_attention_softcap_fn)(const void *, const void *, const void *, void *, void *, int, int, int, int,
                                       int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                       int64_t, int64_t, int64_t, int64_t, float, float, int, int,
                                       void *);                                     /* PPPPPIIIIILLLLLLLLLLLLFFIIP */

/* What is read of a tensor: dims, dtype (LT_*), device (-1: CPU, else the CUDA index). */
typedef struct {
  int ndim, dt, dev;
  int64_t size[LT_MAXDIM], stride[LT_MAXDIM];
} lt_tensor;

/* The tensor attributes and methods read: their names, and (where fast_setup found them to be
   the same C descriptor on Tensor and Parameter) the descriptor, called without a lookup. */
enum { LT_LAYOUT, LT_DTYPE, LT_REQUIRES_GRAD, LT_SHAPE, LT_IS_CUDA, LT_IS_CPU, LT_NATTR };
enum { LT_STRIDE, LT_GET_DEVICE, LT_DATA_PTR, LT_NMETH };
static const char *const lt_attr_names[LT_NATTR] = {"layout", "dtype", "requires_grad", "shape", "is_cuda", "is_cpu"};
static const char *const lt_meth_names[LT_NMETH] = {"stride", "get_device", "data_ptr"};
#define LT_MAXDEV 64

/* The torch objects of fast_setup, names, and an empty f32 tensor a device (for new_empty). */
static struct {
  int ready;
  PyObject *tensor, *parameter, *strided, *dtype[LT_NDT];
  PyObject *grad_enabled, *modes[4], *cur_device, *cur_stream, *empty_like, *resolve, *workspace;
  PyObject *attr_name[LT_NATTR], *attr_descr[LT_NATTR], *meth_name[LT_NMETH], *meth_descr[LT_NMETH];
  PyObject *s_new_empty, *s_fail, *kw_dtype;
  PyObject *f32_like[LT_MAXDEV + 1];   /* [0]: CPU, [1 + i]: CUDA device i */
} lt_S;

/* Attribute a (LT_LAYOUT ...) of tensor o (a new reference, or NULL with an error). */
static PyObject *lt_get(PyObject *o, int a)
{
  PyObject *d = lt_S.attr_descr[a];
  return d ? Py_TYPE(d)->tp_descr_get(d, o, (PyObject *)Py_TYPE(o)) : PyObject_GetAttr(o, lt_S.attr_name[a]);
}

/* Method m (LT_STRIDE ...) of tensor o called with no arguments (a new reference, or NULL). */
static PyObject *lt_call(PyObject *o, int m)
{
  PyObject *d = lt_S.meth_descr[m];
  return d ? PyObject_Vectorcall(d, &o, 1, NULL) : PyObject_CallMethodNoArgs(o, lt_S.meth_name[m]);
}

/* A launcher of the table: state 0 not looked up, 1 usable, 2 not usable (absent, or another prototype). */
typedef struct {
  int state, release;
  void *fn;
  PyObject *owner, *name;   /* the Library, the launcher's name (for Library.fail) */
} lt_slot;

/* Table slots: rows 4 kernels x 3 dtypes, add 3, matmul 5 epilogues x 4 layouts x 3 dtypes,
   attention 5 head dims x softcap x 2 dtypes, matmul's NAME_ws as matmul's. */
enum { LT_SLOT_ROWS = 0, LT_SLOT_ADD = 12, LT_SLOT_MATMUL = 15, LT_SLOT_ATTN = 75, LT_SLOT_MATMUL_WS = 95, LT_NSLOT = 155 };
static lt_slot lt_slots[2][LT_NSLOT];

/* The split-K workspace last handed out for each CUDA device: its stream, address and bytes. */
static struct {
  int valid;
  void *stream, *ptr;
  int64_t bytes;
} lt_ws[LT_MAXDEV];

/* Sets *v to the int attribute or call result o (consumed); -1 with an error. */
static int lt_i64_of(PyObject *o, int64_t *v)
{
  if (o == NULL) return -1;
  long long x = PyLong_AsLongLong(o);
  Py_DECREF(o);
  if (x == -1 && PyErr_Occurred()) return -1;
  *v = (int64_t)x;
  return 0;
}

/* The ints of tuple o (consumed) into v[0 .. n-1]: 1, 0 when o is not a tuple of n, -1 on an error. */
static int lt_ints(PyObject *o, int64_t *v, int n)
{
  if (o == NULL) return -1;
  if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != n) {
    Py_DECREF(o);
    return 0;
  }
  for (int i = 0; i < n; ++i) {
    long long x = PyLong_AsLongLong(PyTuple_GET_ITEM(o, i));
    if (x == -1 && PyErr_Occurred()) {
      Py_DECREF(o);
      return -1;
    }
    v[i] = (int64_t)x;
  }
  Py_DECREF(o);
  return 1;
}

/* Whether attribute a of o is True: 1, 0, or -1 with an error. */
static int lt_flag(PyObject *o, int a)
{
  PyObject *v = lt_get(o, a);
  if (v == NULL) return -1;
  int r = v == Py_True;
  Py_DECREF(v);
  return r;
}

/* Reads tensor o into t.  1: a plain (Tensor or Parameter) strided tensor of
   dtype f32, f16 or bf16 on the CPU or a CUDA device, of at most LT_MAXDIM dims,
   that does not want a gradient where grad is set; 0: not one (fall back); -1: an error. */
static int lt_read(PyObject *o, int grad, lt_tensor *t)
{
  PyObject *v;
  int r;
  if ((PyObject *)Py_TYPE(o) != lt_S.tensor && (PyObject *)Py_TYPE(o) != lt_S.parameter) return 0;
  if ((v = lt_get(o, LT_LAYOUT)) == NULL) return -1;
  r = v == lt_S.strided;
  Py_DECREF(v);
  if (!r) return 0;
  if ((v = lt_get(o, LT_DTYPE)) == NULL) return -1;
  for (t->dt = 0; t->dt < LT_NDT && v != lt_S.dtype[t->dt]; ++t->dt) {}
  Py_DECREF(v);
  if (t->dt == LT_NDT) return 0;
  if (grad && (r = lt_flag(o, LT_REQUIRES_GRAD)) != 0) return r < 0 ? -1 : 0;
  if ((v = lt_get(o, LT_SHAPE)) == NULL) return -1;
  if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) > LT_MAXDIM) {
    Py_DECREF(v);
    return 0;
  }
  t->ndim = (int)PyTuple_GET_SIZE(v);
  if ((r = lt_ints(v, t->size, t->ndim)) <= 0) return r;
  if ((r = lt_ints(lt_call(o, LT_STRIDE), t->stride, t->ndim)) <= 0) return r;
  if ((r = lt_flag(o, LT_IS_CUDA)) < 0) return -1;
  if (r) {
    int64_t d;
    if (lt_i64_of(lt_call(o, LT_GET_DEVICE), &d) < 0) return -1;
    t->dev = (int)d;
    return d >= 0;
  }
  if ((r = lt_flag(o, LT_IS_CPU)) <= 0) return r;
  t->dev = -1;
  return 1;
}

/* The number of elements of t. */
static int64_t lt_numel(const lt_tensor *t)
{
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->size[i];
  return n;
}

/* Whether t is contiguous, by torch's rule (size-1 dims' strides do not count; no elements is contiguous). */
static int lt_contiguous(const lt_tensor *t)
{
  int64_t expect = 1;
  if (lt_numel(t) == 0) return 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->size[i] == 1) continue;
    if (t->stride[i] != expect) return 0;
    expect *= t->size[i];
  }
  return 1;
}

/* Whether p is a plain contiguous [n] tensor of t's dtype and device (1), not (0), or -1 on an error. */
static int lt_vector_like(PyObject *p, int grad, const lt_tensor *t, int64_t n)
{
  lt_tensor v;
  int r = lt_read(p, grad, &v);
  if (r <= 0) return r;
  return v.dt == t->dt && v.dev == t->dev && v.ndim == 1 && v.size[0] == n && (v.stride[0] == 1 || n == 1);
}

/* Whether grad mode is on, into *grad (the gated calls then check requires_grad); -1 on an error. */
static int lt_grad_mode(int *grad)
{
  PyObject *v = PyObject_CallNoArgs(lt_S.grad_enabled);
  if (v == NULL) return -1;
  *grad = PyObject_IsTrue(v);
  Py_DECREF(v);
  return *grad < 0 ? -1 : 0;
}

/* Whether a dispatch or function mode, a functorch transform or the profiler is
   active (1: a gated call goes through the operator), 0, or -1 on an error. */
static int lt_modes_active(void)
{
  for (int i = 0; i < 4; ++i) {
    PyObject *v = PyObject_CallNoArgs(lt_S.modes[i]);
    if (v == NULL) return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (r) return r;
  }
  return 0;
}

/* The stream of a launch on t's device: NULL on the CPU, else the current stream of
   its CUDA device, which must be the current one.  1, 0 (another device is current:
   fall back), -1 on an error. */
static int lt_stream(const lt_tensor *t, void **stream)
{
  int64_t cur;
  *stream = NULL;
  if (t->dev < 0) return 1;
  if (lt_i64_of(PyObject_CallNoArgs(lt_S.cur_device), &cur) < 0) return -1;
  if (cur != t->dev) return 0;
  PyObject *d = PyLong_FromLong(t->dev);
  if (d == NULL) return -1;
  PyObject *s = PyObject_CallOneArg(lt_S.cur_stream, d);
  Py_DECREF(d);
  if (s == NULL) return -1;
  *stream = PyLong_AsVoidPtr(s);
  Py_DECREF(s);
  return (*stream == NULL && PyErr_Occurred()) ? -1 : 1;
}

/* The launcher of table slot `slot` for tensors on device kind `kind` (0 CPU, 1
   CUDA), of prototype `sig`, named by printf format fmt and what follows (made
   only when the slot is looked up).  1 with *out set, 0 (none: fall back), -1 on an error. */
static int lt_launcher(int kind, int slot, const char *sig, lt_slot **out, const char *fmt, ...)
{
  lt_slot *s = &lt_slots[kind][slot];
  if (s->state == 1) {
    *out = s;
    return 1;
  }
  if (s->state == 2) return 0;
  char name[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  PyObject *r = PyObject_CallFunction(lt_S.resolve, "ss", kind ? "cuda" : "cpu", name);
  if (r == NULL) return -1;
  if (r == Py_None) {   /* no library for the kind yet: the general path loads it */
    Py_DECREF(r);
    return 0;
  }
  PyObject *addr, *rsig, *owner;
  int release;
  if (r == Py_False || !PyArg_ParseTuple(r, "OUpO", &addr, &rsig, &release, &owner) ||
      PyUnicode_CompareWithASCIIString(rsig, sig) != 0) {
    if (PyErr_Occurred()) {
      Py_DECREF(r);
      return -1;
    }
    Py_DECREF(r);
    s->state = 2;
    return 0;
  }
  void *fn = PyLong_AsVoidPtr(addr);
  PyObject *pname = PyUnicode_FromString(name);
  if ((fn == NULL && PyErr_Occurred()) || pname == NULL) {
    Py_XDECREF(pname);
    Py_DECREF(r);
    return -1;
  }
  if (s->state == 1) {   /* filled by another thread while the resolver ran */
    Py_DECREF(pname);
  } else {
    Py_INCREF(owner);
    s->fn = fn;
    s->release = release;
    s->owner = owner;
    s->name = pname;
    s->state = 1;
  }
  Py_DECREF(r);
  *out = s;
  return 1;
}

/* Raises the LaunchError of launcher `name` of library `owner` returning rc (Library.fail); NULL. */
static PyObject *lt_fail(PyObject *owner, PyObject *name, int rc)
{
  PyObject *code = PyLong_FromLong(rc);
  if (code == NULL) return NULL;
  PyObject *r = PyObject_CallMethodObjArgs(owner, lt_S.s_fail, name, code, NULL);
  Py_DECREF(code);
  if (r != NULL) {
    Py_DECREF(r);
    PyErr_Format(PyExc_RuntimeError, "luatile: launcher %U returned %d", name, rc);
  }
  return NULL;
}

/* data_ptr() of tensor o (NULL with an error set where it fails). */
static void *lt_data_ptr(PyObject *o)
{
  PyObject *v = lt_call(o, LT_DATA_PTR);
  if (v == NULL) return NULL;
  void *p = PyLong_AsVoidPtr(v);
  Py_DECREF(v);
  return p;
}

/* A new f32 tensor of shape shp on device dev (-1: CPU) of tensor like: new_empty(shp) of
   the device's empty f32 tensor (made once by like.new_empty((0,), dtype=float32): keyword
   arguments cost torch's argument parser more than the call without them). */
static PyObject *lt_new_f32(PyObject *like, int dev, PyObject *shp)
{
  PyObject *call[3] = {like, NULL, lt_S.dtype[LT_F32]};
  if (dev + 1 > LT_MAXDEV) {
    call[1] = shp;
    return PyObject_VectorcallMethod(lt_S.s_new_empty, call, 2, lt_S.kw_dtype);
  }
  PyObject **t = &lt_S.f32_like[dev + 1];
  if (*t == NULL) {
    if ((call[1] = Py_BuildValue("(i)", 0)) == NULL) return NULL;
    PyObject *e = PyObject_VectorcallMethod(lt_S.s_new_empty, call, 2, lt_S.kw_dtype);
    Py_DECREF(call[1]);
    if (e == NULL) return NULL;
    if (*t == NULL) *t = e; else Py_DECREF(e);
  }
  return PyObject_CallMethodOneArg(*t, lt_S.s_new_empty, shp);
}

/* A tuple of the n ints of v (a new reference, or NULL). */
static PyObject *lt_tuple(const int64_t *v, int n)
{
  PyObject *t = PyTuple_New(n);
  if (t == NULL) return NULL;
  for (int i = 0; i < n; ++i) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (x == NULL) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SET_ITEM(t, i, x);
  }
  return t;
}

/* Calls the launcher of slot s as `call` (an expression using fn) into rc, without
   the GIL where the launcher runs the kernel itself (the CPU), keeping its library alive. */
#define LT_LAUNCH(s, type, rc, call) do {                    \
    type fn = (type)(s)->fn;                                 \
    PyObject *owner_ = (s)->owner, *name_ = (s)->name;       \
    Py_INCREF(owner_);                                       \
    Py_INCREF(name_);                                        \
    if ((s)->release) {                                      \
      PyThreadState *ts_ = PyEval_SaveThread();              \
      rc = call;                                             \
      PyEval_RestoreThread(ts_);                             \
    } else {                                                 \
      rc = call;                                             \
    }                                                        \
    if (rc != 0) lt_fail(owner_, name_, rc);                 \
    Py_DECREF(owner_);                                       \
    Py_DECREF(name_);                                        \
  } while (0)

/* Runs a check that returns 1 (go on), 0 (not the common case: return None, the
   caller takes the general path) or -1 (a Python error: return NULL). */
#define LT_TRY(expr) do { int r_ = (expr); if (r_ < 0) return NULL; if (r_ == 0) Py_RETURN_NONE; } while (0)

/* The float value of o where it is a float (or None: dflt), into *v: 1, or 0 (anything else). */
static int lt_float(PyObject *o, double dflt, double *v)
{
  if (o == Py_None) {
    *v = dflt;
    return 1;
  }
  if (!PyFloat_CheckExact(o)) return 0;
  *v = PyFloat_AS_DOUBLE(o);
  return 1;
}

/* Whether the nargs arguments are what fn's Python signature takes (else a TypeError). */
static int lt_nargs(const char *fn, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi)
{
  if (nargs >= lo && nargs <= hi) return 0;
  PyErr_Format(PyExc_TypeError, "%s takes %zd to %zd arguments (%zd given)", fn, lo, hi, nargs);
  return -1;
}

/* rows_fast(kernel, x, ns, w, b, eps, gate): as _kernels.rows_fast. */
static PyObject *lt_rows_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  static const char *const kernels[4] = {"rmsnorm", "layernorm", "softmax", "bias_gelu"};
  static const char *const sigs[4] = {"PPPIIFP", "PPPPIIFP", "PPIIP", "PPPIIP"};
  static const int nparams[4] = {1, 2, 0, 1};
  static const double eps_default[LT_NDT] = {1.1920928955078125e-07, 0.0009765625, 0.0078125};   /* torch.finfo(dt).eps */
  if (lt_nargs("rows_fast", nargs, 7, 7) < 0) return NULL;
  PyObject *kernel = args[0], *x = args[1], *ns = args[2], *w = args[3], *b = args[4], *eps = args[5];
  int gate = PyObject_IsTrue(args[6]), grad = 0, k;
  if (gate < 0) return NULL;
  if (!lt_S.ready || !PyUnicode_Check(kernel)) Py_RETURN_NONE;
  for (k = 0; k < 4 && PyUnicode_CompareWithASCIIString(kernel, kernels[k]) != 0; ++k) {}
  if (k == 4 || (nparams[k] >= 1) != (w != Py_None) || (nparams[k] == 2) != (b != Py_None)) Py_RETURN_NONE;
  if (gate && lt_grad_mode(&grad) < 0) return NULL;
  lt_tensor t;
  LT_TRY(lt_read(x, grad, &t));
  int64_t n = lt_numel(&t);
  if (t.ndim == 0 || !lt_contiguous(&t) || n == 0) Py_RETURN_NONE;
  int64_t C = t.size[t.ndim - 1];
  if (C > LT_MAX_SIZE || n / C > LT_MAX_SIZE) Py_RETURN_NONE;
  if (ns != Py_None) {   /* normalized_shape: C or (C,) */
    PyObject *c = ns;
    if (PyTuple_Check(ns) || PyList_Check(ns)) {
      if (PySequence_Fast_GET_SIZE(ns) != 1) Py_RETURN_NONE;
      c = PySequence_Fast_GET_ITEM(ns, 0);
    }
    if (!PyLong_CheckExact(c)) Py_RETURN_NONE;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(c, &overflow);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (overflow || v != C) Py_RETURN_NONE;
  }
  double e = 0.0;
  if (k <= 1 && !lt_float(eps, k == 0 ? eps_default[t.dt] : 1e-5, &e)) Py_RETURN_NONE;
  if (nparams[k] >= 1) LT_TRY(lt_vector_like(w, grad, &t, C));
  if (nparams[k] == 2) LT_TRY(lt_vector_like(b, grad, &t, C));
  if (gate) {
    int m = lt_modes_active();
    if (m < 0) return NULL;
    if (m) Py_RETURN_NONE;
  }
  void *stream;
  LT_TRY(lt_stream(&t, &stream));
  lt_slot *s;
  LT_TRY(lt_launcher(t.dev >= 0, LT_SLOT_ROWS + k * LT_NDT + t.dt, sigs[k], &s, "%s_%s", kernels[k],
                     lt_dt_name[t.dt]));
  void *px = lt_data_ptr(x), *pw = NULL, *pb = NULL;
  if (px == NULL && PyErr_Occurred()) return NULL;
  if (nparams[k] >= 1 && (pw = lt_data_ptr(w)) == NULL && PyErr_Occurred()) return NULL;
  if (nparams[k] == 2 && (pb = lt_data_ptr(b)) == NULL && PyErr_Occurred()) return NULL;
  PyObject *y = PyObject_CallOneArg(lt_S.empty_like, x);
  if (y == NULL) return NULL;
  void *py = lt_data_ptr(y);
  if (py == NULL && PyErr_Occurred()) {
    Py_DECREF(y);
    return NULL;
  }
  int R = (int)(n / C), Ci = (int)C, rc;
  float ef = (float)e;
  switch (k) {
  case 0:
    LT_LAUNCH(s, lt_rmsnorm_fn, rc,
              fn(px, pw, py, R, Ci, ef, stream));
    break;
  case 1:
    LT_LAUNCH(s, lt_layernorm_fn, rc,
              fn(px, pw, pb, py, R, Ci, ef, stream));
    break;
  case 2:
    LT_LAUNCH(s, lt_softmax_fn, rc, fn(px, py, R, Ci, stream));
    break;
  default:
    LT_LAUNCH(s, lt_bias_gelu_fn, rc, fn(px, pw, py, R, Ci, stream));
    break;
  }
  if (rc != 0) {
    Py_DECREF(y);
    return NULL;
  }
  return y;
}

/* add_fast(x, y, gate): as _kernels.add_fast. */
static PyObject *lt_add_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  if (lt_nargs("add_fast", nargs, 3, 3) < 0) return NULL;
  int gate = PyObject_IsTrue(args[2]), grad = 0;
  if (gate < 0) return NULL;
  if (!lt_S.ready) Py_RETURN_NONE;
  if (gate && lt_grad_mode(&grad) < 0) return NULL;
  lt_tensor x, y;
  LT_TRY(lt_read(args[0], grad, &x));
  LT_TRY(lt_read(args[1], grad, &y));
  int64_t n = lt_numel(&x);
  if (y.dt != x.dt || y.dev != x.dev || y.ndim != x.ndim || !lt_contiguous(&x) || !lt_contiguous(&y) || n == 0 ||
      n > LT_MAX_SIZE)
    Py_RETURN_NONE;
  for (int i = 0; i < x.ndim; ++i)
    if (x.size[i] != y.size[i]) Py_RETURN_NONE;
  if (gate) {
    int m = lt_modes_active();
    if (m < 0) return NULL;
    if (m) Py_RETURN_NONE;
  }
  void *stream;
  LT_TRY(lt_stream(&x, &stream));
  lt_slot *s;
  LT_TRY(lt_launcher(x.dev >= 0, LT_SLOT_ADD + x.dt, "PPPIP", &s, "add_%s", lt_dt_name[x.dt]));
  void *px = lt_data_ptr(args[0]), *py;
  if (px == NULL && PyErr_Occurred()) return NULL;
  if ((py = lt_data_ptr(args[1])) == NULL && PyErr_Occurred()) return NULL;
  PyObject *z = PyObject_CallOneArg(lt_S.empty_like, args[0]);
  if (z == NULL) return NULL;
  void *pz = lt_data_ptr(z);
  int rc;
  if (pz == NULL && PyErr_Occurred()) {
    Py_DECREF(z);
    return NULL;
  }
  LT_LAUNCH(s, lt_add_fn, rc, fn(px, py, pz, (int)n, stream));
  if (rc != 0) {
    Py_DECREF(z);
    return NULL;
  }
  return z;
}

/* The layout of matrix [R, C] with strides (s0, s1) as the kernels read it:
   'n' (rows contiguous, leading dim s0), 't' (columns contiguous, s1), or 0 (neither). */
static int lt_layout(int64_t R, int64_t C, int64_t s0, int64_t s1, int64_t *ld)
{
  if (s1 == 1 || C == 1) {
    *ld = s0;
    return 'n';
  }
  if (s0 == 1 || R == 1) {
    *ld = s1;
    return 't';
  }
  return 0;
}

/* The split-K workspace of launches on `stream` of CUDA device dev into *ptr, *bytes
   (NULL, 0: none): the one kept for the device where the stream is the same, else
   the package's matmul_workspace(dev, stream).  0, or -1 on an error. */
static int lt_workspace(int dev, void *stream, void **ptr, int64_t *bytes)
{
  if (dev < LT_MAXDEV && lt_ws[dev].valid && lt_ws[dev].stream == stream) {
    *ptr = lt_ws[dev].ptr;
    *bytes = lt_ws[dev].bytes;
    return 0;
  }
  PyObject *st = PyLong_FromVoidPtr(stream);
  if (st == NULL) return -1;
  PyObject *r = PyObject_CallFunction(lt_S.workspace, "iO", dev, st);
  Py_DECREF(st);
  if (r == NULL) return -1;
  PyObject *addr;
  long long n;
  if (!PyArg_ParseTuple(r, "OL", &addr, &n)) {
    Py_DECREF(r);
    return -1;
  }
  *ptr = PyLong_AsVoidPtr(addr);
  Py_DECREF(r);
  if (*ptr == NULL && PyErr_Occurred()) return -1;
  *bytes = *ptr == NULL ? 0 : (int64_t)n;
  if (*ptr != NULL && dev < LT_MAXDEV) {   /* the package keeps it alive until fast_reset */
    lt_ws[dev].valid = 1;
    lt_ws[dev].stream = stream;
    lt_ws[dev].ptr = *ptr;
    lt_ws[dev].bytes = *bytes;
  }
  return 0;
}

/* matmul_fast(a, b, bias, activation, gate): as _kernels.matmul_fast. */
static PyObject *lt_matmul_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  static const char *const epis[5] = {"none", "bias", "bias_relu", "bias_gelu", "bias_silu"};
  static const char *const acts[5] = {"none", "none", "relu", "gelu", "silu"};
  if (lt_nargs("matmul_fast", nargs, 5, 5) < 0) return NULL;
  PyObject *bias = args[2], *act = args[3];
  int gate = PyObject_IsTrue(args[4]), grad = 0, e;
  if (gate < 0) return NULL;
  if (!lt_S.ready || !PyUnicode_CheckExact(act)) Py_RETURN_NONE;
  for (e = bias == Py_None ? 0 : 1; e < 5 && PyUnicode_CompareWithASCIIString(act, acts[e]) != 0; ++e) {}
  if (e == 5 || (bias == Py_None && e != 0)) Py_RETURN_NONE;
  if (gate && lt_grad_mode(&grad) < 0) return NULL;
  lt_tensor a, b;
  LT_TRY(lt_read(args[0], grad, &a));
  LT_TRY(lt_read(args[1], grad, &b));
  if (b.dt != a.dt || b.dev != a.dev) Py_RETURN_NONE;
  int64_t batch = 1, M, N, K, Ka, sa = 0, sb = 0, lda, ldb, shape[LT_MAXDIM];
  int la, lb, nshape;
  if (b.ndim == 2) {
    K = b.size[0];
    N = b.size[1];
    if (a.ndim == 2) {
      M = a.size[0];
      Ka = a.size[1];
      if ((la = lt_layout(M, Ka, a.stride[0], a.stride[1], &lda)) == 0) Py_RETURN_NONE;
    } else {   /* leading dims: rows of one matrix product, a packed */
      if (a.ndim < 2 || !lt_contiguous(&a)) Py_RETURN_NONE;
      Ka = a.size[a.ndim - 1];
      M = Ka ? lt_numel(&a) / Ka : 0;
      la = 'n';
      lda = Ka;
    }
    for (int i = 0; i < a.ndim - 1; ++i) shape[i] = a.size[i];
    shape[a.ndim - 1] = N;
    nshape = a.ndim;
  } else if (b.ndim == 3 && a.ndim == 3) {
    batch = b.size[0];
    K = b.size[1];
    N = b.size[2];
    M = a.size[1];
    Ka = a.size[2];
    if (a.size[0] != batch || batch == 0 || batch > LT_MAX_SIZE) Py_RETURN_NONE;
    sa = a.stride[0];
    if ((la = lt_layout(M, Ka, a.stride[1], a.stride[2], &lda)) == 0) Py_RETURN_NONE;
    sb = b.stride[0];
    shape[0] = batch;
    shape[1] = M;
    shape[2] = N;
    nshape = 3;
  } else {
    Py_RETURN_NONE;
  }
  if ((lb = lt_layout(K, N, b.stride[b.ndim - 2], b.stride[b.ndim - 1], &ldb)) == 0) Py_RETURN_NONE;
  if (Ka != K || M == 0 || N == 0 || K == 0 || M > LT_MAX_SIZE || N > LT_MAX_SIZE || K > LT_MAX_SIZE) Py_RETURN_NONE;
  if (bias != Py_None) LT_TRY(lt_vector_like(bias, grad, &a, N));
  if (gate) {
    int m = lt_modes_active();
    if (m < 0) return NULL;
    if (m) Py_RETURN_NONE;
  }
  void *stream;
  LT_TRY(lt_stream(&a, &stream));
  lt_slot *s;
  int lay = (la == 't') * 2 + (lb == 't'), slot = (e * 4 + lay) * LT_NDT + a.dt, ws = 0;
  void *pws = NULL;
  int64_t nws = 0;
  if (a.dev >= 0) {   /* NAME_ws where the library has it (sm90a's split-K) */
    ws = lt_launcher(1, LT_SLOT_MATMUL_WS + slot, e ? "PPPPPIIIILLLLLLFFPLP" : "PPPPIIIILLLLLLFFPLP", &s,
                     "matmul_%s_%s_%c%c_ws", lt_dt_name[a.dt], epis[e], la, lb);
    if (ws < 0 || (ws && lt_workspace(a.dev, stream, &pws, &nws) < 0)) return NULL;
  }
  if (!ws)
    LT_TRY(lt_launcher(a.dev >= 0, LT_SLOT_MATMUL + slot, e ? "PPPPPIIIILLLLLLFFP" : "PPPPIIIILLLLLLFFP", &s,
                       "matmul_%s_%s_%c%c", lt_dt_name[a.dt], epis[e], la, lb));
  void *pa = lt_data_ptr(args[0]), *pb, *pbias = NULL;
  if (pa == NULL && PyErr_Occurred()) return NULL;
  if ((pb = lt_data_ptr(args[1])) == NULL && PyErr_Occurred()) return NULL;
  if (e && (pbias = lt_data_ptr(bias)) == NULL && PyErr_Occurred()) return NULL;
  PyObject *shp = lt_tuple(shape, nshape);
  if (shp == NULL) return NULL;
  PyObject *out = PyObject_CallMethodOneArg(args[0], lt_S.s_new_empty, shp);
  Py_DECREF(shp);
  if (out == NULL) return NULL;
  void *po = lt_data_ptr(out);
  int rc;
  if (po == NULL && PyErr_Occurred()) {
    Py_DECREF(out);
    return NULL;
  }
  if (ws && e) {
    LT_LAUNCH(s, lt_matmul_bias_ws_fn, rc,
              fn(po, pa, pb, po, pbias, (int)batch, (int)M, (int)N, (int)K, M * N, N, sa, lda, sb, ldb, 1.0f, 0.0f,
                 pws, nws, stream));
  } else if (ws) {
    LT_LAUNCH(s, lt_matmul_ws_fn, rc,
              fn(po, pa, pb, po, (int)batch, (int)M, (int)N, (int)K, M * N, N, sa, lda, sb, ldb, 1.0f, 0.0f, pws, nws,
                 stream));
  } else if (e) {
    LT_LAUNCH(s, lt_matmul_bias_fn, rc,
              fn(po, pa, pb, po, pbias, (int)batch, (int)M, (int)N, (int)K, M * N, N, sa, lda, sb, ldb, 1.0f, 0.0f,
                 stream));
  } else {
    LT_LAUNCH(s, lt_matmul_fn, rc,
              fn(po, pa, pb, po, (int)batch, (int)M, (int)N, (int)K, M * N, N, sa, lda, sb, ldb, 1.0f, 0.0f, stream));
  }
  if (rc != 0) {
    Py_DECREF(out);
    return NULL;
  }
  return out;
}

/* An int argument in the int32 range into *v: 1, or 0 (not an int, or out of range). */
static int lt_int32(PyObject *o, int *v)
{
  int overflow;
  if (!PyLong_Check(o)) return 0;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow || x < -LT_INT32 || x >= LT_INT32) return 0;
  *v = (int)x;
  return 1;
}

/* attention_fast(q, k, v, scale, window_left, window_right, softcap, gate, causal=False):
   as _kernels.attention_fast. */
static PyObject *lt_attention_fast(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
  (void)self;
  static const int dims[5] = {32, 64, 96, 128, 256};
  if (lt_nargs("attention_fast", nargs, 8, 9) < 0) return NULL;
  int gate = PyObject_IsTrue(args[7]), causal = nargs > 8 ? PyObject_IsTrue(args[8]) : 0, grad = 0, wl, wr, di;
  if (gate < 0 || causal < 0) return NULL;
  if (!lt_S.ready) Py_RETURN_NONE;
  if (gate && lt_grad_mode(&grad) < 0) return NULL;
  lt_tensor q, k, v;
  LT_TRY(lt_read(args[0], grad, &q));
  LT_TRY(lt_read(args[1], grad, &k));
  LT_TRY(lt_read(args[2], grad, &v));
  if (q.dt == LT_F32 || k.dt != q.dt || v.dt != q.dt || q.ndim != 4 || k.ndim != 4 || v.ndim != 4 ||
      k.dev != q.dev || v.dev != q.dev)
    Py_RETURN_NONE;
  int64_t B = q.size[0], Hq = q.size[1], Sq = q.size[2], D = q.size[3], Hkv = k.size[1], Sk = k.size[2];
  for (di = 0; di < 5 && dims[di] != D; ++di) {}
  if (k.size[0] != B || k.size[3] != D || di == 5 || v.size[0] != B || v.size[1] != Hkv || v.size[2] != Sk ||
      v.size[3] != D || Hkv == 0 || Hq % Hkv != 0 || B == 0 || Hq == 0 || Sq == 0 || Sk == 0 || (causal && Sq != Sk) ||
      B > LT_MAX_SIZE || Hq > LT_MAX_SIZE || Sq > LT_MAX_SIZE || Hkv > LT_MAX_SIZE || Sk > LT_MAX_SIZE)
    Py_RETURN_NONE;
  if (q.stride[3] != 1 || k.stride[3] != 1 || v.stride[3] != 1) Py_RETURN_NONE;
  double scale, softcap;
  if (!lt_float(args[3], 1.0 / sqrt((double)D), &scale) || !lt_float(args[6], 0.0, &softcap) ||
      !(scale > 0 && scale < HUGE_VAL && softcap >= 0 && softcap < HUGE_VAL) || !lt_int32(args[4], &wl) ||
      !lt_int32(args[5], &wr))
    Py_RETURN_NONE;
  if (gate) {
    int m = lt_modes_active();
    if (m < 0) return NULL;
    if (m) Py_RETURN_NONE;
  }
  void *stream;
  LT_TRY(lt_stream(&q, &stream));
  int cap = softcap > 0;
  lt_slot *s;
  LT_TRY(lt_launcher(q.dev >= 0, LT_SLOT_ATTN + (di * 2 + cap) * 2 + (q.dt == LT_BF16),
                     cap ? "PPPPPIIIIILLLLLLLLLLLLFFIIP" : "PPPPPIIIIILLLLLLLLLLLLFIIP", &s, "attention_%s_d%d%s",
                     lt_dt_name[q.dt], (int)D, cap ? "_softcap" : ""));
  void *pq = lt_data_ptr(args[0]), *pk, *pv;
  if (pq == NULL && PyErr_Occurred()) return NULL;
  if ((pk = lt_data_ptr(args[1])) == NULL && PyErr_Occurred()) return NULL;
  if ((pv = lt_data_ptr(args[2])) == NULL && PyErr_Occurred()) return NULL;
  PyObject *o, *lse, *shp;
  if (lt_contiguous(&q)) {
    o = PyObject_CallOneArg(lt_S.empty_like, args[0]);
  } else {
    if ((shp = lt_tuple(q.size, 4)) == NULL) return NULL;
    o = PyObject_CallMethodOneArg(args[0], lt_S.s_new_empty, shp);
    Py_DECREF(shp);
  }
  if (o == NULL) return NULL;
  if ((shp = lt_tuple(q.size, 3)) == NULL) {
    Py_DECREF(o);
    return NULL;
  }
  lse = lt_new_f32(args[0], q.dev, shp);
  Py_DECREF(shp);
  void *po = NULL, *plse = NULL;
  if (lse == NULL || ((po = lt_data_ptr(o)) == NULL && PyErr_Occurred()) || ((plse = lt_data_ptr(lse)) == NULL && PyErr_Occurred())) {
    Py_DECREF(o);
    Py_XDECREF(lse);
    return NULL;
  }
  int rc;
  int Bi = (int)B, Hqi = (int)Hq, Sqi = (int)Sq, Hkvi = (int)Hkv, Ski = (int)Sk;
  if (cap) {
    LT_LAUNCH(s, lt_attention_softcap_fn, rc,
              fn(pq, pk, pv, po, plse, Bi, Hqi, Sqi, Hkvi, Ski, q.stride[0], q.stride[1], q.stride[2], k.stride[0],
                 k.stride[1], k.stride[2], v.stride[0], v.stride[1], v.stride[2], Hq * Sq * D, Sq * D, D,
                 (float)scale, (float)softcap, wl, wr, stream));
  } else {
    LT_LAUNCH(s, lt_attention_fn, rc,
              fn(pq, pk, pv, po, plse, Bi, Hqi, Sqi, Hkvi, Ski, q.stride[0], q.stride[1], q.stride[2], k.stride[0],
                 k.stride[1], k.stride[2], v.stride[0], v.stride[1], v.stride[2], Hq * Sq * D, Sq * D, D,
                 (float)scale, wl, wr, stream));
  }
  if (rc != 0) {
    Py_DECREF(o);
    Py_DECREF(lse);
    return NULL;
  }
  PyObject *r = PyTuple_New(2);
  if (r == NULL) {
    Py_DECREF(o);
    Py_DECREF(lse);
    return NULL;
  }
  PyTuple_SET_ITEM(r, 0, o);
  PyTuple_SET_ITEM(r, 1, lse);
  return r;
}

/* Empties the launcher tables (their libraries may have been replaced). */
static PyObject *lt_fast_reset(PyObject *self, PyObject *unused)
{
  (void)self;
  (void)unused;
  for (int kind = 0; kind < 2; ++kind) {
    for (int i = 0; i < LT_NSLOT; ++i) {
      lt_slot *s = &lt_slots[kind][i];
      PyObject *owner = s->owner, *name = s->name;
      s->state = 0;
      s->owner = s->name = NULL;
      Py_XDECREF(owner);
      Py_XDECREF(name);
    }
  }
  memset(lt_ws, 0, sizeof lt_ws);   /* the package made new workspaces (or will) */
  Py_RETURN_NONE;
}

/* fast_setup(tensor, parameter, strided, f32, f16, bf16, grad_enabled, dispatch_modes,
   function_modes, functorch, profiling, current_device, current_stream, empty_like, resolve,
   matmul_workspace). */
static PyObject *lt_fast_setup(PyObject *self, PyObject *args)
{
  PyObject *o[16];
  if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8],
                        &o[9], &o[10], &o[11], &o[12], &o[13], &o[14], &o[15]))
    return NULL;
  if (!PyType_Check(o[0]) || !PyType_Check(o[1])) {
    PyErr_SetString(PyExc_TypeError, "fast_setup: tensor and parameter must be types");
    return NULL;
  }
  PyObject **dst[16] = {&lt_S.tensor, &lt_S.parameter, &lt_S.strided, &lt_S.dtype[LT_F32], &lt_S.dtype[LT_F16],
                        &lt_S.dtype[LT_BF16], &lt_S.grad_enabled, &lt_S.modes[0], &lt_S.modes[1], &lt_S.modes[2],
                        &lt_S.modes[3], &lt_S.cur_device, &lt_S.cur_stream, &lt_S.empty_like, &lt_S.resolve,
                        &lt_S.workspace};
  for (int i = 0; i < 16; ++i) {
    Py_INCREF(o[i]);
    Py_XSETREF(*dst[i], o[i]);
  }
  if (lt_S.s_new_empty == NULL) {
    for (int i = 0; i < LT_NATTR; ++i)
      if ((lt_S.attr_name[i] = PyUnicode_InternFromString(lt_attr_names[i])) == NULL) return NULL;
    for (int i = 0; i < LT_NMETH; ++i)
      if ((lt_S.meth_name[i] = PyUnicode_InternFromString(lt_meth_names[i])) == NULL) return NULL;
    if ((lt_S.s_new_empty = PyUnicode_InternFromString("new_empty")) == NULL ||
        (lt_S.s_fail = PyUnicode_InternFromString("fail")) == NULL ||
        (lt_S.kw_dtype = Py_BuildValue("(s)", "dtype")) == NULL)
      return NULL;
  }
  for (int i = 0; i < LT_NATTR + LT_NMETH; ++i) {
    PyObject *name = i < LT_NATTR ? lt_S.attr_name[i] : lt_S.meth_name[i - LT_NATTR];
    PyObject **descr = i < LT_NATTR ? &lt_S.attr_descr[i] : &lt_S.meth_descr[i - LT_NATTR];
    PyTypeObject *want = i < LT_NATTR ? &PyGetSetDescr_Type : &PyMethodDescr_Type;
    PyObject *d = PyObject_GetAttr(lt_S.tensor, name), *p = PyObject_GetAttr(lt_S.parameter, name);
    if (d == NULL || p == NULL) {
      Py_XDECREF(d);
      Py_XDECREF(p);
      return NULL;
    }
    Py_CLEAR(*descr);
    if (d == p && Py_IS_TYPE(d, want)) {
      *descr = d;
      Py_INCREF(d);
    }
    Py_DECREF(d);
    Py_DECREF(p);
  }
  for (int i = 0; i <= LT_MAXDEV; ++i) Py_CLEAR(lt_S.f32_like[i]);
  lt_S.ready = 1;
  return lt_fast_reset(self, NULL);
}

#define LT_FAST_METHODS \
  {"rows_fast", (PyCFunction)(void (*)(void))lt_rows_fast, METH_FASTCALL, \
   "rows_fast(kernel, x, ns, w, b, eps, gate): as luatile._kernels.rows_fast"}, \
  {"add_fast", (PyCFunction)(void (*)(void))lt_add_fast, METH_FASTCALL, "add_fast(x, y, gate): as luatile._kernels.add_fast"}, \
  {"matmul_fast", (PyCFunction)(void (*)(void))lt_matmul_fast, METH_FASTCALL, \
   "matmul_fast(a, b, bias, activation, gate): as luatile._kernels.matmul_fast"}, \
  {"attention_fast", (PyCFunction)(void (*)(void))lt_attention_fast, METH_FASTCALL, \
   "attention_fast(q, k, v, scale, window_left, window_right, softcap, gate, causal=False): as " \
   "luatile._kernels.attention_fast"}, \
  {"fast_setup", lt_fast_setup, METH_VARARGS, "fast_setup(...): the torch objects the fast calls use"}, \
  {"fast_reset", lt_fast_reset, METH_NOARGS, "fast_reset(): forget the launchers found (a library was loaded)"},

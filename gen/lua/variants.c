/*
** lua/variants.c: the variants of a kernel and the config each gets.
**
** ltF_run_file runs the kernel file (api.c) and walks every combination of
** its variant values (sorted keys, values in order), or the one -D picks.
** Each variant's config is built up in layers, later ones winning:
**
**   config                 the kernel's defaults
**   target_config[target]  per target
**   variant_config(v, t)   per variant, a function of the kernel
**   tuned entry            from the tuned-config file (tuned.c), for the
**                          target, device and shape bucket; tuned_as lets
**                          a variant borrow another's entry (which leaves
**                          the keys variant_config set alone)
**
** and -D key=value from the command line wins over all of them.
** unsupported(v, t) leaves a variant out on a target.  builds(v, t) may
** make a variant several builds, each its own config overlay (under the
** -D keys), under one launcher that runs the first whose k:runs_when
** holds for the call's sizes, else the last (dispatch.c).  A variant with
** several tuned shape buckets becomes one kernel per bucket (unless they
** all give one config) under one launcher; pass/share.c later folds the
** buckets whose kernels are the same code into one.  kernel.c builds each; --list
** only prints the variants and their configs.
*/
#include "dsl.h"

#define MAX_VARIANTS 4096   /* combinations of variant values, listed or not */

/* ------------------------------------------------------------------ */
/* Lua tables: keys, values, copies                                    */

/* Sorted string keys of the table at idx (for a stable variant order); more
** than max is an error that names the table (what). */
static int sorted_keys(int idx, const char **keys, int max, const char *what) {
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) ltF_error("variant and config keys are names");
    if (n == max) ltF_error("%s has more than %d keys; a kernel has at most %d", what, max, max);
    keys[n++] = lua_tostring(L, -1);
  }
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
      const char *t = keys[j];
      keys[j] = keys[j - 1];
      keys[j - 1] = t;
    }
  return n;
}

/* Pushes the Lua value a -D string stands for: integer, boolean or string. */
static void push_define(const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s && *end == 0) lua_pushinteger(L, v);
  else if (strcmp(s, "true") == 0) lua_pushboolean(L, 1);
  else if (strcmp(s, "false") == 0) lua_pushboolean(L, 0);
  else lua_pushstring(L, s);
}

/* The text of the variant or config value at idx: "true", "4096", "bf16". */
static const char *value_text(int idx) {
  if (lua_isboolean(L, idx)) return lua_toboolean(L, idx) ? "true" : "false";
  if (lua_isinteger(L, idx)) return ltU_fmt("%lld", (long long)lua_tointeger(L, idx));
  if (lua_type(L, idx) == LUA_TSTRING) return ltU_strdup(lua_tostring(L, idx));
  ltF_error("variant and config values are whole numbers, strings or booleans, not %s", ltF_show(idx));
  return NULL;
}

/* Is k one of the n names in keys? */
static int has_key(const char *const *keys, int n, const char *k) {
  for (int i = 0; i < n; i++)
    if (strcmp(keys[i], k) == 0) return 1;
  return 0;
}

/* Pushes a shallow copy of the table at index t; returns its index. */
static int push_copy(int t) {
  lua_newtable(L);
  int c = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, c);
  }
  return c;
}

/* Appends variant key's part of a variant name, for value text txt: _key
** for true, nothing for false, else _txt (softmax_bf16, loops_absolute). */
static void name_part(Buf *b, const char *key, const char *txt) {
  if (strcmp(txt, "true") == 0) ltU_printf(b, "_%s", key);
  else if (strcmp(txt, "false") != 0) ltU_printf(b, "_%s", txt);
}

/* ------------------------------------------------------------------ */
/* config layers: target_config, variant_config, unsupported           */

/* Checks the config values in the table at et against the config table
** at ct (each key one of config's, each value of its kind) and, when into
** is not 0, lays them over the table at into, except the keys in skip
** (those -D set), adding the keys it changed to changed[*nchanged] (when
** changed is not NULL; room for 64).
** what names the table in messages ("target_config.sm80").  Returns 0
** after raising the error message at line. */
static int overlay_config(int et, int ct, const char *what, int line, int into, const char **skip, int nskip,
                          const char **changed, int *nchanged) {
  const char *keys[64];
  int nk = sorted_keys(et, keys, 64, what);
  for (int j = 0; j < nk; j++) {
    lua_getfield(L, ct, keys[j]);
    int want = lua_type(L, -1);
    lua_getfield(L, et, keys[j]);
    int got = lua_type(L, -1);
    if (want == LUA_TNIL)
      return ltF_error_at(line, "%s.%s: config has no '%s'; only the values config names can change", what, keys[j],
                          keys[j]);
    if (got != want || lua_isinteger(L, -1) != lua_isinteger(L, -2)) {
      const char *kind = lua_isinteger(L, -2) ? "a whole number" : lua_typename(L, want);
      return ltF_error_at(line, "%s.%s = %s: config %s is %s, so the value must be one too", what, keys[j],
                          luaL_tolstring(L, -1, NULL), keys[j], kind);
    }
    if (into && !has_key(skip, nskip, keys[j])) {
      if (changed) changed[(*nchanged)++] = ltU_strdup(keys[j]);
      lua_setfield(L, into, keys[j]);
    } else {
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  return 1;
}

/* Checks the kernel's target_config (kernel table at kt: target name ->
** { key = value }, each key one of config's with a value of its type) and
** lays the current target's entry over the config table at ct.  Returns 0
** after raising the error message; line is tile.kernel's. */
static int target_config(int kt, int ct, int line) {
  lua_getfield(L, kt, "target_config");
  int tc = lua_gettop(L);
  if (lua_isnil(L, tc)) return lua_pop(L, 1), 1;
  if (!lua_istable(L, tc))
    return ltF_error_at(line, "target_config is a table target = { key = value }, e.g. "
                        "target_config = { gfx90a = { threads = 256 } }");
  const char *names[64];
  int n = sorted_keys(tc, names, 64, "target_config");
  for (int i = 0; i < n; i++) {
    if (!ltT_find(names[i])) {
      Buf b = {0};
      for (int j = 0; ltT_all[j]; j++) ltU_printf(&b, "%s%s", j ? ", " : "", ltT_all[j]->name);
      return ltF_error_at(line, "target_config.%s: no such target (targets: %s)", names[i], b.p);
    }
    lua_getfield(L, tc, names[i]);
    if (!lua_istable(L, -1))
      return ltF_error_at(line, "target_config.%s is a table of config values, e.g. { threads = 256 }", names[i]);
    int mine = ltF_target && strcmp(ltF_target->name, names[i]) == 0;
    if (!overlay_config(lua_gettop(L), ct, ltU_fmt("target_config.%s", names[i]), line, mine ? ct : 0, NULL, 0, NULL,
                        NULL))
      return 0;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 1;
}

/* Calls the kernel's function field fname (variant_config or unsupported)
** with a copy of the variant table at vt and the target's name, leaving its
** one result on the stack; leaves nil when the kernel has no such field.
** Sets *line to the function's first line.  Raises an error when the field
** is not a function. */
static void call_variant_fn(int kt, int vt, const char *fname, const char *eg, int kline, int *line) {
  lua_getfield(L, kt, fname);
  *line = kline;
  if (lua_isnil(L, -1)) return;
  if (!lua_isfunction(L, -1))
    ltF_error_at(kline, "%s is a function(v, target), e.g. %s", fname, eg);
  lua_Debug ar;
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  *line = ar.linedefined;
  push_copy(vt);
  lua_pushstring(L, ltF_target->name);
  lua_call(L, 2, 1);
}

/* The kernel's unsupported(v, target) for the variant at vt: NULL when the
** target runs it, else the reason it is left out (the function's string).
** *line is the function's line.  No target (--list alone): NULL. */
static const char *unsupported(int kt, int vt, int kline, int *line) {
  *line = kline;
  if (!ltF_target) return NULL;
  call_variant_fn(kt, vt, "unsupported", "function(v, target) if v.hdim == \"d256\" then return \"why\" end end",
                  kline, line);
  const char *why = NULL;
  if (lua_type(L, -1) == LUA_TSTRING && lua_rawlen(L, -1) > 0) why = ltU_strdup(lua_tostring(L, -1));
  else if (!lua_isnil(L, -1) && !(lua_isboolean(L, -1) && !lua_toboolean(L, -1)))
    ltF_error_at(*line, "unsupported returned %s; it returns nil where the target runs the variant, "
                 "else a string saying why not", luaL_typename(L, -1));
  lua_pop(L, 1);
  return why;
}

/* Lays the kernel's variant_config(v, target) for the variant at vt over
** its config table cv (checked against the config at ct), except the keys
** -D set (dcfg).  Returns how many keys it changed, named in vc (room for
** 64). */
static int apply_variant_config(int kt, int vt, int ct, int cv, const char *vname, const char **dcfg, int ndcfg,
                                int kline, const char **vc) {
  int nvc = 0;
  if (!ltF_target) return 0;
  int line;
  call_variant_fn(kt, vt, "variant_config", "function(v, target) if v.hdim == \"d256\" then return { BN = 32 } end end",
                  kline, &line);
  if (lua_istable(L, -1)) {
    overlay_config(lua_gettop(L), ct, ltU_fmt("variant_config(%s)", vname), line, cv, dcfg, ndcfg, vc, &nvc);
  } else if (!lua_isnil(L, -1)) {
    ltF_error_at(line, "variant_config returned %s for %s; it returns nil or a table of config values, "
                 "e.g. { threads = 256 }", luaL_typename(L, -1), vname);
  }
  lua_pop(L, 1);
  return nvc;
}

/* The kernel's builds(v, target) for the variant at vt, left on the stack
** (nil where it has none, or no target is set): an array of two to 16
** { "name", { config values } }, each name a few letters and digits that
** end the build's kernel name (attention_decode_bf16_d128_paged_rows16).
** Returns how many builds; 0: one, the variant's config as it is. */
static int variant_builds(int kt, int vt, int ct, const char *vname, int kline) {
  if (!ltF_target) return lua_pushnil(L), 0;
  int line;
  const char *eg = "function(v, target) return { { \"rows16\", { BM = 16 } }, { \"rows64\", {} } } end";
  call_variant_fn(kt, vt, "builds", eg, kline, &line);
  if (lua_isnil(L, -1)) return 0;
  int bt = lua_gettop(L);
  int n = lua_istable(L, bt) ? (int)lua_rawlen(L, bt) : 0;
  if (n < 2 || n > 16)
    ltF_error_at(line, "builds returned %s for %s; it returns nil or an array of 2 to 16 { \"name\", { config "
                 "values } }, e.g. %s", lua_istable(L, bt) ? ltU_fmt("a list of %d", n) : luaL_typename(L, bt), vname,
                 eg);
  for (int b = 1; b <= n; b++) {
    lua_rawgeti(L, bt, b);
    int et = lua_gettop(L);
    lua_rawgeti(L, et, 1);
    lua_rawgeti(L, et, 2);
    const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    int ok = lua_istable(L, et) && name && *name && strlen(name) <= 16 && lua_istable(L, -1);
    for (const char *c = name; ok && *c; c++) ok = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
    if (!ok)
      ltF_error_at(line, "builds(%s)[%d] is { \"name\", { config values } }, the name 1 to 16 lower-case letters "
                   "and digits; e.g. %s", vname, b, eg);
    for (int o = 1; o < b; o++) {
      lua_rawgeti(L, bt, o);
      lua_rawgeti(L, -1, 1);
      if (strcmp(lua_tostring(L, -1), name) == 0)
        ltF_error_at(line, "builds(%s) names build '%s' twice", vname, name);
      lua_pop(L, 2);
    }
    overlay_config(lua_gettop(L), ct, ltU_fmt("builds(%s).%s", vname, name), line, 0, NULL, 0, NULL, NULL);
    lua_settop(L, bt);
  }
  return n;
}

/* ------------------------------------------------------------------ */
/* tuned entries and tuned_as                                          */

/* Checks the kernel's tuned_as (kernel table at kt, variants at vars):
** { key = { value = other value } }, each key a variant key and each
** value one of its values.  Returns 0 after raising the error; line is
** tile.kernel's. */
static int tuned_as_check(int kt, int vars, int line) {
  lua_getfield(L, kt, "tuned_as");
  int ta = lua_gettop(L);
  if (lua_isnil(L, ta)) return lua_pop(L, 1), 1;
  const char *eg = "e.g. tuned_as = { hdim = { d96 = \"d128\" } }";
  if (!lua_istable(L, ta))
    return ltF_error_at(line, "tuned_as is a table variant key = { value = other value }, %s", eg);
  const char *keys[16];
  int nk = sorted_keys(ta, keys, 16, "tuned_as");
  for (int i = 0; i < nk; i++) {
    lua_getfield(L, vars, keys[i]);
    int list = lua_gettop(L);
    if (!lua_istable(L, list))
      return ltF_error_at(line, "tuned_as.%s: the kernel has no variant '%s'", keys[i], keys[i]);
    lua_getfield(L, ta, keys[i]);
    int m = lua_gettop(L);
    if (!lua_istable(L, m))
      return ltF_error_at(line, "tuned_as.%s is a table value = other value, %s", keys[i], eg);
    lua_pushnil(L);
    while (lua_next(L, m)) {
      const char *pair[2] = {value_text(-2), value_text(-1)};
      for (int j = 0; j < 2; j++) {
        int found = 0;
        for (lua_Integer x = 1; x <= luaL_len(L, list); x++) {
          lua_geti(L, list, x);
          found |= strcmp(value_text(-1), pair[j]) == 0;
          lua_pop(L, 1);
        }
        if (!found)
          return ltF_error_at(line, "tuned_as.%s: %s is not one of the variant's values", keys[i], pair[j]);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  return 1;
}

/* The name of the variant whose tuned entries variant vname takes: vname
** when the tuned file has an entry for it, else the one the kernel's
** tuned_as names (the variant values in vt, some replaced), else vname. */
static const char *tuned_name(int kt, int vt, const char **vkeys, int nv, const char *kname, const char *vname) {
  const TunedValue *tv;
  int n;
  const char *found[1];
  ltN_pick(vname, NULL, &tv, &n);
  if (n || ltN_buckets(vname, found, 1)) return vname;
  lua_getfield(L, kt, "tuned_as");
  int ta = lua_gettop(L), changed = 0;
  Buf b = {0};
  ltU_put(&b, kname);
  for (int i = 0; i < nv; i++) {
    lua_getfield(L, vt, vkeys[i]);
    const char *txt = value_text(-1);
    if (lua_istable(L, ta)) {
      lua_getfield(L, ta, vkeys[i]);
      if (lua_istable(L, -1)) {
        lua_getfield(L, -1, txt);
        if (!lua_isnil(L, -1)) txt = value_text(-1), changed = 1;
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    name_part(&b, vkeys[i], txt);
  }
  lua_pop(L, 1);
  return changed ? b.p : vname;
}

/* The config of one variant, in the table at cv (the kernel's config with
** -D applied, plus the variant's values): lays the tuned entry of variant
** tname (vname's own name, or its tuned_as; tuned.c; bucket's, when not
** NULL) over it, except the keys -D set (dcfg), variant keys, and, in an
** entry borrowed by tuned_as, the keys the kernel's variant_config set for
** this variant (the nvc keys in vc), and returns its text "BC=4096
** threads=256".  When a tuned file was read, or always is set (--list
** --target), the text says where it came from: "(tuned: FILE, DEVICE,
** BUCKET)" or "(kernel defaults...)", then "; variant_config: K" and
** "; -D: K" for the keys those set. */
static const char *tuned_config(int cv, int vars, const char *vname, const char *tname, const char *bucket,
                                const char **ckeys, int nc, const char **vc, int nvc, const char **dcfg, int ndcfg,
                                int always) {
  const TunedValue *tv;
  int ntv;
  const char *origin = ltN_pick(tname, bucket, &tv, &ntv);
  int borrowed = ntv && strcmp(vname, tname) != 0;
  if (borrowed) origin = ltU_fmt("%s; %s's entry, by tuned_as", origin, tname);
  for (int i = 0; i < ntv; i++) {
    int skip = (borrowed && has_key(vc, nvc, tv[i].key)) || has_key(dcfg, ndcfg, tv[i].key);
    lua_getfield(L, vars, tv[i].key);
    skip |= !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (skip) continue;
    if (tv[i].kind == TK_INT) lua_pushinteger(L, tv[i].i);
    else if (tv[i].kind == TK_BOOL) lua_pushboolean(L, (int)tv[i].i);
    else lua_pushstring(L, tv[i].s);
    lua_setfield(L, cv, tv[i].key);
  }
  Buf b = {0};
  ltU_put(&b, "");
  for (int i = 0; i < nc; i++) {
    lua_getfield(L, cv, ckeys[i]);
    ltU_printf(&b, "%s%s=%s", i ? " " : "", ckeys[i], value_text(-1));
    lua_pop(L, 1);
  }
  if (!always && !ltN_active()) return b.p;
  ltU_printf(&b, "%s(%s", nc ? " " : "", origin);
  int nv = 0;   /* the keys variant_config decided: not those of the variant's own entry */
  for (int j = 0; j < nvc; j++) {
    int own = 0;
    for (int i = 0; i < ntv && !borrowed; i++) own |= strcmp(tv[i].key, vc[j]) == 0;
    if (!own) ltU_printf(&b, "%s%s", nv++ ? " " : "; variant_config: ", vc[j]);
  }
  for (int j = 0; j < ndcfg; j++) ltU_printf(&b, "%s%s", j ? " " : "; -D: ", dcfg[j]);
  ltU_put(&b, ")");
  return b.p;
}

/* Do the nb tuned buckets give variant vname one config?  Then it is one
** kernel, not nb copies of it under a launcher that picks among them.
** Compares the config texts up to where they say where they came from. */
static int one_config(int cv, int vars, const char *vname, const char *tname, const char **buckets, int nb,
                      const char **ckeys, int nc, const char **vc, int nvc, const char **dcfg, int ndcfg) {
  const char *first = NULL;
  size_t n0 = 0;
  for (int b = 0; b < nb; b++) {
    int cb = push_copy(cv);
    const char *c = tuned_config(cb, vars, vname, tname, buckets[b], ckeys, nc, vc, nvc, dcfg, ndcfg, 0);
    lua_settop(L, cb - 1);
    size_t n = strcspn(c, "(");
    if (!first) first = c, n0 = n;
    else if (n != n0 || strncmp(first, c, n) != 0) return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* the run                                                             */

/* The whole run, called by ltD_run under its message handler with the Run
** as a light userdata: runs the kernel file, applies -D, reads the tuned
** file, and builds (or lists) every variant combination (sorted keys,
** values in order). */
int ltF_run_file(lua_State *l) {
  Run *run = lua_touserdata(l, 1);
  GenRequest *req = run->req;
  int nlines = ltF_run_chunk();
  int kt = lua_gettop(L);
  int kline = ltF_kernel_line(kt);   /* 0: no table tile.kernel made */
  if (!kline)   /* at the file's last line, where that return goes */
    return ltF_error_at(nlines, "the file must end with: return tile.kernel { ... }");
  ltF_set_outer_line(kline);   /* the kernel table and its configs are read from C now */
  lua_getfield(L, kt, "name");   /* checked again: the table may have changed since tile.kernel */
  const char *kname = ltU_strdup(ltF_kernel_name(kline));
  lua_pop(L, 1);
  run->kname = kname;

  /* config, with -D applied */
  lua_newtable(L);
  int ct = lua_gettop(L);
  lua_getfield(L, kt, "config");
  if (!lua_isnil(L, -1) && !lua_istable(L, -1)) return ltF_error("config is a table of name = value");
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, ct);
    }
  }
  lua_pop(L, 1);
  if (!target_config(kt, ct, kline)) return 0;
  lua_getfield(L, kt, "variants");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_newtable(L); }
  if (!lua_istable(L, -1)) return ltF_error("variants is a table of name = { values }");
  int vars = lua_gettop(L);
  if (!tuned_as_check(kt, vars, kline)) return 0;   /* against the variants as written, before -D picks one */
  const char *dcfg[64];   /* config keys -D set, in command-line order */
  int ndcfg = 0;
  for (int i = 0; i < req->ndefs; i++) {
    const char *key = req->defs[i].key;
    lua_getfield(L, vars, key);
    int is_var = !lua_isnil(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, ct, key);
    int is_cfg = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!is_var && !is_cfg) {
      const char *keys[64];
      int n = sorted_keys(ct, keys, 64, "config");
      Buf b = {0};
      for (int j = 0; j < n; j++) ltU_printf(&b, "%s%s", j ? ", " : "", keys[j]);
      n = sorted_keys(vars, keys, 64, "variants");
      for (int j = 0; j < n; j++) ltU_printf(&b, "%s%s", b.n ? ", " : "", keys[j]);
      return ltF_error_at(kline, "-D %s=%s: the kernel has no config or variant '%s' (it has: %s)", key,
                          req->defs[i].value, key, b.p ? b.p : "none");
    }
    if (is_var) {
      lua_createtable(L, 1, 0);
      push_define(req->defs[i].value);
      lua_seti(L, -2, 1);
      lua_setfield(L, vars, key);
    } else {
      lua_getfield(L, ct, key);
      int want = lua_type(L, -1);
      lua_pop(L, 1);
      push_define(req->defs[i].value);
      if (lua_type(L, -1) != want)
        return ltF_error_at(kline, "-D %s=%s: config %s is a %s, so the value must be one too", key,
                            req->defs[i].value, key, lua_typename(L, want));
      lua_setfield(L, ct, key);
      if (!has_key(dcfg, ndcfg, key)) dcfg[ndcfg++] = key;
    }
  }
  const char *vkeys[16];
  int nv = sorted_keys(vars, vkeys, 16, "variants");
  int count[16], idx[16];
  double combos = 1;
  for (int i = 0; i < nv; i++) {
    lua_getfield(L, vars, vkeys[i]);
    if (!lua_istable(L, -1) || ltF_len(-1) < 1)
      return ltF_error_at(kline, "variants.%s must be a non-empty list of values", vkeys[i]);
    lua_Integer len = ltF_len(-1);
    combos *= (double)len;
    if (len > MAX_VARIANTS || combos > MAX_VARIANTS)
      return ltF_error_at(kline, "the variants make %.0f combinations; a kernel has at most %d", combos, MAX_VARIANTS);
    count[i] = (int)len;
    idx[i] = 0;
    lua_pop(L, 1);
  }
  const char *ckeys[64];
  int nc = sorted_keys(ct, ckeys, 64, "config");
  Buf cdesc = {0};
  for (int i = 0; i < nc; i++) {
    lua_getfield(L, ct, ckeys[i]);
    ltU_printf(&cdesc, "%s%s=%s", i ? " " : "", ckeys[i], value_text(-1));
    lua_pop(L, 1);
  }
  /* the tuned-config file: checked against the config's keys and kinds */
  TunedValue tkeys[64];
  for (int i = 0; i < nc; i++) {
    lua_getfield(L, ct, ckeys[i]);
    TunedKind kind = lua_isinteger(L, -1) ? TK_INT : lua_isboolean(L, -1) ? TK_BOOL : TK_STR;
    tkeys[i] = (TunedValue){ckeys[i], kind, 0, NULL};
    lua_pop(L, 1);
  }
  ltN_load(ltF_file, kname, req->target, tkeys, nc);
  if (run->listing) {
    ltU_printf(run->listing, "kernel %s (%s)\n  config: %s\n", kname, ltF_file, cdesc.p ? cdesc.p : "(none)");
    if (!req->target && ltN_summary()) ltU_printf(run->listing, "  tuned: %s\n", ltN_summary());
    for (int i = 0; i < nv; i++) {
      ltU_printf(run->listing, "  variant %s:", vkeys[i]);
      lua_getfield(L, vars, vkeys[i]);
      for (int j = 1; j <= count[i]; j++) {
        lua_geti(L, -1, j);
        ltU_printf(run->listing, " %s", value_text(-1));
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      ltU_put(run->listing, "\n");
    }
  }
  int ngen = 0, left_line = kline;   /* variants generated; the first left out, its reason and line */
  const char **seen = ltU_alloc(sizeof *seen * MAX_VARIANTS);   /* the variant names so far */
  int nseen = 0;
  const char *left_out = NULL, *left_why = NULL;
  for (;;) {
    /* the variant and c tables for this combination */
    lua_newtable(L);
    int vt = lua_gettop(L);
    int cv = push_copy(ct);
    Buf vname = {0}, vdesc = {0};
    ltU_put(&vname, kname);
    for (int i = 0; i < nv; i++) {
      lua_getfield(L, vars, vkeys[i]);
      lua_geti(L, -1, idx[i] + 1);
      const char *txt = value_text(-1);
      lua_pushvalue(L, -1);
      lua_setfield(L, vt, vkeys[i]);
      lua_setfield(L, cv, vkeys[i]);
      lua_pop(L, 1);
      name_part(&vname, vkeys[i], txt);
      ltU_printf(&vdesc, "%s%s=%s", i ? " " : "", vkeys[i], txt);
    }
    if (!ltF_valid_ident(vname.p))
      return ltF_error_at(kline, "variant name '%s' is not an identifier; use names or numbers as variant values",
                          vname.p);
    for (int j = 0; j < nseen; j++)
      if (strcmp(seen[j], vname.p) == 0)
        return ltF_error_at(kline, "two variants are both named '%s' (%s); give the variants values whose text differs",
                            vname.p, vdesc.p ? vdesc.p : "");
    seen[nseen++] = vname.p;
    const char *vwhy = ltF_name_rule(vname.p, LT_VARIANT_NAME_MAX, 1);
    if (vwhy && strcmp(vname.p, kname) == 0)
      return ltF_error_at(kline, "kernel name '%s' %s; the launcher and its header take the name: pick another, e.g. "
                          "\"%s\"", kname, vwhy, ltF_name_instead(kname));
    if (vwhy)
      return ltF_error_at(kline, "variant name '%s' %s; the launcher and its header take the name: change the "
                          "kernel name or the variant values", vname.p, vwhy);
    int uline;
    const char *why = unsupported(kt, vt, kline, &uline);
    if (why && !left_out) left_out = vname.p, left_why = why, left_line = uline;
    if (why && run->listing) ltU_printf(run->listing, "  %s  unsupported: %s\n", vname.p, why);
    if (why) goto next;
    ngen++;
    const char *vc[64];   /* the config keys variant_config set for this variant */
    int nvc = apply_variant_config(kt, vt, ct, cv, vname.p, dcfg, ndcfg, kline, vc);
    /* several tuned buckets: one kernel each (-D applies to all), and a
    ** launcher that picks one by the call's sizes */
    const char *buckets[LT_MAX_BUCKETS];
    const char *tname = req->target ? tuned_name(kt, vt, vkeys, nv, kname, vname.p) : vname.p;
    int nb = req->target ? ltN_buckets(tname, buckets, LT_MAX_BUCKETS) : 0;
    Buf same = {0};   /* the buckets tuned to the one config that the largest's entry gives */
    if (nb >= 2 && one_config(cv, vars, vname.p, tname, buckets, nb, ckeys, nc, vc, nvc, dcfg, ndcfg))
      for (int b = 1; b < nb; b++) ltU_printf(&same, "%s%s", b > 1 ? ", " : "; the same for ", buckets[b]);
    if (nb < 2 || same.p) nb = 0, buckets[0] = NULL;
    int nbuild = variant_builds(kt, vt, ct, vname.p, kline), bt = lua_gettop(L);
    if (nbuild && nb)
      return ltF_error_at(kline, "%s has builds and tuned shape buckets; one launcher dispatches on one of them",
                          vname.p);
    if (nbuild) {   /* the builds take the places of buckets, each its overlay laid over the config */
      nb = nbuild;
      for (int b = 0; b < nb; b++) {
        lua_rawgeti(L, bt, b + 1);
        lua_rawgeti(L, -1, 1);
        buckets[b] = ltU_strdup(lua_tostring(L, -1));
        lua_pop(L, 2);
      }
    }
    for (int b = 0; b < (nb ? nb : 1); b++) {
      int cb = push_copy(cv);   /* this bucket's copy of the config */
      if (nbuild) {
        lua_rawgeti(L, bt, b + 1);
        lua_rawgeti(L, -1, 2);
        overlay_config(lua_gettop(L), ct, ltU_fmt("builds(%s).%s", vname.p, buckets[b]), kline, cb, dcfg, ndcfg,
                       NULL, NULL);
        lua_pop(L, 2);
      }
      run->build = b, run->nbuilds = nbuild;
      const char *config =
          tuned_config(cb, vars, vname.p, tname, nbuild ? NULL : buckets[b], ckeys, nc, vc, nvc, dcfg, ndcfg,
                       run->listing && req->target);
      size_t len = strlen(config);
      if (same.p && len && config[len - 1] == ')') config = ltU_fmt("%.*s%s)", (int)len - 1, config, same.p);
      if (run->listing && req->target && nb)
        ltU_printf(run->listing, "  %s  for %s  config: %s\n", vname.p, buckets[b], config);
      else if (run->listing && req->target) ltU_printf(run->listing, "  %s  config: %s\n", vname.p, config);
      else if (run->listing) ltU_printf(run->listing, "  %s\n", vname.p);
      else ltF_build_variant(run, kt, vt, cb, vname.p, tname, vdesc.p ? vdesc.p : "", config, buckets[b], nb);
      lua_settop(L, cb - 1);
    }
  next:
    lua_settop(L, vars);
    int i = nv - 1;
    while (i >= 0 && ++idx[i] == count[i]) idx[i--] = 0;
    if (i < 0) break;
  }
  if (!ngen)
    return ltF_error_at(left_line, "nothing to generate for %s: %s is unsupported there (%s); pick a variant "
                        "(-D) or a target that runs it", ltF_target->name, left_out, left_why);
  return 0;
}

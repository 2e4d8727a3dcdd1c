/*
** module.c: loading a module and finding launchers in it.
**
** A module is a shared library built from generated files (cc / nvcc /
** hipcc -shared).  It is opened with dlopen(RTLD_NOW | RTLD_LOCAL), so an
** unresolved symbol shows at load time and two modules that both define
** softmax_f32 (two configs of one kernel) do not clash.  Launchers are plain
** C functions found with dlsym; the caller casts them to the prototype of
** the variant's header.  A module holds a reference on its device.
*/
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"

struct lt_module {
  lt_device *dev;
  void *handle;             /* from dlopen */
  char path[1024];
};

/* Opens path; a missing file is told apart from one that does not load. */
int lt_module_load(lt_device *dev, const char *path, lt_module **mod) {
  lt_clear();
  if (!dev || !path || !mod) return lt_fail(LT_ERR_INVALID, "lt_module_load: NULL argument");
  struct stat sb;
  if (stat(path, &sb) != 0) return lt_fail(LT_ERR_LOAD, "no module file '%s'", path);
  lt_module *m = calloc(1, sizeof *m);
  if (!m) return lt_fail(LT_ERR_NO_MEMORY, "lt_module_load: out of host memory");
  /* dlopen searches the library path for names without a slash. */
  if (!strchr(path, '/')) { m->path[0] = '.'; m->path[1] = '/'; }
  strncat(m->path, path, sizeof m->path - 3);
  dlerror();
  m->handle = dlopen(m->path, RTLD_NOW | RTLD_LOCAL);
  if (!m->handle) {
    const char *why = dlerror();
    free(m);
    return lt_fail(LT_ERR_LOAD, "cannot load module: %s", why ? why : path);
  }
  m->dev = dev;
  dev->refs++;
  *mod = m;
  return LT_OK;
}

/* Closes the library and drops the device reference. */
int lt_module_unload(lt_module *mod) {
  lt_clear();
  if (!mod) return lt_fail(LT_ERR_INVALID, "lt_module_unload: NULL module");
  dlclose(mod->handle);
  lt_device_unref(mod->dev);
  free(mod);
  return LT_OK;
}

/* Looks name up; LT_ERR_SYMBOL names the module when it is not there. */
int lt_module_symbol(lt_module *mod, const char *name, void **fn) {
  lt_clear();
  if (!mod || !name || !fn) return lt_fail(LT_ERR_INVALID, "lt_module_symbol: NULL argument");
  dlerror();
  void *p = dlsym(mod->handle, name);
  if (!p || dlerror()) return lt_fail(LT_ERR_SYMBOL, "no launcher '%s' in %s", name, mod->path);
  *fn = p;
  return LT_OK;
}

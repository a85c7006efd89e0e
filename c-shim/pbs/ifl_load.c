/*
 * ifl_load.c - resolves the IFL client API from libtorque at run time.
 */
#define _POSIX_C_SOURCE 200809L
#include "ifl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* dlsym returns void *; converting that to a function pointer is what POSIX
 * requires to work, but ISO C has no such conversion, so go through memcpy
 * to stay clean under -Wpedantic. */
#define RESOLVE(api, field, sym, err, errlen)                               \
  do {                                                                      \
    void *p_ = dlsym((api)->handle, sym);                                   \
    if (p_ == NULL) {                                                       \
      snprintf(err, errlen, "%s: missing symbol %s (not an IFL client "     \
               "library, or too old)", (api)->path, sym);                   \
      goto fail;                                                            \
    }                                                                       \
    memcpy(&(api)->field, &p_, sizeof p_);                                  \
  } while (0)

int ifl_load(struct ifl_api *api, const char *path, char *err, size_t errlen)
{
  void *p;

  memset(api, 0, sizeof *api);
  if (path == NULL || *path == '\0')
    path = IFL_DEFAULT_LIBRARY;
  snprintf(api->path, sizeof api->path, "%s", path);
  dlerror();
  /* RTLD_LOCAL: libtorque's internal symbols must not resolve anything else
   * in the process; RTLD_NOW: fail here, not in the middle of an iteration. */
  api->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (api->handle == NULL) {
    const char *why = dlerror();
    snprintf(err, errlen, "cannot load IFL library %s: %s", path,
             why ? why : "unknown error");
    return -1;
  }

  RESOLVE(api, connect, "pbs_connect", err, errlen);
  RESOLVE(api, disconnect, "pbs_disconnect", err, errlen);
  RESOLVE(api, statserver, "pbs_statserver", err, errlen);
  RESOLVE(api, statque, "pbs_statque", err, errlen);
  RESOLVE(api, statnode, "pbs_statnode", err, errlen);
  RESOLVE(api, statjob, "pbs_statjob", err, errlen);
  RESOLVE(api, statfree, "pbs_statfree", err, errlen);
  RESOLVE(api, runjob, "pbs_runjob", err, errlen);
  RESOLVE(api, alterjob, "pbs_alterjob", err, errlen);
  RESOLVE(api, holdjob, "pbs_holdjob", err, errlen);
  RESOLVE(api, rlsjob, "pbs_rlsjob", err, errlen);
  RESOLVE(api, deljob, "pbs_deljob", err, errlen);
  RESOLVE(api, rerunjob, "pbs_rerunjob", err, errlen);
  RESOLVE(api, sigjob, "pbs_sigjob", err, errlen);
  RESOLVE(api, geterrmsg, "pbs_geterrmsg", err, errlen);

  p = dlsym(api->handle, "pbs_errno");
  if (p != NULL) {
    api->errno_var = (int *)p;
  } else {
    p = dlsym(api->handle, "__pbs_errno_location");
    if (p == NULL) {
      snprintf(err, errlen, "%s: missing symbol pbs_errno (neither the "
               "variable nor __pbs_errno_location is exported)", api->path);
      goto fail;
    }
    memcpy(&api->errno_loc, &p, sizeof p);
  }
  p = dlsym(api->handle, "pbs_strerror");
  if (p != NULL)
    memcpy(&api->strerror_fn, &p, sizeof p);
  return 0;

fail:
  dlclose(api->handle);
  api->handle = NULL;
  return -1;
}

void ifl_unload(struct ifl_api *api)
{
  if (api->handle != NULL)
    dlclose(api->handle);
  memset(api, 0, sizeof *api);
}

static int *errno_ptr(const struct ifl_api *api)
{
  if (api->errno_var != NULL)
    return api->errno_var;
  if (api->errno_loc != NULL)
    return api->errno_loc();
  return NULL;
}

int ifl_errno(const struct ifl_api *api)
{
  int *e = errno_ptr(api);
  return e ? *e : 0;
}

void ifl_clear_errno(const struct ifl_api *api)
{
  int *e = errno_ptr(api);
  if (e != NULL)
    *e = 0;
}

const char *ifl_strerror(const struct ifl_api *api, int err)
{
  const char *s = api->strerror_fn != NULL ? api->strerror_fn(err) : NULL;
  return s != NULL ? s : "";
}

/*
 * loader.c: dlopen()s libmauisched and checks it can serve this plugin.
 */
#define _GNU_SOURCE
#include "loader.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

struct maui_lib L;

int lib_open(const char *path, char *err, size_t errlen)
{
	void *dl;
	char beside[PATH_MAX];
	Dl_info self;
	void *sym;
	const char *tried = path;
	uint32_t v;

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl && !strchr(path, '/') && dladdr((void *) &lib_open, &self) &&
	    self.dli_fname) {
		/* Not in the loader's path: try the plugin's own directory. */
		const char *slash = strrchr(self.dli_fname, '/');
		if (slash) {
			snprintf(beside, sizeof(beside), "%.*s/%s",
				 (int) (slash - self.dli_fname), self.dli_fname,
				 path);
			dl = dlopen(beside, RTLD_NOW | RTLD_LOCAL);
			tried = beside;
		}
	}
	if (!dl) {
		snprintf(err, errlen, "cannot load %s: %s", tried, dlerror());
		return -1;
	}
	memset(&L, 0, sizeof(L));
	/* The ABI major first: a library of another major may lack calls,
	 * and that is the clearer message. */
	sym = dlsym(dl, "mauisched_abi_version");
	/* A data pointer to a function pointer, as POSIX allows for dlsym:
	 * memcpy says so without breaking aliasing rules. */
	memcpy(&L.abi_version, &sym, sizeof(sym));
	if (!L.abi_version) {
		snprintf(err, errlen, "%s lacks mauisched_abi_version: not libmauisched?",
			 tried);
		dlclose(dl);
		return -1;
	}
	v = L.abi_version();
	if ((v >> 16) != MAUISCHED_ABI_MAJOR) {
		snprintf(err, errlen,
			 "%s has ABI %u.%u, this plugin was built for ABI %u.x: "
			 "install the library and plugin of the same release",
			 tried, v >> 16, v & 0xffff, MAUISCHED_ABI_MAJOR);
		memset(&L, 0, sizeof(L));
		dlclose(dl);
		return -1;
	}
#define MAUI_RESOLVE(n)                                                      \
	sym = dlsym(dl, "mauisched_" #n);                                    \
	memcpy(&L.n, &sym, sizeof(sym));                                     \
	if (!L.n) {                                                          \
		snprintf(err, errlen, "%s (ABI %u.%u) lacks mauisched_" #n   \
			 ", which this plugin needs (ABI %u.%u or later)",   \
			 tried, v >> 16, v & 0xffff, MAUISCHED_ABI_MAJOR,    \
			 MAUISCHED_ABI_MINOR);                               \
		memset(&L, 0, sizeof(L));                                    \
		dlclose(dl);                                                 \
		return -1;                                                   \
	}
	MAUI_FNS(MAUI_RESOLVE)
#undef MAUI_RESOLVE
	L.dl = dl;
	mlog(MAUISCHED_LOG_INFO, "loaded %s (ABI %u.%u)", tried, v >> 16,
	     v & 0xffff);
	return 0;
}

const char *handle_error(mauisched_t *h)
{
	static char buf[4096];

	buf[0] = '\0';
	if (h && L.last_error)
		L.last_error(h, buf, sizeof(buf), NULL);
	return buf;
}

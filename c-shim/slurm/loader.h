/*
 * loader.h: libmauisched, loaded with dlopen at run time (never linked),
 * so that a missing or incompatible library is a logged error and never a
 * slurmctld that cannot load its scheduler plugin.
 */
#ifndef MAUI_LOADER_H
#define MAUI_LOADER_H

#include <stddef.h>

#include "mauisched.h"

/* Every library function the plugin calls, through pointers. __typeof__ of
 * the header's declarations keeps the types exact without referencing the
 * symbols. */
#define MAUI_FNS(X)                                                          \
	X(abi_version) X(status_name) X(new) X(free) X(last_error)           \
	X(reconfigure) X(settings) X(snapshot_begin) X(snapshot_add_node)    \
	X(snapshot_add_job) X(run) X(plan_free) X(plan_state_status)         \
	X(plan_start_count) X(plan_start) X(plan_start_node)                 \
	X(plan_start_after)                                                  \
	X(plan_job_count) X(plan_job_find) X(plan_job) X(plan_job_reason)    \
	X(plan_job_schedule) X(plan_action_count) X(plan_action)            \
	X(wakeup_fd) X(wakeup_take) X(start_result)

struct maui_lib {
	void *dl; /* NULL until lib_open succeeds */
#define MAUI_FIELD(n) __typeof__(&mauisched_##n) n;
	MAUI_FNS(MAUI_FIELD)
#undef MAUI_FIELD
};

/* The library's calls, valid once L.dl is set. */
extern struct maui_lib L;

/* Loads `path` (a bare name: the loader's search path, then this plugin's
 * own directory), resolves every call and checks the ABI major; on
 * failure `err` says why and L is left unloaded. */
int lib_open(const char *path, char *err, size_t errlen);

/* The handle's last error text (a static buffer; "" without one). */
const char *handle_error(mauisched_t *h);

#endif /* MAUI_LOADER_H */

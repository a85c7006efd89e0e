/*
 * slurm_compat.h: every difference between the Slurm releases the two
 * plugins build against, and nothing else. Both plugins and their unit
 * tests include it instead of Slurm's headers.
 *
 * Built and tested: 22.05 (Debian 12) and 24.11 (Debian 13). The releases
 * in between are accepted with the thresholds below, each taken from
 * Slurm's own sources at the release tags (slurm-23-02-0-1,
 * slurm-23-11-0-1, slurm-24-05-0-1, slurm-24-11-0-1); they have not been
 * built here. A release after 24.11 is refused until someone checks its
 * headers and the job_submit signature.
 *
 * Slurm loads a plugin only when its plugin_version equals the running
 * daemon's SLURM_VERSION_NUMBER exactly (major.minor.micro), so both
 * plugins set plugin_version from the headers of each build: a site
 * rebuilds them for every Slurm point release.
 */
#ifndef MAUI_SLURM_COMPAT_H
#define MAUI_SLURM_COMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
/* slurm_info, slurm_error, slurm_verbose: exported to every plugin and
 * declared there at both releases. */
#include <slurm/spank.h>

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 12, 0)
#error "mauisched's Slurm plugins support Slurm 22.05 to 24.11; for another release check slurm.h, slurm_errno.h and job_submit_plugin_modify's signature against slurm_compat.h first"
#endif

/* Slurm's allocator, exported by libslurm(full) at every release but not
 * declared in its public headers: what Slurm frees with xfree() must come
 * from it, and what it hands out with xmalloc() goes back through it. */
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **item);

/*
 * hostlist: in 22.05 and 23.02 `hostlist_t` is a pointer typedef; from
 * 23.11 (slurm-23-11-0-1: "typedef struct hostlist hostlist_t;") it is
 * the struct and every slurm_hostlist_* call takes `hostlist_t *`.
 * slurm_hostlist_ranged_string_malloc went in the same release; only the
 * xmalloc'ed form is left. slurm_hostlist_shift returns malloc()ed memory
 * at both (free() it).
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *maui_hostlist_t;
#else
typedef hostlist_t maui_hostlist_t;
#endif

/* A host expression for the hosts in `hl`, malloc()ed (free() it). */
static inline char *maui_hostlist_ranged(maui_hostlist_t hl)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
	char *x = slurm_hostlist_ranged_string_xmalloc(hl), *s;

	if (!x)
		return NULL;
	s = strdup(x);
	slurm_xfree((void **) &x);
	return s;
#else
	return slurm_hostlist_ranged_string_malloc(hl);
#endif
}

/*
 * The error of the last API call: slurm_get_errno() until 24.05; 24.11
 * removed it (slurm-24-11-0-1's slurm_errno.h) and the API sets plain
 * errno, which is what slurm_get_errno() returned before.
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define maui_slurm_errno() (errno)
#else
#define maui_slurm_errno() slurm_get_errno()
#endif

/*
 * job_submit's job_modify: three arguments in 22.05 (slurmctld's
 * job_submit.c at slurm-22-05-8-1, and the disassembly of 22.05.8's
 * job_submit_plugin_modify); 23.02 added `char **err_msg` (commit
 * 85e92d048f, "Add err_msg to single job job_submit_plugin_modify"), where
 * a plugin may put an xmalloc()ed text for the user. Declaring the fourth
 * argument on 22.05 would write through whatever the caller left in that
 * register.
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define MAUI_JOB_MODIFY_HAS_ERR_MSG 1
#define MAUI_JOB_MODIFY_ARGS                                                 \
	job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,         \
	char **err_msg
#else
#define MAUI_JOB_MODIFY_HAS_ERR_MSG 0
#define MAUI_JOB_MODIFY_ARGS                                                 \
	job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid
#endif

/*
 * slurm_job_info_t.state_reason is uint16_t in 22.05 and uint32_t from
 * 23.02 (slurm-23-02-0-1's slurm.h). The plugins only compare it with
 * WAIT_* values, which fit both; this type is for code that stores it.
 */
typedef __typeof__(((slurm_job_info_t *) 0)->state_reason) maui_state_reason_t;

/*
 * slurmctld's internal interface (ctld.c only, which defines
 * MAUI_SLURM_INTERNALS): built against the configured source tree of the
 * exact release (SLURM_SRC, scripts/slurm-src.sh). Differences, from
 * Slurm's sources at the release tags (FACTS-22.05-24.11.md section 3):
 *  - select_nodes(job_ptr, test_only, &bitmap, &err_msg, submission,
 *    type) became select_nodes(job_node_select_t *, test_only,
 *    submission, type) in 23.11;
 *  - job_record_t moved from src/slurmctld/slurmctld.h to
 *    src/common/job_record.h (slurmctld.h includes it), and
 *    `struct job_details` became the anonymous `job_details_t` (24.11);
 *  - srun_allocate moved from srun_comm.h to proc_req.h (24.11);
 *  - ListIterator became list_itr_t * (24.11);
 *  - node_name2bitmap gained a fourth argument, invalid_hostlist (24.11);
 *  - job_reason_string became job_state_reason_string (23.11).
 */
#ifdef MAUI_SLURM_INTERNALS
/* Read and built for these two only: the internal interface changes in
 * between without a trace in the public headers. */
#if !(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) &&                 \
      SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0)) &&                 \
	!(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) &&            \
	  SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0))
#error "sched/maui uses slurmctld's internal interface, read and built for Slurm 22.05 and 24.11 only: check ctld.c and this section against the release's src/slurmctld first"
#endif
#include "config.h"
#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/node_scheduler.h"
#include "src/slurmctld/slurmctld.h"
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#include "src/slurmctld/proc_req.h"
typedef job_details_t maui_job_details_t;
typedef list_itr_t *maui_list_itr_t;
/* The fourth argument (24.11) collects invalid names; NULL: not wanted. */
#define maui_node_name2bitmap(names, best, bm) \
	node_name2bitmap(names, best, bm, NULL)
#else
#include "src/slurmctld/srun_comm.h"
typedef struct job_details maui_job_details_t;
typedef ListIterator maui_list_itr_t;
#define maui_node_name2bitmap(names, best, bm) node_name2bitmap(names, best, bm)
#endif

/* Starts job_ptr now, on the nodes its exc_node_bitmap leaves (not a
 * test, not at submission); SLURM_SUCCESS or Slurm's error code. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
static inline int maui_select_nodes(job_record_t *job_ptr, bool backfill)
{
	job_node_select_t sel = { .job_ptr = job_ptr };

	return select_nodes(&sel, false, false,
			    backfill ? SLURMDB_JOB_FLAG_BACKFILL :
				       SLURMDB_JOB_FLAG_SCHED);
}
#define maui_job_reason_string job_state_reason_string
#else
static inline int maui_select_nodes(job_record_t *job_ptr, bool backfill)
{
	return select_nodes(job_ptr, false, NULL, NULL, false,
			    backfill ? SLURMDB_JOB_FLAG_BACKFILL :
				       SLURMDB_JOB_FLAG_SCHED);
}
#define maui_job_reason_string job_reason_string
#endif
#endif /* MAUI_SLURM_INTERNALS */

#endif /* MAUI_SLURM_COMPAT_H */

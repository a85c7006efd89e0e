/*
 * abi_map.h - the daemon's Torque model (torque_map.h) -> the mauisched
 * library's snapshot structs (mauisched.h).
 *
 * Pure: fills structs, calls nothing in the library, so it is unit-tested
 * on its own (tests/pbs/unit/test_abi_map.c).  The rules, in short:
 *
 * Nodes: np -> procs; status physmem/totmem/availmem/loadave -> memory, swap,
 * measured free memory, load; properties -> features; free processors are
 * np minus the slots of the node's `jobs`.  Generic resources: gpus=N ->
 * gpu:N, mics=N -> mic:N, Torque 6.1's plugin resources (gres:NAME = N) and
 * the mom's static resources with a whole count (status gres=tape:4+...)
 * -> NAME:N; the free ones are left to the engine (configured minus what
 * the running jobs hold): pbs_server shows no count of free GPUs, and
 * gpu_status is the mom's nvidia-smi view, not the allocation.  State: down -> DOWN,
 * state-unknown or unreadable attributes -> UNKNOWN; the states in which
 * pbs_server itself places no new work (offline, reserve, busy, job-exclusive
 * with free slots: an exclusive job) -> DRAINING while jobs run there,
 * DRAINED otherwise; job-exclusive with every slot used -> BUSY; else
 * RUNNING with jobs, IDLE without.
 *
 * Jobs: one task is one processor (Torque counts ppn in processors), so
 * nodes=N:ppn=P is N*P tasks with P tasks per node on N nodes, procs=N is N
 * tasks anywhere, ncpus=N is N tasks on one node; mem is spread over the
 * tasks (pmem is per task already).  The properties of nodes= are required
 * features; hosts named in nodes= become the host list when every part of
 * the request names a host (a request mixing hosts and counts cannot be
 * said with one host list and is placed by count and properties).  Queue ->
 * class, Account_Name -> account, euser/egroup -> user/group (Job_Owner's
 * user when euser is missing), qtime -> submit time, Execution_Time ->
 * earliest start, Hold_Types -> holds (u user; o, s, p system), an unmet
 * depend -> dependency pending.  Generic resources: nodes= gpus=G (mics=M)
 * -> gpu:G per node when every part asks the same, per task when every
 * part asks the same multiple of its ppn (a request that is neither is
 * unreadable, torque_map.c says why); Resource_List.gres and Maui's
 * x=GRES: -> per task, as Maui counts them.  Running jobs carry the same
 * requests, so that the engine counts what they hold; their GPUs are those
 * of exec_gpus (torque_map.c held_gpus).  Running (R, E) and suspended (S) jobs are
 * described as they run: their exec_host slots (or, without exec_host, the
 * nodes' `jobs` lists) as `node:slots` with one-processor tasks, start_time.
 */
#ifndef MAUISCHED_PBS_ABI_MAP_H
#define MAUISCHED_PBS_ABI_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "mauisched.h"
#include "strutil.h"
#include "torque_map.h"

/* The strings a mapped struct points to.  Reused across objects; freed by
 * am_text_free. */
struct am_text {
  struct strbuf features;
  struct strbuf hostlist;
  struct strbuf allocation;
  struct strbuf gres;      /* a node's, or a job's per task */
  struct strbuf gres_node; /* a job's per node */
  char owner[256]; /* the user part of Job_Owner */
};

/* Frees the buffers. */
void am_text_free(struct am_text *t);

/* MAUISCHED_NODE_* of a Torque node (see the rules above). */
uint32_t am_node_state(const struct tm_node *n);

/* Fills *out (zeroed, size set) from n; its strings point into t or n and
 * live until t is reused or n freed.  Returns 0, -1 when out of memory. */
int am_node(const struct tm_node *n, mauisched_node_t *out, struct am_text *t);

/* What am_job made of a job. */
enum am_result {
  AM_OOM = -1,       /* out of memory */
  AM_ADD = 0,        /* *out describes it: add it to the snapshot */
  AM_SKIP = 1,       /* not the scheduler's business (completed, in transit,
                        an array summary, a running job no node holds) */
  AM_UNREADABLE = 2  /* queued, but its request cannot be described: tell its
                        owner why (in `why`) */
};

/* Maps job j of snapshot s.  For AM_ADD *out is filled (zeroed, size set),
 * its strings point into t, j or s; for AM_SKIP and AM_UNREADABLE `why` says
 * why. */
enum am_result am_job(const struct tm_snapshot *s, const struct tm_job *j,
                      mauisched_job_t *out, struct am_text *t, char *why,
                      size_t whylen);

/* MAUISCHED_HOLD_* bits of a Hold_Types value for a job in state `state`
 * (a job in state H without a known hold letter has a system hold). */
uint32_t am_holds(const char *hold_types, char state);

#endif

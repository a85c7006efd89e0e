/*
 * gather.h - one snapshot of pbs_server's state through the IFL.
 */
#ifndef MAUISCHED_PBS_GATHER_H
#define MAUISCHED_PBS_GATHER_H

#include <stddef.h>

#include "ifl.h"
#include "torque_map.h"

/* Reads the server, queues, nodes and jobs (pbs_statjob with
 * "exec_queue_only", as pbs_sched does) into a resolved snapshot taken at
 * `now`.  Returns 0, or -1 when a call failed, with the call and the
 * server's message in err; the caller then treats the connection as lost.
 * *s must be zeroed; on failure it is left empty. */
int gather_snapshot(const struct ifl_api *api, int conn, long now,
                    struct tm_snapshot *s, char *err, size_t errlen);

#endif

/*
 * torque_map.h - Torque attributes -> the daemon's plain C model.
 *
 * pbs_server describes nodes and jobs as lists of string attributes (see
 * shared/pbs-reference/README.md for the forms observed on Torque 6.1.3).
 * This module parses them into simple structs that the ABI issue will copy
 * field by field into the mauisched library's snapshot structs, so they hold
 * only plain values: names, counts, seconds (epoch or durations), MB.
 *
 * Every parser takes the attribute text and returns 0, or -1 with a message
 * in `err` naming what is wrong; nothing here crashes or aborts on bad input,
 * and an object with a bad attribute is kept (marked unusable/ineligible with
 * its message) so one broken job never hides the others.
 *
 * Memory: every pointer in these structs is owned by the struct and freed by
 * the matching *_free function.
 */
#ifndef MAUISCHED_PBS_TORQUE_MAP_H
#define MAUISCHED_PBS_TORQUE_MAP_H

#include <stddef.h>

#include "ifl.h"
#include "strutil.h"

/* Length of the per-object error message buffer. */
#define TM_ERRLEN 256

/* ---- generic resources ---------------------------------------------------- */

/* One generic resource and its count: ("gpu", 4), ("tape", 2). */
struct tm_gres {
  char *name;
  long count;
};

/* Generic resources by name, each name once, in the order first given. */
struct tm_greslist {
  struct tm_gres *v;
  size_t n;
};

/* Adds name (its first len bytes) with count.  Returns 0, 1 when the name
 * is already listed (nothing changed), -1 when out of memory. */
int tm_gres_add(struct tm_greslist *l, const char *name, size_t len, long count);

/* The count of name, 0 when not listed. */
long tm_gres_get(const struct tm_greslist *l, const char *name);

/* Frees the list, leaving it empty. */
void tm_gres_free(struct tm_greslist *l);

/* ---- node ---------------------------------------------------------------- */

/* Node state flags; Torque combines states with commas ("down,job-exclusive"). */
#define TM_NS_FREE 0x001
#define TM_NS_DOWN 0x002
#define TM_NS_OFFLINE 0x004
#define TM_NS_JOB_EXCLUSIVE 0x008
#define TM_NS_JOB_SHARING 0x010
#define TM_NS_BUSY 0x020
#define TM_NS_RESERVE 0x040
#define TM_NS_UNKNOWN 0x080 /* "state-unknown" */
#define TM_NS_TIME_SHARED 0x100
#define TM_NS_OTHER 0x200   /* a word this module does not know */
#define TM_NS_INVALID 0x400 /* an attribute could not be parsed: do not use */

/* One entry of a node's `jobs` attribute: a job and the slots it holds here. */
struct tm_node_job {
  char *job_id;
  int slots;
};

/* A compute node as pbs_server reports it. */
struct tm_node {
  char *name;
  unsigned state;          /* TM_NS_* flags */
  int procs;               /* np (1 when absent, Torque's default) */
  long mem_mb;             /* status physmem, -1 when unknown */
  long avail_mem_mb;       /* status availmem, -1 when unknown */
  long total_mem_mb;       /* status totmem (physical + swap), -1 */
  double load;             /* status loadave, -1 when unknown */
  int status_ncpus;        /* status ncpus, -1 when unknown */
  struct strlist features; /* properties */
  struct tm_greslist gres; /* gpus -> gpu, mics -> mic, gres:NAME attributes,
                              the mom's status gres=NAME:N+...: configured */
  struct tm_node_job *jobs;
  size_t njobs;
  int used_slots;          /* sum of jobs[].slots */
  char err[TM_ERRLEN];     /* first problem found, "" if none */
};

/* Numbers taken from a node's `status` attribute. */
struct tm_node_status {
  long physmem_mb;
  long availmem_mb;
  long totmem_mb;
  double loadave;
  int ncpus;
};

/* ---- job ----------------------------------------------------------------- */

/* One '+'-separated part of Resource_List.nodes, e.g. "2:ppn=4:bigmem" or
 * "vm:ppn=1". */
struct tm_nodereq {
  int count;               /* nodes in this part (1 for a named part) */
  char *name;              /* leading host-or-property word, NULL if numeric */
  int is_host;             /* set by tm_snapshot_resolve: name is a node */
  int ppn;                 /* processors per node (1 when absent) */
  int gpus;                /* gpus=N, 0 when absent */
  int mics;                /* mics=N, 0 when absent */
  struct strlist features; /* the other words (not the gpu mode words) */
};

/* One host of exec_host, e.g. "runsc/0-1" -> {runsc, 2}. */
struct tm_alloc {
  char *host;
  int slots;
};

/* Why a job may not start now (bit mask, 0 = eligible). */
#define TM_INELIG_STATE 0x01    /* not queued (running, held, waiting...) */
#define TM_INELIG_HOLD 0x02     /* Hold_Types other than n */
#define TM_INELIG_DEPEND 0x04   /* depends on a job that has not finished */
#define TM_INELIG_EXECTIME 0x08 /* Execution_Time in the future */
#define TM_INELIG_BADSPEC 0x10  /* an attribute could not be parsed */
#define TM_INELIG_ARRAY 0x20    /* array summary object ("7[].vm") */

/* A job as pbs_server reports it. */
struct tm_job {
  char *id;
  char *name;              /* Job_Name */
  char *user;              /* euser */
  char *owner;             /* Job_Owner, "user@submithost" */
  char *group;             /* egroup */
  char *account;           /* Account_Name */
  char *cls;               /* queue = Maui class */
  char state;              /* job_state letter (Q R H E C W T S), '?' */
  long submit_time;        /* qtime, epoch seconds (0 when absent) */
  long exec_time;          /* Execution_Time, epoch seconds (0: none) */
  long start_time;         /* start_time of a started job, epoch (0: none) */
  long comp_time;          /* comp_time of a completed job, epoch (0: none) */
  long priority;           /* Priority (0 when absent) */
  int nodes;               /* nodes requested; 0 for procs= (anywhere) */
  int tasks;               /* processors requested in total */
  int ppn;                 /* per node when uniform, else 0 */
  int spread;              /* 1: any number of tasks per node (procs=) */
  int exclusive;           /* nodes=...#excl */
  long mem_total_mb;       /* Resource_List.mem (or pmem x tasks), 0 none */
  long mem_per_task_mb;    /* pmem, or mem / tasks rounded up, 0 none */
  long walltime;           /* seconds, -1 when not given */
  struct tm_greslist gres_task; /* per task: Resource_List.gres, `x` GRES:,
                                   nodes= gpus/mics proportional to ppn */
  struct tm_greslist gres_node; /* per node: nodes= gpus/mics, every part
                                   asking the same; a started job's gpu is
                                   what its exec_gpus holds */
  int gpus_node, gpus_task; /* nodes= gpus per node / per task (one of them
                               set), written back into pbs_runjob's location */
  int mics_node, mics_task;
  struct tm_nodereq *reqs; /* parsed Resource_List.nodes (or synthesised) */
  size_t nreqs;
  struct strlist req_hosts; /* hosts named in nodes= (after resolve) */
  struct strlist features;  /* properties required (after resolve) */
  struct strlist after;     /* job ids from depend after*:..., afterstart */
  struct strlist afterstart;
  char *depend;             /* raw depend attribute */
  char *hold_types;         /* raw Hold_Types */
  char *comment;            /* current comment, compared before writing */
  char *array_parent;       /* "7[].vm" for "7[1].vm", else NULL */
  int array_index;          /* 1 for "7[1].vm", else -1 */
  struct tm_alloc *alloc;   /* exec_host of a running job */
  size_t nalloc;
  unsigned inelig;          /* TM_INELIG_* (after resolve) */
  char err[TM_ERRLEN];      /* first problem found, "" if none */
};

/* ---- queue, server, snapshot -------------------------------------------- */

/* A queue (Maui class). */
struct tm_queue {
  char *name;
  int enabled; /* -1 when not reported */
  int started; /* -1 when not reported */
};

/* The server's scheduling switch and identity. */
struct tm_server {
  char *name;
  char *state;    /* server_state */
  int scheduling; /* scheduling=True/False, -1 when not reported */
  long keep_completed; /* seconds a completed job stays; -1 when not reported */
};

/* Everything one iteration sees. */
struct tm_snapshot {
  long now; /* epoch seconds when it was taken */
  struct tm_server server;
  struct tm_queue *queues;
  size_t nqueues;
  struct tm_node *nodes;
  size_t nnodes;
  struct tm_job *jobs;
  size_t njobs;
};

/* ---- attribute parsers (pure) -------------------------------------------- */

/* "free", "down,job-exclusive", ... -> TM_NS_* flags.  Unknown words give
 * TM_NS_OTHER and an error message but still return the known flags. */
int tm_parse_node_state(const char *s, unsigned *flags, char *err,
                        size_t errlen);

/* A non-negative integer in decimal ("12"). */
int tm_parse_int(const char *s, long min, long max, long *out, char *err,
                 size_t errlen);

/* Epoch seconds as a decimal string ("1700000000"). */
int tm_parse_epoch(const char *s, long *out, char *err, size_t errlen);

/* Torque size ("512mb", "2gb", "1024kb", "1tb", "100" = bytes, "8b") in MB,
 * rounded up (requests) or down (capacities). */
int tm_parse_size_mb(const char *s, int round_up, long *out, char *err,
                     size_t errlen);

/* Duration "[[[DD:]HH:]MM:]SS" (HH may exceed 23, "168:00:00") or plain
 * seconds; a fraction ".nnn" is dropped. */
int tm_parse_duration(const char *s, long *out, char *err, size_t errlen);

/* Node `jobs`: "0-1/12.vm,3/13.vm", "0,2/12.vm", "0/12.vm, 1/12.vm" ->
 * per-job slot counts (one entry per job, first-seen order) and the total. */
int tm_parse_node_jobs(const char *s, struct tm_node_job **jobs, size_t *n,
                       int *used, char *err, size_t errlen);

/* Node `status`: "opsys=linux,...,physmem=16318088kb,loadave=0.12,..." */
int tm_parse_node_status(const char *s, struct tm_node_status *st, char *err,
                         size_t errlen);

/* Resource_List.nodes: "2", "1:ppn=2:bigmem", "vm:ppn=1+runsc:ppn=1",
 * "2:ppn=4#excl". */
int tm_parse_nodespec(const char *s, struct tm_nodereq **reqs, size_t *n,
                      int *exclusive, char *err, size_t errlen);

/* Resource_List.gres (Torque, for Moab/Maui): "tape:2+matlab" -> tape 2,
 * matlab 1 (per task); items joined by '+' (or ','), "name[:count]"; a
 * name may carry one type ("gpu:a100:2").  A name given twice is an error. */
int tm_parse_gres_request(const char *s, struct tm_greslist *out, char *err,
                          size_t errlen);

/* The job's `x` attribute (qsub -W x=..., Maui's RM extensions,
 * "KEY:VALUE[;KEY:VALUE]..."): the GRES entry, "GRES:tape@2,matlab" or
 * Maui 3.3's "GRES:tape@2:matlab" (count after '@', 1 when absent), or
 * "GRES:tape:2" (a number after a name is that name's count).  Other
 * entries (QOS:, NACCESSPOLICY:, ...) are not read here.  No GRES entry:
 * an empty list. */
int tm_parse_x_gres(const char *s, struct tm_greslist *out, char *err,
                    size_t errlen);

/* The `gres=` item of a node's `status` (the mom's static resources from
 * mom_priv/config, "tape:4+matlab:2"): the items with a whole count; items
 * whose value is not a number are not consumable resources and are left
 * out.  No gres item: an empty list. */
int tm_parse_status_gres(const char *status, struct tm_greslist *out,
                         char *err, size_t errlen);

/* exec_host: "vm/0+runsc/0-1", "vm/0,2-3", "vm/1+vm/0" -> per-host slots. */
int tm_parse_exec_host(const char *s, struct tm_alloc **alloc, size_t *n,
                       char *err, size_t errlen);

/* exec_gpus of a started job: "g1-gpu/0+g1-gpu/2+g2-gpu/0" -> GPUs per host
 * ({g1, 2}, {g2, 1}). */
int tm_parse_exec_gpus(const char *s, struct tm_alloc **alloc, size_t *n, char *err,
                       size_t errlen);

/* depend: "afterok:12.vm@srv:13.vm,before:14.vm" -> the jobs this job waits
 * for (after, afterok, afternotok, afterany) and those it waits to start
 * (afterstart); the before* and syncwith types do not make it wait here
 * (pbs_server holds such jobs itself). */
int tm_parse_depend(const char *s, struct strlist *after,
                    struct strlist *afterstart, char *err, size_t errlen);

/* Hold_Types: "n" -> 0; any of u, o, s, p (also "uo") -> 1; otherwise -1. */
int tm_parse_hold_types(const char *s, char *err, size_t errlen);

/* Which holds a Hold_Types value holds, as TM_HOLD_* bits (unknown letters
 * are ignored; NULL or "n" -> 0). */
#define TM_HOLD_USER 0x1     /* u: the owner's */
#define TM_HOLD_OPERATOR 0x2 /* o: an operator's */
#define TM_HOLD_SYSTEM 0x4   /* s: the system's (also dependencies) */
#define TM_HOLD_BADPW 0x8    /* p: bad password */
unsigned tm_hold_bits(const char *s);

/* Array ids: "7[1].vm" -> parent "7[].vm", index 1, returns 1;
 * "7[].vm" (the summary) -> returns 2; a plain id returns 0. */
int tm_parse_array_id(const char *id, char **parent, int *index);

/* ---- objects ------------------------------------------------------------- */

/* Value of name[.resource] in an attribute list, NULL when absent. */
const char *tm_attr(const struct attrl *a, const char *name,
                    const char *resource);

/* Fills a node from a status reply entry.  Returns -1 only when out of
 * memory; parse problems mark the node TM_NS_INVALID with node->err set. */
int tm_node_from_attrs(struct tm_node *node, const char *name,
                       const struct attrl *attrs);

/* Fills a job from a status reply entry.  Returns -1 only when out of
 * memory; parse problems set TM_INELIG_BADSPEC with job->err set. */
int tm_job_from_attrs(struct tm_job *job, const char *id,
                      const struct attrl *attrs);

/* Resolves names against the snapshot's nodes (a nodes= word that names a
 * node is a host, otherwise a property), fills req_hosts/features, the task
 * summary, and computes every job's ineligibility at snapshot->now.
 * Returns -1 only when out of memory. */
int tm_snapshot_resolve(struct tm_snapshot *s);

/* 1 when a node may receive new work (up, not offline/busy/reserved, no
 * exclusive job, attributes valid). */
int tm_node_usable(const struct tm_node *n);

/* Frees everything a node/job/snapshot owns and zeroes it. */
void tm_node_free(struct tm_node *n);
void tm_job_free(struct tm_job *j);
void tm_snapshot_free(struct tm_snapshot *s);

/* A short human text for an ineligibility mask ("held, dependency"). */
void tm_inelig_text(unsigned inelig, char *buf, size_t len);

#endif

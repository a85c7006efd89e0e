/*
 * ifl.h - our own declarations of the public PBS/Torque IFL client API.
 *
 * mauisched-pbs never includes Torque's headers and never links libtorque at
 * build time: it declares the few public structs and calls it uses here and
 * resolves them with dlopen/dlsym at run time.  That way one binary runs on
 * any Torque 4-6 (the IFL client API has kept these signatures) and the
 * daemon builds on machines where Torque is not installed (CI).
 *
 * The layouts below are the documented public ones (pbs_ifl.h):
 *   struct attrl        { next, name, resource, value, op }
 *   struct attropl      { next, name, resource, value, op }
 *   struct batch_status { next, name, attribs, text }
 * and the functions take plain `char *` (not const) in Torque's prototypes,
 * which we keep so the function-pointer types match exactly.
 */
#ifndef MAUISCHED_PBS_IFL_H
#define MAUISCHED_PBS_IFL_H

#include <stddef.h>

/* Operators of an attribute in a request.  Only SET is sent by the daemon;
 * the order is the IFL's (SET is 0). */
enum batch_op {
  IFL_SET = 0,
  IFL_UNSET,
  IFL_INCR,
  IFL_DECR,
  IFL_EQ,
  IFL_NE,
  IFL_GE,
  IFL_GT,
  IFL_LE,
  IFL_LT,
  IFL_DFLT
};

/* One attribute (name[.resource] = value) of a status reply or request. */
struct attrl {
  struct attrl *next;
  char *name;
  char *resource;
  char *value;
  enum batch_op op;
};

/* Same shape, used by selection requests (kept for completeness). */
struct attropl {
  struct attropl *next;
  char *name;
  char *resource;
  char *value;
  enum batch_op op;
};

/* One object (server, queue, node, job) of a status reply. */
struct batch_status {
  struct batch_status *next;
  char *name;
  struct attrl *attribs;
  char *text;
};

/* Server error numbers the daemon treats specially (values observed on a
 * real Torque 6.1.3 server, see shared/pbs-reference/README.md).  Any other
 * failure of a per-job request leads to a connection probe. */
#define IFL_PBSE_UNKJOBID 15001 /* unknown job id */
#define IFL_PBSE_RESCUNAV 15046 /* allocation exceeds available nodes */

/* The IFL functions the daemon calls, resolved at run time. */
struct ifl_api {
  void *handle;     /* dlopen handle */
  char path[1024];  /* what was loaded, for log lines */
  int (*connect)(char *server);
  int (*disconnect)(int conn);
  struct batch_status *(*statserver)(int conn, struct attrl *attrib,
                                     char *extend);
  struct batch_status *(*statque)(int conn, char *id, struct attrl *attrib,
                                  char *extend);
  struct batch_status *(*statnode)(int conn, char *id, struct attrl *attrib,
                                   char *extend);
  struct batch_status *(*statjob)(int conn, char *id, struct attrl *attrib,
                                  char *extend);
  void (*statfree)(struct batch_status *bs);
  int (*runjob)(int conn, char *jobid, char *location, char *extend);
  int (*alterjob)(int conn, char *jobid, struct attrl *attrib, char *extend);
  /* hold_type: "u", "o", "s" (the daemon places and releases 's' and 'u') */
  int (*holdjob)(int conn, char *jobid, char *hold_type, char *extend);
  int (*rlsjob)(int conn, char *jobid, char *hold_type, char *extend);
  /* an operator's canceljob (qdel): queued jobs complete at once, running
   * ones are signalled by their mom */
  int (*deljob)(int conn, char *jobid, char *extend);
  /* preemption (PREEMPTPOLICY REQUEUE): a running job is killed and
   * queued again (it must be Rerunable) */
  int (*rerunjob)(int conn, char *jobid, char *extend);
  /* preemption (PREEMPTPOLICY SUSPEND): signal "suspend" frees the job's
   * slots (state S), "resume" takes them again */
  int (*sigjob)(int conn, char *jobid, char *signal, char *extend);
  char *(*geterrmsg)(int conn);
  /* libtorque exports `int pbs_errno`; OpenPBS-style libraries export a
   * function returning its address instead.  Exactly one is set. */
  int *errno_var;
  int *(*errno_loc)(void);
  /* Optional (NULL when absent): text of an error number, for log lines. */
  char *(*strerror_fn)(int err);
};

/* Default library name: the SONAME of Torque 4, 5 and 6's client library. */
#define IFL_DEFAULT_LIBRARY "libtorque.so.2"

/* Loads the library at `path` (NULL: IFL_DEFAULT_LIBRARY, found through the
 * dynamic linker's search path) and resolves every function above.  On
 * failure returns -1, leaves *api unloaded and writes a message naming the
 * library and the first missing symbol into err. */
int ifl_load(struct ifl_api *api, const char *path, char *err, size_t errlen);

/* Closes the library (safe on an unloaded api). */
void ifl_unload(struct ifl_api *api);

/* Current value of pbs_errno. */
int ifl_errno(const struct ifl_api *api);

/* Text for an error number: pbs_strerror when the library has it, else "". */
const char *ifl_strerror(const struct ifl_api *api, int err);

/* Sets pbs_errno (to 0 before a call whose NULL result may mean "empty"). */
void ifl_clear_errno(const struct ifl_api *api);

#endif

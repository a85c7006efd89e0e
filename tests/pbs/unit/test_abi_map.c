/*
 * test_abi_map.c - unit tests of the Torque -> mauisched struct mapping
 * (c-shim/pbs/abi_map.c): node states and capacities, the task shapes of
 * nodes=/procs=/ncpus= requests, holds, dependencies, begin times, running
 * jobs' allocations, and the jobs the scheduler is not given.
 *
 * Needs only include/mauisched.h (no library calls).  Run by
 * tests/pbs_e2e.rs (cargo test), or by hand:  make -C tests/pbs/unit check
 * Prints one line per failed check and "N checks, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_map.h"

static int checks, failed;

#define CHECK(cond)                                                         \
  do {                                                                      \
    checks++;                                                               \
    if (!(cond)) {                                                          \
      failed++;                                                             \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
    }                                                                       \
  } while (0)

/* NULL is a mismatch unless NULL was expected. */
#define CHECK_STR(a, b)                                                     \
  do {                                                                      \
    const char *a_ = (a), *b_ = (b);                                        \
    checks++;                                                               \
    if (!(a_ == NULL && b_ == NULL) &&                                      \
        (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)) {                \
      failed++;                                                             \
      printf("FAIL %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,       \
             __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
    }                                                                       \
  } while (0)

static struct attrl *mk(struct attrl *buf, const char *const *t, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) {
    buf[i].next = i + 1 < n ? &buf[i + 1] : NULL;
    buf[i].name = (char *)t[3 * i];
    buf[i].resource = (char *)t[3 * i + 1];
    buf[i].value = (char *)t[3 * i + 2];
    buf[i].op = IFL_SET;
  }
  return n ? buf : NULL;
}

#define N(t) (sizeof(t) / sizeof(t[0]) / 3)

static void node(struct tm_node *n, const char *name, const char *const *t, size_t cnt)
{
  struct attrl a[16];
  if (tm_node_from_attrs(n, name, mk(a, t, cnt)) != 0)
    abort();
}

static void test_nodes(void)
{
  static const char *const idle[] = {
      "state", NULL, "free", "np", NULL, "4", "properties", NULL, "bigmem,fast",
      "status", NULL,
      "opsys=linux,physmem=8388608kb,availmem=9000000kb,totmem=10485760kb,loadave=0.50,ncpus=4"};
  static const char *const part[] = {"state", NULL, "free", "np", NULL, "4", "jobs", NULL,
                                     "0-1/12.vm"};
  static const char *const full[] = {"state", NULL, "job-exclusive", "np", NULL, "2", "jobs",
                                     NULL, "0-1/12.vm"};
  static const char *const excl[] = {"state", NULL, "job-exclusive", "np", NULL, "4", "jobs",
                                     NULL, "0/12.vm"};
  static const char *const down[] = {"state", NULL, "down,job-exclusive", "np", NULL, "2",
                                     "jobs", NULL, "0-1/12.vm"};
  static const char *const off[] = {"state", NULL, "offline", "np", NULL, "2"};
  static const char *const offj[] = {"state", NULL, "offline", "np", NULL, "2", "jobs", NULL,
                                     "0/12.vm"};
  static const char *const busy[] = {"state", NULL, "busy", "np", NULL, "2"};
  static const char *const unk[] = {"state", NULL, "state-unknown", "np", NULL, "2"};
  static const char *const bad[] = {"state", NULL, "free", "np", NULL, "lots"};
  struct tm_node n;
  struct am_text t;
  mauisched_node_t out;

  memset(&t, 0, sizeof t);
  node(&n, "n1", idle, N(idle));
  CHECK(am_node(&n, &out, &t) == 0);
  CHECK(out.size == sizeof out);
  CHECK_STR(out.name, "n1");
  CHECK(out.state == MAUISCHED_NODE_IDLE);
  CHECK(out.procs == 4 && out.mem_mb == 8192 && out.swap_mb == 2048);
  CHECK(out.avail_valid && out.avail_procs == 4 && out.avail_mem_mb == 8789);
  CHECK(out.load == 0.5);
  CHECK_STR(out.features, "bigmem,fast");
  tm_node_free(&n);

  /* no status: memory unknown (0), nothing measured */
  node(&n, "n2", part, N(part));
  CHECK(am_node(&n, &out, &t) == 0);
  CHECK(out.state == MAUISCHED_NODE_RUNNING);
  CHECK(out.mem_mb == 0 && !out.avail_valid && out.features == NULL);
  tm_node_free(&n);

  node(&n, "n3", full, N(full));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_BUSY);
  tm_node_free(&n);
  /* job-exclusive with free slots: an exclusive job, no room for others */
  node(&n, "n4", excl, N(excl));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_DRAINING);
  tm_node_free(&n);
  node(&n, "n5", down, N(down));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_DOWN);
  tm_node_free(&n);
  node(&n, "n6", off, N(off));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_DRAINED);
  tm_node_free(&n);
  node(&n, "n7", offj, N(offj));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_DRAINING);
  tm_node_free(&n);
  node(&n, "n8", busy, N(busy));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_DRAINED);
  tm_node_free(&n);
  node(&n, "n9", unk, N(unk));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_UNKNOWN);
  tm_node_free(&n);
  node(&n, "n10", bad, N(bad));
  CHECK(am_node_state(&n) == MAUISCHED_NODE_UNKNOWN);
  tm_node_free(&n);
  am_text_free(&t);
}

/* A snapshot of two nodes (n1, n2 with bigmem; 12.vm on n1) and the jobs. */
struct fixture {
  const char *id;
  const char *const *attrs;
  size_t n;
};

static void build(struct tm_snapshot *s, const struct fixture *jobs, size_t nj)
{
  static const char *const n1[] = {"state", NULL, "free", "np", NULL, "4", "jobs", NULL,
                                   "0-1/12.vm"};
  static const char *const n2[] = {"state", NULL, "free", "np", NULL, "4", "properties", NULL,
                                   "bigmem"};
  struct attrl a[16];
  size_t i;
  memset(s, 0, sizeof *s);
  s->now = 1700000000L;
  s->nnodes = 2;
  s->nodes = calloc(2, sizeof *s->nodes);
  s->njobs = nj;
  s->jobs = calloc(nj, sizeof *s->jobs);
  if (s->nodes == NULL || s->jobs == NULL)
    abort();
  if (tm_node_from_attrs(&s->nodes[0], "n1", mk(a, n1, N(n1))) != 0 ||
      tm_node_from_attrs(&s->nodes[1], "n2", mk(a, n2, N(n2))) != 0)
    abort();
  for (i = 0; i < nj; i++)
    if (tm_job_from_attrs(&s->jobs[i], jobs[i].id, mk(a, jobs[i].attrs, jobs[i].n)) != 0)
      abort();
  if (tm_snapshot_resolve(s) != 0)
    abort();
}

#define WHO "euser", NULL, "alice", "egroup", NULL, "users", "queue", NULL, "batch"

static void test_job_shapes(void)
{
  static const char *const ppn[] = {WHO, "job_state", NULL, "Q", "qtime", NULL, "1699990000",
                                    "Account_Name", NULL, "physics", "Resource_List", "nodes",
                                    "2:ppn=4:bigmem", "Resource_List", "walltime", "01:30:00",
                                    "Resource_List", "mem", "8gb"};
  static const char *const procs[] = {WHO, "job_state", NULL, "Q", "Resource_List", "procs", "6",
                                      "Resource_List", "pmem", "100mb"};
  static const char *const ncpus[] = {WHO, "job_state", NULL, "Q", "Resource_List", "ncpus", "3"};
  static const char *const hosts[] = {WHO, "job_state", NULL, "Q", "Resource_List", "nodes",
                                      "n2:ppn=1+n1:ppn=1"};
  static const char *const mixed[] = {WHO, "job_state", NULL, "Q", "Resource_List", "nodes",
                                      "n2:ppn=2+1:ppn=1"};
  static const struct fixture jobs[] = {
      {"20.vm", ppn, N(ppn)},
      {"21.vm", procs, N(procs)},
      {"22.vm", ncpus, N(ncpus)},
      {"23.vm", hosts, N(hosts)},
      {"24.vm", mixed, N(mixed)},
  };
  struct tm_snapshot s;
  struct am_text t;
  mauisched_job_t j;
  char why[512];

  memset(&t, 0, sizeof t);
  build(&s, jobs, 5);

  /* nodes=2:ppn=4: 8 one-processor tasks, 4 per node, on 2 nodes */
  CHECK(am_job(&s, &s.jobs[0], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.size == sizeof j);
  CHECK_STR(j.id, "20.vm");
  CHECK_STR(j.user, "alice");
  CHECK_STR(j.group, "users");
  CHECK_STR(j.class_name, "batch");
  CHECK_STR(j.account, "physics");
  CHECK(j.state == MAUISCHED_JOB_IDLE && j.holds == 0 && !j.dependency_pending);
  CHECK(j.submit_time == 1699990000 && j.walltime == 5400 && j.earliest_start == 0);
  CHECK(j.tasks == 8 && j.task_procs == 1 && j.nodes == 2 && j.tasks_per_node == 4);
  CHECK(j.task_mem_mb == 1024);
  CHECK_STR(j.features, "bigmem");
  CHECK_STR(j.hostlist, NULL);
  CHECK_STR(j.allocation, NULL);

  /* procs=6: anywhere, any number per node; pmem is per task */
  CHECK(am_job(&s, &s.jobs[1], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.tasks == 6 && j.nodes == 0 && j.tasks_per_node == 0 && j.task_mem_mb == 100);
  CHECK(j.walltime == 0); /* none given: SYSTEMDEFAULTJOBWALLTIME */
  CHECK_STR(j.features, NULL);

  /* ncpus=3: three processors on one node */
  CHECK(am_job(&s, &s.jobs[2], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.tasks == 3 && j.nodes == 1 && j.tasks_per_node == 3);

  /* named hosts become the host list */
  CHECK(am_job(&s, &s.jobs[3], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.tasks == 2 && j.nodes == 2 && j.tasks_per_node == 1);
  CHECK_STR(j.hostlist, "n2,n1");
  CHECK_STR(j.features, NULL);

  /* a host beside a count cannot be one host list: placed by count */
  CHECK(am_job(&s, &s.jobs[4], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.tasks == 3 && j.nodes == 2 && j.tasks_per_node == 0);
  CHECK_STR(j.hostlist, NULL);

  tm_snapshot_free(&s);
  am_text_free(&t);
}

/* Generic resources: nodes' configured ones, jobs' per node and per task,
 * running jobs' too (the engine counts what they hold). */
static void test_gres(void)
{
  static const char *const gnode[] = {"state", NULL, "free", "np", NULL, "8", "gpus", NULL, "4",
                                      "status", NULL, "opsys=linux,gres=tape:2,availmem=1000kb"};
  static const char *const pernode[] = {WHO, "job_state", NULL, "Q", "Resource_List", "nodes",
                                        "2:ppn=8:gpus=2", "Resource_List", "gres", "tape"};
  static const char *const pertask[] = {WHO, "job_state", NULL, "Q", "Resource_List", "nodes",
                                        "1:ppn=2:gpus=2+1:ppn=1:gpus=1", "x", NULL,
                                        "GRES:matlab@2"};
  static const char *const run[] = {WHO, "job_state", NULL, "R", "Resource_List", "nodes",
                                    "1:ppn=2:gpus=1", "exec_host", NULL, "n1/0-1"};
  static const char *const mixed[] = {WHO, "job_state", NULL, "Q", "Resource_List", "nodes",
                                      "1:ppn=1:gpus=1+1:ppn=1"};
  static const struct fixture jobs[] = {
      {"50.vm", pernode, N(pernode)},
      {"51.vm", pertask, N(pertask)},
      {"12.vm", run, N(run)},
      {"53.vm", mixed, N(mixed)},
  };
  struct tm_snapshot s;
  struct tm_node n;
  struct am_text t;
  mauisched_node_t out;
  mauisched_job_t j;
  char why[512];

  memset(&t, 0, sizeof t);
  node(&n, "g1", gnode, N(gnode));
  CHECK(am_node(&n, &out, &t) == 0);
  CHECK_STR(out.gres, "gpu:4,tape:2");
  /* free GPUs are the engine's count: configured minus the running jobs' */
  CHECK(out.avail_valid && out.avail_gres == NULL);
  tm_node_free(&n);

  build(&s, jobs, 4);
  CHECK(am_node(&s.nodes[0], &out, &t) == 0 && out.gres == NULL);

  CHECK(am_job(&s, &s.jobs[0], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.nodes == 2 && j.tasks_per_node == 8);
  CHECK_STR(j.gres_per_node, "gpu:2");
  CHECK_STR(j.gres_per_task, "tape:1");
  CHECK_STR(j.gres_per_job, NULL);

  CHECK(am_job(&s, &s.jobs[1], &j, &t, why, sizeof why) == AM_ADD);
  CHECK_STR(j.gres_per_task, "gpu:1,matlab:2");
  CHECK_STR(j.gres_per_node, NULL);

  CHECK(am_job(&s, &s.jobs[2], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_RUNNING);
  CHECK_STR(j.allocation, "n1:2");
  CHECK_STR(j.gres_per_node, "gpu:1");

  CHECK(am_job(&s, &s.jobs[3], &j, &t, why, sizeof why) == AM_UNREADABLE);
  CHECK(strstr(why, "cannot read the request: Resource_List.nodes: the parts ask for "
                    "different gpus per node (1 and 0)") != NULL);

  tm_snapshot_free(&s);
  am_text_free(&t);
}

static void test_job_states(void)
{
  static const char *const held[] = {WHO, "job_state", NULL, "H", "Hold_Types", NULL, "uo"};
  static const char *const held_s[] = {WHO, "job_state", NULL, "H", "Hold_Types", NULL, "s",
                                       "depend", NULL, "afterok:12.vm"};
  static const char *const held_n[] = {WHO, "job_state", NULL, "H"};
  static const char *const waiting[] = {WHO, "job_state", NULL, "W", "Execution_Time", NULL,
                                        "1700003600"};
  static const char *const running[] = {WHO, "job_state", NULL, "R", "exec_host", NULL,
                                        "n1/0-1", "start_time", NULL, "1699999000",
                                        "Resource_List", "nodes", "1:ppn=2", "Resource_List",
                                        "mem", "3gb", "Resource_List", "walltime", "02:00:00"};
  static const char *const no_eh[] = {WHO, "job_state", NULL, "R"};
  static const char *const lost[] = {WHO, "job_state", NULL, "R", "exec_host", NULL, "gone/0"};
  static const char *const done[] = {WHO, "job_state", NULL, "C"};
  /* completed after running: exec_host kept, start and comp_time */
  static const char *const ran[] = {WHO, "job_state", NULL, "C", "exec_host", NULL,
                                    "n1/0-2", "start_time", NULL, "1699999000",
                                    "comp_time", NULL, "1699999061", "Resource_List",
                                    "nodes", "1:ppn=3"};
  /* completed, its node gone from pbs_server: the request's processors */
  static const char *const ran_gone[] = {WHO, "job_state", NULL, "C", "exec_host", NULL,
                                         "gone/0-1", "start_time", NULL, "1699999000",
                                         "comp_time", NULL, "1699999100", "Resource_List",
                                         "nodes", "1:ppn=2"};
  static const char *const transit[] = {WHO, "job_state", NULL, "T"};
  static const char *const badmem[] = {WHO, "job_state", NULL, "Q", "Resource_List", "mem",
                                       "lots"};
  static const char *const owner[] = {"Job_Owner", NULL, "carol@login1", "job_state", NULL, "Q"};
  static const char *const nobody[] = {"job_state", NULL, "Q"};
  static const struct fixture jobs[] = {
      {"12.vm", running, N(running)}, {"13.vm", held, N(held)},
      {"14.vm", held_s, N(held_s)},   {"15.vm", held_n, N(held_n)},
      {"16.vm", waiting, N(waiting)}, {"17.vm", no_eh, N(no_eh)},
      {"18.vm", lost, N(lost)},       {"19.vm", done, N(done)},
      {"20.vm", transit, N(transit)}, {"21.vm", badmem, N(badmem)},
      {"22.vm", owner, N(owner)},     {"23.vm", nobody, N(nobody)},
      {"7[].vm", nobody, N(nobody)},  {"24.vm", ran, N(ran)},
      {"25.vm", ran_gone, N(ran_gone)},
  };
  struct tm_snapshot s;
  struct am_text t;
  mauisched_job_t j;
  char why[512];

  memset(&t, 0, sizeof t);
  build(&s, jobs, sizeof jobs / sizeof jobs[0]);

  /* running: as it runs, one-processor tasks on its exec_host slots */
  CHECK(am_job(&s, &s.jobs[0], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_RUNNING && j.tasks == 2 && j.task_procs == 1);
  CHECK_STR(j.allocation, "n1:2");
  CHECK(j.start_time == 1699999000 && j.walltime == 7200 && j.task_mem_mb == 1536);

  CHECK(am_job(&s, &s.jobs[1], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_IDLE);
  CHECK(j.holds == (MAUISCHED_HOLD_USER | MAUISCHED_HOLD_SYSTEM));
  /* Torque holds a job whose dependency is unmet: both are reported */
  CHECK(am_job(&s, &s.jobs[2], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.holds == MAUISCHED_HOLD_SYSTEM && j.dependency_pending);
  CHECK(am_job(&s, &s.jobs[3], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.holds == MAUISCHED_HOLD_SYSTEM);
  /* Execution_Time: an idle job with a begin time */
  CHECK(am_job(&s, &s.jobs[4], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_IDLE && j.holds == 0 && j.earliest_start == 1700003600);

  /* no exec_host: the node's jobs list says where it runs */
  CHECK(am_job(&s, &s.jobs[5], &j, &t, why, sizeof why) == AM_SKIP);
  CHECK(strstr(why, "no listed node") != NULL);
  CHECK(am_job(&s, &s.jobs[6], &j, &t, why, sizeof why) == AM_SKIP);
  CHECK(am_job(&s, &s.jobs[7], &j, &t, why, sizeof why) == AM_SKIP);
  CHECK(strcmp(why, "completed without running") == 0);
  CHECK(am_job(&s, &s.jobs[8], &j, &t, why, sizeof why) == AM_SKIP);
  CHECK(strcmp(why, "in transit") == 0);

  CHECK(am_job(&s, &s.jobs[9], &j, &t, why, sizeof why) == AM_UNREADABLE);
  CHECK(strstr(why, "cannot read the request: Resource_List.mem") != NULL);
  CHECK(am_job(&s, &s.jobs[10], &j, &t, why, sizeof why) == AM_ADD);
  CHECK_STR(j.user, "carol");
  CHECK_STR(j.group, "unknown");
  CHECK(am_job(&s, &s.jobs[11], &j, &t, why, sizeof why) == AM_UNREADABLE);
  CHECK(am_job(&s, &s.jobs[12], &j, &t, why, sizeof why) == AM_SKIP);
  CHECK(strcmp(why, "array summary") == 0);

  /* a completed job that ran: reported with its start and end (fairshare
   * charges it up to its end); one that never ran is not */
  CHECK(am_job(&s, &s.jobs[13], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_COMPLETED && j.tasks == 3);
  CHECK_STR(j.allocation, "n1:3");
  CHECK(j.start_time == 1699999000 && j.end_time == 1699999061);
  CHECK(am_job(&s, &s.jobs[14], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_COMPLETED && j.tasks == 2 && j.allocation == NULL);
  CHECK(j.start_time == 1699999000 && j.end_time == 1699999100);

  tm_snapshot_free(&s);
  am_text_free(&t);
}

/* 17.vm runs without exec_host; n1's jobs list names it. */
static void test_allocation_from_node_jobs(void)
{
  static const char *const n1[] = {"state", NULL, "free", "np", NULL, "4", "jobs", NULL,
                                   "0/17.vm,1-2/18.vm,3/17.vm"};
  static const char *const run[] = {WHO, "job_state", NULL, "E"};
  struct attrl a[8];
  struct tm_snapshot s;
  struct am_text t;
  mauisched_job_t j;
  char why[256];

  memset(&s, 0, sizeof s);
  memset(&t, 0, sizeof t);
  s.nnodes = 1;
  s.nodes = calloc(1, sizeof *s.nodes);
  s.njobs = 1;
  s.jobs = calloc(1, sizeof *s.jobs);
  if (s.nodes == NULL || s.jobs == NULL || tm_node_from_attrs(&s.nodes[0], "n1", mk(a, n1, N(n1))) ||
      tm_job_from_attrs(&s.jobs[0], "17.vm", mk(a, run, N(run))) || tm_snapshot_resolve(&s))
    abort();
  CHECK(am_job(&s, &s.jobs[0], &j, &t, why, sizeof why) == AM_ADD);
  CHECK(j.state == MAUISCHED_JOB_RUNNING && j.tasks == 2);
  CHECK_STR(j.allocation, "n1:2");
  tm_snapshot_free(&s);
  am_text_free(&t);
}

int main(void)
{
  test_nodes();
  test_job_shapes();
  test_job_states();
  test_gres();
  test_allocation_from_node_jobs();
  printf("%d checks, %d failed\n", checks, failed);
  return failed ? 1 : 0;
}

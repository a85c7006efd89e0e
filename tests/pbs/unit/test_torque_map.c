/*
 * test_torque_map.c - unit tests of the Torque attribute parsers and the
 * node/job mapping (c-shim/pbs/torque_map.c), with the attribute forms
 * observed on a real Torque 6.1.3 server (shared/pbs-reference/README.md)
 * and malformed input, which must give a clear error and never crash.
 *
 * Run by tests/pbs_e2e.rs (cargo test), or by hand:  make -C tests/pbs/unit
 * Prints one line per failed check and "N checks, M failed"; exit 1 on any
 * failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torque_map.h"

static int checks, failed;

#define CHECK(cond)                                                         \
  do {                                                                      \
    checks++;                                                               \
    if (!(cond)) {                                                          \
      failed++;                                                             \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
    }                                                                       \
  } while (0)

#define CHECK_STR(a, b)                                                     \
  do {                                                                      \
    const char *a_ = (a), *b_ = (b);                                        \
    checks++;                                                               \
    if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) {                  \
      failed++;                                                             \
      printf("FAIL %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,       \
             __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
    }                                                                       \
  } while (0)

/* err contains the given text */
#define CHECK_ERR(err, text) CHECK(strstr((err), (text)) != NULL)

/* ---- scalar parsers ------------------------------------------------------ */

static void test_sizes(void)
{
  long mb = -7;
  char err[256];
  CHECK(tm_parse_size_mb("512mb", 1, &mb, err, sizeof err) == 0 && mb == 512);
  CHECK(tm_parse_size_mb("2gb", 1, &mb, err, sizeof err) == 0 && mb == 2048);
  CHECK(tm_parse_size_mb("1024kb", 1, &mb, err, sizeof err) == 0 && mb == 1);
  CHECK(tm_parse_size_mb("1tb", 1, &mb, err, sizeof err) == 0 && mb == 1048576);
  CHECK(tm_parse_size_mb("1pb", 1, &mb, err, sizeof err) == 0 && mb == 1073741824L);
  CHECK(tm_parse_size_mb("2GB", 1, &mb, err, sizeof err) == 0 && mb == 2048);
  CHECK(tm_parse_size_mb("3g", 1, &mb, err, sizeof err) == 0 && mb == 3072);
  /* requests round up, capacities down */
  CHECK(tm_parse_size_mb("1500kb", 1, &mb, err, sizeof err) == 0 && mb == 2);
  CHECK(tm_parse_size_mb("1500kb", 0, &mb, err, sizeof err) == 0 && mb == 1);
  CHECK(tm_parse_size_mb("1048576", 1, &mb, err, sizeof err) == 0 && mb == 1);
  CHECK(tm_parse_size_mb("100b", 1, &mb, err, sizeof err) == 0 && mb == 1);
  CHECK(tm_parse_size_mb("100b", 0, &mb, err, sizeof err) == 0 && mb == 0);
  /* physmem as Torque's moms report it */
  CHECK(tm_parse_size_mb("16318088kb", 0, &mb, err, sizeof err) == 0 && mb == 15935);

  mb = -7;
  CHECK(tm_parse_size_mb("", 1, &mb, err, sizeof err) == -1 && mb == -7);
  CHECK_ERR(err, "expected a size");
  CHECK(tm_parse_size_mb("mb", 1, &mb, err, sizeof err) == -1);
  CHECK(tm_parse_size_mb("12xb", 1, &mb, err, sizeof err) == -1);
  CHECK_ERR(err, "unknown size unit in \"12xb\"");
  CHECK(tm_parse_size_mb("12mbb", 1, &mb, err, sizeof err) == -1);
  CHECK(tm_parse_size_mb("12bb", 1, &mb, err, sizeof err) == -1);
  CHECK(tm_parse_size_mb("-5mb", 1, &mb, err, sizeof err) == -1);
  CHECK(tm_parse_size_mb("100kw", 1, &mb, err, sizeof err) == -1);
  CHECK_ERR(err, "words");
  CHECK(tm_parse_size_mb("99999999999999999999999mb", 1, &mb, err, sizeof err) == -1);
  CHECK(tm_parse_size_mb("9000000000000000pb", 1, &mb, err, sizeof err) == -1);
  CHECK_ERR(err, "too large");
  CHECK(tm_parse_size_mb(NULL, 1, &mb, err, sizeof err) == -1);
  CHECK(mb == -7);
}

static void test_durations(void)
{
  long s = -7;
  char err[256];
  CHECK(tm_parse_duration("01:00:00", &s, err, sizeof err) == 0 && s == 3600);
  CHECK(tm_parse_duration("00:30:15", &s, err, sizeof err) == 0 && s == 1815);
  CHECK(tm_parse_duration("168:00:00", &s, err, sizeof err) == 0 && s == 604800);
  CHECK(tm_parse_duration("1:02:03:04", &s, err, sizeof err) == 0 && s == 93784);
  CHECK(tm_parse_duration("10:00", &s, err, sizeof err) == 0 && s == 600);
  CHECK(tm_parse_duration("3600", &s, err, sizeof err) == 0 && s == 3600);
  CHECK(tm_parse_duration("00:00:10.500", &s, err, sizeof err) == 0 && s == 10);

  s = -7;
  CHECK(tm_parse_duration("", &s, err, sizeof err) == -1);
  CHECK_ERR(err, "expected a duration");
  CHECK(tm_parse_duration("1h", &s, err, sizeof err) == -1);
  CHECK_ERR(err, "\"1h\"");
  CHECK(tm_parse_duration("1::00", &s, err, sizeof err) == -1);
  CHECK(tm_parse_duration("1:2:3:4:5", &s, err, sizeof err) == -1);
  CHECK(tm_parse_duration("01:00:", &s, err, sizeof err) == -1);
  CHECK(tm_parse_duration("-1:00", &s, err, sizeof err) == -1);
  CHECK(tm_parse_duration("10.", &s, err, sizeof err) == -1);
  CHECK(tm_parse_duration("99999999999999999:00:00", &s, err, sizeof err) == -1);
  CHECK(s == -7);
}

static void test_ints_epochs(void)
{
  long v = -7;
  char err[256];
  CHECK(tm_parse_epoch("1700000000", &v, err, sizeof err) == 0 && v == 1700000000L);
  CHECK(tm_parse_epoch("17000x", &v, err, sizeof err) == -1);
  CHECK_ERR(err, "expected epoch seconds, got \"17000x\"");
  CHECK(tm_parse_epoch("-5", &v, err, sizeof err) == -1);
  CHECK(tm_parse_int("12", 0, 100, &v, err, sizeof err) == 0 && v == 12);
  CHECK(tm_parse_int("-12", -100, 100, &v, err, sizeof err) == 0 && v == -12);
  CHECK(tm_parse_int("120", 0, 100, &v, err, sizeof err) == -1);
  CHECK_ERR(err, "out of range");
  CHECK(tm_parse_int("", 0, 100, &v, err, sizeof err) == -1);
  CHECK(tm_parse_int("4 cpus", 0, 100, &v, err, sizeof err) == -1);
}

/* ---- node attributes ----------------------------------------------------- */

static void test_node_state(void)
{
  unsigned f = 0;
  char err[256];
  CHECK(tm_parse_node_state("free", &f, err, sizeof err) == 0 && f == TM_NS_FREE);
  CHECK(tm_parse_node_state("down", &f, err, sizeof err) == 0 && f == TM_NS_DOWN);
  CHECK(tm_parse_node_state("offline", &f, err, sizeof err) == 0 && f == TM_NS_OFFLINE);
  CHECK(tm_parse_node_state("busy", &f, err, sizeof err) == 0 && f == TM_NS_BUSY);
  CHECK(tm_parse_node_state("job-exclusive", &f, err, sizeof err) == 0 &&
        f == TM_NS_JOB_EXCLUSIVE);
  CHECK(tm_parse_node_state("down,job-exclusive", &f, err, sizeof err) == 0 &&
        f == (TM_NS_DOWN | TM_NS_JOB_EXCLUSIVE));
  CHECK(tm_parse_node_state("offline, down", &f, err, sizeof err) == 0 &&
        f == (TM_NS_DOWN | TM_NS_OFFLINE));
  CHECK(tm_parse_node_state("state-unknown,down", &f, err, sizeof err) == 0 &&
        f == (TM_NS_DOWN | TM_NS_UNKNOWN));
  CHECK(tm_parse_node_state("free,exploded", &f, err, sizeof err) == -1 &&
        f == (TM_NS_FREE | TM_NS_OTHER));
  CHECK_ERR(err, "unknown node state \"exploded\"");
  CHECK(tm_parse_node_state("", &f, err, sizeof err) == -1);
  CHECK_ERR(err, "empty node state");
}

static void test_node_jobs(void)
{
  struct tm_node_job *j = NULL;
  size_t n = 0;
  int used = -1;
  char err[256];

  CHECK(tm_parse_node_jobs("0-1/12.vm,3/13.vm", &j, &n, &used, err, sizeof err) == 0);
  CHECK(n == 2 && used == 3);
  if (n == 2) {
    CHECK_STR(j[0].job_id, "12.vm");
    CHECK(j[0].slots == 2);
    CHECK_STR(j[1].job_id, "13.vm");
    CHECK(j[1].slots == 1);
  }
  free(j[0].job_id), free(j[1].job_id), free(j);

  /* non-contiguous slots of one job: "0,2/12.vm" */
  CHECK(tm_parse_node_jobs("0,2/12.vm,1/14.vm", &j, &n, &used, err, sizeof err) == 0);
  CHECK(n == 2 && used == 3 && j[0].slots == 2 && j[1].slots == 1);
  free(j[0].job_id), free(j[1].job_id), free(j);

  /* the older one-slot-per-entry form with blanks, and array subjobs */
  CHECK(tm_parse_node_jobs("0/7[1].vm, 1/7[1].vm, 2/7[2].vm", &j, &n, &used, err, sizeof err) == 0);
  CHECK(n == 2 && used == 3);
  if (n == 2) {
    CHECK_STR(j[0].job_id, "7[1].vm");
    CHECK(j[0].slots == 2);
  }
  free(j[0].job_id), free(j[1].job_id), free(j);

  CHECK(tm_parse_node_jobs("", &j, &n, &used, err, sizeof err) == 0 && n == 0 && used == 0);
  CHECK(tm_parse_node_jobs(NULL, &j, &n, &used, err, sizeof err) == 0 && n == 0);

  CHECK(tm_parse_node_jobs("0-1/", &j, &n, &used, err, sizeof err) == -1 && j == NULL && n == 0);
  CHECK_ERR(err, "expected slots/jobid");
  CHECK(tm_parse_node_jobs("x/12.vm", &j, &n, &used, err, sizeof err) == -1);
  CHECK(tm_parse_node_jobs("3-1/12.vm", &j, &n, &used, err, sizeof err) == -1);
  CHECK(tm_parse_node_jobs("0/12.vm,5", &j, &n, &used, err, sizeof err) == -1 && j == NULL);
  CHECK(tm_parse_node_jobs("0-99999999999/12.vm", &j, &n, &used, err, sizeof err) == -1);
}

static void test_node_status(void)
{
  struct tm_node_status st;
  char err[256];
  const char *s =
      "opsys=linux,uname=Linux vm 6.1.0-13-amd64 #1 SMP x86_64,sessions=1234 5678,"
      "nsessions=2,nusers=1,idletime=99,totmem=20512088kb,availmem=18000000kb,"
      "physmem=16318088kb,ncpus=4,loadave=0.52,gres=,netload=123456,state=free,"
      "jobs=12.vm 13.vm,varattr= ,cpuclock=Fixed,rectime=1700000000";
  CHECK(tm_parse_node_status(s, &st, err, sizeof err) == 0);
  CHECK(st.physmem_mb == 15935);
  CHECK(st.availmem_mb == 17578);
  CHECK(st.totmem_mb == 20031);
  CHECK(st.ncpus == 4);
  CHECK(st.loadave > 0.51 && st.loadave < 0.53);

  CHECK(tm_parse_node_status("", &st, err, sizeof err) == 0 && st.physmem_mb == -1 &&
        st.loadave < 0 && st.ncpus == -1);
  CHECK(tm_parse_node_status("physmem=lots,loadave=0.1", &st, err, sizeof err) == -1);
  CHECK_ERR(err, "physmem");
  CHECK(st.physmem_mb == -1 && st.loadave > 0.09);
  CHECK(tm_parse_node_status("loadave=high", &st, err, sizeof err) == -1);
  CHECK_ERR(err, "loadave");
  CHECK(tm_parse_node_status("ncpus=-3", &st, err, sizeof err) == -1);
}

/* ---- job attributes ------------------------------------------------------ */

static void free_reqs(struct tm_nodereq *r, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) {
    free(r[i].name);
    strlist_free(&r[i].features);
  }
  free(r);
}

static void test_nodespec(void)
{
  struct tm_nodereq *r = NULL;
  size_t n = 0;
  int excl = -1;
  char err[256];

  CHECK(tm_parse_nodespec("2", &r, &n, &excl, err, sizeof err) == 0);
  CHECK(n == 1 && r[0].count == 2 && r[0].ppn == 1 && r[0].name == NULL && excl == 0);
  free_reqs(r, n);

  CHECK(tm_parse_nodespec("1:ppn=2:bigmem", &r, &n, &excl, err, sizeof err) == 0);
  CHECK(n == 1 && r[0].count == 1 && r[0].ppn == 2 && r[0].features.n == 1);
  if (n == 1 && r[0].features.n == 1)
    CHECK_STR(r[0].features.v[0], "bigmem");
  free_reqs(r, n);

  CHECK(tm_parse_nodespec("vm:ppn=1+runsc:ppn=1", &r, &n, &excl, err, sizeof err) == 0);
  CHECK(n == 2);
  if (n == 2) {
    CHECK_STR(r[0].name, "vm");
    CHECK_STR(r[1].name, "runsc");
    CHECK(r[0].ppn == 1 && r[1].ppn == 1 && r[0].count == 1);
  }
  free_reqs(r, n);

  CHECK(tm_parse_nodespec("2:ppn=4:gpus=1:fast:ib+1:ppn=8#excl", &r, &n, &excl, err, sizeof err) == 0);
  CHECK(n == 2 && excl == 1 && r[0].gpus == 1 && r[0].features.n == 2 && r[1].ppn == 8);
  free_reqs(r, n);

  CHECK(tm_parse_nodespec("bigmem", &r, &n, &excl, err, sizeof err) == 0);
  CHECK(n == 1 && r[0].count == 1 && r[0].name && strcmp(r[0].name, "bigmem") == 0);
  free_reqs(r, n);

  CHECK(tm_parse_nodespec("1:ppn=2#shared", &r, &n, &excl, err, sizeof err) == 0 && excl == 0);
  free_reqs(r, n);

  r = NULL;
  CHECK(tm_parse_nodespec("", &r, &n, &excl, err, sizeof err) == -1 && r == NULL && n == 0);
  CHECK_ERR(err, "empty nodes");
  CHECK(tm_parse_nodespec("2:ppn=0", &r, &n, &excl, err, sizeof err) == -1 && r == NULL);
  CHECK_ERR(err, "bad ppn value \"0\"");
  CHECK(tm_parse_nodespec("2:ppn=x", &r, &n, &excl, err, sizeof err) == -1);
  CHECK(tm_parse_nodespec("2++1", &r, &n, &excl, err, sizeof err) == -1);
  CHECK_ERR(err, "empty part");
  CHECK(tm_parse_nodespec("vm:ppn=1+", &r, &n, &excl, err, sizeof err) == -1 && r == NULL);
  CHECK(tm_parse_nodespec("2::ppn=2", &r, &n, &excl, err, sizeof err) == -1);
  CHECK(tm_parse_nodespec("ppn=2", &r, &n, &excl, err, sizeof err) == -1);
  CHECK_ERR(err, "must start with a count or a name");
  CHECK(tm_parse_nodespec("0:ppn=2", &r, &n, &excl, err, sizeof err) == -1);
  CHECK(tm_parse_nodespec("2x:ppn=2", &r, &n, &excl, err, sizeof err) == -1);
  CHECK(tm_parse_nodespec("2#wide", &r, &n, &excl, err, sizeof err) == -1);
  CHECK_ERR(err, "unknown node flag");
}

static void test_exec_host(void)
{
  struct tm_alloc *a = NULL;
  size_t n = 0, i;
  char err[256];

  CHECK(tm_parse_exec_host("vm/0+runsc/0-1", &a, &n, err, sizeof err) == 0);
  CHECK(n == 2);
  if (n == 2) {
    CHECK_STR(a[0].host, "vm");
    CHECK(a[0].slots == 1);
    CHECK_STR(a[1].host, "runsc");
    CHECK(a[1].slots == 2);
  }
  for (i = 0; i < n; i++)
    free(a[i].host);
  free(a);

  CHECK(tm_parse_exec_host("vm/1+vm/0+n2/0,2-3", &a, &n, err, sizeof err) == 0);
  CHECK(n == 2 && a[0].slots == 2 && a[1].slots == 3);
  for (i = 0; i < n; i++)
    free(a[i].host);
  free(a);

  CHECK(tm_parse_exec_host("", &a, &n, err, sizeof err) == 0 && n == 0 && a == NULL);
  CHECK(tm_parse_exec_host("vm", &a, &n, err, sizeof err) == -1 && a == NULL);
  CHECK_ERR(err, "expected host/slots");
  CHECK(tm_parse_exec_host("/0", &a, &n, err, sizeof err) == -1);
  CHECK(tm_parse_exec_host("vm/0+", &a, &n, err, sizeof err) == -1 && a == NULL);
  CHECK(tm_parse_exec_host("vm/a", &a, &n, err, sizeof err) == -1);
  CHECK(tm_parse_exec_host("vm/0,", &a, &n, err, sizeof err) == -1);
}

static void test_depend_hold_array(void)
{
  struct strlist after = {0}, start = {0};
  char err[256];
  char *parent = NULL;
  int idx = 0;

  CHECK(tm_parse_depend("afterok:12.vm@vm:13.vm,afterstart:14.vm,before:15.vm",
                        &after, &start, err, sizeof err) == 0);
  CHECK(after.n == 2 && start.n == 1);
  if (after.n == 2) {
    CHECK_STR(after.v[0], "12.vm");
    CHECK_STR(after.v[1], "13.vm");
  }
  if (start.n == 1)
    CHECK_STR(start.v[0], "14.vm");
  strlist_free(&after);
  strlist_free(&start);
  CHECK(tm_parse_depend("afterany:9", &after, &start, err, sizeof err) == 0 && after.n == 1);
  strlist_free(&after);
  CHECK(tm_parse_depend("on:2", &after, &start, err, sizeof err) == 0 && after.n == 0);
  CHECK(tm_parse_depend("whenever:12.vm", &after, &start, err, sizeof err) == -1);
  CHECK_ERR(err, "unknown dependency type \"whenever\"");
  CHECK(tm_parse_depend("afterok", &after, &start, err, sizeof err) == -1);
  CHECK(tm_parse_depend("afterok:", &after, &start, err, sizeof err) == -1);
  CHECK(tm_parse_depend("afterok:@srv", &after, &start, err, sizeof err) == -1);
  strlist_free(&after);
  strlist_free(&start);

  CHECK(tm_parse_hold_types("n", err, sizeof err) == 0);
  CHECK(tm_parse_hold_types("u", err, sizeof err) == 1);
  CHECK(tm_parse_hold_types("uos", err, sizeof err) == 1);
  CHECK(tm_parse_hold_types("x", err, sizeof err) == -1);
  CHECK(tm_hold_bits(NULL) == 0 && tm_hold_bits("n") == 0);
  CHECK(tm_hold_bits("uo") == (TM_HOLD_USER | TM_HOLD_OPERATOR));
  CHECK(tm_hold_bits("sp") == (TM_HOLD_SYSTEM | TM_HOLD_BADPW));
  CHECK_ERR(err, "unknown hold type 'x'");

  CHECK(tm_parse_array_id("7[1].vm", &parent, &idx) == 1 && idx == 1);
  CHECK_STR(parent, "7[].vm");
  free(parent);
  CHECK(tm_parse_array_id("7[].vm", &parent, &idx) == 2 && parent == NULL);
  CHECK(tm_parse_array_id("12.vm", &parent, &idx) == 0 && parent == NULL && idx == -1);
  CHECK(tm_parse_array_id("7[x].vm", &parent, &idx) == 0 && parent == NULL);
  CHECK(tm_parse_array_id("7[1.vm", &parent, &idx) == 0 && parent == NULL);
}

/* ---- objects from attribute lists ---------------------------------------- */

/* Builds a linked attrl from "name", "resource" (or NULL), "value" triples. */
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

static void test_node_from_attrs(void)
{
  static const char *const t[] = {
      "state", NULL, "job-exclusive",
      "np", NULL, "4",
      "properties", NULL, "bigmem, fast",
      "ntype", NULL, "cluster",
      "jobs", NULL, "0-1/12.vm,3/13.vm",
      "status", NULL, "opsys=linux,physmem=4194304kb,availmem=3145728kb,loadave=1.50,ncpus=4",
  };
  static const char *const bad[] = {
      "state", NULL, "free",
      "np", NULL, "four",
      "jobs", NULL, "0/12.vm",
  };
  struct attrl a[8];
  struct tm_node n;

  CHECK(tm_node_from_attrs(&n, "vm", mk(a, t, 6)) == 0);
  CHECK_STR(n.name, "vm");
  CHECK(n.state == TM_NS_JOB_EXCLUSIVE && n.procs == 4 && n.used_slots == 3 && n.njobs == 2);
  CHECK(n.mem_mb == 4096 && n.avail_mem_mb == 3072 && n.load > 1.49 && n.load < 1.51);
  CHECK(n.features.n == 2 && strlist_has(&n.features, "bigmem") && strlist_has(&n.features, "fast"));
  CHECK(n.err[0] == '\0');
  CHECK(!tm_node_usable(&n));
  tm_node_free(&n);

  CHECK(tm_node_from_attrs(&n, "n2", mk(a, bad, 3)) == 0);
  CHECK(n.state & TM_NS_INVALID);
  CHECK_ERR(n.err, "np: expected an integer, got \"four\"");
  CHECK(!tm_node_usable(&n));
  tm_node_free(&n);

  /* nothing at all: np defaults to 1, state unknown -> not usable */
  CHECK(tm_node_from_attrs(&n, "n3", NULL) == 0);
  CHECK(n.procs == 1 && n.state == TM_NS_UNKNOWN && n.mem_mb == -1 && !tm_node_usable(&n));
  tm_node_free(&n);
}

static void test_job_from_attrs(void)
{
  static const char *const q[] = {
      "job_state", NULL, "Q",
      "queue", NULL, "batch",
      "euser", NULL, "alice",
      "egroup", NULL, "physics",
      "Account_Name", NULL, "proj1",
      "Job_Name", NULL, "sim",
      "qtime", NULL, "1700000000",
      "Priority", NULL, "-10",
      "Resource_List", "nodes", "2:ppn=4:bigmem",
      "Resource_List", "mem", "2gb",
      "Resource_List", "walltime", "01:30:00",
      "Resource_List", "ncpus", "99",
      "comment", NULL, "old text",
  };
  static const char *const r[] = {
      "job_state", NULL, "R",
      "Resource_List", "nodes", "vm:ppn=1+runsc:ppn=2",
      "exec_host", NULL, "vm/0+runsc/0-1",
      "Hold_Types", NULL, "n",
      "start_time", NULL, "1700000100",
      "Job_Owner", NULL, "bob@login1",
  };
  static const char *const procs[] = {
      "job_state", NULL, "Q",
      "Resource_List", "procs", "6",
      "Resource_List", "pmem", "100mb",
  };
  static const char *const ncpus[] = {
      "job_state", NULL, "Q",
      "Resource_List", "ncpus", "3",
      "Resource_List", "mem", "1000mb",
  };
  static const char *const bad[] = {
      "job_state", NULL, "Q",
      "Resource_List", "nodes", "2:ppn=zero",
      "Resource_List", "walltime", "forever",
      "qtime", NULL, "yesterday",
  };
  struct attrl a[16];
  struct tm_job j;

  CHECK(tm_job_from_attrs(&j, "12.vm", mk(a, q, 13)) == 0);
  CHECK_STR(j.id, "12.vm");
  CHECK_STR(j.user, "alice");
  CHECK_STR(j.group, "physics");
  CHECK_STR(j.account, "proj1");
  CHECK_STR(j.cls, "batch");
  CHECK_STR(j.name, "sim");
  CHECK_STR(j.comment, "old text");
  CHECK(j.state == 'Q' && j.submit_time == 1700000000L && j.priority == -10);
  CHECK(j.nodes == 2 && j.ppn == 4 && j.tasks == 8 && !j.spread);
  CHECK(j.mem_total_mb == 2048 && j.mem_per_task_mb == 256);
  CHECK(j.walltime == 5400);
  CHECK(j.err[0] == '\0' && j.array_index == -1);
  tm_job_free(&j);

  CHECK(tm_job_from_attrs(&j, "13.vm", mk(a, r, 6)) == 0);
  CHECK(j.state == 'R' && j.nodes == 2 && j.tasks == 3 && j.ppn == 0 && j.nalloc == 2);
  CHECK(j.start_time == 1700000100L && j.user == NULL);
  CHECK_STR(j.owner, "bob@login1");
  CHECK(j.walltime == -1);
  if (j.nalloc == 2)
    CHECK(j.alloc[1].slots == 2);
  tm_job_free(&j);

  CHECK(tm_job_from_attrs(&j, "14.vm", mk(a, procs, 3)) == 0);
  CHECK(j.spread == 1 && j.tasks == 6 && j.nodes == 0 && j.nreqs == 0);
  CHECK(j.mem_per_task_mb == 100 && j.mem_total_mb == 600);
  tm_job_free(&j);

  CHECK(tm_job_from_attrs(&j, "15.vm", mk(a, ncpus, 3)) == 0);
  CHECK(j.nodes == 1 && j.ppn == 3 && j.tasks == 3 && !j.spread);
  CHECK(j.mem_total_mb == 1000 && j.mem_per_task_mb == 334);
  tm_job_free(&j);

  /* nothing requested: one processor on one node */
  CHECK(tm_job_from_attrs(&j, "7[3].vm", NULL) == 0);
  CHECK(j.nodes == 1 && j.tasks == 1 && j.state == '?' && j.array_index == 3);
  CHECK_STR(j.array_parent, "7[].vm");
  tm_job_free(&j);

  /* the first problem is kept; the others leave their fields unknown */
  CHECK(tm_job_from_attrs(&j, "16.vm", mk(a, bad, 4)) == 0);
  CHECK_ERR(j.err, "qtime: expected epoch seconds, got \"yesterday\"");
  CHECK(j.walltime == -1 && j.submit_time == 0 && j.nreqs == 0);
  tm_job_free(&j);
  CHECK(tm_job_from_attrs(&j, "17.vm", mk(a, bad, 2)) == 0);
  CHECK_ERR(j.err, "Resource_List.nodes: bad ppn value \"zero\" in nodes \"2:ppn=zero\"");
  tm_job_free(&j);
}

/* ---- generic resources --------------------------------------------------- */

/* "name:count,..." of a list, for compact checks. */
static const char *gres_s(const struct tm_greslist *l)
{
  static char buf[512];
  size_t i, pos = 0;
  buf[0] = '\0';
  for (i = 0; i < l->n && pos < sizeof buf; i++)
    pos += (size_t)snprintf(buf + pos, sizeof buf - pos, "%s%s:%ld", i ? "," : "",
                            l->v[i].name, l->v[i].count);
  return buf;
}

static void test_gres_parsers(void)
{
  struct tm_greslist g = {0};
  struct tm_nodereq *r = NULL;
  size_t n;
  int excl;
  char err[256];

  /* -l gres=: '+'-joined name[:count], per task */
  CHECK(tm_parse_gres_request("tape:2+matlab", &g, err, sizeof err) == 0);
  CHECK_STR(gres_s(&g), "tape:2,matlab:1");
  tm_gres_free(&g);
  CHECK(tm_parse_gres_request("gpu:a100:2", &g, err, sizeof err) == 0);
  CHECK_STR(gres_s(&g), "gpu:a100:2");
  tm_gres_free(&g);
  CHECK(tm_parse_gres_request("tape:0", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "\"tape:0\": the count must be a whole number from 1");
  tm_gres_free(&g);
  CHECK(tm_parse_gres_request("tape:2+tape:1", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "\"tape\" is given twice");
  tm_gres_free(&g);
  CHECK(tm_parse_gres_request("ta pe:2", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "\"ta pe:2\" is not name[:count]");
  tm_gres_free(&g);
  CHECK(tm_parse_gres_request("tape++x", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "empty item");
  tm_gres_free(&g);
  CHECK(tm_parse_gres_request("", &g, err, sizeof err) == -1);
  tm_gres_free(&g);

  /* -W x=: Maui's GRES extension among others */
  CHECK(tm_parse_x_gres("QOS:hi;GRES:tape@2,matlab;NACCESSPOLICY:SINGLEJOB", &g, err,
                        sizeof err) == 0);
  CHECK_STR(gres_s(&g), "tape:2,matlab:1");
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("GRES:tape@2:matlab", &g, err, sizeof err) == 0); /* Maui 3.3 */
  CHECK_STR(gres_s(&g), "tape:2,matlab:1");
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("GRES:tape:2", &g, err, sizeof err) == 0);
  CHECK_STR(gres_s(&g), "tape:2");
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("gres=tape:2:matlab:3", &g, err, sizeof err) == 0);
  CHECK_STR(gres_s(&g), "tape:2,matlab:3");
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("QOS:hi", &g, err, sizeof err) == 0 && g.n == 0);
  CHECK(tm_parse_x_gres("GRES:2", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "GRES count \"2\" follows no resource name");
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("GRES:tape@two", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "the count after '@' must be a whole number");
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("GRES:tape@2:3", &g, err, sizeof err) == -1);
  tm_gres_free(&g);
  CHECK(tm_parse_x_gres("GRES:", &g, err, sizeof err) == -1);
  CHECK_ERR(err, "GRES without resources");
  tm_gres_free(&g);

  /* the mom's static resources in status; non-counts are not resources */
  CHECK(tm_parse_status_gres("opsys=linux,gres=tape:4+ostype:linux+matlab:2,ncpus=4", &g,
                             err, sizeof err) == 0);
  CHECK_STR(gres_s(&g), "tape:4,matlab:2");
  tm_gres_free(&g);
  CHECK(tm_parse_status_gres("opsys=linux,gres=,ncpus=4", &g, err, sizeof err) == 0 && g.n == 0);

  /* nodes=: gpus=/mics= and the GPU mode words, which are not properties */
  CHECK(tm_parse_nodespec("2:ppn=8:gpus=2:exclusive_process:fast+1:mics=1", &r, &n, &excl,
                          err, sizeof err) == 0);
  CHECK(n == 2 && r[0].gpus == 2 && r[0].features.n == 1 && r[1].mics == 1);
  if (n == 2 && r[0].features.n == 1)
    CHECK_STR(r[0].features.v[0], "fast");
  free_reqs(r, n);
  /* before gpus=, "shared" is an ordinary property, as in pbs_server */
  CHECK(tm_parse_nodespec("1:shared:gpus=1:reseterr", &r, &n, &excl, err, sizeof err) == 0);
  CHECK(n == 1 && r[0].gpus == 1 && r[0].features.n == 1);
  free_reqs(r, n);
  r = NULL;
  CHECK(tm_parse_nodespec("1:gpus=1:prohibited", &r, &n, &excl, err, sizeof err) == -1);
  CHECK_ERR(err, "gpu mode \"prohibited\" cannot be requested");
  CHECK(tm_parse_nodespec("1:gpus=x", &r, &n, &excl, err, sizeof err) == -1);
  CHECK_ERR(err, "bad gpus value \"x\"");
}

static void test_gres_objects(void)
{
  static const char *const node[] = {
      "state", NULL, "free",
      "np", NULL, "16",
      "gpus", NULL, "4",
      "gres:matlab", NULL, "2",
      "status", NULL, "opsys=linux,gres=tape:4+matlab:9,ncpus=16",
  };
  static const char *const badgpus[] = {"state", NULL, "free", "gpus", NULL, "four"};
  static const char *const uniform[] = {
      "job_state", NULL, "Q",
      "Resource_List", "nodes", "2:ppn=8:gpus=2",
      "Resource_List", "gres", "tape:1",
  };
  static const char *const ratio[] = {
      "job_state", NULL, "Q",
      "Resource_List", "nodes", "1:ppn=2:gpus=2+2:ppn=1:gpus=1",
      "x", NULL, "QOS:hi;GRES:matlab@1",
  };
  static const char *const mixed[] = {
      "job_state", NULL, "Q",
      "Resource_List", "nodes", "1:ppn=2:gpus=2+1:ppn=2",
      "Resource_List", "walltime", "01:00:00",
  };
  static const char *const twice[] = {
      "job_state", NULL, "Q",
      "Resource_List", "gres", "tape:1",
      "x", NULL, "GRES:tape@2",
  };
  static const char *const badx[] = {
      "job_state", NULL, "Q",
      "euser", NULL, "alice",
      "Resource_List", "walltime", "00:10:00",
      "x", NULL, "GRES:tape@lots",
  };
  /* a started job holds what exec_gpus says, whatever it asked for */
  static const char *const held[] = {
      "job_state", NULL, "R",
      "Resource_List", "nodes", "2:ppn=2:gpus=1",
      "exec_host", NULL, "g1/0-1+g2/0-1",
      "exec_gpus", NULL, "g1-gpu/0+g1-gpu/1+g2-gpu/3+g2-gpu/2",
  };
  static const char *const heldprop[] = {
      "job_state", NULL, "R",
      "exec_host", NULL, "g1/0-1+g2/0",
      "exec_gpus", NULL, "g1-gpu/0+g1-gpu/1+g2-gpu/0",
  };
  static const char *const heldodd[] = {
      "job_state", NULL, "R",
      "Resource_List", "nodes", "1:ppn=1:gpus=1+1:ppn=1:gpus=3",
      "exec_host", NULL, "g1/0+g2/0",
      "exec_gpus", NULL, "g1-gpu/0+g2-gpu/0+g2-gpu/1+g2-gpu/2",
  };
  static const char *const heldnone[] = {
      "job_state", NULL, "R",
      "Resource_List", "nodes", "1:ppn=1:gpus=1",
      "exec_host", NULL, "g1/0",
      "exec_gpus", NULL, "g1/0",
  };
  struct attrl a[16];
  struct tm_node nd;
  struct tm_job j;
  struct tm_alloc *al = NULL;
  size_t nal = 0;
  char err[256];

  CHECK(tm_parse_exec_gpus("g1-gpu/0+g1-gpu/2+g2-gpu/0", &al, &nal, err, sizeof err) == 0);
  CHECK(nal == 2);
  if (nal == 2) {
    CHECK_STR(al[0].host, "g1");
    CHECK(al[0].slots == 2 && al[1].slots == 1);
  }
  for (; nal > 0; nal--)
    free(al[nal - 1].host);
  free(al);
  CHECK(tm_parse_exec_gpus("g1/0", &al, &nal, err, sizeof err) == -1 && al == NULL);
  CHECK_ERR(err, "expected host-gpu/index entries");

  CHECK(tm_job_from_attrs(&j, "45.vm", mk(a, held, 4)) == 0);
  CHECK(j.err[0] == '\0' && j.gpus_node == 2);
  CHECK_STR(gres_s(&j.gres_node), "gpu:2");
  tm_job_free(&j);
  CHECK(tm_job_from_attrs(&j, "46.vm", mk(a, heldprop, 3)) == 0);
  CHECK(j.gres_node.n == 0);
  CHECK_STR(gres_s(&j.gres_task), "gpu:1");
  tm_job_free(&j);
  /* 1 and 3 on one slot each: the most, per node (never fewer than held);
   * the request itself could not be described, but it runs already */
  CHECK(tm_job_from_attrs(&j, "47.vm", mk(a, heldodd, 4)) == 0);
  CHECK_ERR(j.err, "Resource_List.nodes: the parts ask for different gpus");
  CHECK_STR(gres_s(&j.gres_node), "gpu:3");
  tm_job_free(&j);
  CHECK(tm_job_from_attrs(&j, "48.vm", mk(a, heldnone, 4)) == 0);
  CHECK_ERR(j.err, "exec_gpus: expected host-gpu/index entries");
  tm_job_free(&j);

  /* gpus first, then plugin gres:NAME, then status: the first source wins */
  CHECK(tm_node_from_attrs(&nd, "g1", mk(a, node, 5)) == 0);
  CHECK_STR(gres_s(&nd.gres), "gpu:4,matlab:2,tape:4");
  CHECK(nd.err[0] == '\0' && tm_node_usable(&nd));
  tm_node_free(&nd);
  CHECK(tm_node_from_attrs(&nd, "g2", mk(a, badgpus, 2)) == 0);
  CHECK((nd.state & TM_NS_INVALID) && !tm_node_usable(&nd));
  CHECK_ERR(nd.err, "gpus: expected an integer, got \"four\"");
  tm_node_free(&nd);

  CHECK(tm_job_from_attrs(&j, "40.vm", mk(a, uniform, 3)) == 0);
  CHECK(j.err[0] == '\0' && j.gpus_node == 2 && j.gpus_task == 0);
  CHECK_STR(gres_s(&j.gres_node), "gpu:2");
  CHECK_STR(gres_s(&j.gres_task), "tape:1");
  tm_job_free(&j);

  /* 2 GPUs for 2 processors and 1 for 1: one GPU per task */
  CHECK(tm_job_from_attrs(&j, "41.vm", mk(a, ratio, 3)) == 0);
  CHECK(j.err[0] == '\0' && j.gpus_node == 0 && j.gpus_task == 1 && j.gres_node.n == 0);
  CHECK_STR(gres_s(&j.gres_task), "gpu:1,matlab:1");
  tm_job_free(&j);

  /* parts the engine cannot tell apart: refused, the rest still read */
  CHECK(tm_job_from_attrs(&j, "42.vm", mk(a, mixed, 3)) == 0);
  CHECK_ERR(j.err, "Resource_List.nodes: the parts ask for different gpus per node (2 and 0)");
  CHECK(j.walltime == 3600 && j.tasks == 4 && j.nodes == 2);
  tm_job_free(&j);

  CHECK(tm_job_from_attrs(&j, "43.vm", mk(a, twice, 3)) == 0);
  CHECK_ERR(j.err, "x: generic resource \"tape\" is asked for twice");
  tm_job_free(&j);

  CHECK(tm_job_from_attrs(&j, "44.vm", mk(a, badx, 4)) == 0);
  CHECK_ERR(j.err, "x: \"tape@lots\": the count after '@' must be a whole number");
  CHECK(j.walltime == 600 && j.tasks == 1);
  CHECK_STR(j.user, "alice");
  tm_job_free(&j);
}

/* A whole snapshot: name resolution and eligibility. */
static void test_resolve(void)
{
  static const char *const node_vm[] = {"state", NULL, "free", "np", NULL, "2"};
  static const char *const node_rs[] = {"state", NULL, "free", "np", NULL, "2",
                                        "properties", NULL, "bigmem"};
  static const char *const jq[] = {"job_state", NULL, "Q", "Resource_List", "nodes",
                                   "vm:ppn=1+bigmem:ppn=2"};
  static const char *const jheld[] = {"job_state", NULL, "H", "Hold_Types", NULL, "u"};
  static const char *const jdep[] = {"job_state", NULL, "Q", "depend", NULL,
                                     "afterok:12.vm@vm"};
  static const char *const jdep_done[] = {"job_state", NULL, "Q", "depend", NULL,
                                          "afterok:99.vm"};
  static const char *const jexec[] = {"job_state", NULL, "Q", "Execution_Time", NULL,
                                      "2000000000"};
  static const char *const jpast[] = {"job_state", NULL, "Q", "Execution_Time", NULL,
                                      "1000"};
  static const char *const jbad[] = {"job_state", NULL, "Q", "Resource_List", "mem", "lots"};
  static const char *const jstart[] = {"job_state", NULL, "Q", "depend", NULL,
                                       "afterstart:12"};
  struct attrl a[8];
  struct tm_snapshot s;
  char text[128];

  memset(&s, 0, sizeof s);
  s.now = 1700000000L;
  s.nnodes = 2;
  s.nodes = calloc(2, sizeof *s.nodes);
  tm_node_from_attrs(&s.nodes[0], "vm", mk(a, node_vm, 2));
  tm_node_from_attrs(&s.nodes[1], "runsc", mk(a, node_rs, 3));
  s.njobs = 10;
  s.jobs = calloc(10, sizeof *s.jobs);
  tm_job_from_attrs(&s.jobs[0], "12.vm", mk(a, jq, 2));
  tm_job_from_attrs(&s.jobs[1], "13.vm", mk(a, jheld, 2));
  tm_job_from_attrs(&s.jobs[2], "14.vm", mk(a, jdep, 2));
  tm_job_from_attrs(&s.jobs[3], "15.vm", mk(a, jdep_done, 2));
  tm_job_from_attrs(&s.jobs[4], "16.vm", mk(a, jexec, 2));
  tm_job_from_attrs(&s.jobs[5], "17.vm", mk(a, jpast, 2));
  tm_job_from_attrs(&s.jobs[6], "18.vm", mk(a, jbad, 2));
  tm_job_from_attrs(&s.jobs[7], "19.vm", mk(a, jstart, 2));
  tm_job_from_attrs(&s.jobs[8], "7[].vm", mk(a, jq, 1));
  tm_job_from_attrs(&s.jobs[9], "7[1].vm", mk(a, jq, 1));

  CHECK(tm_snapshot_resolve(&s) == 0);
  /* "vm" names a node, "bigmem" does not: it is a property */
  CHECK(s.jobs[0].req_hosts.n == 1 && strlist_has(&s.jobs[0].req_hosts, "vm"));
  CHECK(s.jobs[0].features.n == 1 && strlist_has(&s.jobs[0].features, "bigmem"));
  CHECK(s.jobs[0].reqs[0].is_host == 1 && s.jobs[0].reqs[1].is_host == 0);
  CHECK(s.jobs[0].inelig == 0 && s.jobs[0].tasks == 3);
  CHECK(s.jobs[1].inelig == (TM_INELIG_STATE | TM_INELIG_HOLD));
  CHECK(s.jobs[2].inelig == TM_INELIG_DEPEND);   /* 12.vm is still queued */
  CHECK(s.jobs[3].inelig == 0);                  /* 99.vm is gone: satisfied */
  CHECK(s.jobs[4].inelig == TM_INELIG_EXECTIME);
  CHECK(s.jobs[5].inelig == 0);
  CHECK(s.jobs[6].inelig == TM_INELIG_BADSPEC);
  CHECK_ERR(s.jobs[6].err, "Resource_List.mem");
  CHECK(s.jobs[7].inelig == TM_INELIG_DEPEND);   /* "12" matches 12.vm */
  CHECK(s.jobs[8].inelig == TM_INELIG_ARRAY);   /* the summary, not a job */
  CHECK(s.jobs[9].inelig == 0);                 /* a subjob is a job */

  /* once 12.vm runs, afterstart is satisfied but afterok is not */
  s.jobs[0].state = 'R';
  CHECK(tm_snapshot_resolve(&s) == 0);
  CHECK(s.jobs[7].inelig == 0 && s.jobs[2].inelig == TM_INELIG_DEPEND);
  s.jobs[0].state = 'C';
  CHECK(tm_snapshot_resolve(&s) == 0);
  CHECK(s.jobs[2].inelig == 0);

  tm_inelig_text(TM_INELIG_HOLD | TM_INELIG_DEPEND, text, sizeof text);
  CHECK_STR(text, "held, waiting for a dependency");
  tm_snapshot_free(&s);
}

int main(void)
{
  test_sizes();
  test_durations();
  test_ints_epochs();
  test_node_state();
  test_node_jobs();
  test_node_status();
  test_nodespec();
  test_exec_host();
  test_depend_hold_array();
  test_node_from_attrs();
  test_job_from_attrs();
  test_gres_parsers();
  test_gres_objects();
  test_resolve();
  printf("%d checks, %d failed\n", checks, failed);
  return failed ? 1 : 0;
}

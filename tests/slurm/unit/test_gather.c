/*
 * Slurm -> engine mapping (c-shim/slurm/gather.c) on hand-made job, node
 * and partition tables in Slurm's own structs: no slurmctld involved (the
 * hostlist calls are libslurm's own).
 */
#include <stdlib.h>

#include "gather.h"
#include "maui_gate.h"
#include "unit.h"
#include "util.h"

#define NNODES 4

static node_info_t nodes[NNODES];
static partition_info_t parts[2];
static int32_t inx_batch[] = { 0, 2, -1 }, inx_small[] = { 3, 3, -1 };
static slurm_job_info_t jobs[16];
static job_info_msg_t jobmsg;
static node_info_msg_t nodemsg;
static partition_info_msg_t partmsg;

static slurm_job_info_t *job(uint32_t id, uint32_t state)
{
	slurm_job_info_t *j = &jobs[jobmsg.record_count++];

	memset(j, 0, sizeof(*j));
	j->job_id = id;
	j->job_state = state;
	j->array_task_id = NO_VAL;
	j->user_id = 0;
	j->group_id = 0;
	j->user_name = "alice";
	j->partition = "batch";
	j->cpus_per_task = 1;
	j->num_tasks = 1;
	j->num_cpus = 1;
	j->num_nodes = 1;
	/* As slurmctld packs a job that asked neither --exclusive nor
	 * --oversubscribe. */
	j->shared = NO_VAL16;
	j->time_limit = 30;
	j->priority = 0;
	j->pn_min_memory = NO_VAL64;
	j->admin_comment = MAUI_MARKER "gated) queued";
	return j;
}

static void setup(void)
{
	static char *names[NNODES] = { "n001", "n002", "n003", "s001" };
	int i;

	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < NNODES; i++) {
		nodes[i].name = names[i];
		nodes[i].node_state = NODE_STATE_IDLE;
		nodes[i].cpus = 16;
		nodes[i].real_memory = 64000;
		nodes[i].weight = 1;
		nodes[i].cpu_load = NO_VAL;
	}
	nodemsg.record_count = NNODES;
	nodemsg.node_array = nodes;
	memset(parts, 0, sizeof(parts));
	parts[0].name = "batch";
	parts[0].nodes = "n[001-003]";
	parts[0].node_inx = inx_batch;
	parts[0].state_up = PARTITION_UP;
	parts[0].total_nodes = 3;
	parts[1].name = "small";
	parts[1].nodes = "s001";
	parts[1].node_inx = inx_small;
	parts[1].state_up = PARTITION_DOWN;
	parts[1].total_nodes = 1;
	partmsg.record_count = 2;
	partmsg.partition_array = parts;
	jobmsg.record_count = 0;
	jobmsg.job_array = jobs;
}

static void build(struct ctx *c, const struct gate_event *ev, size_t nev)
{
	c->jobs = &jobmsg;
	c->nodes = &nodemsg;
	c->parts = &partmsg;
	arena_reset();
	gather_build(c, ev, nev);
}

static void test_nodes(void)
{
	node_info_t n;
	struct ctx c;
	mauisched_node_t mn;

	memset(&n, 0, sizeof(n));
	n.node_state = NODE_STATE_IDLE;
	CHECK(node_state(&n) == MAUISCHED_NODE_IDLE);
	n.node_state = NODE_STATE_MIXED;
	CHECK(node_state(&n) == MAUISCHED_NODE_RUNNING);
	n.node_state = NODE_STATE_ALLOCATED;
	CHECK(node_state(&n) == MAUISCHED_NODE_BUSY);
	n.node_state = NODE_STATE_DOWN;
	CHECK(node_state(&n) == MAUISCHED_NODE_DOWN);
	n.node_state = NODE_STATE_IDLE | NODE_STATE_NO_RESPOND;
	CHECK(node_state(&n) == MAUISCHED_NODE_DOWN);
	n.node_state = NODE_STATE_IDLE | NODE_STATE_POWERED_DOWN;
	CHECK(node_state(&n) == MAUISCHED_NODE_DOWN);
	n.node_state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
	CHECK(node_state(&n) == MAUISCHED_NODE_DRAINED);
	n.node_state = NODE_STATE_MIXED | NODE_STATE_DRAIN;
	CHECK(node_state(&n) == MAUISCHED_NODE_DRAINING);
	n.node_state = NODE_STATE_IDLE | NODE_STATE_COMPLETING | NODE_STATE_FAIL;
	CHECK(node_state(&n) == MAUISCHED_NODE_DRAINING);

	/* A node's record: effective CPUs, active features, weight as a
	 * negative priority, the partition when it is in one only. */
	setup();
	memset(&c, 0, sizeof(c));
	nodes[1].cpus_efctv = 14;
	nodes[1].features = "a,b";
	nodes[1].features_act = "a";
	nodes[1].weight = 7;
	nodes[1].cpu_load = 250;
	build(&c, NULL, 0);
	gather_node(&c, 1, &mn);
	CHECK(mn.size == sizeof(mn));
	CHECK_STR(mn.name, "n002");
	CHECK(mn.procs == 14);
	CHECK(mn.mem_mb == 64000);
	CHECK_STR(mn.features, "a");
	CHECK(mn.has_priority && mn.priority == -7);
	CHECK(mn.load > 2.49 && mn.load < 2.51);
	CHECK_STR(mn.partition, "batch");
	gather_node(&c, 3, &mn);
	CHECK_STR(mn.partition, "small");
	CHECK(mn.load == 0);
	c.jobs = NULL;
	c.nodes = NULL;
	c.parts = NULL;
	gather_free(&c);
}

static void test_shape(void)
{
	slurm_job_info_t j;
	mauisched_job_t m;

	/* -N2 -n8: an even spread becomes exact tasks per node. */
	memset(&j, 0, sizeof(j));
	memset(&m, 0, sizeof(m));
	j.num_tasks = 8;
	j.num_nodes = j.max_nodes = 2;
	j.cpus_per_task = 1;
	j.pn_min_memory = 1000 | MEM_PER_CPU;
	j.time_limit = 90;
	job_shape(&j, &m);
	CHECK(m.tasks == 8 && m.task_procs == 1);
	CHECK(m.nodes == 2 && m.tasks_per_node == 4);
	CHECK(m.task_mem_mb == 1000);
	CHECK(m.walltime == 5400);

	/* -N2 -n5: uneven, left to Slurm (no tasks per node). */
	memset(&m, 0, sizeof(m));
	j.num_tasks = 5;
	job_shape(&j, &m);
	CHECK(m.nodes == 2 && m.tasks_per_node == 0);

	/* --ntasks-per-node=3 -N2, -c 2, memory per node over its tasks. */
	memset(&m, 0, sizeof(m));
	j.num_tasks = 2;
	j.ntasks_per_node = 3;
	j.cpus_per_task = 2;
	j.pn_min_memory = 9000;
	j.pn_min_tmp_disk = 300;
	j.time_limit = INFINITE;
	job_shape(&j, &m);
	CHECK(m.tasks == 6 && m.task_procs == 2 && m.tasks_per_node == 3);
	CHECK(m.task_mem_mb == 3000);
	CHECK(m.task_disk_mb == 100);
	CHECK(m.walltime == 0);

	/* No -n: CPUs over CPUs per task. */
	memset(&j, 0, sizeof(j));
	memset(&m, 0, sizeof(m));
	j.num_tasks = NO_VAL;
	j.num_cpus = 12;
	j.cpus_per_task = 4;
	j.ntasks_per_node = NO_VAL16;
	job_shape(&j, &m);
	CHECK(m.tasks == 3 && m.task_procs == 4);
}

static const struct jrec *rec(struct ctx *c, const char *id)
{
	return gather_find(c, id);
}

static void test_jobs(void)
{
	struct ctx c;
	slurm_job_info_t *j;
	const struct jrec *r;
	struct gate_event ev[2];

	setup();
	memset(&c, 0, sizeof(c));

	/* 1: pending, gated, -w and -x, features a&b, prefer c. */
	j = job(1, JOB_PENDING);
	j->req_nodes = "n[001-002]";
	j->exc_nodes = "n003";
	j->features = "a&b";
	j->prefer = "c";
	j->account = "phys";
	/* 2: pending, a user hold placed through the gate (event below). */
	job(2, JOB_PENDING);
	/* 3: not marked (queued before the gate), held by the user in Slurm. */
	j = job(3, JOB_PENDING);
	j->admin_comment = NULL;
	j->state_reason = WAIT_HELD_USER;
	/* 4: in the down partition only: a system hold. */
	j = job(4, JOB_PENDING);
	j->partition = "small";
	/* 5: running, started by the plugin as n001:4,n002:1. */
	j = job(5, JOB_RUNNING);
	j->nodes = "n[001-002]";
	j->num_cpus = 5;
	j->num_tasks = 5;
	j->start_time = 1000;
	/* 6: running, not started by the plugin: an even spread. */
	j = job(6, JOB_RUNNING);
	j->nodes = "n003,s001";
	j->num_cpus = 8;
	j->num_tasks = 8;
	/* 7: a completed job and 8: a completing one: no records, but
	 * reported as finished with their start and end (fairshare); 12,
	 * cancelled while pending (Slurm sets its start and end to the
	 * cancel time), is reported with no use; 13, never started, is not. */
	j = job(7, JOB_COMPLETE);
	j->num_tasks = 2;
	j->num_cpus = 4;
	j->cpus_per_task = 2;
	j->start_time = 900;
	j->end_time = 961;
	j = job(8, JOB_CANCELLED | JOB_COMPLETING);
	j->start_time = 950;
	j->end_time = 990;
	j = job(12, JOB_CANCELLED);
	j->start_time = j->end_time = 995;
	job(13, JOB_FAILED);
	/* 9: a pending array record with tasks 0-2. */
	j = job(9, JOB_PENDING);
	j->array_job_id = 9;
	j->array_task_str = "0-4:2%1";
	/* 10: a heterogeneous job component. */
	j = job(10, JOB_PENDING);
	j->het_job_id = 10;
	/* 11: an unfulfilled dependency and a begin time. */
	j = job(11, JOB_PENDING);
	j->dependency = "afterok:5(unfulfilled)";
	j->eligible_time = 5000;
	/* 14: requeued (a preemption), its node still completing: queued
	 * again, not finished, and held back until Slurm's begin time. */
	j = job(14, JOB_PENDING | JOB_COMPLETING);
	j->start_time = 960;
	j->end_time = 980;
	j->eligible_time = 1101;

	gather_remember_start(&c, "5", "n001:4,n002:1");
	memset(ev, 0, sizeof(ev));
	snprintf(ev[0].ref, sizeof(ev[0].ref), "2");
	ev[0].kind = MAUI_EV_USER_HOLD;
	ev[0].uid = 0;
	snprintf(ev[1].ref, sizeof(ev[1].ref), "9_2");
	ev[1].kind = MAUI_EV_SYSTEM_HOLD;
	build(&c, ev, 2);

	r = rec(&c, "1");
	CHECK(r && r->pending && r->reported);
	if (r) {
		CHECK(r->mj.state == MAUISCHED_JOB_IDLE);
		CHECK_STR(r->mj.user, "alice");
		CHECK_STR(r->mj.group, "root");
		CHECK_STR(r->mj.account, "phys");
		CHECK_STR(r->mj.class_name, "batch");
		CHECK_STR(r->mj.hostlist, "n001,n002");
		CHECK_STR(r->mj.exclude_hosts, "n003");
		CHECK_STR(r->mj.features, "a,b");
		CHECK_STR(r->mj.pref_features, "c");
		CHECK_STR(r->want.req, "n[001-002]");
		CHECK(r->mj.holds == 0);
		/* batch shares no node: it is the engine partition. */
		CHECK_STR(r->mj.partition, "batch");
	}
	r = rec(&c, "2");
	CHECK(r && r->want.uhold && r->mj.holds == MAUISCHED_HOLD_USER);
	r = rec(&c, "3");
	CHECK(r && r->want.present && r->want.uhold && !r->want.shold);
	r = rec(&c, "4");
	CHECK(r && (r->mj.holds & MAUISCHED_HOLD_SYSTEM));

	/* Running jobs: where they run, in tasks. */
	r = rec(&c, "5");
	CHECK(r && r->reported && !r->pending);
	if (r) {
		CHECK(r->mj.state == MAUISCHED_JOB_RUNNING);
		CHECK_STR(r->mj.allocation, "n001:4,n002:1");
		CHECK(r->mj.tasks == 5);
		CHECK(r->mj.start_time == 1000);
	}
	r = rec(&c, "6");
	CHECK(r && r->mj.allocation);
	if (r)
		CHECK_STR(r->mj.allocation, "n003:4,s001:4");

	CHECK(rec(&c, "7") == NULL);
	CHECK(rec(&c, "8") == NULL);
	CHECK(c.nfin == 3);
	if (c.nfin == 3) {
		CHECK_STR(c.fin[0].id, "7");
		CHECK(c.fin[0].state == MAUISCHED_JOB_COMPLETED);
		CHECK(c.fin[0].tasks == 4 && c.fin[0].task_procs == 1);
		CHECK(c.fin[0].start_time == 900 && c.fin[0].end_time == 961);
		CHECK_STR(c.fin[0].user, "alice");
		CHECK_STR(c.fin[0].class_name, "batch");
		CHECK_STR(c.fin[1].id, "8");
		CHECK(c.fin[1].state == MAUISCHED_JOB_REMOVED);
		CHECK(c.fin[1].start_time == 950 && c.fin[1].end_time == 990);
		CHECK_STR(c.fin[2].id, "12");
		CHECK(c.fin[2].start_time == c.fin[2].end_time);
	}

	/* Array tasks 0, 2, 4, one engine job each; the event held 9_2. */
	CHECK(rec(&c, "9_0") && rec(&c, "9_0")->meta_task);
	CHECK(rec(&c, "9_1") == NULL);
	r = rec(&c, "9_2");
	CHECK(r && r->mj.holds == MAUISCHED_HOLD_SYSTEM);
	CHECK(rec(&c, "9_4") != NULL);
	CHECK(rec(&c, "9_0") && rec(&c, "9_0")->mj.holds == 0);

	r = rec(&c, "10");
	CHECK(r && !r->reported && r->skip_why);
	r = rec(&c, "11");
	CHECK(r && r->mj.dependency_pending && r->mj.earliest_start == 5000);
	r = rec(&c, "14");
	CHECK(r && r->pending && r->reported);
	if (r)
		CHECK(r->mj.state == MAUISCHED_JOB_IDLE &&
		      r->mj.earliest_start == 1101);

	/* Slurm placed job 5 elsewhere than asked: the even spread, not
	 * the remembered counts on the wrong nodes. */
	jobs[4].nodes = "n002,n003";
	build(&c, NULL, 0);
	r = rec(&c, "5");
	CHECK(r && r->mj.allocation);
	if (r)
		CHECK_STR(r->mj.allocation, "n002:2,n003:2");

	/* Back where asked: the remembered counts again. */
	jobs[4].nodes = "n[001-002]";
	build(&c, NULL, 0);
	r = rec(&c, "5");
	if (r)
		CHECK_STR(r->mj.allocation, "n001:4,n002:1");

	/* The fingerprint follows the inputs. */
	{
		uint64_t a = gather_fingerprint(&c), b;
		jobs[0].time_limit = 31;
		build(&c, NULL, 0);
		b = gather_fingerprint(&c);
		CHECK(a != b);
		build(&c, NULL, 0);
		CHECK(b == gather_fingerprint(&c));
	}

	/* Memory: once job 5 has ended, what the plugin asked for it is
	 * forgotten; the table holds only jobs still queued or running. */
	CHECK(c.nstarted == 1);
	gather_remember_start(&c, "1", "n001:1");
	CHECK(c.nstarted == 2);
	jobs[4].job_state = JOB_COMPLETE;
	build(&c, NULL, 0);
	CHECK(c.nstarted == 1);
	CHECK(c.nstarted == 1 && !strcmp(c.started[0].id, "1"));
	jobmsg.record_count = 0;
	build(&c, NULL, 0);
	CHECK(c.nstarted == 0);

	c.jobs = NULL;
	c.nodes = NULL;
	c.parts = NULL;
	gather_free(&c);
	arena_reset();
	names_free();
}

/* Generic resources reach the engine's records: a node's Gres, a job's
 * tres_per_* lists (as 22.05 and 24.11 write them); a request per socket
 * or one that cannot be read keeps a pending job out, saying why. */
static void test_gres(void)
{
	struct ctx c;
	mauisched_node_t mn;
	slurm_job_info_t *j;
	const struct jrec *r;

	setup();
	memset(&c, 0, sizeof(c));
	nodes[0].gres = "gpu:a100:4(S:0-1)";
	nodes[1].gres = "gpu:v100:2,bw:lustre:no_consume:4G";
	nodes[2].gres = "gpu:a:b:c";
	/* 1: 22.05's --gres / --gpus-per-node, --gpus, --gpus-per-task. */
	j = job(1, JOB_PENDING);
	j->tres_per_node = "gres:gpu:a100:2";
	j->tres_per_job = "gres:gpu:4";
	j->tres_per_task = "gres:gpu:1";
	/* 2: 24.11's, with -c in tres_per_task and a no_consume request. */
	j = job(2, JOB_PENDING);
	j->tres_per_node = "gres/gpu:2,gres/bw:1G";
	j->tres_per_task = "cpu=2,gres/gpu:v100=1";
	/* 3: --gpus-per-socket. */
	j = job(3, JOB_PENDING);
	j->tres_per_socket = "gres/gpu:1";
	/* 4: a list that cannot be read. */
	j = job(4, JOB_PENDING);
	j->tres_per_node = "gres/gpu=x";
	/* 5: the same, running: given without it. */
	j = job(5, JOB_RUNNING);
	j->nodes = "n001";
	j->tres_per_node = "gres/gpu=x";
	j->start_time = 1000;
	build(&c, NULL, 0);

	/* Logged once ("generic resources: gpu:a100:4 on n001; ..."). */
	CHECK(c.gres_logged_any && c.gres_logged != 0);
	gather_node(&c, 0, &mn);
	CHECK_STR(mn.gres, "gpu:a100:4");
	CHECK(mn.avail_gres == NULL);
	gather_node(&c, 1, &mn);
	CHECK_STR(mn.gres, "gpu:v100:2");
	gather_node(&c, 2, &mn);
	CHECK_STR(mn.gres, NULL);
	gather_node(&c, 3, &mn);
	CHECK_STR(mn.gres, NULL);

	r = gather_find(&c, "1");
	CHECK(r && r->reported);
	CHECK_STR(r->mj.gres_per_node, "gpu:a100:2");
	CHECK_STR(r->mj.gres_per_job, "gpu:4");
	CHECK_STR(r->mj.gres_per_task, "gpu:1");
	r = gather_find(&c, "2");
	CHECK(r && r->reported);
	CHECK_STR(r->mj.gres_per_node, "gpu:2");
	CHECK_STR(r->mj.gres_per_task, "gpu:v100:1");
	CHECK_STR(r->mj.gres_per_job, NULL);
	r = gather_find(&c, "3");
	CHECK(r && !r->reported && r->skip_why &&
	      strstr(r->skip_why, "per socket") &&
	      strstr(r->skip_why, "tres_per_socket=gres/gpu:1"));
	r = gather_find(&c, "4");
	CHECK(r && !r->reported && r->skip_why &&
	      strstr(r->skip_why, "tres_per_node=gres/gpu=x"));
	r = gather_find(&c, "5");
	CHECK(r && r->reported && !r->skip_why && !r->mj.gres_per_node);

	c.jobs = NULL;
	c.nodes = NULL;
	c.parts = NULL;
	gather_free(&c);
	arena_reset();
	names_free();
}

int main(void)
{
	test_nodes();
	test_shape();
	test_jobs();
	test_gres();
	return finish();
}

/*
 * ctld.c: slurmctld's internal interface (ctld.h). Built against the
 * configured Slurm source tree (SLURM_SRC): the release differences of
 * that interface are in slurm_compat.h's MAUI_SLURM_INTERNALS section.
 */
#define MAUI_SLURM_INTERNALS 1
#include "slurm_compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctld.h"
#include "mauisched.h"
#include "util.h"

/* ------------------------------------------------------------ the pool */

/* Strings and arrays of one copy, freed together. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

struct pool {
	struct chunk *head;
};

static void *pool_alloc(struct pool *p, size_t n)
{
	struct chunk *c = p->head;

	n = (n + 15) & ~(size_t) 15;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = p->head;
		p->head = c;
	}
	c->used += n;
	return memset(c->data + c->used - n, 0, n);
}

static char *pool_str(struct pool *p, const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = pool_alloc(p, n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static void pool_free(struct pool *p)
{
	while (p->head) {
		struct chunk *c = p->head;
		p->head = c->next;
		free(c);
	}
}

/* One generation of jobs (or nodes, or partitions) and its pool. */
struct gen {
	struct pool pool;
	time_t stamp;     /* Slurm's last_*_update it was copied at */
	time_t copied;    /* when */
	uint64_t sig;     /* signature() of what was copied */
	bool valid;
};

/* Whether a copy may differ from what Slurm has. Slurm's update times are
 * in seconds: a change in the second of the copy (the plugin's own start,
 * a job ending) leaves the time as it was. So a copy made in the second of
 * the last update is checked again at each poll (`maybe`: a signature
 * decides) until that second is over. */
static bool stale(const struct gen *g, time_t slurm_stamp, bool *maybe)
{
	*maybe = g->valid && g->stamp == slurm_stamp && g->copied <= slurm_stamp;
	return !g->valid || g->stamp != slurm_stamp || *maybe;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static bool wanted(job_record_t *j);

/* What a change within one second would alter: the jobs mauisched reads,
 * their states, holds and shapes (under the job read lock). */
static uint64_t jobs_signature(void)
{
	maui_list_itr_t it = list_iterator_create(job_list);
	job_record_t *j;
	uint64_t h = 1;

	while ((j = list_next(it))) {
		if (j->magic != JOB_MAGIC || !wanted(j))
			continue;
		h = mix(h, j->job_id);
		h = mix(h, j->job_state);
		h = mix(h, j->priority == 0);
		/* Which hold (user, administrator) a held job has. */
		h = mix(h, j->priority == 0 ? j->state_reason : 0);
		h = mix(h, j->time_limit);
		h = mix(h, j->state_reason == WAIT_NO_REASON);
		/* A dependency found met or failed (test_dependencies). */
		h = mix(h, (j->bit_flags & JOB_DEPENDENT) != 0);
		h = mix(h, j->state_reason == WAIT_DEP_INVALID);
		if (j->details)
			h = mix(h, ((uint64_t) j->details->min_nodes << 32) ^
				       j->details->min_cpus ^
				       (uint64_t) j->details->begin_time);
		if (j->array_recs && j->array_recs->task_id_bitmap)
			h = mix(h, (uint64_t) bit_set_count(j->array_recs->task_id_bitmap));
	}
	list_iterator_destroy(it);
	return h;
}

static uint64_t nodes_signature(void)
{
	node_record_t *n;
	uint64_t h = 2;
	int i;

	for (i = 0; (n = next_node(&i)); i++) {
		h = mix(h, n->node_state);
		h = mix(h, n->cpus);
		h = mix(h, n->real_memory);
	}
	return h;
}

struct ctld_snap {
	struct gen jobs, nodes, parts;
	job_info_msg_t *jm;
	node_info_msg_t *nm;
	partition_info_msg_t *pm;
	/* per job of jm: its per-node CPUs (NULL: not running) */
	uint16_t **job_cpus;
	uint32_t *job_ncpus;
	/* node table index -> index in nm (-1: no record) */
	int32_t *node_at;
	int node_at_n;
};

/* Finished jobs that ended after this time are copied (ctld_set_finished_since). */
static time_t finished_since = (time_t) -1;

void ctld_set_finished_since(time_t t)
{
	finished_since = t;
}

/* The jobs mauisched reads: pending, running and suspended ones, and
 * those that ran and ended (or are completing) after finished_since:
 * fairshare charges them up to their end. A requeued job is pending at
 * once, while its nodes still complete (PENDING|COMPLETING). */
static bool wanted(job_record_t *j)
{
	if (IS_JOB_PENDING(j) ||
	    (!IS_JOB_COMPLETING(j) && (IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j))))
		return true;
	return finished_since >= 0 && j->start_time > 0 &&
	       j->end_time >= j->start_time && j->end_time > finished_since;
}

/* ---------------------------------------------------------- parameters */

bool ctld_sched_params_ok(char *why, size_t len)
{
	const char *p = slurm_conf.sched_params, *s;
	bool interval_off = false, defer;

	/* As slurmctld reads them: sched_interval= with atoi (job_scheduler.c
	 * _schedule), defer as a case-insensitive substring (job_mgr.c
	 * job_allocate). */
	if (p && (s = xstrcasestr(p, "sched_interval=")))
		interval_off = atoi(s + strlen("sched_interval=")) == -1;
	defer = p && xstrcasestr(p, "defer");
	if (interval_off && defer)
		return true;
	snprintf(why, len, "SchedulerParameters lacks %s%s%s",
		 interval_off ? "" : "sched_interval=-1",
		 !interval_off && !defer ? " and " : "", defer ? "" : "defer");
	return false;
}

/* ------------------------------------------------------------- reading */

static void copy_job(struct ctld_snap *s, job_record_t *j, slurm_job_info_t *o,
		     uint32_t k)
{
	struct pool *p = &s->jobs.pool;
	maui_job_details_t *d = j->details;
	bool pending = IS_JOB_PENDING(j);

	o->job_id = j->job_id;
	o->array_job_id = j->array_job_id;
	o->array_task_id = j->array_task_id;
	if (pending && j->array_recs && j->array_recs->task_id_bitmap &&
	    j->array_task_id == NO_VAL) {
		int64_t bits = bit_size(j->array_recs->task_id_bitmap);
		size_t n = (size_t) (bits > 0 ? bits : 1) * 8 + 64;
		char *b = pool_alloc(p, n);
		if (b)
			bit_fmt(b, (int32_t) n, j->array_recs->task_id_bitmap);
		o->array_task_str = b;
		o->array_max_tasks = j->array_recs->max_run_tasks;
	}
	o->job_state = j->job_state;
	o->state_reason = (maui_state_reason_t) j->state_reason;
	o->state_desc = pool_str(p, j->state_desc);
	o->batch_flag = j->batch_flag;
	o->admin_comment = pool_str(p, j->admin_comment);
	o->user_id = j->user_id;
	o->user_name = pool_str(p, j->user_name);
	o->group_id = j->group_id;
	o->account = pool_str(p, j->account);
	o->qos = j->qos_ptr ? pool_str(p, j->qos_ptr->name) : NULL;
	o->priority = j->priority;
	o->het_job_id = j->het_job_id;
	o->resv_name = pool_str(p, j->resv_name);
	o->partition = pool_str(p, !pending && j->part_ptr ? j->part_ptr->name :
				j->partition);
	o->time_limit = j->time_limit == NO_VAL && j->part_ptr ?
			j->part_ptr->max_time : j->time_limit;
	o->start_time = j->start_time;
	o->end_time = j->end_time;
	o->nodes = pool_str(p, j->nodes);
	o->sched_nodes = pool_str(p, j->sched_nodes);
	/* Generic resources as Slurm keeps them ("gres:gpu:2" at 22.05,
	 * "gres/gpu:2" at 24.11; gres.c reads both). */
	o->tres_per_task = pool_str(p, j->tres_per_task);
	o->tres_per_node = pool_str(p, j->tres_per_node);
	o->tres_per_job = pool_str(p, j->tres_per_job);
	o->tres_per_socket = pool_str(p, j->tres_per_socket);
	o->shared = NO_VAL16;
	if (d) {
		o->submit_time = d->submit_time;
		o->eligible_time = d->begin_time;
		o->cpus_per_task = d->cpus_per_task;
		o->num_tasks = d->num_tasks;
		o->ntasks_per_node = d->ntasks_per_node;
		o->pn_min_memory = d->pn_min_memory;
		o->pn_min_tmp_disk = d->pn_min_tmp_disk;
		o->features = pool_str(p, pending ? d->features : d->features_use);
		o->prefer = pending ? pool_str(p, d->prefer) : NULL;
		o->exc_nodes = pool_str(p, d->exc_nodes);
		o->req_nodes = pool_str(p, d->req_nodes);
		o->dependency = pool_str(p, d->dependency);
		if (d->share_res == 1)
			o->shared = 1;
		else if (d->share_res == 0 || d->whole_node == 1)
			o->shared = JOB_SHARED_NONE;
		if (!pending && j->total_cpus)
			o->num_cpus = j->total_cpus;
		else
			o->num_cpus = d->min_cpus;
		if (!pending && j->total_nodes) {
			o->num_nodes = j->total_nodes;
			o->max_nodes = 0;
		} else {
			o->num_nodes = d->min_nodes;
			o->max_nodes = d->max_nodes;
		}
	}
	if (!pending && j->job_resrcs && j->job_resrcs->cpus &&
	    j->job_resrcs->nhosts) {
		uint32_t n = j->job_resrcs->nhosts;
		uint16_t *c = pool_alloc(p, n * sizeof(uint16_t));
		if (c) {
			memcpy(c, j->job_resrcs->cpus, n * sizeof(uint16_t));
			s->job_cpus[k] = c;
			s->job_ncpus[k] = n;
		}
	}
}

/* A pending job with dependencies Slurm has still to find met. */
static bool dependent(job_record_t *j)
{
	return IS_JOB_PENDING(j) && j->details && j->details->depend_list &&
	       list_count(j->details->depend_list) > 0 &&
	       j->state_reason != WAIT_DEP_INVALID;
}

/* Pending jobs with dependencies at the last copy of the jobs. */
static uint32_t dependents;

static int copy_jobs(struct ctld_snap *s)
{
	maui_list_itr_t it;
	job_record_t *j;
	uint32_t n = 0, k = 0, deps = 0;
	job_info_msg_t *m;

	pool_free(&s->jobs.pool);
	it = list_iterator_create(job_list);
	while ((j = list_next(it)))
		if (j->magic == JOB_MAGIC && wanted(j)) {
			n++;
			deps += dependent(j);
		}
	dependents = deps;
	m = pool_alloc(&s->jobs.pool, sizeof(*m));
	s->job_cpus = m ? pool_alloc(&s->jobs.pool, (n + 1) * sizeof(uint16_t *)) : NULL;
	s->job_ncpus = m ? pool_alloc(&s->jobs.pool, (n + 1) * sizeof(uint32_t)) : NULL;
	if (m)
		m->job_array = pool_alloc(&s->jobs.pool,
					  (n + 1) * sizeof(slurm_job_info_t));
	if (!m || !m->job_array || !s->job_cpus || !s->job_ncpus) {
		list_iterator_destroy(it);
		pool_free(&s->jobs.pool);
		s->jm = NULL;
		return -1;
	}
	list_iterator_reset(it);
	while ((j = list_next(it)) && k < n) {
		if (j->magic != JOB_MAGIC || !wanted(j))
			continue;
		copy_job(s, j, &m->job_array[k], k);
		k++;
	}
	list_iterator_destroy(it);
	m->record_count = k;
	m->last_update = last_job_update;
	s->jm = m;
	return 0;
}

static int copy_nodes(struct ctld_snap *s)
{
	struct pool *p = &s->nodes.pool;
	node_info_msg_t *m;
	node_record_t *n;
	int i, k = 0;

	pool_free(p);
	free(s->node_at);
	s->node_at = calloc(node_record_count > 0 ? node_record_count : 1,
			    sizeof(int32_t));
	s->node_at_n = node_record_count;
	m = pool_alloc(p, sizeof(*m));
	if (m)
		m->node_array = pool_alloc(p, (node_record_count + 1) *
						      sizeof(node_info_t));
	if (!s->node_at || !m || !m->node_array) {
		pool_free(p);
		s->nm = NULL;
		return -1;
	}
	for (i = 0; i < node_record_count; i++)
		s->node_at[i] = -1;
	for (i = 0; (n = next_node(&i)); i++) {
		node_info_t *o = &m->node_array[k];
		o->name = pool_str(p, n->name);
		o->node_state = n->node_state;
		o->cpus = n->cpus;
		o->cpus_efctv = n->cpus_efctv;
		o->real_memory = n->real_memory;
		o->tmp_disk = n->tmp_disk;
		o->features = pool_str(p, n->features);
		o->features_act = pool_str(p, n->features_act);
		/* As slurmctld reports it (node_mgr.c packs the node's own
		 * string, set when slurmd registered, else its config's). */
		o->gres = pool_str(p, n->gres ? n->gres :
				   n->config_ptr ? n->config_ptr->gres : NULL);
		o->cpu_load = n->cpu_load;
		o->weight = n->weight;
		s->node_at[i] = k++;
	}
	m->record_count = (uint32_t) k;
	m->last_update = last_node_update;
	s->nm = m;
	return 0;
}

/* node_inx as the public API gives it: pairs of first,last indices into
 * the node table (here: the copied one), ended by -1. */
static int32_t *node_inx(struct ctld_snap *s, struct pool *p, bitstr_t *bm)
{
	int64_t i, n = bm ? bit_size(bm) : 0, cnt = 0;
	int32_t *out = pool_alloc(p, (size_t) (2 * n + 1) * sizeof(int32_t));

	if (!out)
		return NULL;
	for (i = 0; i < n && i < s->node_at_n; i++) {
		int32_t at;
		if (!bit_test(bm, i) || (at = s->node_at[i]) < 0)
			continue;
		if (cnt && out[cnt - 1] == at - 1)
			out[cnt - 1] = at;
		else {
			out[cnt++] = at;
			out[cnt++] = at;
		}
	}
	out[cnt] = -1;
	return out;
}

static int copy_parts(struct ctld_snap *s)
{
	struct pool *p = &s->parts.pool;
	partition_info_msg_t *m;
	maui_list_itr_t it;
	part_record_t *pr;
	uint32_t n = (uint32_t) list_count(part_list), k = 0;

	pool_free(p);
	m = pool_alloc(p, sizeof(*m));
	if (m)
		m->partition_array = pool_alloc(p, (n + 1) * sizeof(partition_info_t));
	if (!m || !m->partition_array) {
		pool_free(p);
		s->pm = NULL;
		return -1;
	}
	it = list_iterator_create(part_list);
	while ((pr = list_next(it)) && k < n) {
		partition_info_t *o = &m->partition_array[k++];
		o->name = pool_str(p, pr->name);
		o->nodes = pool_str(p, pr->nodes);
		o->node_inx = node_inx(s, p, pr->node_bitmap);
		o->state_up = pr->state_up;
		o->total_nodes = pr->total_nodes;
		o->max_time = pr->max_time;
	}
	list_iterator_destroy(it);
	m->record_count = k;
	m->last_update = last_part_update;
	s->pm = m;
	return 0;
}

/* Slurm finds a pending job's dependencies met (afterok, afterany,
 * singleton, a whole array's end...) in its own scheduling pass, which
 * sched_interval=-1 turns off: without this test a job that waits on
 * another would wait for ever. As that pass does (job_independent), under
 * the job write lock: test_job_dependency marks what is met or failed and
 * rewrites the job's dependency string ("(unfulfilled)" goes), and a
 * dependency that can never be met is handled as Slurm does
 * (DependencyNeverSatisfied, or the job killed with kill_invalid_depend).
 * Only while some pending job has dependencies. */
static void test_dependencies(void)
{
	slurmctld_lock_t lock = { .conf = READ_LOCK, .job = WRITE_LOCK,
				  .node = WRITE_LOCK, .part = READ_LOCK,
				  .fed = READ_LOCK };
	maui_list_itr_t it;
	job_record_t *j;
	bool any = false;

	lock_slurmctld(lock);
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		bool changed = false;
		int rc;

		if (j->magic != JOB_MAGIC || !dependent(j))
			continue;
		rc = test_job_dependency(j, &changed);
		if (rc == FAIL_DEPEND) {
			handle_invalid_dependency(j);
			changed = true;
		} else if (rc == NO_DEPEND) {
			if (j->state_reason == WAIT_DEPENDENCY) {
				j->state_reason = WAIT_NO_REASON;
				xfree(j->state_desc);
			}
			changed = true;
		}
		any |= changed;
	}
	list_iterator_destroy(it);
	if (any)
		last_job_update = time(NULL);
	unlock_slurmctld(lock);
}

int ctld_poll(struct ctld_snap **snapp, job_info_msg_t **jobs,
	      node_info_msg_t **nodes, partition_info_msg_t **parts,
	      bool *changed)
{
	/* Jobs, nodes, partitions and the QOS names, read only. */
	slurmctld_lock_t lock = { .conf = READ_LOCK, .job = READ_LOCK,
				  .node = READ_LOCK, .part = READ_LOCK };
	assoc_mgr_lock_t qos = { .qos = READ_LOCK };
	struct ctld_snap *s = *snapp;
	int rc = 0;
	bool nodes_new, maybe;
	time_t now;

	*changed = false;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -1;
		*snapp = s;
	}
	if (dependents)
		test_dependencies();
	/* Nothing changed since a copy made after the last update's second:
	 * no lock at all (the update times are read as they are; a change
	 * being made now shows at the next poll). */
	if (!stale(&s->nodes, last_node_update, &maybe) &&
	    !stale(&s->parts, last_part_update, &maybe) &&
	    !stale(&s->jobs, last_job_update, &maybe))
		goto out;
	lock_slurmctld(lock);
	now = time(NULL);
	nodes_new = stale(&s->nodes, last_node_update, &maybe);
	if (nodes_new) {
		uint64_t sig = nodes_signature();
		if (!maybe || sig != s->nodes.sig) {
			s->nodes.valid = copy_nodes(s) == 0;
			s->nodes.sig = sig;
			*changed = true;
		} else
			nodes_new = false;
		s->nodes.stamp = last_node_update;
		s->nodes.copied = now;
	}
	/* Partitions index the copied node table: copied again with it. */
	if (s->nodes.valid &&
	    (nodes_new || stale(&s->parts, last_part_update, &maybe))) {
		s->parts.valid = copy_parts(s) == 0;
		s->parts.stamp = last_part_update;
		s->parts.copied = now;
		*changed = true;
	}
	if (stale(&s->jobs, last_job_update, &maybe)) {
		uint64_t sig = jobs_signature();
		if (!maybe || sig != s->jobs.sig) {
			assoc_mgr_lock(&qos);
			s->jobs.valid = copy_jobs(s) == 0;
			assoc_mgr_unlock(&qos);
			s->jobs.sig = sig;
			*changed = true;
		}
		s->jobs.stamp = last_job_update;
		s->jobs.copied = now;
	}
	unlock_slurmctld(lock);
out:
	if (!s->jobs.valid || !s->nodes.valid || !s->parts.valid) {
		mlog_once(MAUISCHED_LOG_ERROR, "ctld copy: no memory",
			  "cannot copy slurmctld's jobs, nodes or partitions: out of memory");
		rc = -1;
	}
	*jobs = s->jobs.valid ? s->jm : NULL;
	*nodes = s->nodes.valid ? s->nm : NULL;
	*parts = s->parts.valid ? s->pm : NULL;
	return rc;
}

int ctld_job_cpus_on_node(const struct ctld_snap *s,
			  const slurm_job_info_t *ji, int i)
{
	size_t k;

	if (!s || !s->jm || ji < s->jm->job_array ||
	    ji >= s->jm->job_array + s->jm->record_count)
		return -1;
	k = (size_t) (ji - s->jm->job_array);
	if (!s->job_cpus[k] || i < 0 || (uint32_t) i >= s->job_ncpus[k])
		return -1;
	return s->job_cpus[k][i];
}

void ctld_snap_free(struct ctld_snap **snapp)
{
	struct ctld_snap *s = *snapp;

	if (!s)
		return;
	pool_free(&s->jobs.pool);
	pool_free(&s->nodes.pool);
	pool_free(&s->parts.pool);
	free(s->node_at);
	free(s);
	*snapp = NULL;
}

/* ------------------------------------------------------------ starting */

/* The record of `id`: "123", or "123_4" (a task record, or the array's
 * pending record while the task is still in it). */
static job_record_t *find_job(const char *id)
{
	char *end;
	unsigned long a = strtoul(id, &end, 10);

	if (*end == '_')
		return find_job_array_rec((uint32_t) a,
					  (uint32_t) strtoul(end + 1, NULL, 10));
	return find_job_record((uint32_t) a);
}

static struct ctld_start_cost start_cost;

void ctld_start_cost_take(struct ctld_start_cost *out)
{
	*out = start_cost;
	memset(&start_cost, 0, sizeof(start_cost));
}

int ctld_allocate(const char *id, const char *nodes, bool backfill,
		  const char *admin_comment, char *started_id, size_t len,
		  struct ctld_launch *launch)
{
	/* As backfill's _start_job: jobs and nodes written. */
	slurmctld_lock_t lock = { .conf = READ_LOCK, .job = WRITE_LOCK,
				  .node = WRITE_LOCK, .part = READ_LOCK,
				  .fed = READ_LOCK };
	job_record_t *j;
	bitstr_t *chosen = NULL, *orig_exc = NULL;
	char *names = NULL, *desc = NULL;
	uint32_t prio, reason;
	bool head;
	int rc;
	double t = mono_ms(), t1;

	snprintf(started_id, len, "%s", id);
	memset(launch, 0, sizeof(*launch));
	lock_slurmctld(lock);
	t1 = mono_ms();
	start_cost.wait_ms += t1 - t;
	t = t1;
	j = find_job(id);
	if (!j || j->magic != JOB_MAGIC || !j->details) {
		rc = ESLURM_INVALID_JOB_ID;
		goto out;
	}
	if (!IS_JOB_PENDING(j)) {
		rc = ESLURM_JOB_NOT_PENDING; /* Slurm started it already */
		goto out;
	}
	names = xstrdup(nodes);
	if (maui_node_name2bitmap(names, false, &chosen) != SLURM_SUCCESS || !chosen) {
		rc = ESLURM_INVALID_NODE_NAME;
		goto out;
	}
	/* Every node but the chosen ones excluded. */
	orig_exc = j->details->exc_node_bitmap;
	bit_not(chosen);
	if (orig_exc)
		bit_or(chosen, orig_exc);
	j->details->exc_node_bitmap = chosen;
	chosen = NULL;
	head = j->array_recs != NULL;
	/* A hold at priority 0 (the job_submit gate's) is lifted for the
	 * start only: select_nodes refuses held jobs; restored if it fails. */
	prio = j->priority;
	reason = j->state_reason;
	desc = xstrdup(j->state_desc);
	if (prio == 0)
		j->priority = 1;
	rc = maui_select_nodes(j, backfill);
	start_cost.select_ms += mono_ms() - t;
	if (head && j->details) {
		job_record_t *base = find_job_record(j->array_job_id);
		if (base && base != j && base->array_recs && base->details) {
			FREE_NULL_BITMAP(base->details->exc_node_bitmap);
			if (orig_exc)
				base->details->exc_node_bitmap = bit_copy(orig_exc);
		}
	}
	if (j->details) { /* select_nodes may have replaced it */
		FREE_NULL_BITMAP(j->details->exc_node_bitmap);
		j->details->exc_node_bitmap = orig_exc;
	} else
		FREE_NULL_BITMAP(orig_exc);
	orig_exc = NULL;
	if (rc != SLURM_SUCCESS) {
		if (IS_JOB_PENDING(j) && prio == 0) {
			j->priority = 0;
			j->state_reason = reason;
			xfree(j->state_desc);
			j->state_desc = desc;
			desc = NULL;
		}
		goto out;
	}
	last_job_update = time(NULL);
	/* As Slurm's own scheduler says it ("sched: Allocate ..."). */
	info("sched/maui: Allocate %pJ NodeList=%s #CPUs=%u Partition=%s",
	     j, j->nodes, j->total_cpus,
	     j->part_ptr ? j->part_ptr->name : "(null)");
	if (j->array_task_id != NO_VAL)
		snprintf(started_id, len, "%u_%u", j->array_job_id,
			 j->array_task_id);
	if (admin_comment) {
		xfree(j->admin_comment);
		j->admin_comment = xstrdup(admin_comment);
	}
	/* Launched by ctld_launch, as backfill's _start_job would right
	 * here; a batch job whose nodes are still being configured is
	 * launched by Slurm once they are. */
	launch->job_id = j->job_id;
	launch->launch = j->batch_flag == 0 || !IS_JOB_CONFIGURING(j);
out:
	unlock_slurmctld(lock);
	FREE_NULL_BITMAP(chosen);
	xfree(names);
	xfree(desc);
	return rc;
}

void ctld_launch(const struct ctld_launch *l, size_t n)
{
	slurmctld_lock_t lock = { .conf = READ_LOCK, .job = WRITE_LOCK,
				  .node = WRITE_LOCK, .part = READ_LOCK,
				  .fed = READ_LOCK };
	size_t i;

	for (i = 0; i < n; i++) {
		double t = mono_ms(), t1;
		job_record_t *j;

		if (!l[i].launch)
			continue;
		lock_slurmctld(lock);
		t1 = mono_ms();
		start_cost.wait_ms += t1 - t;
		j = find_job_record(l[i].job_id);
		/* Still the allocation made (not cancelled, requeued or
		 * completing since). */
		if (j && j->magic == JOB_MAGIC && IS_JOB_RUNNING(j) &&
		    !IS_JOB_COMPLETING(j)) {
			if (j->batch_flag == 0)
				srun_allocate(j);
			else if (!IS_JOB_CONFIGURING(j))
				launch_job(j);
		}
		unlock_slurmctld(lock);
		start_cost.launch_ms += mono_ms() - t1;
	}
}

/* ------------------------------------------------------- waiting jobs */

static bool str_differs(const char *a, const char *b)
{
	if (!a || !*a)
		return b && *b;
	return !b || strcmp(a, b);
}

size_t ctld_write_waiting(const struct ctld_wait *w, size_t n)
{
	slurmctld_lock_t lock = { .job = WRITE_LOCK };
	size_t i, changed = 0;
	bool held_changed = false;

	if (!n)
		return 0;
	lock_slurmctld(lock);
	for (i = 0; i < n; i++) {
		job_record_t *j = find_job(w[i].id);
		bool ch = false;

		if (!j || j->magic != JOB_MAGIC || !IS_JOB_PENDING(j))
			continue;
		if (w[i].clear_marker && j->admin_comment) {
			xfree(j->admin_comment);
			ch = held_changed = true;
		}
		switch (w[i].hold) {
		case CTLD_HOLD_USER:
		case CTLD_HOLD_SYSTEM: {
			uint32_t r = w[i].hold == CTLD_HOLD_USER ? WAIT_HELD_USER :
								    WAIT_HELD;
			if (j->priority != 0 || j->state_reason != r) {
				j->priority = 0;
				j->state_reason = r;
				xfree(j->state_desc);
				ch = held_changed = true;
			}
			break;
		}
		case CTLD_RELEASE:
			if (j->priority == 0) {
				j->priority = w[i].priority ? w[i].priority : 1;
				j->direct_set_prio = 1;
				j->state_reason = WAIT_NO_REASON;
				xfree(j->state_desc);
				ch = held_changed = true;
			}
			break;
		default:
			break;
		}
		if (j->priority != 0 && w[i].priority &&
		    (j->priority != w[i].priority || !j->direct_set_prio)) {
			j->priority = w[i].priority;
			/* Slurm's priority plugin leaves it as it is. */
			j->direct_set_prio = 1;
			ch = true;
		}
		if (j->priority != 0 && w[i].set_reason &&
		    (j->state_reason != w[i].state_reason ||
		     str_differs(j->state_desc, w[i].desc))) {
			j->state_reason = w[i].state_reason;
			xfree(j->state_desc);
			if (w[i].desc && *w[i].desc)
				j->state_desc = xstrdup(w[i].desc);
			ch = true;
		}
		if (w[i].set_start && j->start_time != w[i].start_time) {
			j->start_time = w[i].start_time;
			ch = true;
		}
		changed += ch;
	}
	if (held_changed)
		last_job_update = time(NULL);
	unlock_slurmctld(lock);
	return changed;
}

/*
 * gather.c: Slurm's jobs, nodes and partitions -> the engine's snapshot.
 * Runs on the scheduling thread only; the RPCs go to this very slurmctld.
 */
#define _GNU_SOURCE
#include "gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gres.h"
#include "maui_gate.h"
#include "util.h"

int gather_poll(struct ctx *c, bool *changed)
{
	/* Jobs that ended since the last iteration still have use to charge
	 * (all those Slurm keeps, before the first one: the checkpoint's
	 * last iteration may be older). */
	ctld_set_finished_since(c->last_iter);
	return ctld_poll(&c->snap, &c->jobs, &c->nodes, &c->parts, changed);
}

/* Slurm node state -> mauisched's. */
uint32_t node_state(const node_info_t *n)
{
	uint32_t s = n->node_state, base = s & NODE_STATE_BASE;
	bool busy = base == NODE_STATE_ALLOCATED || base == NODE_STATE_MIXED ||
		    (s & NODE_STATE_COMPLETING);

	if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE ||
	    (s & (NODE_STATE_NO_RESPOND | NODE_STATE_POWERED_DOWN |
		  NODE_STATE_POWERING_DOWN | NODE_STATE_POWERING_UP |
		  NODE_STATE_REBOOT_ISSUED | NODE_STATE_INVALID_REG)))
		return MAUISCHED_NODE_DOWN;
	if (s & (NODE_STATE_DRAIN | NODE_STATE_FAIL))
		return busy ? MAUISCHED_NODE_DRAINING : MAUISCHED_NODE_DRAINED;
	switch (base) {
	case NODE_STATE_IDLE:
		return MAUISCHED_NODE_IDLE;
	case NODE_STATE_MIXED:
	case NODE_STATE_ERROR:
		return MAUISCHED_NODE_RUNNING;
	case NODE_STATE_ALLOCATED:
		return MAUISCHED_NODE_BUSY;
	default:
		return MAUISCHED_NODE_UNKNOWN;
	}
}


/* Which partitions each node is in (node_inx pairs index the node table,
 * which slurm_load_node returns in order). */
static void map_partitions(struct ctx *c)
{
	uint32_t nn = c->nodes->record_count, np = c->parts ? c->parts->record_count : 0;
	uint32_t i, k;
	int32_t *count = calloc(nn ? nn : 1, sizeof(int32_t));

	free(c->node_part);
	free(c->part_exclusive);
	free(c->part_up);
	free(c->part_nodes);
	c->node_part = calloc(nn ? nn : 1, sizeof(int32_t));
	c->part_exclusive = calloc(np ? np : 1, sizeof(bool));
	c->part_up = calloc(np ? np : 1, sizeof(bool));
	c->part_nodes = calloc(np ? np : 1, sizeof(char *));
	if (!count || !c->node_part || !c->part_exclusive || !c->part_up ||
	    !c->part_nodes) {
		free(count);
		return;
	}
	for (i = 0; i < nn; i++)
		c->node_part[i] = -1;
	for (k = 0; k < np; k++) {
		partition_info_t *p = &c->parts->partition_array[k];
		int32_t *inx = p->node_inx;
		c->part_up[k] = p->state_up == PARTITION_UP;
		for (i = 0; inx && inx[i] >= 0; i += 2) {
			int32_t a;
			for (a = inx[i]; a <= inx[i + 1] && a < (int32_t) nn; a++) {
				count[a]++;
				c->node_part[a] = (int32_t) k;
			}
		}
		c->part_nodes[k] = expand_hosts(p->nodes);
	}
	for (i = 0; i < nn; i++)
		if (count[i] != 1)
			c->node_part[i] = -1;
	for (k = 0; k < np; k++) {
		partition_info_t *p = &c->parts->partition_array[k];
		int32_t *inx = p->node_inx;
		bool excl = true;
		for (i = 0; inx && inx[i] >= 0; i += 2) {
			int32_t a;
			for (a = inx[i]; a <= inx[i + 1] && a < (int32_t) nn; a++)
				excl = excl && count[a] == 1;
		}
		c->part_exclusive[k] = excl;
	}
	free(count);
}


static int part_index(struct ctx *c, const char *name)
{
	uint32_t k;

	for (k = 0; c->parts && k < c->parts->record_count; k++)
		if (!strcmp(c->parts->partition_array[k].name, name))
			return (int) k;
	return -1;
}


static struct jrec *new_jrec(struct ctx *c)
{
	if (c->njr == c->capjr) {
		size_t cap = c->capjr ? c->capjr * 2 : 1024;
		struct jrec *p = realloc(c->jr, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->jr = p;
		c->capjr = cap;
	}
	memset(&c->jr[c->njr], 0, sizeof(c->jr[0]));
	return &c->jr[c->njr++];
}


/* A feature expression mauisched can take as "all of these": a&b, a,b.
 * Anything with |, [], * or counts is left to Slurm (NULL). */
static char *and_features(const char *f)
{
	char *out, *p;

	if (!f || !*f)
		return NULL;
	if (strpbrk(f, "|[]*()"))
		return NULL;
	out = astr(f);
	for (p = out; p && *p; p++)
		if (*p == '&')
			*p = ',';
	return out;
}

static bool dependency_pending(const char *dep)
{
	return dep && *dep &&
	       (strstr(dep, "(unfulfilled)") || strstr(dep, "(failed)"));
}


/* Fills a job's resource request. Slurm's shape is mapped onto Maui's
 * tasks: tasks x cpus-per-task; memory per CPU or per node is turned into
 * memory per task (per node: divided by the tasks a node is expected to
 * hold), the same for tmp disk. */
void job_shape(const slurm_job_info_t *ji, mauisched_job_t *m)
{
	uint32_t cpt = ji->cpus_per_task && ji->cpus_per_task != NO_VAL16 ?
		       ji->cpus_per_task : 1;
	uint32_t tasks = ji->num_tasks && ji->num_tasks != NO_VAL ?
			 ji->num_tasks : 0;
	uint32_t nodes = ji->num_nodes && ji->num_nodes != NO_VAL ?
			 ji->num_nodes : 0;
	uint32_t tpn = ji->ntasks_per_node && ji->ntasks_per_node != NO_VAL16 &&
		       ji->ntasks_per_node != INFINITE16 ? ji->ntasks_per_node : 0;
	uint32_t per_node;
	uint64_t mem = ji->pn_min_memory;

	if (!tasks) {
		uint32_t cpus = ji->num_cpus && ji->num_cpus != NO_VAL ?
				ji->num_cpus : 1;
		tasks = cpus / cpt ? cpus / cpt : 1;
	}
	if (tpn && nodes && tasks < tpn * nodes)
		tasks = tpn * nodes;
	m->tasks = tasks;
	m->task_procs = cpt;
	if (nodes && ji->max_nodes == nodes) {
		/* -N given: the engine's node count only weighs priority, so
		 * an even spread becomes exact tasks per node (an uneven one
		 * is left to Slurm, which adds the nodes it needs to those it
		 * is given). */
		m->nodes = nodes;
		if (!tpn && tasks % nodes == 0)
			tpn = tasks / nodes;
	}
	m->tasks_per_node = tpn;
	per_node = tpn ? tpn :
		   (nodes ? (tasks + nodes - 1) / nodes : tasks);
	if (!per_node)
		per_node = 1;
	if (mem && mem != NO_VAL64) {
		if (mem & MEM_PER_CPU)
			m->task_mem_mb = (mem & ~MEM_PER_CPU) * cpt;
		else
			m->task_mem_mb = (mem + per_node - 1) / per_node;
	}
	if (ji->pn_min_tmp_disk && ji->pn_min_tmp_disk != NO_VAL)
		m->task_disk_mb = (ji->pn_min_tmp_disk + per_node - 1) / per_node;
	if (ji->time_limit != NO_VAL && ji->time_limit != INFINITE)
		m->walltime = (int64_t) ji->time_limit * 60;
}


/* ------------------------------------------- where running jobs run */

static int started_cmp(const void *a, const void *b)
{
	return strcmp(((const struct started_alloc *) a)->id,
		      ((const struct started_alloc *) b)->id);
}

static struct started_alloc *started_find(struct ctx *c, const char *id)
{
	struct started_alloc key, *hit = NULL;
	size_t k;

	snprintf(key.id, sizeof(key.id), "%s", id);
	if (c->nstarted_sorted)
		hit = bsearch(&key, c->started, c->nstarted_sorted, sizeof(key),
			      started_cmp);
	/* This iteration's starts are appended unsorted (a burst of starts
	 * would otherwise sort the table once per start). */
	for (k = c->nstarted_sorted; !hit && k < c->nstarted; k++)
		if (!strcmp(c->started[k].id, id))
			hit = &c->started[k];
	return hit;
}

void gather_remember_start(struct ctx *c, const char *id, const char *alloc)
{
	struct started_alloc *s = started_find(c, id);
	char *copy = strdup(alloc);

	if (!copy)
		return;
	if (s) {
		/* Started again (Slurm did not carry out the first start). */
		free(s->alloc);
		s->alloc = copy;
		return;
	}
	if (c->nstarted == c->capstarted) {
		size_t cap = c->capstarted ? c->capstarted * 2 : 256;
		struct started_alloc *p = realloc(c->started, cap * sizeof(*p));
		if (!p) {
			free(copy);
			return;
		}
		c->started = p;
		c->capstarted = cap;
	}
	s = &c->started[c->nstarted++];
	snprintf(s->id, sizeof(s->id), "%s", id);
	s->alloc = copy;
}

/* Forgets the starts of jobs that are no longer pending or running, so
 * the table never outgrows the queue. */
static void forget_gone(struct ctx *c)
{
	size_t k, n = 0;

	for (k = 0; k < c->nstarted; k++) {
		if (gather_find(c, c->started[k].id))
			c->started[n++] = c->started[k];
		else
			free(c->started[k].alloc);
	}
	c->nstarted = c->nstarted_sorted = n;
}

/* Tasks on `host` in a remembered "node:tasks,..." list; 0 if absent. */
static uint32_t remembered_tasks(const char *alloc, const char *host)
{
	size_t hl = strlen(host);
	const char *p = alloc;

	while (p && *p) {
		if (!strncmp(p, host, hl) && p[hl] == ':')
			return (uint32_t) strtoul(p + hl + 1, NULL, 10);
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

static size_t count_items(const char *csv)
{
	size_t n = 1;

	for (; *csv; csv++)
		n += *csv == ',';
	return n;
}

/* The CPUs of the node called `name` in the loaded node table; -1 when
 * it is not there. */
static int node_cpus(const struct ctx *c, const char *name)
{
	uint32_t k;

	for (k = 0; c->nodes && k < c->nodes->record_count; k++)
		if (c->nodes->node_array[k].name &&
		    !strcmp(c->nodes->node_array[k].name, name))
			return (int) c->nodes->node_array[k].cpus;
	return -1;
}

bool gather_node_completing(const struct ctx *c, const char *name)
{
	uint32_t k;

	for (k = 0; c->nodes && k < c->nodes->record_count; k++)
		if (c->nodes->node_array[k].name &&
		    !strcmp(c->nodes->node_array[k].name, name))
			return (c->nodes->node_array[k].node_state &
				NODE_STATE_COMPLETING) != 0;
	return false;
}

/* Where a running job runs: "node:tasks,..." (tasks = its CPUs there over
 * CPUs per task), from slurmctld's own record of the job's CPUs per node
 * (job_resrcs, copied in place at every release). Without it (a job with
 * no resources record), what the plugin asked for when it started the
 * job, when the job's nodes are those it asked for; else the job is taken
 * as spread evenly, which may put a node's busy CPUs on another: logged
 * once per cause. */
static char *job_allocation(struct ctx *c, const char *id,
			    const slurm_job_info_t *ji, uint32_t cpt,
			    uint32_t *total_tasks)
{
	char *hosts = expand_hosts(ji->nodes), *h, *save = NULL, *out;
	const struct started_alloc *mem = NULL;
	struct sbuf b = { 0 };
	uint32_t nhosts, i = 0;
	bool use_mem = false;

	*total_tasks = 0;
	if (!hosts)
		return NULL;
	nhosts = (uint32_t) count_items(hosts);
	if (ctld_job_cpus_on_node(c->snap, ji, 0) < 0) {
		mem = started_find(c, id);
		if (mem && count_items(mem->alloc) == nhosts) {
			char *copy = astr(hosts), *t, *s2 = NULL;
			use_mem = copy != NULL;
			uint64_t cpus = 0;
			for (t = copy ? strtok_r(copy, ",", &s2) : NULL; t;
			     t = strtok_r(NULL, ",", &s2)) {
				uint32_t n = remembered_tasks(mem->alloc, t);
				use_mem = use_mem && n > 0;
				cpus += (uint64_t) n * (cpt ? cpt : 1);
			}
			/* Slurm may give more CPUs than the tasks asked for
			 * (--exclusive, whole sockets or cores): then what was
			 * asked for is not what the job holds. */
			if (use_mem && ji->num_cpus && cpus != ji->num_cpus)
				use_mem = false;
		}
		if (!use_mem)
			mlog_once(MAUISCHED_LOG_WARN,
				  mem ? "alloc: nodes differ" : "alloc: not started here",
				  "job %s: %s; its CPUs are taken as spread evenly over %s (slurmctld has no per-node CPU count for it; logged once for this cause)",
				  id, mem ? "runs on other nodes than mauisched asked for" :
				  "was not started by this plugin (or before slurmctld restarted)",
				  ji->nodes);
	}
	for (h = strtok_r(hosts, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		uint32_t t;
		if (use_mem) {
			t = remembered_tasks(mem->alloc, h);
		} else {
			int cpus = ctld_job_cpus_on_node(c->snap, ji, (int) i);
			/* An exclusive job holds its nodes whole. */
			if (cpus <= 0 && ji->shared == JOB_SHARED_NONE)
				cpus = node_cpus(c, h);
			if (cpus <= 0)
				cpus = nhosts ? (int) (ji->num_cpus / nhosts) : 1;
			t = (uint32_t) cpus / cpt;
		}
		if (!t)
			t = 1;
		*total_tasks += t;
		sb_fmt(&b, "%s%s:%u", b.len ? "," : "", h, t);
		i++;
	}
	out = b.s ? astr(b.s) : NULL;
	free(b.s);
	return out;
}


/* Applies the queued gate events of this job to the holds it will have.
 * A bare id ("123") names a job or a whole array; "123_4" one task. */
static void apply_events(struct jrec *r, const struct gate_event *ev, size_t n)
{
	size_t i;
	const slurm_job_info_t *ji = r->ji;

	for (i = 0; i < n; i++) {
		const char *ref = ev[i].ref;
		bool match = !strcmp(ref, r->id);
		if (!match && !strchr(ref, '_')) {
			uint32_t id = (uint32_t) strtoul(ref, NULL, 10);
			match = ji->job_id == id ||
				(ji->array_job_id && ji->array_job_id == id);
		}
		if (!match)
			continue;
		/* The gate sends user events for the job's owner only; this
		 * checks it against the job itself (Slurm checks ownership
		 * after the gate has run). */
		if ((ev[i].kind == MAUI_EV_USER_HOLD ||
		     ev[i].kind == MAUI_EV_USER_RELEASE) &&
		    ev[i].uid != ji->user_id && ev[i].uid != 0 &&
		    ev[i].uid != (uint32_t) getuid()) {
			mlog(MAUISCHED_LOG_WARN,
			     "job %s: %s by uid %u ignored: the job belongs to uid %u",
			     r->id, ev[i].kind == MAUI_EV_USER_HOLD ? "hold" : "release",
			     ev[i].uid, ji->user_id);
			continue;
		}
		switch (ev[i].kind) {
		case MAUI_EV_USER_HOLD:
			r->want.uhold = true;
			break;
		case MAUI_EV_USER_RELEASE:
			r->want.uhold = false;
			break;
		case MAUI_EV_SYSTEM_HOLD:
			r->want.shold = true;
			break;
		case MAUI_EV_RELEASE_ALL:
			r->want.uhold = r->want.shold = false;
			break;
		}
		mlog(MAUISCHED_LOG_INFO, "job %s: %s by uid %u", r->id,
		     ev[i].kind == MAUI_EV_USER_HOLD ? "user hold" :
		     ev[i].kind == MAUI_EV_USER_RELEASE ? "user hold released" :
		     ev[i].kind == MAUI_EV_SYSTEM_HOLD ? "system hold" :
		     "all holds released", ev[i].uid);
	}
}


/* A job's generic resources, as Slurm asks for them (per task, per node,
 * per job; the library spreads them). A request mauisched cannot read, or
 * one per socket (the library knows no sockets), keeps a pending job out
 * of the engine, saying why (skip_why); a running one is given without
 * it (logged once), its nodes' resources then taken as free. */
static void job_gres(struct ctx *c, struct jrec *r, const slurm_job_info_t *ji,
		     bool pending)
{
	static const char *field[] = { "tres_per_task", "tres_per_node",
				       "tres_per_job" };
	const char *in[] = { ji->tres_per_task, ji->tres_per_node,
			     ji->tres_per_job };
	const char **out[] = { &r->mj.gres_per_task, &r->mj.gres_per_node,
			       &r->mj.gres_per_job };
	char err[256], why[512], cause[ID_LEN + 32];
	int k;

	why[0] = '\0';
	for (k = 0; k < 3 && !why[0]; k++) {
		char *o;
		if (gres_to_abi(in[k], false, c->gres_skip, &o, err, sizeof(err)) == 0)
			*out[k] = o;
		else
			snprintf(why, sizeof(why),
				 "mauisched cannot read its generic resources, %s=%.200s: %s",
				 field[k], in[k], err);
	}
	if (!why[0] && gres_any(ji->tres_per_socket))
		snprintf(why, sizeof(why),
			 "generic resources per socket (--gpus-per-socket, tres_per_socket=%.200s) are not scheduled by mauisched",
			 ji->tres_per_socket);
	if (!why[0])
		return;
	/* Once per Slurm record (an array's tasks share theirs). */
	snprintf(cause, sizeof(cause), "gres of record %u", ji->job_id);
	mlog_once(MAUISCHED_LOG_WARN, cause, "job %s: %s%s", r->id, why,
		  pending ? "; it is not scheduled" :
		  "; it runs, its generic resources are not counted");
	if (pending) {
		const char *w = astr(why);
		r->skip_why = w ? w : "mauisched cannot read its generic resources";
	}
	else
		r->mj.gres_per_task = r->mj.gres_per_node = r->mj.gres_per_job = NULL;
}


/* The engine job's size, id, credentials, submission time and shape. */
static void job_identity(slurm_job_info_t *ji, const char *id, mauisched_job_t *m)
{
	m->size = sizeof(*m);
	m->id = astr(id);
	m->user = ji->user_name && *ji->user_name ? astr(ji->user_name) :
		  astr(user_name(ji->user_id));
	m->group = astr(group_name(ji->group_id));
	m->account = ji->account && *ji->account ? astr(ji->account) : NULL;
	m->qos = ji->qos && *ji->qos ? astr(ji->qos) : NULL;
	m->submit_time = ji->submit_time;
	job_shape(ji, m);
}

/* Adds one engine job for Slurm record `ji` (id given: array tasks). */
static struct jrec *add_record(struct ctx *c, slurm_job_info_t *ji,
			       const char *id, bool meta_task,
			       const struct gate_event *ev, size_t nev)
{
	struct jrec *r = new_jrec(c);
	mauisched_job_t *m;
	uint32_t base = ji->job_state & JOB_STATE_BASE;
	char *parts, *tok, *save = NULL;
	int first_part = -1, nparts = 0;
	bool any_up = false;
	struct sbuf confine = { 0 };

	if (!r)
		return NULL;
	r->ji = ji;
	snprintf(r->id, sizeof(r->id), "%s", id);
	r->meta_task = meta_task;
	r->pending = base == JOB_PENDING;
	parse_marker(ji->admin_comment, &r->mk);
	r->want = r->mk;
	m = &r->mj;
	job_identity(ji, id, m);
	m->features = and_features(ji->features);
	m->pref_features = and_features(ji->prefer);
	m->exclude_hosts = expand_hosts(ji->exc_nodes);
	m->advres = ji->resv_name && *ji->resv_name ? astr(ji->resv_name) : NULL;
	job_gres(c, r, ji, base == JOB_PENDING);

	/* Partitions: the first is the class; confinement to them is the
	 * engine partition when the partition shares no node, else a host
	 * list. */
	parts = ji->partition ? strdup(ji->partition) : NULL;
	for (tok = parts ? strtok_r(parts, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int k = part_index(c, tok);
		if (nparts++ == 0) {
			m->class_name = astr(tok);
			first_part = k;
		}
		if (k >= 0) {
			any_up = any_up || c->part_up[k];
			if (c->part_nodes[k]) {
				if (confine.len)
					sb_str(&confine, ",");
				sb_str(&confine, c->part_nodes[k]);
			}
		}
	}
	free(parts);

	if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
		uint32_t total = 0;
		m->state = base == JOB_RUNNING ? MAUISCHED_JOB_RUNNING :
			   MAUISCHED_JOB_SUSPENDED;
		m->start_time = ji->start_time;
		m->allocation = job_allocation(c, r->id, ji, m->task_procs, &total);
		if (total)
			m->tasks = total;
		m->nodes = 0;
		m->tasks_per_node = 0;
		if (nparts == 1 && first_part >= 0 && c->part_exclusive[first_part])
			m->partition = m->class_name;
		r->reported = m->allocation != NULL;
		free(confine.s);
		return r;
	}

	/* Pending. */
	m->state = MAUISCHED_JOB_IDLE;
	if (ji->eligible_time > 0)
		m->earliest_start = ji->eligible_time;
	m->dependency_pending = dependency_pending(ji->dependency);
	if (c->internal) {
		/* Holds are Slurm's own (priority 0); a job the gate held
		 * (before the mode was known) takes the holds of its marker,
		 * which then goes (apply). */
		r->want = (struct marker){ 0 };
		r->want.present = true;
		if (r->mk.present) {
			r->ungate = true;
			if (ji->priority == 0 && !r->mk.started) {
				r->want.uhold = r->mk.uhold;
				r->want.shold = r->mk.shold;
			} else if (ji->priority == 0) {
				r->want.uhold = ji->state_reason == WAIT_HELD_USER;
				r->want.shold = !r->want.uhold;
			}
		} else if (ji->priority == 0) {
			r->want.uhold = ji->state_reason == WAIT_HELD_USER;
			r->want.shold = !r->want.uhold;
		}
	} else if (!r->mk.present) {
		/* Not marked by the gate (queued before it was installed, or
		 * AdminComment replaced): Slurm's own hold says which. */
		if (ji->priority == 0) {
			if (ji->state_reason == WAIT_HELD_USER)
				r->want.uhold = true;
			else
				r->want.shold = true;
		}
		r->want.present = true;
	} else if (r->mk.started && ji->priority == 0) {
		/* Requeued and held by Slurm (requeue-hold, special exit). */
		if (ji->state_reason == WAIT_HELD_USER)
			r->want.uhold = true;
		else
			r->want.shold = true;
	}
	r->want.started = false;
	if (!c->internal)
		apply_events(r, ev, nev);
	m->holds = (r->want.uhold ? MAUISCHED_HOLD_USER : 0) |
		   (r->want.shold ? MAUISCHED_HOLD_SYSTEM : 0);
	if (nparts && !any_up)
		m->holds |= MAUISCHED_HOLD_SYSTEM; /* its partitions are down */

	/* The nodes the user asked for: ours replaced them at a start. */
	if (r->mk.started && !c->internal)
		m->hostlist = r->mk.req[0] ? expand_hosts(r->mk.req) : NULL;
	else {
		m->hostlist = expand_hosts(ji->req_nodes);
		if (ji->req_nodes && *ji->req_nodes)
			snprintf(r->want.req, sizeof(r->want.req), "%s",
				 ji->req_nodes);
	}
	if (nparts == 1 && first_part >= 0 && c->part_exclusive[first_part])
		m->partition = m->class_name;
	else if (!m->hostlist && confine.s && nparts &&
		 !(nparts == 1 && first_part >= 0 &&
		   c->parts->partition_array[first_part].total_nodes ==
			   c->nodes->record_count))
		m->hostlist = astr(confine.s);
	free(confine.s);
	if (ji->het_job_id) {
		r->skip_why = "heterogeneous jobs are not scheduled by mauisched";
		return r;
	}
	if (r->skip_why)
		return r; /* its generic resources cannot be read (job_gres) */
	r->reported = true;
	return r;
}


/* Tasks of a pending array record: "0-999%10", "1,3,5-9:2". */
static void add_array_tasks(struct ctx *c, slurm_job_info_t *ji,
			    const struct gate_event *ev, size_t nev)
{
	char *s = strdup(ji->array_task_str), *tok, *save = NULL, *pct;
	char id[ID_LEN];
	unsigned count = 0;

	if (!s)
		return;
	if ((pct = strchr(s, '%')))
		*pct = '\0';
	for (tok = strtok_r(s, ",", &save); tok && count < 100000;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long a, b, step = 1, t;
		char *dash = strchr(tok, '-'), *colon = strchr(tok, ':');
		a = strtoul(tok, NULL, 10);
		b = dash ? strtoul(dash + 1, NULL, 10) : a;
		if (colon)
			step = strtoul(colon + 1, NULL, 10);
		if (!step)
			step = 1;
		for (t = a; t <= b && count < 100000; t += step, count++) {
			snprintf(id, sizeof(id), "%u_%lu", ji->array_job_id, t);
			add_record(c, ji, id, true, ev, nev);
		}
	}
	free(s);
}


/* Builds the records of every job mauisched considers. */
/* Reports a job that ended after it ran (Slurm sets its end time when it
 * completes, fails, is cancelled or times out): its credentials, the CPUs
 * it held, its generic resources, and its start and end. */
static void add_finished(struct ctx *c, slurm_job_info_t *ji, const char *id)
{
	struct jrec tmp;
	mauisched_job_t *m;
	uint32_t cpus = ji->num_cpus && ji->num_cpus != NO_VAL ? ji->num_cpus : 0;

	if (c->nfin == c->capfin) {
		size_t cap = c->capfin ? c->capfin * 2 : 256;
		mauisched_job_t *p = realloc(c->fin, cap * sizeof(*p));
		if (!p)
			return;
		c->fin = p;
		c->capfin = cap;
	}
	memset(&tmp, 0, sizeof(tmp));
	snprintf(tmp.id, sizeof(tmp.id), "%s", id);
	m = &tmp.mj;
	job_identity(ji, id, m);
	if (ji->partition && *ji->partition) {
		/* the partition it ran in (the first, were there a list) */
		char *p = astr(ji->partition), *comma = p ? strchr(p, ',') : NULL;
		if (comma)
			*comma = '\0';
		m->class_name = p;
	}
	if (cpus) {
		/* What it held, as one-CPU tasks (Slurm may give more CPUs than
		 * the tasks asked for). */
		m->task_mem_mb /= m->task_procs ? m->task_procs : 1;
		m->tasks = cpus;
		m->task_procs = 1;
	}
	m->nodes = 0;
	m->tasks_per_node = 0;
	job_gres(c, &tmp, ji, false);
	m->state = (ji->job_state & JOB_STATE_BASE) == JOB_CANCELLED ?
		   MAUISCHED_JOB_REMOVED : MAUISCHED_JOB_COMPLETED;
	m->start_time = ji->start_time;
	m->end_time = ji->end_time;
	if (!m->id || !m->user || !m->group)
		return;
	c->fin[c->nfin++] = *m;
}

static void build_records(struct ctx *c, const struct gate_event *ev,
			  size_t nev)
{
	uint32_t i;
	char id[ID_LEN];

	c->njr = 0;
	c->nfin = 0;
	for (i = 0; c->jobs && i < c->jobs->record_count; i++) {
		slurm_job_info_t *ji = &c->jobs->job_array[i];
		uint32_t base = ji->job_state & JOB_STATE_BASE;

		/* Finished jobs, and those still completing, are reported as
		 * finished only: fairshare charges them up to their end, and
		 * a completing job's nodes are free as far as planning goes
		 * (Slurm starts the next job when they are). A requeued job
		 * is pending while its nodes complete (PENDING|COMPLETING):
		 * queued again, not finished (mauisched keeps its record,
		 * e.g. the preemption that requeued it; its use was charged
		 * while it ran). */
		if (base != JOB_PENDING &&
		    ((ji->job_state & JOB_COMPLETING) ||
		     (base != JOB_RUNNING && base != JOB_SUSPENDED))) {
			if (ji->start_time > 0 && ji->end_time >= ji->start_time) {
				if (ji->array_task_id != NO_VAL)
					snprintf(id, sizeof(id), "%u_%u",
						 ji->array_job_id, ji->array_task_id);
				else
					snprintf(id, sizeof(id), "%u", ji->job_id);
				add_finished(c, ji, id);
			}
			continue;
		}
		if (base == JOB_PENDING && ji->array_task_str &&
		    ji->array_task_id == NO_VAL) {
			add_array_tasks(c, ji, ev, nev);
			continue;
		}
		if (ji->array_task_id != NO_VAL)
			snprintf(id, sizeof(id), "%u_%u", ji->array_job_id,
				 ji->array_task_id);
		else
			snprintf(id, sizeof(id), "%u", ji->job_id);
		add_record(c, ji, id, false, ev, nev);
	}
}


uint64_t gather_fingerprint(const struct ctx *c)
{
	uint64_t h = 1469598103934665603ULL;
	uint32_t i;
	size_t k;

	for (i = 0; i < c->nodes->record_count; i++) {
		node_info_t *n = &c->nodes->node_array[i];
		uint32_t st = node_state(n);
		h = fnv_str(h, n->name);
		h = fnv(h, &st, sizeof(st));
		/* Slurm's own state too: a COMPLETING node maps as free, but
		 * select_nodes refuses it ("Requested nodes are busy") until
		 * its epilog is done. The start that failed then is tried
		 * again when the flag goes; nothing else may change then. */
		h = fnv(h, &n->node_state, sizeof(n->node_state));
		h = fnv(h, &n->cpus, sizeof(n->cpus));
		h = fnv(h, &n->real_memory, sizeof(n->real_memory));
		h = fnv_str(h, n->features_act ? n->features_act : n->features);
		h = fnv(h, &n->weight, sizeof(n->weight));
		h = fnv_str(h, n->gres);
	}
	for (k = 0; k < c->njr; k++) {
		const mauisched_job_t *m = &c->jr[k].mj;
		h = fnv_str(h, m->id);
		h = fnv(h, &m->state, sizeof(m->state));
		h = fnv(h, &m->holds, sizeof(m->holds));
		h = fnv(h, &m->dependency_pending, sizeof(m->dependency_pending));
		h = fnv(h, &m->earliest_start, sizeof(m->earliest_start));
		h = fnv(h, &m->walltime, sizeof(m->walltime));
		h = fnv(h, &m->tasks, sizeof(m->tasks));
		h = fnv(h, &m->task_procs, sizeof(m->task_procs));
		h = fnv(h, &m->task_mem_mb, sizeof(m->task_mem_mb));
		h = fnv(h, &m->nodes, sizeof(m->nodes));
		h = fnv_str(h, m->allocation);
		h = fnv_str(h, m->hostlist);
		h = fnv_str(h, m->exclude_hosts);
		h = fnv_str(h, m->features);
		h = fnv_str(h, m->gres_per_task);
		h = fnv_str(h, m->gres_per_node);
		h = fnv_str(h, m->gres_per_job);
		h = fnv_str(h, m->class_name);
		h = fnv_str(h, m->qos);
		h = fnv_str(h, m->account);
		if (c->internal) {
			/* The plugin writes priorities and reasons itself: only
			 * a hold, and a reason Slurm cleared (an update resets
			 * it), call for an iteration. */
			bool held = c->jr[k].ji->priority == 0;
			bool cleared = c->jr[k].pending &&
				       c->jr[k].ji->state_reason == WAIT_NO_REASON;
			h = fnv(h, &held, sizeof(held));
			h = fnv(h, &cleared, sizeof(cleared));
		} else {
			h = fnv(h, &c->jr[k].ji->priority,
				sizeof(c->jr[k].ji->priority));
		}
	}
	return h;
}


static struct jrec *sort_base;

static int by_id_cmp(const void *a, const void *b)
{
	return strcmp(sort_base[*(const size_t *) a].id,
		      sort_base[*(const size_t *) b].id);
}

/* Indexes the records by id (the plan names jobs by id). */
static void index_records(struct ctx *c)
{
	size_t k, *p = realloc(c->by_id, (c->njr ? c->njr : 1) * sizeof(size_t));

	if (!p)
		return;
	c->by_id = p;
	for (k = 0; k < c->njr; k++)
		p[k] = k;
	sort_base = c->jr;
	qsort(p, c->njr, sizeof(size_t), by_id_cmp);
}

struct jrec *gather_find(struct ctx *c, const char *id)
{
	size_t lo = 0, hi = c->njr;

	while (c->by_id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->jr[c->by_id[mid]].id, id);
		if (!d)
			return &c->jr[c->by_id[mid]];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}


/* The generic resources some node has as no_consume: Slurm does not
 * count them, so neither do the jobs' requests given to the library. */
static void no_consume_names(struct ctx *c)
{
	uint32_t i;

	free(c->gres_skip);
	c->gres_skip = NULL;
	for (i = 0; c->nodes && i < c->nodes->record_count; i++)
		gres_no_consume(c->nodes->node_array[i].gres, &c->gres_skip);
}

/* Says which generic resources the library is given for the nodes,
 * whenever that changes (the first iteration, a reconfigure, a node that
 * registers others), grouped: "generic resources: gpu:4 on n[001-002];
 * gpu:a100:2,gpu:v100:2 on n003". Silent while no node has any. */
static void log_node_gres(struct ctx *c)
{
	struct group {
		char *gres;
		struct sbuf names;
	} *g = NULL;
	uint64_t h = 1469598103934665603ULL;
	size_t ng = 0, k, shown = 0;
	uint32_t i, with = 0;
	struct sbuf line = { 0 };
	bool any = false;

	for (i = 0; c->nodes && i < c->nodes->record_count; i++) {
		const node_info_t *n = &c->nodes->node_array[i];
		h = fnv_str(h, n->name);
		h = fnv_str(h, n->gres);
		any = any || (n->gres && *n->gres);
	}
	if (h == c->gres_logged || (!any && !c->gres_logged_any)) {
		c->gres_logged = h;
		return;
	}
	g = calloc(c->nodes->record_count + 1, sizeof(*g));
	if (!g)
		return;
	c->gres_logged = h;
	c->gres_logged_any = any;
	for (i = 0; i < c->nodes->record_count; i++) {
		const node_info_t *n = &c->nodes->node_array[i];
		char *conv, err[256];
		if (gres_to_abi(n->gres, true, NULL, &conv, err, sizeof(err)) || !conv)
			continue;
		with++;
		for (k = 0; k < ng && strcmp(g[k].gres, conv); k++)
			;
		if (k == ng)
			g[ng++].gres = conv;
		sb_fmt(&g[k].names, "%s%s", g[k].names.len ? "," : "", n->name);
	}
	for (k = 0; k < ng; k++) {
		char *hosts = compress_hosts(g[k].names.s);
		/* Bounded: a site with many kinds of node gets the first. */
		if (line.len < 3000) {
			sb_fmt(&line, "%s%s on %s", k ? "; " : "", g[k].gres,
			       hosts ? hosts : g[k].names.s);
			shown++;
		}
		free(hosts);
		free(g[k].names.s);
	}
	if (shown < ng)
		sb_fmt(&line, "; and %zu other kinds", ng - shown);
	mlog(MAUISCHED_LOG_INFO, "generic resources: %s (%u of %u nodes)",
	     ng ? line.s : "none", with, c->nodes->record_count);
	free(line.s);
	free(g);
}

void gather_build(struct ctx *c, const struct gate_event *ev, size_t nev)
{
	/* The last iteration's starts join the sorted part. */
	if (c->nstarted > c->nstarted_sorted)
		qsort(c->started, c->nstarted, sizeof(*c->started), started_cmp);
	c->nstarted_sorted = c->nstarted;
	map_partitions(c);
	log_node_gres(c);
	no_consume_names(c);
	build_records(c, ev, nev);
	index_records(c);
	forget_gone(c);
}

void gather_node(const struct ctx *c, uint32_t i, mauisched_node_t *mn)
{
	const node_info_t *n = &c->nodes->node_array[i];
	char *g, err[256];

	memset(mn, 0, sizeof(*mn));
	mn->size = sizeof(*mn);
	mn->name = n->name;
	mn->state = node_state(n);
	mn->procs = n->cpus_efctv ? n->cpus_efctv : n->cpus;
	mn->mem_mb = n->real_memory;
	mn->disk_mb = n->tmp_disk;
	mn->features = n->features_act ? n->features_act : n->features;
	if (gres_to_abi(n->gres, true, NULL, &g, err, sizeof(err)) == 0)
		mn->gres = g;
	else {
		char cause[160];
		snprintf(cause, sizeof(cause), "gres of node %.100s", n->name);
		mlog_once(MAUISCHED_LOG_WARN, cause,
			  "node %s: mauisched cannot read its Gres=%s: %s; the node is given without generic resources",
			  n->name, n->gres, err);
	}
	if (c->node_part && c->node_part[i] >= 0)
		mn->partition = c->parts->partition_array[c->node_part[i]].name;
	if (n->cpu_load != NO_VAL)
		mn->load = n->cpu_load / 100.0;
	/* Slurm prefers low weights, Maui high priorities. */
	mn->has_priority = true;
	mn->priority = -(int64_t) n->weight;
}

void gather_free(struct ctx *c)
{
	size_t k;

	ctld_snap_free(&c->snap);
	c->jobs = NULL;
	c->nodes = NULL;
	c->parts = NULL;
	for (k = 0; k < c->nstarted; k++)
		free(c->started[k].alloc);
	free(c->started);
	c->started = NULL;
	c->nstarted = c->nstarted_sorted = c->capstarted = 0;
	free(c->jr);
	free(c->fin);
	c->fin = NULL;
	c->nfin = c->capfin = 0;
	free(c->by_id);
	free(c->node_part);
	free(c->part_exclusive);
	free(c->part_up);
	free(c->part_nodes);
	free(c->gres_skip);
	c->gres_skip = NULL;
	c->jr = NULL;
	c->by_id = NULL;
	c->node_part = NULL;
	c->part_exclusive = c->part_up = NULL;
	c->part_nodes = NULL;
	c->njr = c->capjr = 0;
}

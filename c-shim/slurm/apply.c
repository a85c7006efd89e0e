/*
 * apply.c: the plan -> Slurm. Operator holds and releases become marker
 * changes; each start allocates the job on the nodes the engine chose
 * inside slurmctld, as backfill does (ctld_allocate, then ctld_launch
 * for the round's starts together); pending jobs Slurm
 * could start by itself are held again; then the waiting jobs' reasons go
 * to their AdminComment, only when they change.
 */
#define _GNU_SOURCE
#include "apply.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "loader.h"
#include "reason.h"
#include "util.h"

#define REASON_DEFER_MS 10000 /* longest wait of reasons behind starts */
/* Starts are allocated first and launched after, in rounds of at most
 * this long: a round of 64 starts is allocated in milliseconds instead of
 * one launch (script file read, agent thread) after another, while the
 * first job of a long round waits at most this long for its launch. */
#define START_ROUND_MS 50

/* One update of a job as SlurmUser; logs a failure. */
static int update_job(struct ctx *c, const char *id, uint32_t priority,
		      const char *req_nodes, const char *admin_comment,
		      const char *what)
{
	job_desc_msg_t d;
	job_array_resp_msg_t *resp = NULL;
	int rc, err = 0;
	uint32_t i;

	slurm_init_job_desc_msg(&d);
	d.job_id_str = (char *) id;
	d.priority = priority;
	d.req_nodes = (char *) req_nodes;
	d.admin_comment = (char *) admin_comment;
	rc = slurm_update_job2(&d, &resp);
	if (rc != SLURM_SUCCESS)
		err = maui_slurm_errno();
	for (i = 0; resp && i < resp->job_array_count; i++)
		if (resp->error_code[i] && !err)
			err = (int) resp->error_code[i];
	if (resp)
		slurm_free_job_array_resp(resp);
	if (err) {
		char cause[96];
		/* Once per kind of update and error: the same failure tends to
		 * repeat for many jobs and every iteration. Each one is counted
		 * in the iteration's line and logged at debug level. */
		snprintf(cause, sizeof(cause), "update %s: %d", what, err);
		if (!mlog_once(MAUISCHED_LOG_ERROR, cause,
			       "job %s: %s failed: %s (logged once for this kind of failure; the iteration lines count them)",
			       id, what, slurm_strerror(err)))
			mlog(MAUISCHED_LOG_DEBUG, "job %s: %s failed: %s", id,
			     what, slurm_strerror(err));
		c->update_failures++;
		return -1;
	}
	return 0;
}

/* The text of a waiting job's AdminComment after the marker. */
static void reason_text(struct sbuf *b, const mauisched_plan_t *plan, size_t idx)
{
	uint32_t code = 0, bypass = 0;
	const char *summary = "", *detail = "", *res = "";
	int64_t est = -1;
	char when[48];

	if (L.plan_job_reason(plan, idx, &code, &summary, &detail) != MAUISCHED_OK)
		return;
	sb_str(b, summary && *summary ? summary : "waiting");
	if (detail && *detail && strcmp(detail, summary))
		sb_fmt(b, ": %s", detail);
	if (L.plan_job_schedule(plan, idx, &est, &res, &bypass) == MAUISCHED_OK &&
	    est >= 0) {
		fmt_time((time_t) est, when, sizeof(when));
		sb_fmt(b, "; estimated start %s", when);
	}
}

/* The marker of a pending array record, whose tasks the engine saw one by
 * one. It is addressed as "A_[pending tasks]": Slurm then updates that
 * record alone (a bare "A" would reach the array's running tasks too, and
 * one task would be split out). Held again like any job when Slurm could
 * start its tasks by itself. Returns the updates made. */
static unsigned apply_array_markers(struct ctx *c, const mauisched_plan_t *plan,
				    double t_cos, bool *budget_hit)
{
	size_t k, idx;
	unsigned updates = 0;

	for (k = 0; k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		const slurm_job_info_t *ji = r->ji;
		struct sbuf ac = { 0 };
		char id[ID_LEN + 512], *pct;
		bool holds_changed, any_started = false, regate;
		size_t j;

		if (!r->meta_task || (k > 0 && c->jr[k - 1].ji == ji))
			continue;
		for (j = k; j < c->njr && c->jr[j].ji == ji; j++)
			any_started = any_started || c->jr[j].started_now;
		/* Starting a task split it out of the record: the id below
		 * would now reach the started tasks too. The next iteration
		 * sees what is left. */
		if (any_started)
			continue;
		snprintf(id, sizeof(id), "%u_[%s]", ji->array_job_id,
			 ji->array_task_str);
		if ((pct = strchr(id, '%'))) {
			pct[0] = ']';
			pct[1] = '\0';
		}
		regate = ji->priority != 0;
		holds_changed = !r->mk.present || r->mk.started ||
				r->mk.uhold != r->want.uhold ||
				r->mk.shold != r->want.shold;
		marker_tags(&ac, &r->want, false);
		if (L.plan_job_find(plan, r->id, &idx) == MAUISCHED_OK)
			reason_text(&ac, plan, idx);
		else
			sb_str(&ac, "waiting for mauisched");
		if (regate || !ji->admin_comment || strcmp(ji->admin_comment, ac.s)) {
			if (!regate && !holds_changed &&
			    (*budget_hit ||
			     mono_ms() - t_cos > (double) c->opt.reason_ms)) {
				*budget_hit = true;
			} else {
				update_job(c, id, regate ? 0 : NO_VAL, NULL, ac.s,
					   regate ? "hold again" : "array marker");
				updates++;
			}
		}
		free(ac.s);
	}
	return updates;
}

/* Publishes the pending jobs' holds for the gate. */
static void publish_holds(struct ctx *c)
{
	struct hold_entry *t = malloc((c->njr ? c->njr : 1) * sizeof(*t));
	size_t k, n = 0;

	if (!t)
		return;
	for (k = 0; k < c->njr; k++) {
		const struct jrec *r = &c->jr[k];
		if (!r->pending || r->started_now)
			continue;
		memcpy(t[n].id, r->id, ID_LEN);
		t[n].flags = (r->want.uhold ? HT_UHOLD : 0) |
			     (r->want.shold ? HT_SHOLD : 0);
		n++;
	}
	publish_hold_table(t, n);
}

/* The jobs a plan's reasons are written for: the plan's idle jobs in its
 * order (highest priority first), then the records the engine did not see
 * (`!reported`: jobs it cannot read, heterogeneous ones). Both writers
 * below walk them so; each filters what it does not write. */
struct waiting {
	struct ctx *c;
	const mauisched_plan_t *plan;
	size_t n, i, k;
	/* The current job, set by waiting_next: */
	struct jrec *r;
	bool seen;       /* the engine saw it: `idx` is its plan index */
	size_t idx;
	int64_t prio;    /* the engine's priority (0 when not seen) */
	bool started;    /* the plan starts it */
};

static void waiting_begin(struct waiting *w, struct ctx *c,
			  const mauisched_plan_t *plan)
{
	memset(w, 0, sizeof(*w));
	w->c = c;
	w->plan = plan;
	L.plan_job_count(plan, &w->n);
}

static bool waiting_next(struct waiting *w)
{
	while (w->i < w->n) {
		const char *jid = NULL;
		size_t i = w->i++;

		w->prio = 0;
		w->started = false;
		if (L.plan_job(w->plan, i, &jid, &w->prio, &w->started) !=
			    MAUISCHED_OK ||
		    !(w->r = gather_find(w->c, jid)))
			continue;
		w->seen = true;
		w->idx = i;
		return true;
	}
	while (w->k < w->c->njr) {
		struct jrec *r = &w->c->jr[w->k++];

		if (r->reported)
			continue;
		w->r = r;
		w->seen = false;
		w->prio = 0;
		w->started = false;
		return true;
	}
	return false;
}

/* Slurm's own scheduler off: what each waiting job shows in Slurm's own
 * views, written in place (ctld_write_waiting): the reason in Slurm's
 * words (reason.c), mauisched's estimated start as the job's StartTime
 * (what checkjob and showstart say), and a priority in the engine's
 * order: the engine's own number where it fits Slurm's (1 to 2^32 - 2,
 * as showq shows it), else the rank. Held jobs keep Slurm's hold; the
 * gate's marker of a job held at submission goes. Returns the jobs
 * changed. */
static unsigned write_waiting(struct ctx *c, const mauisched_plan_t *plan)
{
	size_t n = 0, k, nw = 0, nrec = c->jobs ? c->jobs->record_count : 0;
	struct waiting it;
	struct ctld_wait *w;
	int64_t *prio;
	bool *seen, direct = true;
	int64_t last_p = 0;
	char (*desc)[192];
	unsigned changed;

	L.plan_job_count(plan, &n);
	w = calloc(n + c->njr + 1, sizeof(*w));
	prio = calloc(n + c->njr + 1, sizeof(*prio));
	desc = calloc(n + c->njr + 1, sizeof(*desc));
	seen = calloc(nrec + 1, sizeof(*seen));
	if (!w || !prio || !desc || !seen) {
		free(w);
		free(prio);
		free(desc);
		free(seen);
		return 0;
	}
	waiting_begin(&it, c, plan);
	while (waiting_next(&it)) {
		struct jrec *r = it.r;
		struct ctld_wait *x = &w[nw];
		size_t at = (size_t) (r->ji - c->jobs->job_array);
		bool held = r->want.uhold || r->want.shold;

		if (it.started || !r->pending || r->started_now)
			continue;
		/* An array's pending record is one Slurm job: the
		 * first of its tasks (the highest) speaks for it. */
		if (at < nrec) {
			if (seen[at])
				continue;
			seen[at] = true;
		}
		x->id = r->id;
		x->clear_marker = r->ungate;
		if (r->ungate)
			x->hold = r->want.uhold ? CTLD_HOLD_USER :
				  r->want.shold ? CTLD_HOLD_SYSTEM :
						  CTLD_RELEASE;
		if (held) {
			/* Slurm's own hold says it. */
			x->set_start = true;
			nw++;
			continue;
		}
		if (it.seen) {
			uint32_t code = 0, bypass = 0;
			const char *summary = "", *detail = "", *res = "";
			int64_t est = -1;
			struct slurm_reason sr;

			if (L.plan_job_reason(plan, it.idx, &code, &summary,
					      &detail) != MAUISCHED_OK)
				code = MAUISCHED_REASON_PRIORITY;
			slurm_reason_of(code, summary, &sr);
			x->set_reason = !sr.keep;
			x->state_reason = sr.state_reason;
			memcpy(desc[nw], sr.desc, sizeof(sr.desc));
			x->desc = desc[nw];
			x->set_start = true;
			if (L.plan_job_schedule(plan, it.idx, &est, &res, &bypass) ==
				    MAUISCHED_OK && est > 0)
				x->start_time = (time_t) est;
			/* The engine's number where it orders the jobs
			 * strictly and fits Slurm's range. */
			direct = direct && it.prio >= 1 && it.prio <= 0xfffffffeLL &&
				 (!last_p || it.prio < last_p);
			prio[nw] = last_p = it.prio;
		} else {
			/* Not scheduled by mauisched (a heterogeneous
			 * job, one it cannot read): the text says so. */
			x->set_reason = true;
			x->state_reason = WAIT_PRIORITY;
			snprintf(desc[nw], sizeof(desc[nw]), "mauisched: %s",
				 r->skip_why ? r->skip_why : "not scheduled");
			x->desc = desc[nw];
			x->set_start = true;
			prio[nw] = 0;
		}
		nw++;
	}
	/* Priorities in the plan's order (highest first); the jobs it did not
	 * see last. */
	for (k = 0; k < nw; k++) {
		if (!w[k].set_reason)
			continue;
		if (direct && prio[k] > 0)
			w[k].priority = (uint32_t) prio[k];
		else
			w[k].priority = (uint32_t) (nw - k);
	}
	changed = (unsigned) ctld_write_waiting(w, nw);
	free(w);
	free(prio);
	free(desc);
	free(seen);
	return changed;
}

/* canceljob: the job is killed as scancel kills it (SIGKILL to every
 * step of a running job; a pending one is cancelled), as SlurmUser. */
static void cancel_job(struct ctx *c, const char *job, const char *by)
{
	if (!gather_find(c, job)) {
		mlog(MAUISCHED_LOG_WARN,
		     "cancel of job %s by %s: the job is not in Slurm's queue; nothing done",
		     job, by);
		return;
	}
	if (slurm_kill_job2(job, SIGKILL, 0, NULL) != SLURM_SUCCESS) {
		int err = maui_slurm_errno();
		mlog(MAUISCHED_LOG_WARN, "cancel of job %s by %s failed: %s", job,
		     by, slurm_strerror(err));
		c->update_failures++;
		return;
	}
	mlog(MAUISCHED_LOG_INFO, "job %s: cancelled by %s", job, by);
}

/* The error of a job array response, else `rc`'s errno. */
static int array_error(int rc, job_array_resp_msg_t *resp)
{
	int err = rc != SLURM_SUCCESS ? maui_slurm_errno() : 0;
	uint32_t i;

	for (i = 0; resp && i < resp->job_array_count; i++)
		if (resp->error_code[i] && !err)
			err = (int) resp->error_code[i];
	if (resp)
		slurm_free_job_array_resp(resp);
	return err;
}

/* A preemption (REQUEUE: Slurm's requeue, as scontrol requeue; SUSPEND:
 * scontrol suspend, which frees the job's cores and keeps its memory) or
 * the resumption of a job the engine suspended. Returns 0, or -1 when
 * Slurm refused (logged with its words: the starts that wait for it are
 * then not made). */
static int preempt_job(struct ctx *c, uint32_t kind, const char *job,
		       const char *by)
{
	job_array_resp_msg_t *resp = NULL;
	const char *what;
	int rc, err;

	switch (kind) {
	case MAUISCHED_ACTION_REQUEUE:
		what = "requeue";
		rc = slurm_requeue2((char *) job, 0, &resp);
		break;
	case MAUISCHED_ACTION_SUSPEND:
		what = "suspend";
		rc = slurm_suspend2((char *) job, &resp);
		break;
	case MAUISCHED_ACTION_RESUME:
		what = "resume";
		rc = slurm_resume2((char *) job, &resp);
		break;
	default:
		/* CHECKPOINT: refused with maui.cfg (Slurm cannot checkpoint). */
		mlog(MAUISCHED_LOG_ERROR,
		     "preemption of job %s for job %s: checkpoint is not possible with Slurm; nothing done",
		     job, by);
		return -1;
	}
	err = array_error(rc, resp);
	if (err) {
		if (kind == MAUISCHED_ACTION_RESUME)
			mlog(MAUISCHED_LOG_WARN, "job %s: resume refused by Slurm: %s",
			     job, slurm_strerror(err));
		else
			mlog(MAUISCHED_LOG_WARN,
			     "job %s: %s to preempt it for job %s refused by Slurm: %s%s",
			     job, what, by, slurm_strerror(err),
			     kind == MAUISCHED_ACTION_REQUEUE
				     ? " (requeue needs JobRequeue=1 in slurm.conf or sbatch --requeue)"
				     : "");
		c->update_failures++;
		return -1;
	}
	if (kind == MAUISCHED_ACTION_RESUME)
		mlog(MAUISCHED_LOG_INFO, "job %s: resumed (its cores are free again)", job);
	else
		mlog(MAUISCHED_LOG_INFO, "job %s: preempted (%s) for job %s", job,
		     what, by);
	return 0;
}

/* One operator action of the plan. */
static void apply_action(struct ctx *c, uint32_t kind, const char *job,
			 const char *by)
{
	struct jrec *r;
	bool set, user;

	switch (kind) {
	case MAUISCHED_ACTION_CANCEL:
		cancel_job(c, job, by);
		return;
	case MAUISCHED_ACTION_HOLD:
	case MAUISCHED_ACTION_RELEASE:
	case MAUISCHED_ACTION_USER_HOLD:
	case MAUISCHED_ACTION_USER_RELEASE:
		break;
	default:
		mlog(MAUISCHED_LOG_WARN,
		     "action %u on job %s by %s: not known to this plugin; ignored",
		     (unsigned) kind, job, by);
		return;
	}
	set = kind == MAUISCHED_ACTION_HOLD || kind == MAUISCHED_ACTION_USER_HOLD;
	user = kind == MAUISCHED_ACTION_USER_HOLD ||
	       kind == MAUISCHED_ACTION_USER_RELEASE;
	r = gather_find(c, job);
	if (!r || !r->pending) {
		mlog(MAUISCHED_LOG_WARN,
		     "%s of job %s by %s: the job is not pending in Slurm; nothing done",
		     set ? "hold" : "release", job, by);
		return;
	}
	if (user)
		r->want.uhold = set;
	else
		r->want.shold = set;
	if (c->internal) {
		/* Slurm's own holds (priority 0): one reason at a time, the
		 * administrator's first. */
		struct ctld_wait w = { .id = r->id };
		w.hold = r->want.shold ? CTLD_HOLD_SYSTEM :
			 r->want.uhold ? CTLD_HOLD_USER : CTLD_RELEASE;
		ctld_write_waiting(&w, 1);
	}
	mlog(MAUISCHED_LOG_INFO, "job %s: %s hold %s by %s", job,
	     user ? "user" : "system", set ? "placed" : "released", by);
}

/* Applies the plan. Order: operator actions, starts (the latency that
 * matters), jobs to hold again, then marker and reason updates. */
void apply_plan(struct ctx *c, const mauisched_plan_t *plan,
		       unsigned *nstart, unsigned *nbf, unsigned *nupd,
		       double *markers_ms)
{
	size_t n = 0, i, k;
	double t_cos;
	unsigned started = 0, backfilled = 0, updates = 0;
	bool budget_hit = false;
	struct waiting it;
	struct ctld_launch *launches;
	size_t nl = 0;
	double t_round;
	const char **refused = NULL, **requeued = NULL;
	size_t nrefused = 0, nrequeued = 0;

	/* Operator actions: holds and releases (sethold/releasehold, system
	 * or user holds: Slurm's own, or the gate's marker), cancels
	 * (canceljob: Slurm's job kill, as scancel); then the engine's
	 * preemptions and resumptions. A preemption Slurm refuses is
	 * remembered: the starts on what it would have freed are not made.
	 * So is a requeue made: Slurm keeps the job's nodes COMPLETING until
	 * their epilog is done, and select_nodes refuses COMPLETING nodes
	 * (ESLURM_NODES_BUSY), so the starts that wait for it are made by
	 * the iteration that finds the nodes free (the node state change
	 * wakes one up). */
	if (L.plan_action_count(plan, &n) == MAUISCHED_OK) {
		refused = calloc(n + 1, sizeof(*refused));
		requeued = calloc(n + 1, sizeof(*requeued));
		for (i = 0; i < n; i++) {
			uint32_t kind = 0;
			const char *job = NULL, *by = NULL;
			if (L.plan_action(plan, i, &kind, &job, &by) != MAUISCHED_OK)
				continue;
			if (kind >= MAUISCHED_ACTION_REQUEUE &&
			    kind <= MAUISCHED_ACTION_RESUME) {
				if (preempt_job(c, kind, job, by) != 0) {
					if (refused)
						refused[nrefused++] = job;
				} else if (kind == MAUISCHED_ACTION_REQUEUE && requeued)
					requeued[nrequeued++] = job;
				continue;
			}
			apply_action(c, kind, job, by);
		}
	}

	/* Starts: allocated in rounds of START_ROUND_MS, each round's jobs
	 * launched after it. */
	n = 0;
	L.plan_start_count(plan, &n);
	launches = calloc(n + 1, sizeof(*launches));
	t_round = mono_ms();
	for (i = 0; i < n; i++) {
		const char *job = NULL, *res = NULL, *node = NULL, *busy_node;
		bool bf = false;
		size_t nn = 0, j;
		uint32_t tasks = 0;
		struct sbuf nodes = { 0 }, ac = { 0 }, log = { 0 };
		struct jrec *r;
		char *ranged, when[48], sid[ID_LEN];
		int rc;

		if (L.plan_start(plan, i, &job, &bf, &res, &nn) != MAUISCHED_OK)
			continue;
		r = gather_find(c, job);
		if (!r || !r->pending)
			continue;
		if (r->want.shold || r->want.uhold ||
		    hold_queued(r->id, r->ji->job_id)) {
			mlog(MAUISCHED_LOG_INFO, "job %s: not started, a hold came first", job);
			L.start_result(c->h, job, false, "a hold came first");
			continue;
		}
		{
			const char *after = NULL, *failed = NULL, *cleaning = NULL;
			size_t a, q;
			char why[256];

			for (a = 0; !failed && L.plan_start_after(plan, i, a, &after) ==
						       MAUISCHED_OK; a++) {
				for (q = 0; q < nrefused; q++)
					if (!strcmp(refused[q], after))
						failed = after;
				for (q = 0; !cleaning && q < nrequeued; q++)
					if (!strcmp(requeued[q], after))
						cleaning = after;
			}
			if (failed) {
				snprintf(why, sizeof(why),
					 "the preemption of job %s was refused; its resources are not free",
					 failed);
				mlog(MAUISCHED_LOG_WARN, "job %s: not started: %s", job, why);
				L.start_result(c->h, job, false, why);
				continue;
			}
			if (cleaning) {
				snprintf(why, sizeof(why),
					 "Slurm is still releasing the nodes of requeued job %s (COMPLETING)",
					 cleaning);
				mlog(MAUISCHED_LOG_INFO,
				     "job %s: starts once Slurm has released the nodes of requeued job %s (they are COMPLETING until its epilog is done)",
				     job, cleaning);
				L.start_result(c->h, job, false, why);
				continue;
			}
		}
		busy_node = NULL;
		for (j = 0; j < nn; j++) {
			if (L.plan_start_node(plan, i, j, &node, &tasks) != MAUISCHED_OK)
				continue;
			sb_fmt(&nodes, "%s%s", nodes.len ? "," : "", node);
			sb_fmt(&log, "%s%s:%u", log.len ? "," : "", node, tasks);
			if (!busy_node && gather_node_completing(c, node))
				busy_node = node;
		}
		if (!nodes.s) {
			free(log.s);
			continue;
		}
		/* The engine takes a COMPLETING node as free (its jobs are
		 * over), select_nodes does not: the start is made by the
		 * iteration that sees the node's epilog done (its state
		 * change wakes one up), without a refused try meanwhile. */
		if (busy_node) {
			char why[160];
			snprintf(why, sizeof(why),
				 "node %s is still COMPLETING (an epilog runs)",
				 busy_node);
			mlog(MAUISCHED_LOG_DEBUG, "job %s: start on %s waits: %s",
			     job, log.s, why);
			L.start_result(c->h, job, false, why);
			free(nodes.s);
			free(log.s);
			continue;
		}
		ranged = compress_hosts(nodes.s);
		fmt_time(time(NULL), when, sizeof(when));
		marker_tags(&ac, &r->want, true);
		sb_fmt(&ac, "started %s on %s%s%s%s", when, ranged ? ranged : nodes.s,
		       bf ? " by backfill" : "", res && *res ? " in reservation " : "",
		       res && *res ? res : "");
		if (!launches)
			rc = SLURM_ERROR; /* no memory */
		else
			rc = ctld_allocate(r->id, nodes.s, bf,
					   c->internal ? NULL : ac.s, sid,
					   sizeof(sid), &launches[nl]);
		if (rc == SLURM_SUCCESS) {
			nl++;
			r->started_now = true;
			L.start_result(c->h, job, true, NULL);
			gather_remember_start(c, r->id, log.s);
			started++;
			backfilled += bf;
			mlog(MAUISCHED_LOG_INFO, "start job %s on %s%s%s%s%s%s", job, log.s,
			     bf ? " (backfill)" : "", res && *res ? " in reservation " : "",
			     res && *res ? res : "", strcmp(sid, job) ? " as " : "",
			     strcmp(sid, job) ? sid : "");
		} else {
			char cause[96];
			/* Once per error: a job Slurm started meanwhile, or
			 * nodes that are not free after all, come back. */
			snprintf(cause, sizeof(cause), "start: %d", rc);
			if (!mlog_once(MAUISCHED_LOG_WARN, cause,
				       "job %s: not started on %s: %s (logged once for this error; the job is planned again)",
				       job, log.s, slurm_strerror(rc)))
				mlog(MAUISCHED_LOG_DEBUG, "job %s: not started on %s: %s",
				     job, log.s, slurm_strerror(rc));
			c->update_failures++;
			L.start_result(c->h, job, false, slurm_strerror(rc));
		}
		free(ranged);
		free(nodes.s);
		free(ac.s);
		free(log.s);
		if (nl && mono_ms() - t_round > START_ROUND_MS) {
			ctld_launch(launches, nl);
			nl = 0;
			t_round = mono_ms();
		}
	}
	ctld_launch(launches, nl);
	free(launches);
	free(refused);
	free(requeued);
	if (c->internal) {
		*markers_ms = mono_ms();
		updates += write_waiting(c, plan);
		*markers_ms = mono_ms() - *markers_ms;
		c->cosmetic_backlog = false;
		publish_holds(c);
		*nstart = started;
		*nbf = backfilled;
		*nupd = updates;
		return;
	}

	/* Jobs Slurm could start by itself (released, requeued, never gated)
	 * that this plan does not start: held again, with the node list the
	 * user asked for. */
	for (k = 0; k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		struct sbuf ac = { 0 };
		if (!r->pending || r->started_now || r->meta_task ||
		    r->ji->priority == 0)
			continue;
		marker_tags(&ac, &r->want, false);
		sb_str(&ac, "held again: waiting for mauisched");
		if (update_job(c, r->id, 0, r->mk.started ? r->want.req : NULL, ac.s,
			       "hold again") == 0)
			mlog(MAUISCHED_LOG_INFO,
			     "job %s: pending with priority %u and not started by this iteration (requeued, or a start Slurm did not carry out): held again",
			     r->id, r->ji->priority);
		r->regate = true;
		updates++;
		free(ac.s);
	}

	/* Markers and reasons: hold changes always, reason-only changes
	 * within the time budget (the rest next iteration). Top of the queue
	 * first: the plan lists idle jobs in priority order. While this
	 * iteration started jobs, reason-only changes wait (up to
	 * REASON_DEFER_MS): slurmctld is allocating the starts under its job
	 * lock, an update would wait for it and hold back the next poll,
	 * which is what sees the next free node. */
	t_cos = mono_ms();
	budget_hit = started && t_cos - c->last_reasons < REASON_DEFER_MS;
	if (!budget_hit)
		c->last_reasons = t_cos;
	waiting_begin(&it, c, plan);
	while (waiting_next(&it)) {
		struct jrec *r = it.r;
		struct sbuf ac = { 0 };
		bool holds_changed;

		if (!r->pending || r->started_now || r->regate || r->meta_task)
			continue;
		holds_changed = !r->mk.present || r->mk.started ||
				r->mk.uhold != r->want.uhold ||
				r->mk.shold != r->want.shold;
		if (!holds_changed && budget_hit)
			continue;
		marker_tags(&ac, &r->want, false);
		if (it.seen)
			reason_text(&ac, plan, it.idx);
		else
			sb_str(&ac, r->skip_why ? r->skip_why : "not scheduled");
		if (!r->ji->admin_comment || strcmp(r->ji->admin_comment, ac.s)) {
			if (!holds_changed &&
			    mono_ms() - t_cos > (double) c->opt.reason_ms) {
				budget_hit = true;
			} else {
				update_job(c, r->id, NO_VAL, NULL, ac.s,
					   holds_changed ? "hold marker" : "reason");
				updates++;
			}
		}
		free(ac.s);
	}
	updates += apply_array_markers(c, plan, t_cos, &budget_hit);
	c->cosmetic_backlog = budget_hit;
	*markers_ms = mono_ms() - t_cos;
	publish_holds(c);
	*nstart = started;
	*nbf = backfilled;
	*nupd = updates;
}


void apply_unavailable(struct ctx *c, const char *why)
{
	size_t k;
	unsigned updated = 0;

	if (c->internal) {
		/* Nothing starts (Slurm's own scheduler is off): the waiting
		 * jobs say why. */
		struct ctld_wait *w = calloc(c->njr + 1, sizeof(*w));
		char desc[512];
		size_t nw = 0;

		if (!w)
			return;
		snprintf(desc, sizeof(desc), "mauisched: not running (%s)", why);
		for (k = 0; k < c->njr; k++) {
			struct jrec *r = &c->jr[k];
			if (!r->pending || r->ji->priority == 0)
				continue;
			w[nw].id = r->id;
			w[nw].set_reason = true;
			w[nw].state_reason = WAIT_PRIORITY;
			w[nw].desc = desc;
			w[nw].set_start = true;
			nw++;
		}
		updated = (unsigned) ctld_write_waiting(w, nw);
		free(w);
		if (updated)
			mlog(MAUISCHED_LOG_INFO,
			     "%u pending jobs told why they wait: mauisched is not running (%s)",
			     updated, why);
		return;
	}

	for (k = 0; k < c->njr; k++) {
		struct jrec *r = &c->jr[k];
		struct sbuf ac = { 0 };
		bool regate;

		/* Array records are addressed as a whole once the scheduler
		 * runs (apply_array_markers); the gate keeps them held. */
		if (!r->pending || r->meta_task)
			continue;
		regate = r->ji->priority != 0;
		marker_tags(&ac, &r->want, false);
		sb_fmt(&ac, "not scheduled: mauisched is not running (%s)", why);
		if (regate || !r->ji->admin_comment ||
		    strcmp(r->ji->admin_comment, ac.s)) {
			if (update_job(c, r->id, regate ? 0 : NO_VAL,
				       regate && r->mk.started ? r->want.req : NULL,
				       ac.s, regate ? "hold again" : "reason") == 0)
				updated++;
		}
		free(ac.s);
	}
	if (updated)
		mlog(MAUISCHED_LOG_INFO,
		     "%u pending jobs told why they wait: mauisched is not running (%s)",
		     updated, why);
}

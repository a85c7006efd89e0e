/*
 * apply.c: the plan -> Slurm. Operator holds and releases become marker
 * changes; each start is one update (priority INFINITE, the nodes the
 * engine chose) and schedule() allocates it at once; pending jobs Slurm
 * could start by itself are held again; then the waiting jobs' reasons go
 * to their AdminComment, only when they change.
 */
#define _GNU_SOURCE
#include "apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "loader.h"
#include "util.h"

#define REASON_DEFER_MS 10000 /* longest wait of reasons behind starts */
#define START_BATCH 16        /* starts released between schedule() calls */

/* slurmctld's main scheduling pass, exported by the slurmctld binary.
 * Weak: the plugin loads even where it is missing (then Slurm's own pass,
 * every sched_interval, picks the released jobs up). It takes the locks
 * itself; call it holding none. */
extern void schedule(bool full_queue) __attribute__((weak));

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
	char when[32];

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

	/* Operator holds and releases (sethold/releasehold): system holds,
	 * recorded in the marker. */
	if (L.plan_action_count(plan, &n) == MAUISCHED_OK) {
		for (i = 0; i < n; i++) {
			uint32_t kind = 0;
			const char *job = NULL, *by = NULL;
			struct jrec *r;
			if (L.plan_action(plan, i, &kind, &job, &by) != MAUISCHED_OK)
				continue;
			r = gather_find(c, job);
			if (!r || !r->pending) {
				mlog(MAUISCHED_LOG_WARN,
				     "%s of job %s by %s: the job is not pending in Slurm; nothing done",
				     kind == MAUISCHED_ACTION_HOLD ? "hold" : "release",
				     job, by);
				continue;
			}
			r->want.shold = kind == MAUISCHED_ACTION_HOLD;
			mlog(MAUISCHED_LOG_INFO, "job %s: system hold %s by %s",
			     job, kind == MAUISCHED_ACTION_HOLD ? "placed" : "released",
			     by);
		}
	}

	/* Starts. */
	n = 0;
	L.plan_start_count(plan, &n);
	for (i = 0; i < n; i++) {
		const char *job = NULL, *res = NULL, *node = NULL;
		bool bf = false;
		size_t nn = 0, j;
		uint32_t tasks = 0;
		struct sbuf nodes = { 0 }, ac = { 0 }, log = { 0 };
		struct jrec *r;
		char *ranged, when[32];

		if (L.plan_start(plan, i, &job, &bf, &res, &nn) != MAUISCHED_OK)
			continue;
		r = gather_find(c, job);
		if (!r || !r->pending)
			continue;
		if (r->want.shold || r->want.uhold ||
		    hold_queued(r->id, r->ji->job_id)) {
			mlog(MAUISCHED_LOG_INFO, "job %s: not started, a hold came first", job);
			continue;
		}
		for (j = 0; j < nn; j++) {
			if (L.plan_start_node(plan, i, j, &node, &tasks) != MAUISCHED_OK)
				continue;
			sb_fmt(&nodes, "%s%s", nodes.len ? "," : "", node);
			sb_fmt(&log, "%s%s:%u", log.len ? "," : "", node, tasks);
		}
		if (!nodes.s) {
			free(log.s);
			continue;
		}
		ranged = compress_hosts(nodes.s);
		fmt_time(time(NULL), when, sizeof(when));
		marker_tags(&ac, &r->want, true);
		sb_fmt(&ac, "started %s on %s%s%s%s", when, ranged ? ranged : nodes.s,
		       bf ? " by backfill" : "", res && *res ? " in reservation " : "",
		       res && *res ? res : "");
		if (update_job(c, r->id, INFINITE, nodes.s, ac.s, "start") == 0) {
			r->started_now = true;
			gather_remember_start(c, r->id, log.s);
			started++;
			backfilled += bf;
			/* On a busy controller each release takes a while:
			 * let Slurm allocate the first ones meanwhile. */
			if (started % START_BATCH == 0 && schedule)
				schedule(false);
			mlog(MAUISCHED_LOG_INFO, "start job %s on %s%s%s%s", job, log.s,
			     bf ? " (backfill)" : "", res && *res ? " in reservation " : "",
			     res && *res ? res : "");
		}
		free(ranged);
		free(nodes.s);
		free(ac.s);
		free(log.s);
	}
	if (started && schedule)
		schedule(started > 50);

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
	n = 0;
	L.plan_job_count(plan, &n);
	for (i = 0; i <= n; i++) {
		/* i == n: the jobs the engine did not see. */
		size_t lo = i < n ? i : 0, hi = i < n ? i + 1 : c->njr;
		const char *jid = NULL;
		int64_t prio = 0;
		bool st = false;
		struct jrec *one = NULL;

		if (i < n) {
			if (L.plan_job(plan, i, &jid, &prio, &st) != MAUISCHED_OK)
				continue;
			one = gather_find(c, jid);
			if (!one)
				continue;
		}
		for (k = lo; k < hi; k++) {
			struct jrec *r = one ? one : &c->jr[k];
			struct sbuf ac = { 0 };
			bool holds_changed;
			if (!one && r->reported)
				continue;
			if (!r->pending || r->started_now || r->regate || r->meta_task)
				continue;
			holds_changed = !r->mk.present || r->mk.started ||
					r->mk.uhold != r->want.uhold ||
					r->mk.shold != r->want.shold;
			if (!holds_changed && budget_hit)
				continue;
			marker_tags(&ac, &r->want, false);
			if (one)
				reason_text(&ac, plan, i);
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

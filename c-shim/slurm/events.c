/*
 * events.c: the gate's requests and the thread's wake-ups.
 */
#include "events.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "maui_gate.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static bool stop_req;     /* fini */
static bool reconfig_req; /* sched_p_reconfig */
static bool wake_req;     /* a gate event */
static bool accepting;    /* the thread takes gate events */
static bool internal;     /* Slurm's own scheduler is off */
static struct gate_event events[EVENT_CAP];
static size_t nevents;
static struct hold_entry *holdtab;
static size_t nholdtab;

/* Whether `ref` (a job, an array, a task) is known and has no user hold,
 * counting a user hold still queued. Under `mu`. */
static bool known_without_user_hold(const char *ref)
{
	size_t i, n = strlen(ref);
	bool known = false;

	for (i = 0; i < nevents; i++)
		if (events[i].kind == MAUI_EV_USER_HOLD &&
		    !strcmp(events[i].ref, ref))
			return false;
	for (i = 0; i < nholdtab; i++) {
		const char *id = holdtab[i].id;
		if (!strcmp(id, ref) ||
		    (!strchr(ref, '_') && !strncmp(id, ref, n) && id[n] == '_')) {
			if (holdtab[i].flags & HT_UHOLD)
				return false;
			known = true;
		}
	}
	return known;
}

/* Exported to job_submit/maui (see maui_gate.h). */
__attribute__((visibility("default")))
int sched_maui_gate_event(const char *job_ref, int kind, uint32_t uid);

/* Called by job_submit/maui under slurmctld's locks: only our mutex.
 * Returns 1 when the event is taken, 2 when a user's release is refused
 * (the job has no user hold to release), 0 when the scheduler does not
 * run. */
int sched_maui_gate_event(const char *job_ref, int kind, uint32_t uid)
{
	int taken = 0;

	pthread_mutex_lock(&mu);
	if (accepting && internal) {
		/* Holds and releases are Slurm's own: nothing is queued, the
		 * thread only wakes up; a user's release goes ahead only from
		 * a user hold (Slurm's own rule, said first with the gate's
		 * words). */
		if (kind == MAUI_EV_MODE)
			taken = MAUI_MODE_INTERNAL;
		else if (kind == MAUI_EV_USER_RELEASE && job_ref)
			taken = known_without_user_hold(job_ref) ? 2 :
				MAUI_RELEASE_BY_SLURM;
		else
			taken = 1;
		if (taken != 2 && kind != MAUI_EV_MODE) {
			wake_req = true;
			pthread_cond_signal(&cv);
		}
	} else if (accepting) {
		if (kind == MAUI_EV_MODE) {
			taken = 1;
		} else if (kind == MAUI_EV_SUBMIT) {
			taken = 1;
		} else if (kind == MAUI_EV_USER_RELEASE && job_ref &&
			   known_without_user_hold(job_ref)) {
			taken = 2;
		} else if (job_ref && nevents < EVENT_CAP) {
			struct gate_event *e = &events[nevents++];
			snprintf(e->ref, sizeof(e->ref), "%s", job_ref);
			e->kind = kind;
			e->uid = uid;
			taken = 1;
		}
		if (taken == 1) {
			wake_req = true;
			pthread_cond_signal(&cv);
		}
	}
	pthread_mutex_unlock(&mu);
	return taken;
}

void set_internal_mode(bool on)
{
	pthread_mutex_lock(&mu);
	internal = on;
	pthread_mutex_unlock(&mu);
}

bool events_pending(void)
{
	bool any;

	pthread_mutex_lock(&mu);
	any = nevents > 0;
	pthread_mutex_unlock(&mu);
	return any;
}

size_t take_events(struct gate_event **out)
{
	size_t n;

	pthread_mutex_lock(&mu);
	n = nevents;
	*out = NULL;
	if (n) {
		*out = malloc(n * sizeof(**out));
		if (*out)
			memcpy(*out, events, n * sizeof(**out));
		else
			n = 0;
		nevents = 0;
	}
	pthread_mutex_unlock(&mu);
	return n;
}

void requeue_events(const struct gate_event *ev, size_t n)
{
	size_t room;

	if (!n)
		return;
	pthread_mutex_lock(&mu);
	room = EVENT_CAP - nevents;
	if (n > room)
		n = room;
	memmove(&events[n], events, nevents * sizeof(events[0]));
	memcpy(events, ev, n * sizeof(events[0]));
	nevents += n;
	pthread_mutex_unlock(&mu);
}

bool hold_queued(const char *id, uint32_t job_id)
{
	size_t i;
	bool held = false;

	pthread_mutex_lock(&mu);
	for (i = 0; i < nevents && !held; i++)
		if ((events[i].kind == MAUI_EV_USER_HOLD ||
		     events[i].kind == MAUI_EV_SYSTEM_HOLD) &&
		    (!strcmp(events[i].ref, id) ||
		     strtoul(events[i].ref, NULL, 10) == job_id))
			held = true;
	pthread_mutex_unlock(&mu);
	return held;
}

void publish_hold_table(struct hold_entry *t, size_t n)
{
	pthread_mutex_lock(&mu);
	free(holdtab);
	holdtab = t;
	nholdtab = n;
	pthread_mutex_unlock(&mu);
}

void set_accepting(bool on)
{
	pthread_mutex_lock(&mu);
	accepting = on;
	pthread_mutex_unlock(&mu);
}

void request_start(void)
{
	pthread_mutex_lock(&mu);
	stop_req = reconfig_req = false;
	wake_req = true;
	pthread_mutex_unlock(&mu);
}

void request_stop(void)
{
	pthread_mutex_lock(&mu);
	stop_req = true;
	accepting = false;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

void request_reconfig(void)
{
	pthread_mutex_lock(&mu);
	reconfig_req = true;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

void wait_requests(long ms, bool *stop, bool *reconf, bool *wake)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mu);
	while (!stop_req && !reconfig_req && !wake_req)
		if (pthread_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT)
			break;
	*stop = stop_req;
	*reconf = reconfig_req;
	*wake = wake_req;
	reconfig_req = false;
	wake_req = false;
	pthread_mutex_unlock(&mu);
}

void events_clear(void)
{
	pthread_mutex_lock(&mu);
	accepting = false;
	nevents = 0;
	free(holdtab);
	holdtab = NULL;
	nholdtab = 0;
	pthread_mutex_unlock(&mu);
}

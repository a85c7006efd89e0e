/*
 * events.h: what crosses between slurmctld's threads and the scheduling
 * thread: the gate's requests (job_submit/maui calls
 * sched_maui_gate_event under slurmctld's job write lock), fini's and
 * reconfigure's requests, and the holds the gate checks a user's release
 * against. All of it under one mutex that is never held while Slurm or
 * the library is called.
 */
#ifndef MAUI_EVENTS_H
#define MAUI_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVENT_CAP 4096
#define ID_LEN 64

struct gate_event {
	char ref[ID_LEN]; /* "123" (a job or a whole array) or "123_4" */
	int kind;         /* MAUI_EV_* */
	uint32_t uid;
};

/* A pending job's holds as of the last iteration. */
#define HT_UHOLD 1
#define HT_SHOLD 2
struct hold_entry {
	char id[ID_LEN];
	uint8_t flags;
};

/* Whether gate events are queued. */
bool events_pending(void);
/* Takes the queued gate events (malloc()ed, *out NULL when none). */
size_t take_events(struct gate_event **out);
/* Puts events back in front (an iteration that failed did not apply them). */
void requeue_events(const struct gate_event *ev, size_t n);
/* Whether a hold of the job was asked for since the events were taken. */
bool hold_queued(const char *id, uint32_t job_id);
/* Replaces the published holds with `t` (malloc()ed; taken over). */
void publish_hold_table(struct hold_entry *t, size_t n);

/* Whether the gate's events are taken (the thread runs and has slurm.conf). */
void set_accepting(bool on);
/* Whether Slurm's own scheduler is off (maui_gate.h, MAUI_MODE_INTERNAL). */
void set_internal_mode(bool on);

/* Requests to the thread. */
void request_start(void);  /* before the thread starts: clears old requests */
void request_stop(void);
void request_reconfig(void);

/* Sleeps until `ms` passed or a request came; returns the requests seen
 * (and clears the reconfigure and wake requests). */
void wait_requests(long ms, bool *stop, bool *reconf, bool *wake);

/* At the thread's end: drops queued events and the hold table. */
void events_clear(void);

#endif /* MAUI_EVENTS_H */

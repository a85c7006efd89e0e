/*
 * log.h - the daemon's log: one timestamped line per event, to a file or to
 * stderr (the journal, under systemd).
 */
#ifndef MAUISCHED_PBS_LOG_H
#define MAUISCHED_PBS_LOG_H

enum log_level { LOG_ERR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Opens `path` for appending (NULL: stderr).  -1 when it cannot be opened;
 * the previous destination then stays in use. */
int log_open(const char *path);
/* Reopens the current file (after rotation, on SIGHUP). */
void log_reopen(void);
/* Lines above this level are dropped (LOG_INFO unless verbose). */
void log_set_level(enum log_level max);
/* Writes one line: "2024-01-02T03:04:05Z mauisched-pbs[pid]: LEVEL text". */
void log_msg(enum log_level lvl, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* 1 when lines of this level are written (to skip building debug text). */
int log_enabled(enum log_level lvl);

#endif

/*
 * log.c - line-buffered log to a file or stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE *out;
static char out_path[4096];
static enum log_level max_level = LOG_INFO;

int log_open(const char *path)
{
  FILE *f;
  if (path == NULL || *path == '\0') {
    if (out != NULL && out != stderr)
      fclose(out);
    out = stderr;
    out_path[0] = '\0';
    return 0;
  }
  f = fopen(path, "a");
  if (f == NULL)
    return -1;
  setvbuf(f, NULL, _IOLBF, 0);
  if (out != NULL && out != stderr)
    fclose(out);
  out = f;
  snprintf(out_path, sizeof out_path, "%s", path);
  return 0;
}

void log_reopen(void)
{
  char path[sizeof out_path];
  if (out_path[0] == '\0')
    return;
  memcpy(path, out_path, sizeof path);
  if (log_open(path) != 0)
    log_msg(LOG_ERR, "cannot reopen log file %s; still writing to the old one", path);
}

void log_set_level(enum log_level max)
{
  max_level = max;
}

int log_enabled(enum log_level lvl)
{
  return lvl <= max_level;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
  static const char *const names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
  char ts[32];
  struct timespec now;
  struct tm tm;
  va_list ap;
  FILE *f = out ? out : stderr;

  if (lvl > max_level)
    return;
  clock_gettime(CLOCK_REALTIME, &now);
  gmtime_r(&now.tv_sec, &tm);
  strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  fprintf(f, "%s.%03ldZ mauisched-pbs[%ld]: %s ", ts, now.tv_nsec / 1000000L,
          (long)getpid(), names[lvl]);
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fflush(f);
}

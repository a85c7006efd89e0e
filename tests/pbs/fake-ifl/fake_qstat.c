/*
 * fake_qstat.c - `qstat -f` for the IFL test double.
 *
 *   fake-qstat [ID...]     every job, or the jobs named (an array's id,
 *                          "12[].vm", names its jobs), as pbs_statjob
 *                          returns them, in the fixture format
 *
 * Built with fake_ifl.c, it is one more IFL client of the double's server:
 * with FAKE_IFL_STATE the server outlives each process, and control lines
 * appended since the last call (FAKE_IFL_CONTROL) take effect at this
 * one's, as they would at any client's.  Exit status 1 when a job is
 * unknown (pbs_errno and the server's message on stderr), 2 without a
 * connection.  Declares the few IFL calls it uses itself, like the daemon.
 */
#include <stdio.h>

struct attrl {
  struct attrl *next;
  char *name;
  char *resource;
  char *value;
  int op;
};

struct batch_status {
  struct batch_status *next;
  char *name;
  struct attrl *attribs;
  char *text;
};

extern int pbs_errno;
int pbs_connect(char *server);
int pbs_disconnect(int conn);
struct batch_status *pbs_statjob(int conn, char *id, struct attrl *attrib, char *extend);
void pbs_statfree(struct batch_status *bs);
char *pbs_geterrmsg(int conn);
char *pbs_strerror(int err);

static int show(int conn, char *id)
{
  struct batch_status *bs, *p;
  struct attrl *a;
  pbs_errno = 0;
  bs = pbs_statjob(conn, id, NULL, NULL);
  if (bs == NULL && pbs_errno != 0) {
    const char *m = pbs_geterrmsg(conn), *t = pbs_strerror(pbs_errno);
    fprintf(stderr, "fake-qstat: %s: pbs_errno %d %s%s%s\n", id ? id : "(all)", pbs_errno,
            t ? t : "", m ? ": " : "", m ? m : "");
    return 1;
  }
  for (p = bs; p != NULL; p = p->next) {
    printf("job %s\n", p->name);
    for (a = p->attribs; a != NULL; a = a->next)
      printf("    %s%s%s = %s\n", a->name, a->resource ? "." : "", a->resource ? a->resource : "",
             a->value);
  }
  pbs_statfree(bs);
  return 0;
}

int main(int argc, char **argv)
{
  int conn = pbs_connect(NULL), rc = 0, i;
  if (conn < 0) {
    fprintf(stderr, "fake-qstat: pbs_connect: %d (pbs_errno %d)\n", conn, pbs_errno);
    return 2;
  }
  if (argc < 2)
    rc = show(conn, NULL);
  for (i = 1; i < argc; i++)
    rc |= show(conn, argv[i]);
  pbs_disconnect(conn);
  return rc;
}

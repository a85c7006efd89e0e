/*
 * test_evsrc_filter.c - who may send scheduler commands (evsrc_pbs.c).
 *
 * pbs_server connects from its own host and a privileged port; the filter
 * accepts loopback, this host, the configured server and --allow-host
 * addresses from ports below 1024, unless told otherwise.  Addresses are
 * numeric here so no name service is involved.
 *
 * Prints "N checks, M failed"; exit 1 on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "evsrc.h"

static int checks, failed;

#define CHECK(cond)                                                         \
  do {                                                                      \
    checks++;                                                               \
    if (!(cond)) {                                                          \
      failed++;                                                             \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                \
    }                                                                       \
  } while (0)

static int allowed(const struct event_source *es, const char *addr, int port,
                   const char **why)
{
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)port);
  inet_pton(AF_INET, addr, &sa.sin_addr);
  *why = NULL;
  return evsrc_pbs_peer_allowed(es, &sa, why);
}

int main(void)
{
  struct event_source es;
  struct evsrc_pbs_opts o;
  struct strlist extra = {0};
  const char *why;
  char err[256];

  strlist_add(&extra, "192.0.2.77");
  memset(&o, 0, sizeof o);
  o.listen_addr = "127.0.0.1";
  o.port = 0; /* any free port */
  o.server_host = "10.9.8.7";
  o.allow_hosts = &extra;
  if (evsrc_pbs_open(&es, &o, err, sizeof err) != 0) {
    printf("FAIL cannot open listener: %s\n", err);
    return 1;
  }
  CHECK(evsrc_pbs_port(&es) > 0);

  /* default: privileged ports from loopback, the server, --allow-host */
  CHECK(allowed(&es, "127.0.0.1", 1023, &why));
  CHECK(allowed(&es, "127.0.0.1", 730, &why));
  CHECK(allowed(&es, "127.1.2.3", 802, &why));
  CHECK(allowed(&es, "10.9.8.7", 800, &why));
  CHECK(allowed(&es, "192.0.2.77", 800, &why));
  CHECK(!allowed(&es, "127.0.0.1", 1024, &why));
  CHECK(why != NULL && strstr(why, "not privileged") != NULL);
  CHECK(!allowed(&es, "10.9.8.7", 40000, &why));
  CHECK(!allowed(&es, "10.9.8.8", 800, &why));
  CHECK(why != NULL && strstr(why, "neither loopback") != NULL);
  CHECK(!allowed(&es, "198.51.100.1", 700, &why));

  /* --allow-unprivileged: any port, same addresses */
  CHECK(es.set_filter(&es, "10.9.8.7", 0, 1, NULL) == 0);
  CHECK(allowed(&es, "127.0.0.1", 50000, &why));
  CHECK(allowed(&es, "10.9.8.7", 50000, &why));
  CHECK(!allowed(&es, "10.9.8.8", 800, &why));
  CHECK(!allowed(&es, "192.0.2.77", 800, &why)); /* no longer listed */

  /* --allow-any-host: any address, privileged ports only */
  CHECK(es.set_filter(&es, "10.9.8.7", 1, 0, NULL) == 0);
  CHECK(allowed(&es, "198.51.100.1", 700, &why));
  CHECK(!allowed(&es, "198.51.100.1", 7000, &why));

  CHECK(strcmp(evsrc_pbs_command_name(1), "NEW") == 0);
  CHECK(strcmp(evsrc_pbs_command_name(2), "TERM") == 0);
  CHECK(strcmp(evsrc_pbs_command_name(10), "FIRST") == 0);
  CHECK(strcmp(evsrc_pbs_command_name(99), "unknown") == 0);

  es.close(&es);
  strlist_free(&extra);
  printf("%d checks, %d failed\n", checks, failed);
  return failed ? 1 : 0;
}

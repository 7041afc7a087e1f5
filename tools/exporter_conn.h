/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat-exporter's slow clients (exporter_conn.c): every HTTP
 * connection tracked from its start, so that one whose request has not
 * arrived whole in time is shut down, and an address has at most so many
 * connections waiting for their first request. It knows sockets, not
 * HTTP: the server tells it what happens to a connection.
 */
#ifndef __MEMCGSTAT_EXPORTER_CONN_H
#define __MEMCGSTAT_EXPORTER_CONN_H

#include <pthread.h>
#include <stdbool.h>

struct sockaddr;
struct conn_track;

struct conn_tracker {
	pthread_mutex_t lock;		/* the fields below */
	pthread_cond_t stop_cond;	/* the sweeper: stopping */
	struct conn_track *tracks;
	bool stopping;
	bool running;			/* the sweeper started, not yet joined */
	pthread_t sweeper;
	long max_per_ip;		/* --max-waiting-per-ip */
	long header_timeout;		/* --header-timeout, seconds */
};

/*
 * Start @ct's sweeper, which shuts down every connection waiting
 * @header_timeout seconds for a request: 0, or the exit status (1), said.
 */
int conn_tracker_start(struct conn_tracker *ct, long max_per_ip, long header_timeout);
/* Stop the sweeper (if started), once every connection is closed. */
void conn_tracker_stop(struct conn_tracker *ct);

/*
 * A connection opened on @fd from @addr (NULL, or not IP: an address of
 * its own). Shut down at once if its address has max_per_ip connections
 * waiting for their first request already. Its track, for the calls
 * below, or NULL without memory: untracked, the idle timeout alone.
 */
struct conn_track *conn_opened(struct conn_tracker *ct, int fd, const struct sockaddr *addr);
/* A request of @t arrived whole (@in), or its reply is done. */
void conn_request(struct conn_tracker *ct, struct conn_track *t, bool in);
/* @t closed, before its fd is: freed. */
void conn_closed(struct conn_tracker *ct, struct conn_track *t);

#endif /* __MEMCGSTAT_EXPORTER_CONN_H */

// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Slow clients. libmicrohttpd's --timeout closes a connection idle that
 * long, but a client sending a byte of its headers every few seconds is
 * never idle: 300 such clients took every connection and 4 of 10 scrapes
 * of a real client failed (exporter.sh, slow_clients). So each connection
 * is tracked from its start: a request must have arrived whole
 * --header-timeout after the connection opened or after the reply before
 * it, else the sweeper shuts the socket down (libmicrohttpd then closes
 * it). And an address may have --max-waiting-per-ip connections whose
 * first request has not arrived whole: one more is shut down at its start,
 * so a few hundred from one address cannot take every connection.
 * Connections that send their requests at once, however many, are not
 * held back (libmicrohttpd's own per-address limit also counts those, and
 * failed exporter.sh's 50 concurrent scrapers opening connections at
 * 14,000/s).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "common.h"
#include "exporter_conn.h"

struct conn_track {
	struct conn_track *next, **pprev;
	struct sockaddr_storage addr;
	int fd;
	double since;		/* opened, or the last reply */
	bool in_request;	/* headers arrived: being answered */
	bool answered;		/* a request of it was: not waiting */
	bool cut;		/* shut down: never again (its fd may be reused) */
};

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return false;
}

struct conn_track *conn_opened(struct conn_tracker *ct, int fd, const struct sockaddr *addr)
{
	struct conn_track *t = calloc(1, sizeof(*t)), *o;
	long waiting = 0;

	if (!t)
		return NULL;
	t->fd = fd;
	t->since = now(CLOCK_MONOTONIC);
	if (addr && (addr->sa_family == AF_INET || addr->sa_family == AF_INET6))
		memcpy(&t->addr, addr, addr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	pthread_mutex_lock(&ct->lock);
	for (o = ct->tracks; o && waiting < ct->max_per_ip; o = o->next)
		waiting += !o->in_request && !o->answered && same_addr(&o->addr, &t->addr);
	if (waiting >= ct->max_per_ip) {
		shutdown(t->fd, SHUT_RDWR);
		t->cut = true;
	}
	t->next = ct->tracks;
	if (ct->tracks)
		ct->tracks->pprev = &t->next;
	t->pprev = &ct->tracks;
	ct->tracks = t;
	pthread_mutex_unlock(&ct->lock);
	return t;
}

void conn_closed(struct conn_tracker *ct, struct conn_track *t)
{
	pthread_mutex_lock(&ct->lock);
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
	pthread_mutex_unlock(&ct->lock);
	free(t);
}

void conn_request(struct conn_tracker *ct, struct conn_track *t, bool in)
{
	pthread_mutex_lock(&ct->lock);
	t->in_request = in;
	t->answered |= !in;
	t->since = now(CLOCK_MONOTONIC);
	pthread_mutex_unlock(&ct->lock);
}

static void *sweeper(void *arg)
{
	struct conn_tracker *ct = arg;
	struct conn_track *t;
	struct timespec ts;
	double n;

	pthread_mutex_lock(&ct->lock);
	while (!ct->stopping) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&ct->stop_cond, &ct->lock, &ts);
		n = now(CLOCK_MONOTONIC);
		for (t = ct->tracks; t; t = t->next) {
			if (t->cut || t->in_request || n - t->since < ct->header_timeout)
				continue;
			/*
			 * libmicrohttpd closes the fd after the CLOSED
			 * notification, which takes ct->lock: the fd is
			 * still this connection's here, but only until then.
			 */
			shutdown(t->fd, SHUT_RDWR);
			t->cut = true;
		}
	}
	pthread_mutex_unlock(&ct->lock);
	return NULL;
}

int conn_tracker_start(struct conn_tracker *ct, long max_per_ip, long header_timeout)
{
	int err;

	memset(ct, 0, sizeof(*ct));
	ct->max_per_ip = max_per_ip;
	ct->header_timeout = header_timeout;
	err = pthread_mutex_init(&ct->lock, NULL);
	if (!err) {
		err = pthread_cond_init(&ct->stop_cond, NULL);
		if (err)
			pthread_mutex_destroy(&ct->lock);
	}
	if (err) {
		p_err("cannot set up the connection sweeper: %s", strerror(err));
		return 1;
	}
	err = pthread_create(&ct->sweeper, NULL, sweeper, ct);
	if (err) {
		p_err("cannot start the connection sweeper: %s", strerror(err));
		pthread_cond_destroy(&ct->stop_cond);
		pthread_mutex_destroy(&ct->lock);
		return 1;
	}
	ct->running = true;
	return 0;
}

void conn_tracker_stop(struct conn_tracker *ct)
{
	if (!ct->running)
		return;
	pthread_mutex_lock(&ct->lock);
	ct->stopping = true;
	pthread_cond_signal(&ct->stop_cond);
	pthread_mutex_unlock(&ct->lock);
	pthread_join(ct->sweeper, NULL);
	ct->running = false;
	pthread_cond_destroy(&ct->stop_cond);
	pthread_mutex_destroy(&ct->lock);
}

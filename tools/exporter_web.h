/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * memcgstat-exporter's --web.config.file: the YAML of Prometheus
 * exporter-toolkit's web configuration (TLS, client certificates, basic
 * auth), the subset memcgstat-exporter serves, checked whole at start.
 */
#ifndef __MEMCGSTAT_EXPORTER_WEB_H
#define __MEMCGSTAT_EXPORTER_WEB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* The digest of the last password a user's bcrypt hash accepted. */
#define WEB_DIGEST_LEN	32

struct web_user {
	char *name;
	char *hash;			/* bcrypt: $2a$, $2b$ or $2y$ */
	unsigned char ok_digest[WEB_DIGEST_LEN];
	bool have_ok_digest;		/* under web_config.lock */
};

struct web_config {
	/* PEM, NUL-terminated, as libmicrohttpd takes them; NULL: plain HTTP */
	char *cert, *key;
	char *client_ca;		/* with require_client_cert only */
	bool require_client_cert;	/* RequireAndVerifyClientCert */
	struct web_user *users;		/* basic_auth_users; none: no auth */
	size_t nr_users;
	pthread_mutex_t lock;		/* the users' ok_digest */
	unsigned char digest_key[WEB_DIGEST_LEN];
};

/*
 * Read and check the web configuration at @path into @wc: every key known,
 * the files it names readable and valid PEM (a key that matches its
 * certificate), every hash bcrypt. Paths are relative to @path's
 * directory. 0, or the exit status (1), said why.
 */
int web_config_load(const char *path, struct web_config *wc);
void web_config_free(struct web_config *wc);

/*
 * Whether @user with @password (NULL: no credentials) may read: true when
 * no users are configured. bcrypt compared in constant time; an unknown
 * user costs a bcrypt too. A password accepted once is remembered as a
 * keyed digest, so a scraper's every request does not cost a bcrypt.
 */
bool web_authorized(struct web_config *wc, const char *user, const char *password);

#endif /* __MEMCGSTAT_EXPORTER_WEB_H */

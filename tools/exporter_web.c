// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat-exporter's web configuration: the YAML file of Prometheus
 * exporter-toolkit's --web.config.file, parsed with libyaml, strictly: a
 * key it does not know, or knows and memcgstat-exporter does not serve,
 * is an error at start, not a setting silently ignored. The TLS files are
 * loaded and tried with GnuTLS (libmicrohttpd's TLS library) here, so that
 * a bad one is named at start; passwords are checked with libxcrypt's
 * bcrypt.
 */
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <yaml.h>
#include "common.h"
#include "exporter_web.h"

/* A PEM file is a few KiB; a chain of a dozen certificates stays far below. */
#define MAX_PEM		(1 << 20)

/* Where tls_server_config's values came from, for the checks after it. */
struct tls_src {
	const yaml_node_t *key, *ca, *auth;
};

/* One configuration file being read: its name and directory for messages and paths. */
struct web_load {
	const char *path;
	char dir[4096];
	yaml_document_t doc;
	struct web_config *wc;
	struct tls_src tls;
};

static int web_err(const struct web_load *l, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "PATH:LINE: message" (the node's line, 1-based), exit status 1. */
static int web_err(const struct web_load *l, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		p_err("--web.config.file %s:%zu: %s", l->path, n->start_mark.line + 1, msg);
	else
		p_err("--web.config.file %s: %s", l->path, msg);
	return 1;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* YAML's null, as a plain scalar: the value of "key:" with nothing after it. */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

/*
 * Each pair of mapping @map to @fn, keys checked to be scalars and unique.
 * A null instead of a mapping is an empty one.
 */
static int each_pair(struct web_load *l, yaml_node_t *map, const char *what,
		     int (*fn)(struct web_load *l, const char *key, yaml_node_t *k, yaml_node_t *v))
{
	yaml_node_pair_t *p, *q;
	int ret;

	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return web_err(l, map, "%s: not a mapping", what);
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, p->value);
		const char *key = scalar(k);

		if (!key)
			return web_err(l, k, "%s: a key that is not a string", what);
		for (q = map->data.mapping.pairs.start; q < p; q++)
			if (!strcmp(key, scalar(yaml_document_get_node(&l->doc, q->key)) ?: ""))
				return web_err(l, k, "%s: '%s' given twice", what, key);
		ret = fn(l, key, k, v);
		if (ret)
			return ret;
	}
	return 0;
}

/* The whole of @path (relative: to the configuration's directory), NUL-terminated. */
static int read_pem(struct web_load *l, const yaml_node_t *n, const char *key,
		    const char *path, char **out)
{
	char full[8192];
	size_t len = 0;
	char *buf;
	FILE *f;

	if (path[0] == '/')
		snprintf(full, sizeof(full), "%s", path);
	else if (snprintf(full, sizeof(full), "%s/%s", l->dir, path) >= (int)sizeof(full))
		return web_err(l, n, "%s: path too long", key);
	f = fopen(full, "re");
	if (!f)
		return web_err(l, n, "%s: cannot open %s: %s", key, full, strerror(errno));
	buf = malloc(MAX_PEM + 1);
	if (buf)
		len = fread(buf, 1, MAX_PEM + 1, f);
	if (!buf || ferror(f) || len > MAX_PEM || !len) {
		int err = errno, failed = ferror(f);

		fclose(f);
		free(buf);
		if (!buf)
			return web_err(l, n, "out of memory");
		return web_err(l, n, "%s: cannot read %s: %s", key, full,
			       failed ? strerror(err) : len > MAX_PEM ? "larger than 1 MiB" : "empty");
	}
	fclose(f);
	buf[len] = '\0';
	free(*out);
	*out = buf;
	return 0;
}

static int tls_pair(struct web_load *l, const char *key, yaml_node_t *k, yaml_node_t *v)
{
	const char *s = scalar(v);
	struct web_config *wc = l->wc;

	if (strcmp(key, "cert_file") && strcmp(key, "key_file") && strcmp(key, "client_ca_file") &&
	    strcmp(key, "client_auth_type"))
		return web_err(l, k, "tls_server_config: unknown or unsupported key '%s' (cert_file, key_file, client_ca_file, client_auth_type)",
			       key);
	if (!s)
		return web_err(l, v, "tls_server_config: %s: not a string", key);
	if (is_null(v))
		return 0;	/* as if not given */
	if (!strcmp(key, "cert_file"))
		return read_pem(l, v, key, s, &wc->cert);
	if (!strcmp(key, "key_file")) {
		l->tls.key = v;
		return read_pem(l, v, key, s, &wc->key);
	}
	if (!strcmp(key, "client_ca_file")) {
		l->tls.ca = v;
		return read_pem(l, v, key, s, &wc->client_ca);
	}
	l->tls.auth = v;
	if (!strcmp(s, "NoClientCert"))
		wc->require_client_cert = false;
	else if (!strcmp(s, "RequireAndVerifyClientCert"))
		wc->require_client_cert = true;
	else if (!strcmp(s, "RequestClientCert") || !strcmp(s, "RequireAnyClientCert") ||
		 !strcmp(s, "VerifyClientCertIfGiven"))
		return web_err(l, v, "client_auth_type %s is not supported (NoClientCert or RequireAndVerifyClientCert)",
			       s);
	else
		return web_err(l, v, "client_auth_type: unknown '%s' (NoClientCert or RequireAndVerifyClientCert)",
			       s);
	return 0;
}

/*
 * The files GnuTLS would be given, tried now: certificate and key that
 * parse and belong together, a client CA file with a certificate in it.
 */
static int tls_check(struct web_load *l, const yaml_node_t *tls)
{
	struct web_config *wc = l->wc;
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert, key, ca;
	int err;

	if (!wc->cert || !wc->key) {
		free(wc->cert);
		free(wc->key);
		wc->cert = wc->key = NULL;
		return web_err(l, tls, "tls_server_config: needs both cert_file and key_file");
	}
	if (wc->require_client_cert && !wc->client_ca)
		return web_err(l, l->tls.auth, "client_auth_type RequireAndVerifyClientCert needs client_ca_file");
	if (wc->client_ca && !wc->require_client_cert)
		return web_err(l, l->tls.ca, "client_ca_file without client_auth_type RequireAndVerifyClientCert: client certificates would not be checked");
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return web_err(l, NULL, "out of memory");
	cert = (gnutls_datum_t){ (unsigned char *)wc->cert, strlen(wc->cert) };
	key = (gnutls_datum_t){ (unsigned char *)wc->key, strlen(wc->key) };
	err = gnutls_certificate_set_x509_key_mem(cred, &cert, &key, GNUTLS_X509_FMT_PEM);
	if (err < 0) {
		gnutls_certificate_free_credentials(cred);
		return web_err(l, l->tls.key, "cert_file and key_file: %s (PEM certificate and its unencrypted PEM key)",
			       gnutls_strerror(err));
	}
	if (wc->client_ca) {
		ca = (gnutls_datum_t){ (unsigned char *)wc->client_ca, strlen(wc->client_ca) };
		err = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (err <= 0) {
			gnutls_certificate_free_credentials(cred);
			return web_err(l, l->tls.ca, "client_ca_file: %s",
				       err < 0 ? gnutls_strerror(err) : "no PEM certificate in it");
		}
	}
	gnutls_certificate_free_credentials(cred);
	return 0;
}

static int tls_config(struct web_load *l, yaml_node_t *v)
{
	int ret;

	ret = each_pair(l, v, "tls_server_config", tls_pair);
	if (ret || is_null(v))
		return ret;
	return tls_check(l, v);
}

/* libxcrypt's bcrypt settings: "$2b$NN$" then 53 characters of its base64. */
static bool is_bcrypt(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	size_t i;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return false;
	if ((h[4] - '0') * 10 + h[5] - '0' < 4 || (h[4] - '0') * 10 + h[5] - '0' > 31)
		return false;
	for (i = 7; i < 60; i++)
		if (!memchr(b64, h[i], sizeof(b64) - 1))
			return false;
	return true;
}

static int user_pair(struct web_load *l, const char *key, yaml_node_t *k, yaml_node_t *v)
{
	struct web_config *wc = l->wc;
	struct web_user *u;
	struct crypt_data cd = {};
	const char *hash = scalar(v), *out;
	char setting[32];

	if (!*key || strchr(key, ':'))
		return web_err(l, k, "basic_auth_users: '%s' cannot be a user name (empty, or has a ':')",
			       key);
	if (!hash || is_null(v))
		return web_err(l, v, "basic_auth_users: %s: not a string (a bcrypt hash)", key);
	if (!is_bcrypt(hash))
		return web_err(l, v, "basic_auth_users: %s: not a bcrypt hash ($2y$, $2b$ or $2a$, cost 04-31, 60 characters; htpasswd -nBC 10 %s)",
			       key, key);
	/*
	 * Whether libxcrypt takes its variant and salt ('*' if not), at cost
	 * 04: the hash's own cost may be seconds per bcrypt at start.
	 */
	snprintf(setting, sizeof(setting), "%.4s04$%.22s", hash, hash + 7);
	out = crypt_rn("", setting, &cd, sizeof(cd));
	if (!out || out[0] == '*')
		return web_err(l, v, "basic_auth_users: %s: libxcrypt refuses the hash: %s", key,
			       out ? "not a hash it reads" : strerror(errno));
	u = realloc(wc->users, (wc->nr_users + 1) * sizeof(*u));
	if (!u)
		return web_err(l, NULL, "out of memory");
	wc->users = u;
	u = &wc->users[wc->nr_users];
	memset(u, 0, sizeof(*u));
	u->name = strdup(key);
	u->hash = strdup(hash);
	wc->nr_users++;
	if (!u->name || !u->hash)
		return web_err(l, NULL, "out of memory");
	return 0;
}

static int top_pair(struct web_load *l, const char *key, yaml_node_t *k, yaml_node_t *v)
{
	if (!strcmp(key, "tls_server_config"))
		return tls_config(l, v);
	if (!strcmp(key, "basic_auth_users"))
		return each_pair(l, v, "basic_auth_users", user_pair);
	return web_err(l, k, "unknown or unsupported key '%s' (tls_server_config, basic_auth_users)",
		       key);
}

static int load_doc(struct web_load *l, FILE *f)
{
	yaml_parser_t parser;
	yaml_document_t extra;
	yaml_node_t *root;
	int ret = 0;

	if (!yaml_parser_initialize(&parser))
		return web_err(l, NULL, "out of memory");
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &l->doc)) {
		ret = web_err(l, NULL, "line %zu: %s", parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return ret;
	}
	root = yaml_document_get_root_node(&l->doc);
	/* one document only: a second would be ignored */
	if (root && !yaml_parser_load(&parser, &extra)) {
		ret = web_err(l, NULL, "line %zu: %s", parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "not YAML");
	} else if (root) {
		if (yaml_document_get_root_node(&extra))
			ret = web_err(l, NULL, "more than one YAML document");
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	/* an empty file, as exporter-toolkit has it: plain HTTP, no auth */
	if (!ret && root && !is_null(root))
		ret = each_pair(l, root, "the file", top_pair);
	yaml_document_delete(&l->doc);
	return ret;
}

int web_config_load(const char *path, struct web_config *wc)
{
	struct web_load l = { .path = path, .wc = wc };
	char copy[4096];
	FILE *f;
	int ret;

	memset(wc, 0, sizeof(*wc));
	pthread_mutex_init(&wc->lock, NULL);
	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return web_err(&l, NULL, "path too long");
	snprintf(l.dir, sizeof(l.dir), "%s", dirname(copy));
	f = fopen(path, "re");
	if (!f)
		return web_err(&l, NULL, "cannot open: %s", strerror(errno));
	ret = load_doc(&l, f);
	fclose(f);
	if (!ret && wc->nr_users && gnutls_rnd(GNUTLS_RND_KEY, wc->digest_key, sizeof(wc->digest_key)))
		ret = web_err(&l, NULL, "no random bytes for the password cache");
	return ret;
}

void web_config_free(struct web_config *wc)
{
	size_t i;

	for (i = 0; i < wc->nr_users; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	free(wc->cert);
	if (wc->key)
		explicit_bzero(wc->key, strlen(wc->key));
	free(wc->key);
	free(wc->client_ca);
	pthread_mutex_destroy(&wc->lock);
	memset(wc, 0, sizeof(*wc));
}

/* Equal in time independent of where they differ. */
static bool same_bytes(const void *a, const void *b, size_t len)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return !d;
}

/* bcrypt of @password with @hash's setting equals @hash (both 60 characters). */
static bool bcrypt_ok(const char *hash, const char *password)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	bool ok;

	if (!cd)
		return false;
	out = crypt_rn(password, hash, cd, sizeof(*cd));
	ok = out && strlen(out) == 60 && same_bytes(out, hash, 60);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

bool web_authorized(struct web_config *wc, const char *user, const char *password)
{
	unsigned char digest[WEB_DIGEST_LEN];
	struct web_user *u = NULL;
	bool ok, cached;
	size_t i;

	if (!wc->nr_users)
		return true;
	if (!user || !password)
		return false;
	for (i = 0; i < wc->nr_users && !u; i++)
		if (!strcmp(wc->users[i].name, user))
			u = &wc->users[i];
	if (!u) {
		/* as long as a wrong password: the user names are not told */
		bcrypt_ok(wc->users[0].hash, password);
		return false;
	}
	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, wc->digest_key, sizeof(wc->digest_key),
			     password, strlen(password), digest))
		return bcrypt_ok(u->hash, password);
	pthread_mutex_lock(&wc->lock);
	cached = u->have_ok_digest && same_bytes(u->ok_digest, digest, sizeof(digest));
	pthread_mutex_unlock(&wc->lock);
	if (cached)
		return true;
	ok = bcrypt_ok(u->hash, password);
	if (ok) {
		pthread_mutex_lock(&wc->lock);
		memcpy(u->ok_digest, digest, sizeof(digest));
		u->have_ok_digest = true;
		pthread_mutex_unlock(&wc->lock);
	}
	return ok;
}

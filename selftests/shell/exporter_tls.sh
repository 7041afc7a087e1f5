#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# memcgstat-exporter's --web.config.file on the host: a bad configuration
# (unknown keys, unreadable or mismatched files, hashes that are not bcrypt)
# is refused at start with the reason; over TLS with basic auth, a real
# Prometheus with the CA and the password scrapes it (up 1, a memcgstat
# series stored) and one with a wrong password does not; curl without
# credentials or with wrong ones gets 401 and WWW-Authenticate: Basic;
# plain HTTP to the TLS port gets no reply; gzip still works; with
# RequireAndVerifyClientCert the handshake fails without a client
# certificate or with one of another CA, and succeeds with the CA's.
# Certificates are made here with openssl, bcrypt hashes with python3's
# crypt (libxcrypt) or htpasswd. Prints "#N exporter_tls/NAME:OK|FAIL|SKIP (why)".
#
#   exporter_tls.sh EXPORTER
set -uo pipefail

bin=$(realpath "${1:?usage: exporter_tls.sh EXPORTER}")
py=/usr/bin/python3
SUITE=exporter_tls
. "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d /tmp/memcgstat-exporter-tls.XXXXXX)
pids=()
cleanup() {
	stop_pids
	rm -rf "$tmp"
}
trap cleanup EXIT

# bcrypt of a password, cost 10: $2b$ from python3's crypt, or $2y$ from htpasswd
bcrypt() {
	"$py" -W ignore -c 'import crypt, sys
h = crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10))
assert h and h.startswith("$2"), h
print(h)' "$1" 2>/dev/null ||
		{ command -v htpasswd >/dev/null && htpasswd -nbBC 10 x "$1" | sed -n 's/^x://p'; }
}

all_tests="config_unknown_key config_unknown_tls_key config_auth_type_unsupported
	config_auth_type_unknown config_needs_key config_cert_unreadable config_cert_directory
	config_cert_not_pem config_key_mismatch
	config_ca_without_auth_type config_verify_without_ca config_not_bcrypt config_bcrypt_bad_cost
	config_not_yaml config_duplicate_key config_not_mapping config_two_documents config_user_colon
	config_ca_not_pem config_file_missing config_textfile_only
	tls_auth_ok tls_auth_2y no_credentials_401 wrong_password_401 unknown_user_401 plain_http_fails
	gzip_over_tls prometheus_https_basic_auth prometheus_gzip prometheus_wrong_password_down
	client_cert_missing_fails client_cert_other_ca_fails client_cert_ok prometheus_client_cert
	sigterm_exit_0"
if ! command -v openssl >/dev/null; then
	for t in $all_tests; do skip "$t" "no openssl to make certificates"; done
	finish
fi
alice_hash=$(bcrypt 's3cret:with colon')
bob_hash=$(bcrypt hunter2)
if [ -z "$alice_hash" ] || [ -z "$bob_hash" ]; then
	for t in $all_tests; do skip "$t" "no bcrypt hash maker (python3 crypt, or apache2-utils' htpasswd)"; done
	finish
fi
# bob's as htpasswd writes them: $2y$, the same algorithm
bob_hash=\$2y\$${bob_hash#\$2?\$}

# --- a CA, a server certificate for 127.0.0.1 from it, a client
# certificate from it, and a client certificate of another CA
cd "$tmp" || exit 1
mkcert() {	# name subject issuer(- for self-signed) extensions
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" \
		-out "$1.csr" -subj "$2" 2>/dev/null || return 1
	printf '%s\n' "$4" >"$1.ext"
	if [ "$3" = - ]; then
		openssl x509 -req -in "$1.csr" -signkey "$1.key" -out "$1.crt" -days 2 \
			-extfile "$1.ext" 2>/dev/null
	else
		openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial \
			-out "$1.crt" -days 2 -extfile "$1.ext" 2>/dev/null
	fi
}
ca_ext=$'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign'
if ! { mkcert ca /CN=memcgstat-test-ca - "$ca_ext" &&
       mkcert server /CN=localhost ca $'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth' &&
       mkcert client /CN=scraper ca 'extendedKeyUsage=clientAuth' &&
       mkcert otherca /CN=other-ca - "$ca_ext" &&
       mkcert stranger /CN=stranger otherca 'extendedKeyUsage=clientAuth'; }; then
	for t in $all_tests; do skip "$t" "openssl could not make the test certificates"; done
	finish
fi
head -c 300 /dev/urandom >garbage.crt

# --- configurations refused at start: exit 1, the reason, no listening
web() { cat >"$tmp/$1.yml"; echo "$tmp/$1.yml"; }
# the same, a tls_server_config with cert_file $2 and key_file $3 first
tls_web() {
	{ printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$2" "$3"; cat; } | web "$1"
}
refused() {	# name pattern config-file
	expect "$1" 1 "$2" -- --listen 127.0.0.1:0 --web.config.file "$3" -s usage --max-depth 0 /
}
refused config_unknown_key "web.config.file .*unknown.yml:4: unknown or unsupported key 'http_server_config'" "$(tls_web unknown server.crt server.key <<'EOF'
http_server_config:
  http2: false
EOF
)"
refused config_unknown_tls_key "unknown.tls.yml:4: tls_server_config: unknown or unsupported key 'min_version'" "$(tls_web unknown.tls server.crt server.key <<'EOF'
  min_version: TLS13
EOF
)"
refused config_auth_type_unsupported "client_auth_type VerifyClientCertIfGiven is not supported" "$(tls_web vcig server.crt server.key <<'EOF'
  client_ca_file: ca.crt
  client_auth_type: VerifyClientCertIfGiven
EOF
)"
refused config_auth_type_unknown "client_auth_type: unknown 'RequireAndVerify'" "$(tls_web badtype server.crt server.key <<'EOF'
  client_auth_type: RequireAndVerify
EOF
)"
refused config_needs_key "needs both cert_file and key_file" "$(web nokey <<'EOF'
tls_server_config:
  cert_file: server.crt
EOF
)"
refused config_cert_unreadable "cert_file: cannot open $tmp/absent.crt: No such file or directory" "$(tls_web absent absent.crt server.key </dev/null)"
refused config_cert_directory "cert_file: cannot read $tmp/\./: Is a directory" "$(tls_web dir ./ server.key </dev/null)"
refused config_cert_not_pem "cert_file and key_file: " "$(tls_web garbage garbage.crt server.key </dev/null)"
refused config_key_mismatch "cert_file and key_file: .*key" "$(tls_web mismatch server.crt client.key </dev/null)"
refused config_ca_without_auth_type "client_ca_file without client_auth_type RequireAndVerifyClientCert" "$(tls_web caonly server.crt server.key <<'EOF'
  client_ca_file: ca.crt
EOF
)"
refused config_verify_without_ca "RequireAndVerifyClientCert needs client_ca_file" "$(tls_web noca server.crt server.key <<'EOF'
  client_auth_type: RequireAndVerifyClientCert
EOF
)"
md5=$(openssl passwd -1 s3cret)
refused config_not_bcrypt "basic_auth_users: alice: not a bcrypt hash" "$(web md5 <<EOF
basic_auth_users:
  alice: '$md5'
EOF
)"
cost3='$2b$03$'${alice_hash:7}
refused config_bcrypt_bad_cost "basic_auth_users: bob: not a bcrypt hash" "$(web cost <<EOF
basic_auth_users:
  bob: '$cost3'
EOF
)"
refused config_not_yaml "notyaml.yml: line [0-9]+: did not find expected node content" "$(web notyaml <<'EOF'
tls_server_config: [
  cert_file: {
EOF
)"
refused config_duplicate_key "basic_auth_users: 'alice' given twice" "$(web dup <<EOF
basic_auth_users:
  alice: '$alice_hash'
  alice: '$bob_hash'
EOF
)"
refused config_not_mapping "list.yml:1: the file: not a mapping" "$(web list <<'EOF'
- tls_server_config
EOF
)"
refused config_two_documents "two.yml: more than one YAML document" "$(web two <<EOF
basic_auth_users:
  alice: '$alice_hash'
---
basic_auth_users: {}
EOF
)"
refused config_user_colon "basic_auth_users: 'al:ice' cannot be a user name" "$(web colon <<EOF
basic_auth_users:
  'al:ice': '$alice_hash'
EOF
)"
refused config_ca_not_pem "client_ca_file: no PEM certificate in it" "$(tls_web cagarbage server.crt server.key <<'EOF'
  client_ca_file: server.key
  client_auth_type: RequireAndVerifyClientCert
EOF
)"
refused config_file_missing "web.config.file $tmp/none.yml: cannot open: No such file or directory" "$tmp/none.yml"
expect config_textfile_only 2 "applies to the HTTP server" -- --web.config.file "$tmp/md5.yml" \
	--textfile "$tmp/x.prom" --once /

# --- TLS and basic auth (two users; the file refers to its files
# relatively, from another working directory)
tls_web tls server.crt server.key >/dev/null <<EOF
  client_auth_type: NoClientCert
basic_auth_users:
  alice: '$alice_hash'
  bob: '$bob_hash'
EOF
cd / || exit 1
start_exporter tls --web.config.file "$tmp/tls.yml" -s usage --max-depth 0 /
if [ -z "$eport" ]; then
	for t in tls_auth_ok tls_auth_2y no_credentials_401 wrong_password_401 unknown_user_401 \
		 plain_http_fails gzip_over_tls; do
		fail $t "the exporter did not start: $(cat "$tmp/tls.log")"
	done
else
	tls_pid=$epid tls_port=$eport
	url=https://127.0.0.1:$tls_port/metrics
	# scrape CURL-ARGS...: the status line's code, the headers in $tmp/h, the body in $tmp/b
	scrape() { curl -s --cacert "$tmp/ca.crt" -D "$tmp/h" -o "$tmp/b" -w '%{http_code}' "$@"; }
	series='^memcgstat_usage_bytes{cgroup="/"} [0-9]+$'
	c=$(scrape -u 'alice:s3cret:with colon' "$url")
	[ "$c" = 200 ] && grep -qE "$series" "$tmp/b" && promtool check metrics <"$tmp/b" >/dev/null 2>&1
	check tls_auth_ok $? "alice over TLS: $c: $(head -c 300 "$tmp/b")"
	c=$(scrape -u bob:hunter2 "$url")
	[ "$c" = 200 ] && grep -qE "$series" "$tmp/b"
	check tls_auth_2y $? "bob (\$2y\$ hash): $c: $(head -c 300 "$tmp/b")"
	www() { tr -d '\r' <"$tmp/h" | sed -n 's/^WWW-Authenticate: //Ip'; }
	c=$(scrape "$url")
	w=$(www)
	[ "$c" = 401 ] && [ "$w" = 'Basic realm="memcgstat-exporter", charset="UTF-8"' ] &&
		! grep -q memcgstat_usage "$tmp/b"
	check no_credentials_401 $? "no credentials: $c, WWW-Authenticate '$w'"
	# wrong after right: an accepted password remembered does not let another in
	bad=
	for cred in 'alice:s3cret' 'alice:s3cret:with colonX' 'alice:' 'bob:s3cret:with colon' 'ALICE:s3cret:with colon'; do
		c=$(scrape -u "$cred" "$url")
		w=$(www)
		[ "$c" = 401 ] && [ "${w%% *}" = Basic ] && ! grep -q memcgstat_usage "$tmp/b" ||
			bad+="'$cred': $c '$w'; "
	done
	[ -z "$bad" ]
	check wrong_password_401 $? "$bad"
	c=$(scrape -u 'carol:s3cret:with colon' "$url")
	w=$(www)
	[ "$c" = 401 ] && [ "${w%% *}" = Basic ]
	check unknown_user_401 $? "unknown user: $c '$w'"
	# plain HTTP to the TLS port: no HTTP reply; the server serves TLS after it
	pc=$(curl -s -o "$tmp/plain" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$tls_port/metrics")
	prc=$?
	c=$(scrape -u bob:hunter2 "$url")
	[ "$pc" = 000 ] && [ $prc != 0 ] && [ "$prc" != 28 ] && ! grep -qs memcgstat "$tmp/plain" &&
		[ "$c" = 200 ] && kill -0 $tls_pid
	check plain_http_fails $? "plain HTTP: code $pc, curl exit $prc; TLS after it: $c"
	# gzip over TLS: the same exposition, compressed
	c=$(scrape -u bob:hunter2 -H 'Accept-Encoding: gzip' "$url")
	ce=$(tr -d '\r' <"$tmp/h" | sed -n 's/^Content-Encoding: //Ip')
	gunzip -c <"$tmp/b" >"$tmp/gz" 2>/dev/null
	grc=$?
	[ "$c" = 200 ] && [ "$ce" = gzip ] && [ $grc = 0 ] && grep -qE "$series" "$tmp/gz" &&
		promtool check metrics <"$tmp/gz" >/dev/null 2>&1
	check gzip_over_tls $? "$c, Content-Encoding '$ce', gunzip $grc: $(head -c 200 "$tmp/gz")"
fi

# --- RequireAndVerifyClientCert: the CA's client certificates only, in the handshake
tls_web mtls "$tmp/server.crt" "$tmp/server.key" >/dev/null <<EOF
  client_ca_file: ca.crt
  client_auth_type: RequireAndVerifyClientCert
EOF
start_exporter mtls --web.config.file "$tmp/mtls.yml" -s usage --max-depth 0 /
if [ -z "$eport" ]; then
	for t in client_cert_missing_fails client_cert_other_ca_fails client_cert_ok; do
		fail $t "the exporter did not start: $(cat "$tmp/mtls.log")"
	done
else
	mtls_port=$eport
	murl=https://127.0.0.1:$mtls_port/metrics
	mcurl() { curl -s --cacert "$tmp/ca.crt" -o "$tmp/mb" -w '%{http_code}' --max-time 10 "$@" "$murl"; }
	# TLS 1.3 clients see the refusal as a closed connection after their
	# half of the handshake; TLS 1.2 ones as a failed handshake (curl 35)
	c13=$(mcurl)
	r13=$?
	c12=$(mcurl --tls-max 1.2)
	r12=$?
	[ "$c13" = 000 ] && [ $r13 != 0 ] && [ $r13 != 28 ] && [ "$c12" = 000 ] && [ $r12 = 35 ] &&
		! grep -qs memcgstat "$tmp/mb"
	check client_cert_missing_fails $? "no client certificate: TLS 1.3 $c13 (curl $r13), TLS 1.2 $c12 (curl $r12, want 35)"
	c13=$(mcurl --cert "$tmp/stranger.crt" --key "$tmp/stranger.key")
	r13=$?
	c12=$(mcurl --tls-max 1.2 --cert "$tmp/stranger.crt" --key "$tmp/stranger.key")
	r12=$?
	[ "$c13" = 000 ] && [ $r13 != 0 ] && [ $r13 != 28 ] && [ "$c12" = 000 ] && [ $r12 = 35 ] &&
		! grep -qs memcgstat "$tmp/mb"
	check client_cert_other_ca_fails $? "another CA's client certificate: TLS 1.3 $c13 (curl $r13), TLS 1.2 $c12 (curl $r12, want 35)"
	c13=$(mcurl --cert "$tmp/client.crt" --key "$tmp/client.key")
	ok13=$(grep -cE '^memcgstat_usage_bytes\{cgroup="/"\} [0-9]+$' "$tmp/mb")
	c12=$(mcurl --tls-max 1.2 --cert "$tmp/client.crt" --key "$tmp/client.key")
	ok12=$(grep -cE '^memcgstat_usage_bytes\{cgroup="/"\} [0-9]+$' "$tmp/mb")
	[ "$c13" = 200 ] && [ "$ok13" = 1 ] && [ "$c12" = 200 ] && [ "$ok12" = 1 ]
	check client_cert_ok $? "the CA's client certificate: TLS 1.3 $c13 ($ok13 series), TLS 1.2 $c12 ($ok12)"
fi

# --- a real Prometheus: over HTTPS with basic auth (and with a wrong
# password), and with a client certificate
prom_tests="prometheus_https_basic_auth prometheus_gzip prometheus_wrong_password_down prometheus_client_cert"
if ! command -v prometheus >/dev/null; then
	for t in $prom_tests; do skip $t "no prometheus binary (Debian package prometheus)"; done
elif [ -z "${tls_port:-}" ] || [ -z "${mtls_port:-}" ]; then
	for t in $prom_tests; do skip $t "an exporter did not start (see above)"; done
else
	prometheus_scrapes <<-EOF
	  - job_name: tls
	    scheme: https
	    basic_auth:
	      username: alice
	      password: 's3cret:with colon'
	    tls_config:
	      ca_file: $tmp/ca.crt
	    static_configs:
	      - targets: ['127.0.0.1:$tls_port']
	  - job_name: tls_wrong
	    scheme: https
	    basic_auth:
	      username: alice
	      password: wrong
	    tls_config:
	      ca_file: $tmp/ca.crt
	    static_configs:
	      - targets: ['127.0.0.1:$tls_port']
	  - job_name: mtls
	    scheme: https
	    tls_config:
	      ca_file: $tmp/ca.crt
	      cert_file: $tmp/client.crt
	      key_file: $tmp/client.key
	    static_configs:
	      - targets: ['127.0.0.1:$mtls_port']
	EOF
	start_prometheus
	# every job scraped, and the good ones with their series stored
	for i in $(seq 60); do
		up_tls=$(promq 'up{job="tls"}') up_wrong=$(promq 'up{job="tls_wrong"}') up_mtls=$(promq 'up{job="mtls"}')
		v_tls=$(promq 'memcgstat_usage_bytes{job="tls",cgroup="/"}')
		v_mtls=$(promq 'memcgstat_usage_bytes{job="mtls",cgroup="/"}')
		[ -n "$up_tls" ] && [ -n "$up_wrong" ] && [ -n "$up_mtls" ] && [ -n "$v_tls" ] && [ -n "$v_mtls" ] && break
		sleep 0.5
	done
	targets=$(curl -s "$api/targets" | "$py" -c '
import json, sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    print("%s: %s %s" % (t["labels"]["job"], t["health"], t["lastError"]))' 2>/dev/null | tr '\n' ';')
	[ "$up_tls" = 1 ] && [[ $v_tls =~ ^[0-9]+$ ]] && [ "$v_tls" -gt 0 ]
	check prometheus_https_basic_auth $? "up '$up_tls', memcgstat_usage_bytes '$v_tls'; targets: $targets" \
		"prometheus log: $(tail -3 "$tmp/prometheus.log")"
	# Prometheus asks for gzip: in the exporter's count of its replies, as
	# Prometheus itself stored it, only the gzip ones grow while it alone
	# scrapes (the job tls with its password; tls_wrong gets 401s)
	gz='memcgstat_exporter_replies_total{job="tls",encoding="gzip"}'
	id='memcgstat_exporter_replies_total{job="tls",encoding="identity"}'
	g1=$(promq "$gz") i1=$(promq "$id") g2= i2=
	for i in $(seq 30); do
		sleep 0.5
		g2=$(promq "$gz") i2=$(promq "$id")
		[[ $g1$g2 =~ ^[0-9]+$ ]] && [ "$g2" -gt "$g1" ] && break
	done
	[[ $g1$g2$i1 =~ ^[0-9]+$ ]] && [ "$g2" -gt "$g1" ] && [ "$i2" = "$i1" ]
	check prometheus_gzip $? "gzip replies $g1 -> $g2, identity $i1 -> $i2"
	[ "$up_wrong" = 0 ] && grep -q 'tls_wrong: down .*401' <<<"$targets"
	check prometheus_wrong_password_down $? "up '$up_wrong'; targets: $targets"
	[ "$up_mtls" = 1 ] && [[ $v_mtls =~ ^[0-9]+$ ]] && [ "$v_mtls" -gt 0 ]
	check prometheus_client_cert $? "up '$up_mtls', memcgstat_usage_bytes '$v_mtls'; targets: $targets"
	echo "  prometheus: up tls=$up_tls tls_wrong=$up_wrong mtls=$up_mtls; usage of / $v_tls (basic auth), $v_mtls (client certificate)"
	stop_prometheus
fi

# every exporter exits 0 on SIGTERM (ASan builds: and leaks nothing)
for p in ${tls_pid:-} $epid; do kill -TERM $p 2>/dev/null; done
rcs=
for p in ${tls_pid:-} $epid; do wait $p; rcs+="$? "; done
[ "$rcs" = "0 0 " ]
check sigterm_exit_0 $? "exits: $rcs" "$(tail -n 3 "$tmp/tls.log" "$tmp/mtls.log")"

finish

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: memcgstat-exporter's --web.config.file parser (libyaml
 * documents, the keys it serves, the bcrypt hash syntax), from a file in a
 * directory of its own, so that relative cert_file and key_file paths name
 * nothing. Every input must load or be refused without a leak or a crash;
 * its messages go nowhere.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "exporter_web.h"

/* what exporter_web.c takes from common.c */
const char *prog_name = "fuzz_webconfig";
void p_err(const char *fmt, ...)
{
	(void)fmt;
}

static char dir[] = "/tmp/fuzz_webconfig.XXXXXX", path[64];

static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_RDONLY);

	(void)argc;
	(void)argv;
	/* a path to /dev/stdin in the input must not wait for a terminal */
	if (fd < 0 || dup2(fd, 0) < 0 || !mkdtemp(dir))
		abort();
	close(fd);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	atexit(remove_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config wc;
	FILE *f = fopen(path, "we");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	web_config_load(path, &wc);
	web_config_free(&wc);
	return 0;
}

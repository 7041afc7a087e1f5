# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What each program of tools/ is made of, besides the library. Included by
# tools/Makefile, which builds them, and by selftests/Makefile, whose
# test_exporter_alloc links the exporter's own objects, and
# test_exporter_snapshot those of its snapshots and rendering alone
# (EXPORTER_SNAPSHOT_SRCS: no HTTP, no libmicrohttpd).
CLI_SRCS := memcgstat.c sample.c filter.c top.c top_view.c top_filter.c term.c common.c render.c \
	    render_table.c json_writer.c escape.c
EXPORTER_SNAPSHOT_SRCS := exporter_snapshot.c exporter_cadvisor.c filter.c common.c render.c json_writer.c escape.c
EXPORTER_SRCS := exporter.c exporter_http.c exporter_conn.c exporter_textfile.c exporter_web.c \
		 accept.c $(EXPORTER_SNAPSHOT_SRCS)

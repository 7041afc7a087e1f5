/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* memcgstat top: a live, sortable view of a cgroup tree (tools/top.c). */
#ifndef __MEMCGSTAT_TOP_H
#define __MEMCGSTAT_TOP_H

/*
 * memcgstat top's main(): @argv[0] is "top", the options follow. Returns
 * the exit status: 0, 1 a read failed, 2 bad usage.
 */
int top_main(int argc, char **argv);

#endif /* __MEMCGSTAT_TOP_H */

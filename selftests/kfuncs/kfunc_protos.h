/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpftool 7.4 and later put into vmlinux.h and Debian's bpftool 7.1
 * does not: the prototypes of the kfuncs progs/ call. Included by the
 * build here (-include), so that progs/ stays as the kernel's selftests
 * have it, with vmlinux.h alone.
 */
#ifndef __KFUNC_PROTOS_H
#define __KFUNC_PROTOS_H

#include "memcg_kfuncs.h"	/* bpf_rdonly_cast() too */

#endif /* __KFUNC_PROTOS_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libmemcgstat: chosen memory cgroup counters, for one cgroup or a whole
 * tree, without formatting or parsing memory.stat where the kernel has the
 * memcg kfuncs (bpf backend), and from memory.stat where it does not (text
 * backend). Both give the same names, units and values.
 *
 * Names are the keys cgroup v2 memory.stat prints ("anon", "file",
 * "pgfault", ...), memory.events' and memory.events.local's keys prefixed
 * "events_" and "events_local_" ("events_max", "events_local_oom_kill"),
 * "usage" (memory.current, bytes), the limits and other files named after
 * them ("memory_max", "swap_current", "nr_dying_descendants"; see
 * memcgstat(1)), and "working_set", derived. Sizes are in bytes, events are
 * counts.
 *
 * Errors are negative errno values; memcgstat_errmsg() says what failed and
 * what to do. The library never prints and never exits. libbpf prints its
 * own warnings through its print callback, which the library never changes
 * (libbpf_set_print() is process-wide: an embedder sets it once, before
 * its threads use libbpf).
 */
#ifndef __MEMCGSTAT_H
#define __MEMCGSTAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEMCGSTAT_VERSION "0.5.0"

/* The version of the library running, MEMCGSTAT_VERSION of its build. Since 0.3. */
const char *memcgstat_version(void);

struct memcgstat;
struct memcgstat_result;

enum memcgstat_backend {
	MEMCGSTAT_BACKEND_AUTO = 0,	/* bpf if the kernel and process allow, else text */
	MEMCGSTAT_BACKEND_BPF,
	MEMCGSTAT_BACKEND_TEXT,
};

enum memcgstat_flags {
	/* The cgroup's own value, without its descendants (v1 memory.stat's
	 * lines without "total_"). Needs bpf, or text on cgroup v1. */
	MEMCGSTAT_LOCAL = 1 << 0,
	/* One value per NUMA node (memory.numa_stat); only node stats. */
	MEMCGSTAT_NUMA = 1 << 1,
	/*
	 * bpf backend: read with the programs memcgstat_pin() left in the
	 * pin directory, if they are this library's; else load them as
	 * without the flag. Open then costs a few system calls instead of
	 * loading and verifying programs; each read takes an flock() on the
	 * pin directory, since every handle on the pins shares their maps.
	 * Not with MEMCGSTAT_LOCAL or MEMCGSTAT_NUMA. Since 0.4.
	 */
	MEMCGSTAT_PINNED = 1 << 2,
	/* With MEMCGSTAT_PINNED: fail (-ENOENT) rather than load. Since 0.4. */
	MEMCGSTAT_PIN_REQUIRED = 1 << 3,
};

/* Where memcgstat_pin() pins, unless memcgstat_opts.pin_dir says. */
#define MEMCGSTAT_PIN_DIR "/sys/fs/bpf/memcgstat"

/*
 * How the bpf backend reads single cgroups and lists of ids. Snapshots of a
 * tree always walk it with a cgroup iterator.
 */
enum memcgstat_query {
	/* syscall where the kernel allows it, else iter */
	MEMCGSTAT_QUERY_AUTO = 0,
	/* One BPF_PROG_TEST_RUN of a syscall program per read, whatever the
	 * number of ids: one system call. Cgroup v2 only; the kernel needs
	 * bpf_cgroup_from_id() and bpf_cgroup_ancestor() (Linux 6.2). */
	MEMCGSTAT_QUERY_SYSCALL,
	/* A cgroup iterator per cgroup: create, read and close its fd. */
	MEMCGSTAT_QUERY_ITER,
};

struct memcgstat_opts {
	size_t sz;			/* sizeof(struct memcgstat_opts) */
	enum memcgstat_backend backend;
	const char *const *stats;	/* names; NULL: every stat available */
	size_t nr_stats;
	unsigned int flags;		/* enum memcgstat_flags */
	/* memory hierarchy mount, symlinks resolved (memcgstat_root()); NULL: detect */
	const char *root;
	enum memcgstat_query query;	/* bpf backend only; since 0.2.0 */
	const char *pin_dir;		/* NULL: MEMCGSTAT_PIN_DIR; since 0.4 */
	/*
	 * How many reads (memcgstat_read*(), memcgstat_snapshot*() calls) the
	 * caller means to make; 0: no end known (a daemon). With
	 * MEMCGSTAT_BACKEND_AUTO and a count, the backend is bpf only if the
	 * reads pay for loading it: MEMCGSTAT_PINNED's pins where they are
	 * there (cheaper to open than text), else the first read decides:
	 * expected_reads times the cgroups it covers (a tree's, counted from
	 * cgroup.stat, or the directories on v1), at least
	 * MEMCGSTAT_BPF_PAYS_AFTER, take bpf, fewer text; until then
	 * memcgstat_backend() says MEMCGSTAT_BACKEND_AUTO. With
	 * MEMCGSTAT_QUERY_AUTO, fewer than MEMCGSTAT_SYSCALL_PAYS_AFTER take
	 * the iterator query path, which loads one program instead of two.
	 * Since 0.5.
	 */
	long expected_reads;
};

/*
 * Cgroup reads after which loading the bpf backend has paid for itself,
 * for MEMCGSTAT_BACKEND_AUTO with expected_reads: opening it costs 7.5 M
 * guest instructions for fewer than MEMCGSTAT_SYSCALL_PAYS_AFTER reads,
 * 13.2 M for more (make bench 7.open.once, 7.open.stats, 4 stats, release
 * kernel, 2026-12-07); a cgroup of a tree then
 * costs 0.8 k on bpf (2.tree.10000) and some 120 k from the text backend's
 * files (7.cli.wall: 120.9 M for a CLI process reading a tree of 1,001), a
 * single cgroup 31 k against 229 k (1.all.iter, 1.textlib): bpf pays after
 * some 40-65 cgroup reads of a short run, some 65-110 of a long one; 200,
 * set when opening cost more, stays a margin. Since 0.5.
 */
#define MEMCGSTAT_BPF_PAYS_AFTER 200

/*
 * Reads after which the syscall query path's program has paid for its
 * load: opening with it costs 13.2 M guest instructions, with the
 * iterator's program alone 7.5 M (make bench 7.open.stats and
 * 7.open.once, 4 stats, release kernel, 2026-12-07), and a read of one
 * cgroup then costs 15.3 k against 31.3 k (1.all.sys, 1.all.iter): some
 * 350 reads; 1,000 keeps runs of a few hundred on one program. Since 0.5.
 */
#define MEMCGSTAT_SYSCALL_PAYS_AFTER 1000

/* A value the kernel does not provide for this cgroup or stat. */
#define MEMCGSTAT_NA UINT64_MAX
/*
 * No limit: a limit or protection whose file says "max" (cgroup v2), or
 * holds the largest value the kernel takes, PAGE_COUNTER_MAX pages (cgroup
 * v1 prints 9223372036854771712 with 4 KiB pages). Never a size: the tools
 * print it as "max" in tables, +Inf in CSV and OpenMetrics, null (and the
 * stat in "unlimited") in JSON. Added after 0.3.0.
 */
#define MEMCGSTAT_MAX (UINT64_MAX - 1)

/*
 * Open a handle. On success returns 0. On failure returns a negative errno;
 * *out is still set (unless memory ran out, then NULL) so that
 * memcgstat_errmsg() can say why; free it with memcgstat_close().
 */
int memcgstat_open(const struct memcgstat_opts *opts, struct memcgstat **out);
void memcgstat_close(struct memcgstat *h);

/*
 * The last error's message: what failed, why, what to do; whole, however
 * long the paths it names. Valid until the next call on @h.
 */
const char *memcgstat_errmsg(const struct memcgstat *h);

/*
 * The backend in use (MEMCGSTAT_BACKEND_AUTO while an auto handle with
 * expected_reads waits for its first read to choose), and why auto chose
 * it (or NULL).
 */
enum memcgstat_backend memcgstat_backend(const struct memcgstat *h);
const char *memcgstat_backend_name(enum memcgstat_backend b);
const char *memcgstat_backend_reason(const struct memcgstat *h);
/*
 * Why the bpf backend cannot run here with @h's hierarchy and flags (the
 * kernel lacks the kfuncs or its BTF, the process may not load BPF), or
 * NULL if it can, and on a bpf handle. Loads nothing: the first call reads
 * the kernel's BTF, later ones say the same. For a text handle opened by
 * choice, to tell whether --backend bpf would work. Since 0.5.
 */
const char *memcgstat_bpf_unavailable(struct memcgstat *h);

/*
 * The query path the bpf backend chose at open (MEMCGSTAT_QUERY_AUTO with
 * the text backend), why (NULL if it was asked for), and the path the last
 * read took.
 */
enum memcgstat_query memcgstat_query(const struct memcgstat *h);
const char *memcgstat_query_reason(const struct memcgstat *h);
enum memcgstat_query memcgstat_last_query(const struct memcgstat *h);
const char *memcgstat_query_name(enum memcgstat_query q);

/*
 * The memcg kfuncs the bpf backend reads with (NULL with the text backend):
 * "linux-7.0" when the kernel has Linux 7.0's set only, and the library
 * loads its build without memcgstat's additions; "linux-7.0+memcgstat" on
 * a kernel with all of kernel/patches. Since 0.3.
 */
const char *memcgstat_kfuncs(const struct memcgstat *h);

/* The memory hierarchy: its mount point, and 2 or 1 for cgroup v2 or v1. */
const char *memcgstat_root(const struct memcgstat *h);
int memcgstat_cgroup_version(const struct memcgstat *h);

/*
 * Columns of every result: one per stat, or with MEMCGSTAT_NUMA one per
 * stat and node. Name and node (-1 without MEMCGSTAT_NUMA) of column i.
 */
size_t memcgstat_nr_columns(const struct memcgstat *h);
const char *memcgstat_column_name(const struct memcgstat *h, size_t i);
int memcgstat_column_node(const struct memcgstat *h, size_t i);
/*
 * The index of the column of stat @name on node @nid (-1 without
 * MEMCGSTAT_NUMA), or -ENOENT if the handle has none. Since 0.3.
 */
int memcgstat_column_index(const struct memcgstat *h, const char *name, int nid);
/*
 * Whether the handle's backend can read stat @name on this kernel and
 * hierarchy (whether or not the handle has a column of it): 1 or 0;
 * -ENOENT for a name the library does not know. On text: the hierarchy's
 * files show it; on bpf: the kernel has its counters. Since 0.3.
 */
int memcgstat_stat_available(struct memcgstat *h, const char *name);

/*
 * What column @i's values are (since 0.3): a size in bytes, which goes up
 * and down (a gauge), a count of events since the cgroup was created,
 * which only grows (a counter), or (added after 0.3.0) a number that goes
 * up and down, a gauge without a unit (nr_descendants, oom_group); and
 * their unit, "bytes" for sizes, "microseconds" for the time counters of
 * memory.pressure (pressure_some, pressure_full), NULL otherwise (counts,
 * and pressure's averages, percentages). memcgstat_stat_kind() and
 * memcgstat_stat_unit() say the same of a stat name
 * (MEMCGSTAT_KIND_UNKNOWN, NULL for a name the library does not know).
 */
enum memcgstat_kind {
	MEMCGSTAT_KIND_UNKNOWN = 0,
	MEMCGSTAT_KIND_GAUGE,
	MEMCGSTAT_KIND_COUNTER,
};
enum memcgstat_kind memcgstat_column_kind(const struct memcgstat *h, size_t i);
const char *memcgstat_column_unit(const struct memcgstat *h, size_t i);
enum memcgstat_kind memcgstat_stat_kind(const char *name);
const char *memcgstat_stat_unit(const char *name);

/*
 * Read one cgroup. @cgroup is a path below the hierarchy mount ("/" or
 * "system.slice/foo.service"), or an absolute path inside it, taken as it
 * is (normalised: no file system access); ".", "..", or a path starting
 * with "./" or "../" is resolved against the working directory, and an
 * absolute path outside the mount through the file system (a symlink into
 * the mount), since 0.5. A path that does not lead into the hierarchy:
 * -EINVAL, "<cgroup>: not in the memory hierarchy (mounted at <mount>)".
 * No length limit: a path longer than PATH_MAX is opened a run of
 * components at a time, and result paths are whole. A cgroup that is not
 * there, or is removed while it is read: -ENOENT.
 */
int memcgstat_read(struct memcgstat *h, const char *cgroup,
		   struct memcgstat_result **res);

/*
 * The directory of @cgroup (named as for memcgstat_read()), opened
 * O_RDONLY | O_DIRECTORY | O_CLOEXEC, for a caller's own look at it (its
 * cgroup.stat, its subdirectories): an fd, or a negative errno with the
 * message. Since 0.5.
 */
int memcgstat_cgroup_open(struct memcgstat *h, const char *cgroup);

/*
 * Read @cgroup and every cgroup below it, each exactly once. With @ids
 * (cgroup ids, i.e. cgroupfs inode numbers), only those cgroups. A cgroup
 * below removed meanwhile is left out; @cgroup itself removed, before or
 * while it is read: -ENOENT. On bpf a cgroup renamed (cgroup v1; v2 refuses
 * rename(2)) may keep the path the handle first saw; its values are its own.
 * On text a cgroup below @cgroup whose files, or whose directory, this
 * process may not read has status -EACCES (memcgstat_result_status()); what
 * is below a closed directory is not seen (before 0.5: the call failed).
 */
int memcgstat_snapshot(struct memcgstat *h, const char *cgroup,
		       const uint64_t *ids, size_t nr_ids,
		       struct memcgstat_result **res);

/* The most ids memcgstat_read_ids() takes in one call. */
#define MEMCGSTAT_MAX_BATCH 1024

/*
 * Read the cgroups with these ids (cgroupfs inode numbers), one row per id
 * in the order given; with the syscall query path, all of them in one
 * system call. More than MEMCGSTAT_MAX_BATCH ids: -E2BIG, nothing read.
 * A cgroup that no longer exists, or is removed while it is read, is not an
 * error: its row has status -ENOENT and MEMCGSTAT_NA values; a cgroup made
 * since under a removed one's name is not the removed one (before 0.5: the
 * text backend, and bpf on cgroup v1, read it under the old id). Rows have
 * no path (NULL): the caller chose the ids and knows what they name. Where
 * the library reads ids by path (text; bpf on v1, and bpf's file-read
 * columns), it finds an id it has not seen through the kernel's file
 * handle of the id with CAP_DAC_READ_SEARCH (root), else by a scan of the
 * hierarchy; the handle remembers the last 32 ids it found gone.
 */
int memcgstat_read_ids(struct memcgstat *h, const uint64_t *ids, size_t nr_ids,
		       struct memcgstat_result **res);

/* A result: cgroups in walk order (parents before children). */
size_t memcgstat_result_count(const struct memcgstat_result *res);
/* Path relative to the hierarchy mount, "/" for the root; NULL for rows of
 * memcgstat_read_ids(). */
const char *memcgstat_result_path(const struct memcgstat_result *res, size_t i);
uint64_t memcgstat_result_id(const struct memcgstat_result *res, size_t i);
/* memcgstat_nr_columns() values; MEMCGSTAT_NA where not available. */
const uint64_t *memcgstat_result_values(const struct memcgstat_result *res,
					size_t i);
/*
 * 0, or for rows of memcgstat_read_ids(): -ENOENT if no cgroup has the id
 * (removed), -ENODATA if the cgroup has no memory controller, -EACCES where
 * the library reads ids by path (text; bpf on v1) and may not open the
 * cgroup's directory (it, or one on its way, is closed to the process),
 * or on text read its files, or where a scan did not find the id after
 * skipping a directory it may not read: the cgroup may be there, or
 * removed (without CAP_DAC_READ_SEARCH the library cannot tell while a
 * directory of the hierarchy is closed to it). The other rows read as
 * usual (since 0.5: before, the call failed, or the id was -ENOENT). For
 * rows of a snapshot below its top: -errno of a cgroup whose files could
 * not be read (-EACCES, say; the text backend), the other rows read as
 * usual. The values of a row with a status are MEMCGSTAT_NA. On the bpf
 * backend a file the process may not read is no status: its columns are
 * MEMCGSTAT_NA, the kernel's columns are read.
 */
int memcgstat_result_status(const struct memcgstat_result *res, size_t i);
void memcgstat_result_free(struct memcgstat_result *res);

/*
 * Reads into a result the caller keeps, for monitors that sample the same
 * cgroups again and again (since 0.4). memcgstat_result_new() makes an
 * empty result for @h's columns (NULL without memory); each *_into() call
 * replaces its rows with what memcgstat_read(), memcgstat_snapshot() or
 * memcgstat_read_ids() would return, in the memory of the earlier rows:
 * once the result has held as many rows, a read allocates nothing, and a
 * row of the cgroup the same row held before keeps its path (a cgroup
 * renamed in between keeps its old path until it moves in the walk). On
 * failure the result has no rows and stays usable; a result made for
 * another handle with other columns (stats, nodes, their order) is refused
 * (-EINVAL); one of the same columns is taken, whatever the two handles'
 * flags (MEMCGSTAT_LOCAL: the caller's to keep apart). Pointers from
 * memcgstat_result_path() and _values() are valid until the next read into
 * the result. Free it with memcgstat_result_free().
 */
struct memcgstat_result *memcgstat_result_new(const struct memcgstat *h);
int memcgstat_read_into(struct memcgstat *h, const char *cgroup,
			struct memcgstat_result *res);
int memcgstat_snapshot_into(struct memcgstat *h, const char *cgroup,
			    const uint64_t *ids, size_t nr_ids,
			    struct memcgstat_result *res);
int memcgstat_read_ids_into(struct memcgstat *h, const uint64_t *ids, size_t nr_ids,
			    struct memcgstat_result *res);

/*
 * Pin @h's programs and maps for MEMCGSTAT_PINNED handles of other processes
 * (since 0.4): into a directory of the pin directory named for this build
 * of the library, which must be on a BPF file system (bpffs). @h must be a
 * bpf handle of every stat (opts.stats NULL), without MEMCGSTAT_LOCAL or
 * MEMCGSTAT_NUMA. The directories are made mode 0700: handles of processes
 * that may not open them load their own programs. From then on @h takes
 * the pins' lock for its reads as well. 0 if pinned, or already pinned by
 * this library; else a negative errno. Pins live until memcgstat_unpin()
 * or the next boot.
 */
int memcgstat_pin(struct memcgstat *h);
/*
 * Remove every build's pins from @h's pin directory, and the directory.
 * Handles reading with them go on until they close. 0, or a negative errno.
 */
int memcgstat_unpin(struct memcgstat *h);
/* Whether @h reads with pinned programs: 1 or 0. Since 0.4. */
int memcgstat_pinned(const struct memcgstat *h);
/* The pin directory of @h. Since 0.4. */
const char *memcgstat_pin_dir(const struct memcgstat *h);

/* Every stat name the library knows, for --list-stats. */
size_t memcgstat_nr_known_stats(void);
const char *memcgstat_known_stat(size_t i);

#ifdef __cplusplus
}
#endif

#endif /* __MEMCGSTAT_H */

/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The terminal memcgstat top draws on, with plain escape codes (no
 * curses): keys one at a time without echo, the alternate screen, and the
 * terminal as it was on every way out: term_close() at exit, and a stop
 * signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) comes only as an event of
 * term_wait(), for the caller to close and end with.
 */
#ifndef __MEMCGSTAT_TERM_H
#define __MEMCGSTAT_TERM_H

#include <stddef.h>

/*
 * Standard input and output must be the terminal. Saves its mode, turns
 * off line editing, echo and the signal keys (^C is a key: see term_wait()),
 * enters the alternate screen and hides the cursor. The stop and resize
 * signals are blocked except inside term_wait(). 0, or a negative errno.
 */
int term_open(void);

/*
 * Restore the mode and the screen term_open() found. Idempotent; also run
 * at exit (atexit()).
 */
void term_close(void);

/* The window's size; 24 x 80 if the terminal does not say. */
void term_size(size_t *rows, size_t *cols);

enum term_event {
	TERM_TIMEOUT,	/* @timeout seconds went by */
	TERM_KEY,	/* a key: *key */
	TERM_RESIZE,	/* the window changed size (SIGWINCH) */
	TERM_STOP,	/* a signal asked to stop, or the terminal hung up
			 * (SIGHUP): *key is its number */
};

/* Special keys term_wait() reports, beyond bytes. */
enum {
	TERM_KEY_LEFT = 0x100, TERM_KEY_RIGHT, TERM_KEY_UP, TERM_KEY_DOWN,
	TERM_KEY_PGUP, TERM_KEY_PGDN, TERM_KEY_HOME, TERM_KEY_END, TERM_KEY_OTHER
};

/*
 * Wait at most @timeout seconds for a key, a resize or a stop signal. A
 * key is a byte, or TERM_KEY_LEFT / _RIGHT / _UP / _DOWN for the arrow keys,
 * _PGUP / _PGDN / _HOME / _END for the paging keys, and TERM_KEY_OTHER for
 * any other escape sequence, read whole so that none of its bytes is taken
 * for a key.
 */
enum term_event term_wait(double timeout, int *key);

#endif /* __MEMCGSTAT_TERM_H */

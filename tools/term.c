// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* memcgstat top's terminal: raw keys and the alternate screen, restored. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "term.h"

/* enter the alternate screen, hide the cursor; and back */
#define ENTER	"\033[?1049h\033[?25l\033[H\033[2J"
#define LEAVE	"\033[?25h\033[?1049l"

static struct termios saved;
static bool active;
static sigset_t wait_mask;		/* the mask inside term_wait() */
static volatile sig_atomic_t stop_sig, resized;
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void on_signal(int sig)
{
	if (sig == SIGWINCH)
		resized = 1;
	else
		stop_sig = sig;
}

static void write_all(const char *s)
{
	size_t n = strlen(s);
	ssize_t w;

	while (n) {
		w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= w;
	}
}

void term_close(void)
{
	if (!active)
		return;
	active = false;
	write_all(LEAVE);
	tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
}

int term_open(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct termios raw;
	sigset_t block;
	size_t i;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	if (tcgetattr(STDIN_FILENO, &saved))
		return -errno;
	raw = saved;
	/* bytes as typed, no echo; ^C, ^Z and ^\ are keys, not signals */
	raw.c_lflag &= ~(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_iflag &= ~(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	/*
	 * The signals that end a run, and SIGWINCH, come only inside
	 * term_wait()'s ppoll(): between a check of the flags and the wait
	 * none can slip by.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGWINCH);
	for (i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaddset(&block, stop_sigs[i]);
	if (sigprocmask(SIG_BLOCK, &block, &wait_mask))
		return -errno;
	sigdelset(&wait_mask, SIGWINCH);
	for (i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigdelset(&wait_mask, stop_sigs[i]);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	for (i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		sigaction(stop_sigs[i], &sa, NULL);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw))
		return -errno;
	active = true;
	atexit(term_close);
	write_all(ENTER);
	return 0;
}

void term_size(size_t *rows, size_t *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row || !ws.ws_col)
		return;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
}

/* One byte of input within @ms milliseconds: the byte, or -1. */
static int read_byte(int ms)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	unsigned char c;

	if (poll(&p, 1, ms) <= 0 || read(STDIN_FILENO, &c, 1) != 1)
		return -1;
	return c;
}

/*
 * The rest of an escape sequence: ESC [ or ESC O, parameters, a final byte
 * in @..~ (ECMA-48). A lone ESC is a key of its own. The keys: the final
 * byte of the arrows (A B C D), Home and End (H F), or "~" after the VT220
 * number of the paging keys (1 or 7 Home, 4 or 8 End, 5 PgUp, 6 PgDn).
 */
static int escape_key(void)
{
	int c = read_byte(50), param = 0;

	if (c != '[' && c != 'O')
		return c < 0 ? 27 : TERM_KEY_OTHER;
	for (;;) {
		c = read_byte(50);
		if (c < 0 || (c >= 0x40 && c <= 0x7e))
			break;
		param = c >= '0' && c <= '9' && param < 100 ? param * 10 + c - '0' : 100;
	}
	if (c == '~') {		/* the VT220 numbers */
		static const int vt[] = {
			[1] = TERM_KEY_HOME, [4] = TERM_KEY_END, [5] = TERM_KEY_PGUP,
			[6] = TERM_KEY_PGDN, [7] = TERM_KEY_HOME, [8] = TERM_KEY_END,
		};

		return param < (int)(sizeof(vt) / sizeof(vt[0])) && vt[param] ? vt[param] : TERM_KEY_OTHER;
	}
	switch (c) {
	case 'A':
		return TERM_KEY_UP;
	case 'B':
		return TERM_KEY_DOWN;
	case 'C':
		return TERM_KEY_RIGHT;
	case 'D':
		return TERM_KEY_LEFT;
	case 'H':
		return TERM_KEY_HOME;
	case 'F':
		return TERM_KEY_END;
	}
	return TERM_KEY_OTHER;
}

enum term_event term_wait(double timeout, int *key)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	struct timespec ts;
	int n;

	if (timeout < 0)
		timeout = 0;
	ts.tv_sec = (time_t)timeout;
	ts.tv_nsec = (long)((timeout - (double)ts.tv_sec) * 1e9);
	n = stop_sig || resized ? 0 : ppoll(&p, 1, &ts, &wait_mask);
	if (stop_sig) {
		*key = stop_sig;
		return TERM_STOP;
	}
	if (resized) {
		resized = 0;
		return TERM_RESIZE;
	}
	if (n <= 0)
		return n < 0 && errno == EINTR ? TERM_RESIZE : TERM_TIMEOUT;
	*key = read_byte(0);
	if (*key < 0) {
		*key = SIGHUP;	/* the terminal went away */
		return TERM_STOP;
	}
	if (*key == 27)
		*key = escape_key();
	return TERM_KEY;
}

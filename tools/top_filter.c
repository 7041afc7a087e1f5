// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * memcgstat top's filter typed live: / opens a prompt on the second line,
 * Enter applies what was typed, Esc leaves the filter as it was. The text
 * is a glob where it has one of fnmatch(3)'s characters (* ? [), matched
 * against the whole path as --include's patterns are; else a substring of
 * the path. It comes on top of --max-depth, --include and --exclude: a row
 * is shown where each of them keeps it (top.c's make_rows()).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include "escape.h"
#include "top_view.h"

#define KEY_CTRL_C	3
#define KEY_CTRL_H	8
#define KEY_CTRL_U	21
#define KEY_ESC		27
#define KEY_DEL		127

int top_match_set(struct top_match *m, const char *text)
{
	if (strlen(text) >= sizeof(m->text))
		return -ENAMETOOLONG;
	strcpy(m->text, text);
	m->glob = strpbrk(text, "*?[") != NULL;
	return 0;
}

bool top_match_keeps(const struct top_match *m, const char *path)
{
	if (!m->text[0])
		return true;
	return m->glob ? !fnmatch(m->text, path, 0) : strstr(path, m->text) != NULL;
}

void top_match_say(const struct top_match *m, const char *sep, char *buf, size_t size)
{
	char esc[4 * TOP_MATCH_MAX];	/* esc_len() <= 4 * strlen() */

	if (!size)
		return;
	buf[0] = '\0';
	if (!m->text[0])
		return;
	esc_write(esc, m->text);
	snprintf(buf, size, "%s%s \"%s\"", sep, m->glob ? "glob" : "filter", esc);
}

void top_prompt_open(struct top *t)
{
	t->prompt = true;
	t->edit[0] = '\0';
	t->edit_len = 0;
}

/* Backspace: the last character, all of its UTF-8 bytes. */
static void edit_back(struct top *t)
{
	while (t->edit_len) {
		unsigned char c = t->edit[--t->edit_len];

		if ((c & 0xc0) != 0x80)	/* not a continuation byte: its first */
			break;
	}
	t->edit[t->edit_len] = '\0';
}

bool top_prompt_key(struct top *t, int key)
{
	switch (key) {
	case KEY_CTRL_C:
		return true;
	case KEY_ESC:
		t->prompt = false;
		return false;
	case '\r':
	case '\n':
		t->prompt = false;
		top_match_set(&t->match, t->edit);	/* as long as text[] at most */
		t->remake = true;
		return false;
	case KEY_DEL:
	case KEY_CTRL_H:
		edit_back(t);
		return false;
	case KEY_CTRL_U:
		t->edit_len = 0;
		t->edit[0] = '\0';
		return false;
	}
	/* a byte of the text: printable ASCII or of UTF-8; no control, no escape key */
	if (key >= ' ' && key < 0x100 && key != KEY_DEL && t->edit_len + 1 < sizeof(t->edit)) {
		t->edit[t->edit_len++] = (char)key;
		t->edit[t->edit_len] = '\0';
	}
	return false;
}

void top_prompt_line(const struct top *t, char *buf, size_t size)
{
	char esc[4 * TOP_MATCH_MAX];

	esc_write(esc, t->edit);
	snprintf(buf, size, "filter: %s_ - Enter applies (empty: none), Esc cancels; * ? [ make a glob",
		 esc);
}

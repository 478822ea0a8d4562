/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top's full screen, on ncurses: lays out what cmd_top.c gathered and
 * formatted (every cell printable ASCII already) and reads the keys, as
 * top(1) has them: < and > move the sort column, R reverses it, u, p and
 * n ask for a user, partition or node to show alone, the arrows move the
 * highlight, Enter shows the highlighted job's nodes (Enter or Esc goes
 * back), q quits. It follows the terminal's size (ncurses' own SIGWINCH
 * handler gives KEY_RESIZE). Built without ncurses, it says so and the
 * command prints plain text instead. */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "top.h"

#ifndef HAVE_NCURSES

int top_screen(struct top_ctx *t, char *why, size_t whylen)
{
	(void)t;
	snprintf(why, whylen, "spank-ebpf was built without ncurses");
	return -1;
}

#else

#include <curses.h>
#include <stdlib.h>

/* The screen's own state between keys. */
struct top_screen_state {
	uint32_t sel_job;   /* the highlighted job, kept across refreshes */
	size_t sel;         /* its row */
	size_t first;       /* the first row shown */
	bool nodes;         /* the per-node view of sel_job */
};

/* Row y from column x on: text cut at the screen's edge. */
static void top_screen_put(int y, int *x, const char *text, int width, bool left, int attr)
{
	char cell[512];
	int room = COLS - *x;

	if (room <= 0)
		return;
	snprintf(cell, sizeof(cell), "%*s", left ? -width : width, text);
	if (attr)
		attron(attr);
	mvaddnstr(y, *x, cell, room);
	if (attr)
		attroff(attr);
	*x += (int)strlen(cell) + 1;
}

/* The headings; the sort column's underlined. */
static void top_screen_headings(const struct top_ctx *t, int y, bool nodes)
{
	int c, x = 0;

	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	for (c = 0; c < TOP_COLS; c++) {
		const char *h = top_col_heading((enum top_col)c);

		if (nodes && (c == TOP_USER || c == TOP_PARTITION))
			continue;
		if (nodes && c == TOP_NODES)
			h = "NODE";
		top_screen_put(y, &x, h, nodes && c == TOP_NODES ? 16 : top_col_width((enum top_col)c),
			       top_col_left((enum top_col)c) || (nodes && c == TOP_NODES),
			       c == (int)t->v.sort && !nodes ? A_BOLD | A_UNDERLINE : 0);
	}
	attroff(A_REVERSE);
}

static void top_screen_row(const struct top_row *r, const struct top_node *n, int y, bool sel)
{
	char cell[256];
	int c, x = 0;

	if (sel) {
		attron(A_REVERSE);
		mvhline(y, 0, ' ', COLS);
	}
	for (c = 0; c < TOP_COLS; c++) {
		if (n && (c == TOP_USER || c == TOP_PARTITION))
			continue;
		top_cell(r, n, (enum top_col)c, cell, sizeof(cell));
		top_screen_put(y, &x, cell, n && c == TOP_NODES ? 16 : top_col_width((enum top_col)c),
			       top_col_left((enum top_col)c) || (n && c == TOP_NODES), 0);
	}
	if (sel)
		attroff(A_REVERSE);
}

/* The row of job, or -1. */
static long top_screen_find(const struct top_view *v, uint32_t job)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->row[i].j.job == job)
			return (long)i;
	return -1;
}

static void top_screen_draw(const struct top_ctx *t, struct top_screen_state *s)
{
	const struct top_view *v = &t->v;
	char line[1024];
	int rows, notes = 0, at = 0, k;
	long found;

	erase();
	top_title(t, line, sizeof(line));
	mvaddnstr(0, 0, line, COLS);
	mvaddnstr(1, 0, "q quit  < > sort column  R reverse  u p n user, partition, node  arrows, Enter: a job's nodes",
		  COLS);
	/* The notes at the bottom: what is partial or failed. */
	while (top_note_next(v, &at, line, sizeof(line)))
		notes++;
	if (notes > 4)
		notes = 4;
	rows = LINES - 3 - notes;
	found = top_screen_find(v, s->sel_job);
	if (found >= 0)
		s->sel = (size_t)found;
	else if (s->sel >= v->n)
		s->sel = v->n ? v->n - 1 : 0;
	if (v->n)
		s->sel_job = v->row[s->sel].j.job;
	if (s->nodes && found < 0)
		s->nodes = false; /* the job ended */
	if (s->nodes) {
		const struct top_row *r = &v->row[s->sel];
		char user[256], part[256];

		top_cell(r, NULL, TOP_USER, user, sizeof(user));
		top_cell(r, NULL, TOP_PARTITION, part, sizeof(part));
		snprintf(line, sizeof(line), "job %u, user %s, partition %s: %zu of %zu nodes with series (Enter or Esc: back)",
			 r->j.job, user, part, r->nn, r->node_count);
		mvaddnstr(1, 0, line, COLS);
		top_screen_headings(t, 2, true);
		for (k = 0; k < rows && (size_t)k < r->nn; k++)
			top_screen_row(r, &r->node[k], 3 + k, false);
	} else {
		top_screen_headings(t, 2, false);
		if (rows > 0 && s->sel >= s->first + (size_t)rows)
			s->first = s->sel - (size_t)rows + 1;
		if (s->sel < s->first)
			s->first = s->sel;
		for (k = 0; k < rows && s->first + (size_t)k < v->n; k++)
			top_screen_row(&v->row[s->first + k], NULL, 3 + k, s->first + (size_t)k == s->sel);
		if (v->n == 0 && !v->slurm_failed[0] && rows > 0)
			mvaddnstr(3, 0, v->all_users ? "no running job with series of the probe sets" :
				  "no running job of yours with series of the probe sets", COLS);
	}
	at = 0;
	for (k = 0; k < notes && top_note_next(v, &at, line, sizeof(line)); k++)
		mvaddnstr(LINES - notes + k, 0, line, COLS);
	refresh();
}

/* A filter's value asked on the last line; printable ASCII kept. */
static void top_screen_prompt(const char *what, char *out, size_t len)
{
	char buf[128];
	size_t i, k;

	move(LINES - 1, 0);
	clrtoeol();
	attron(A_BOLD);
	mvaddnstr(LINES - 1, 0, what, COLS);
	attroff(A_BOLD);
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(buf, (int)(len < sizeof(buf) ? len : sizeof(buf)) - 1) == ERR)
		buf[0] = 0;
	noecho();
	curs_set(0);
	for (i = k = 0; buf[i] && k + 1 < len; i++)
		if (buf[i] > 0x20 && buf[i] < 0x7f)
			out[k++] = buf[i];
	out[k] = 0;
}

int top_screen(struct top_ctx *t, char *why, size_t whylen)
{
	struct top_screen_state s = { 0, 0, 0, false };
	SCREEN *scr;
	long long next = 0;
	long done = 0;
	int ch;

	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		snprintf(why, whylen, "ncurses knows no such terminal (TERM)");
		return -1;
	}
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
#ifdef NCURSES_VERSION
	/* Esc alone goes back at once, not after ncurses' default second. */
	set_escdelay(50);
#endif
	for (;;) {
		long long now = clock_us();

		if (now >= next) {
			if (t->iterations && done == t->iterations)
				break;
			top_refresh(t);
			done++;
			next = clock_us() + (long long)t->delay * 1000000;
		}
		top_screen_draw(t, &s);
		now = clock_us();
		timeout(next > now ? (int)((next - now) / 1000) + 1 : 0);
		ch = getch();
		switch (ch) {
		case 'q':
		case 'Q':
			goto out;
		case '<':
			if (t->v.sort > TOP_JOBID)
				t->v.sort--;
			top_sort(&t->v);
			break;
		case '>':
			if (t->v.sort + 1 < TOP_COLS)
				t->v.sort++;
			top_sort(&t->v);
			break;
		case 'R':
			t->v.reverse = !t->v.reverse;
			top_sort(&t->v);
			break;
		case 'u':
			top_screen_prompt("show the jobs of user (empty: every user you may see): ",
					  t->v.filter.user, sizeof(t->v.filter.user));
			next = 0;
			break;
		case 'p':
			top_screen_prompt("show the jobs of partition (empty: all): ", t->v.filter.partition,
					  sizeof(t->v.filter.partition));
			next = 0;
			break;
		case 'n':
			top_screen_prompt("show the jobs on node (empty: all): ", t->v.filter.node,
					  sizeof(t->v.filter.node));
			next = 0;
			break;
		case KEY_UP:
		case 'k':
			if (!s.nodes && s.sel > 0)
				s.sel_job = t->v.row[--s.sel].j.job;
			break;
		case KEY_DOWN:
		case 'j':
			if (!s.nodes && s.sel + 1 < t->v.n)
				s.sel_job = t->v.row[++s.sel].j.job;
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
			s.nodes = !s.nodes && t->v.n > 0;
			break;
		case 27: /* Esc */
		case KEY_BACKSPACE:
			s.nodes = false;
			break;
		case ' ':
			next = 0;
			break;
		default: /* KEY_RESIZE among them: drawn again at the new size */
			break;
		}
	}
out:
	endwin();
	delscreen(scr);
	return 0;
}

#endif

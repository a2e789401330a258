/*
 * replay_plot.c --- `e4replay --stats --plot FILE.svg|FILE.png` and
 * `jstats --plot`: the commit timeline (seconds since the first commit
 * on x, log blocks per transaction on y, one mark per transaction) above
 * the histogram of commit intervals, drawn with cairo's SVG or PNG
 * surface; with a write log (`--stats --write-log --plot`) the fs blocks
 * written per commit write (data and journal, log scale) above the
 * flushes and files per commit write, by the entry of the commit write,
 * and, when the log holds promise marks, below them the batching
 * histogram: commit writes by the promise marks each satisfied (fsyncs
 * per commit; e4_wlog_stats() promise_hist).  Without cairo (configure --without-cairo) only stubs are
 * built: e4s_plot_available() says 0.
 *
 * Copyright (C) 2026 The e4tools authors.  GPL-2.0-or-later (see LICENSE).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "e4.h"
#include "stats.h"

#ifndef HAVE_CAIRO

int e4s_plot_available(void)
{
	return 0;
}

errcode_t e4s_plot(const char *path, const char *title,
		   const struct e4_jstats *live, const struct e4_jstats *old,
		   double old_offset, const char **why)
{
	(void)path; (void)title; (void)live; (void)old; (void)old_offset;
	*why = "built without cairo";
	return EIO;
}

errcode_t e4s_plot_wlog(const char *path, const char *title,
			const struct e4_wlog_stats *ws, const char **why)
{
	(void)path; (void)title; (void)ws;
	*why = "built without cairo";
	return EIO;
}

#else

#include <cairo.h>
#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>

#define W	960.0		/* points (SVG) or pixels (PNG) */
#define H	700.0
#define LEFT	80.0
#define RIGHT	(W - 30.0)
#define T_TOP	70.0		/* the timeline panel */
#define T_BOT	350.0
#define H_TOP	430.0		/* the histogram panel */
#define H_BOT	630.0
#define P_TOP	720.0		/* a write log's batching panel */
#define P_BOT	900.0
#define H_P	970.0		/* the height with that panel */

/* A step of 1, 2 or 5 times a power of ten giving about @n ticks. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag = 1;

	if (raw <= 0)
		return 1;
	while (mag * 10 <= raw)
		mag *= 10;
	while (mag > raw)
		mag /= 10;
	if (raw <= mag)
		return mag;
	if (raw <= 2 * mag)
		return 2 * mag;
	if (raw <= 5 * mag)
		return 5 * mag;
	return 10 * mag;
}

static void text_at(cairo_t *cr, double x, double y, double size,
		    const char *s, double align)	/* 0 left .5 mid 1 right */
{
	cairo_text_extents_t e;

	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - align * e.x_advance, y);
	cairo_show_text(cr, s);
}

static void vtext_at(cairo_t *cr, double x, double y, double size,
		     const char *s)
{
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, -1.5707963267948966);
	text_at(cr, 0, 0, size, s, 0.5);
	cairo_restore(cr);
}

static void fmt_tick(char *buf, size_t len, double v, double step)
{
	int dec = 0;

	while (dec < 6 && step * 1.0000001 < 1) {
		step *= 10;
		dec++;
	}
	snprintf(buf, len, "%.*f", dec, v);
}

static void frame(cairo_t *cr, double top, double bot)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, LEFT, top, RIGHT - LEFT, bot - top);
	cairo_stroke(cr);
}

/* Ticks and labels of the y axis [0, ymax] of a panel. */
static void y_axis(cairo_t *cr, double top, double bot, double ymax,
		   const char *label)
{
	double step = nice_step(ymax, 5), v, y;
	char b[32];

	if (step < 1)
		step = 1;	/* counts */
	for (v = 0; v <= ymax + step * 1e-9; v += step) {
		y = bot - v / ymax * (bot - top);
		cairo_move_to(cr, LEFT - 4, y);
		cairo_line_to(cr, LEFT, y);
		cairo_stroke(cr);
		fmt_tick(b, sizeof(b), v, step);
		text_at(cr, LEFT - 7, y + 4, 11, b, 1);
	}
	vtext_at(cr, 22, (top + bot) / 2, 12, label);
}

static void legend(cairo_t *cr, double x, const char *what, double r,
		   double g, double b, int filled)
{
	cairo_set_source_rgb(cr, r, g, b);
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, T_TOP - 12, 3.5, 0, 6.283185307179586);
	if (filled)
		cairo_fill(cr);
	else
		cairo_stroke(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	text_at(cr, x + 8, T_TOP - 8, 11, what, 0);
}

static void timeline(cairo_t *cr, const struct e4_jstats *live,
		     const struct e4_jstats *old, double off)
{
	double xmin = 0, xmax = 0, ymax = 1, step, v, x, y;
	uint64_t i;
	char b[32];

	for (i = 0; i < live->transactions; i++) {
		const struct e4_jstat_point *p = &live->points[i];

		xmin = p->t < xmin ? p->t : xmin;
		xmax = p->t > xmax ? p->t : xmax;
		ymax = p->blocks > ymax ? p->blocks : ymax;
	}
	for (i = 0; old && i < old->transactions; i++) {
		const struct e4_jstat_point *p = &old->points[i];

		if (!live->transactions && !i)
			xmin = xmax = p->t + off;
		xmin = p->t + off < xmin ? p->t + off : xmin;
		xmax = p->t + off > xmax ? p->t + off : xmax;
		ymax = p->blocks > ymax ? p->blocks : ymax;
	}
	if (xmax - xmin < 1e-3) {	/* one commit time: a 1 ms window */
		xmin -= 5e-4;
		xmax += 5e-4;
	}
	ymax *= 1.1;
	frame(cr, T_TOP, T_BOT);
	y_axis(cr, T_TOP, T_BOT, ymax, "log blocks per transaction");
	step = nice_step(xmax - xmin, 8);
	for (v = step * (double)(int64_t)(xmin / step); v <= xmax; v += step) {
		if (v < xmin)
			continue;
		x = LEFT + (v - xmin) / (xmax - xmin) * (RIGHT - LEFT);
		cairo_move_to(cr, x, T_BOT);
		cairo_line_to(cr, x, T_BOT + 4);
		cairo_stroke(cr);
		fmt_tick(b, sizeof(b), v, step);
		text_at(cr, x, T_BOT + 17, 11, b, 0.5);
	}
	text_at(cr, (LEFT + RIGHT) / 2, T_BOT + 34, 12,
		"seconds since the first commit (commit timeline, one mark "
		"per transaction)", 0.5);
	if (!live->transactions && !(old && old->transactions))
		text_at(cr, (LEFT + RIGHT) / 2, (T_TOP + T_BOT) / 2, 14,
			"no transactions in the log", 0.5);
#define PX(t) (LEFT + ((t) - xmin) / (xmax - xmin) * (RIGHT - LEFT))
#define PY(b) (T_BOT - (double)(b) / ymax * (T_BOT - T_TOP))
	cairo_set_line_width(cr, 1);
	for (i = 0; old && i < old->transactions; i++) {
		x = PX(old->points[i].t + off);
		y = PY(old->points[i].blocks);
		cairo_set_source_rgba(cr, 0.35, 0.35, 0.35, 0.8);
		cairo_new_sub_path(cr);
		cairo_arc(cr, x, y, 3.5, 0, 6.283185307179586);
		cairo_stroke(cr);
	}
	for (i = 0; i < live->transactions; i++) {
		const struct e4_jstat_point *p = &live->points[i];

		if (p->back)
			cairo_set_source_rgba(cr, 0.85, 0.1, 0.1, 0.9);
		else
			cairo_set_source_rgba(cr, 0.12, 0.4, 0.75, 0.55);
		cairo_new_sub_path(cr);
		cairo_arc(cr, PX(p->t), PY(p->blocks), 3.5, 0,
			  6.283185307179586);
		cairo_fill(cr);
	}
#undef PX
#undef PY
	/* the legend, in one row above the panel */
	legend(cr, LEFT + 200, "live log (replayed)", 0.12, 0.4, 0.75, 1);
	legend(cr, LEFT + 360, "commit time before the previous tid's",
	       0.85, 0.1, 0.1, 1);
	if (old)
		legend(cr, LEFT + 620, "older, after the log end (not "
		       "replayed)", 0.35, 0.35, 0.35, 0);
}

/* The interval histogram's buckets of @st: < 0, 0, (0,1), 1-2, ... */
static unsigned int buckets(const struct e4_jstats *st, unsigned int upto,
			    uint64_t *count)
{
	const struct e4_jstat_hist *h = &st->hist_interval;
	unsigned int n = 0, k;

	count[n++] = h->negative;
	count[n++] = h->zero;
	count[n++] = h->below_one;
	for (k = 0; k < upto; k++)
		count[n++] = k < h->nbuckets ? h->bucket[k] : 0;
	return n;
}

/* Bars of the interval histogram: @live's, and @old's beside them. */
static void histogram(cairo_t *cr, const struct e4_jstats *live,
		      const struct e4_jstats *old)
{
	uint64_t lc[E4_JSTAT_BUCKETS + 3], oc[E4_JSTAT_BUCKETS + 3], most = 1;
	unsigned int n, k, upto = 1, sets = old ? 2 : 1, m;
	char b[64];
	double bw, x, y;

	if (live->hist_interval.nbuckets > upto)
		upto = live->hist_interval.nbuckets;
	if (old && old->hist_interval.nbuckets > upto)
		upto = old->hist_interval.nbuckets;
	n = buckets(live, upto, lc);
	if (old)
		buckets(old, upto, oc);
	for (k = 0; k < n; k++) {
		most = lc[k] > most ? lc[k] : most;
		if (old)
			most = oc[k] > most ? oc[k] : most;
	}
	frame(cr, H_TOP, H_BOT);
	y_axis(cr, H_TOP, H_BOT, most * 1.15, "commit intervals");
	bw = (RIGHT - LEFT) / n;
	for (k = 0; k < n; k++) {
		for (m = 0; m < sets; m++) {
			uint64_t c = m ? oc[k] : lc[k];
			double w = bw * 0.76 / sets;

			x = LEFT + k * bw + bw * 0.12 + m * w;
			y = H_BOT - c / (most * 1.15) * (H_BOT - H_TOP);
			if (m)
				cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
			else if (k == 0)
				cairo_set_source_rgb(cr, 0.85, 0.1, 0.1);
			else
				cairo_set_source_rgb(cr, 0.12, 0.4, 0.75);
			cairo_rectangle(cr, x, y, w, H_BOT - y);
			cairo_fill(cr);
			cairo_set_source_rgb(cr, 0, 0, 0);
			snprintf(b, sizeof(b), "%" PRIu64, c);
			text_at(cr, x + w / 2, y - 4, sets > 1 ? 8 : 10, b,
				0.5);
		}
		if (k == 0)
			snprintf(b, sizeof(b), "< 0");
		else if (k == 1)
			snprintf(b, sizeof(b), "0");
		else if (k == 2)
			snprintf(b, sizeof(b), "(0,1)");
		else
			snprintf(b, sizeof(b), "%" PRIu64 "-%" PRIu64,
				 (uint64_t)1 << (k - 3), (uint64_t)2 << (k - 3));
		text_at(cr, LEFT + k * bw + bw / 2, H_BOT + 15,
			n > 16 ? 8 : 10, b, 0.5);
	}
	text_at(cr, (LEFT + RIGHT) / 2, H_BOT + 34, 12, old ?
		"interval between consecutive commits, ms (log2 buckets; "
		"grey: older transactions)" :
		"interval between consecutive commits, ms (log2 buckets)",
		0.5);
}

/* ---- the write log ------------------------------------------------------ */

/* The x axis of a write-log panel: log entries 0 .. @xmax. */
static void entry_axis(cairo_t *cr, double bot, double xmax)
{
	double step = nice_step(xmax, 8), v, x;
	char b[32];

	if (step < 1)
		step = 1;
	for (v = 0; v <= xmax; v += step) {
		x = LEFT + v / xmax * (RIGHT - LEFT);
		cairo_move_to(cr, x, bot);
		cairo_line_to(cr, x, bot + 4);
		cairo_stroke(cr);
		fmt_tick(b, sizeof(b), v, step);
		text_at(cr, x, bot + 17, 11, b, 0.5);
	}
}

static void mark(cairo_t *cr, double x, double y, int square)
{
	cairo_new_sub_path(cr);
	if (square)
		cairo_rectangle(cr, x - 3, y - 3, 6, 6);
	else
		cairo_arc(cr, x, y, 3.5, 0, 6.283185307179586);
	cairo_fill(cr);
}

static void wlegend(cairo_t *cr, double x, double y, const char *what,
		    double r, double g, double b, int square)
{
	cairo_set_source_rgb(cr, r, g, b);
	mark(cr, x, y - 4, square);
	cairo_set_source_rgb(cr, 0, 0, 0);
	text_at(cr, x + 8, y, 11, what, 0);
}

/* Fs blocks per commit write, data and journal, on a log10(1 + v) axis. */
static void wlog_blocks(cairo_t *cr, const struct e4_wlog_stats *ws,
			double xmax)
{
	double most = 10, ymax, x, y, v;
	size_t i;
	char b[32];

	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_span *sp = &ws->commits[i].span;

		most = sp->data_blocks > most ? sp->data_blocks : most;
		most = sp->journal_blocks > most ? sp->journal_blocks : most;
	}
	ymax = log10(1 + most) * 1.1;
	frame(cr, T_TOP, T_BOT);
	for (v = 0; v <= most * 10; v = v ? v * 10 : 1) {
		y = T_BOT - log10(1 + v) / ymax * (T_BOT - T_TOP);
		if (y < T_TOP)
			break;
		cairo_move_to(cr, LEFT - 4, y);
		cairo_line_to(cr, LEFT, y);
		cairo_stroke(cr);
		snprintf(b, sizeof(b), "%.0f", v);
		text_at(cr, LEFT - 7, y + 4, 11, b, 1);
	}
	vtext_at(cr, 22, (T_TOP + T_BOT) / 2, 12, "fs blocks (log scale)");
	entry_axis(cr, T_BOT, xmax);
	text_at(cr, (LEFT + RIGHT) / 2, T_BOT + 34, 12,
		"log entry of the commit write (fs blocks written since the "
		"previous commit write)", 0.5);
	if (!ws->ncommits)
		text_at(cr, (LEFT + RIGHT) / 2, (T_TOP + T_BOT) / 2, 14,
			"no commit write in the log", 0.5);
	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_commit_stat *c = &ws->commits[i];

		x = LEFT + c->commit_entry / xmax * (RIGHT - LEFT);
		cairo_set_source_rgba(cr, 0.12, 0.4, 0.75, 0.6);
		mark(cr, x, T_BOT - log10(1 + c->span.data_blocks) / ymax *
		     (T_BOT - T_TOP), 0);
		cairo_set_source_rgba(cr, 0.9, 0.5, 0.05, 0.6);
		mark(cr, x, T_BOT - log10(1 + c->span.journal_blocks) / ymax *
		     (T_BOT - T_TOP), 1);
	}
	wlegend(cr, LEFT + 200, T_TOP - 8, "data (outside the journal)",
		0.12, 0.4, 0.75, 0);
	wlegend(cr, LEFT + 420, T_TOP - 8, "journal area", 0.9, 0.5, 0.05,
		1);
}

/* FLUSH entries (bars) and files (marks) per commit write. */
static void wlog_flushes(cairo_t *cr, const struct e4_wlog_stats *ws,
			 double xmax)
{
	double most = 1, x, y, bw;
	size_t i;

	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_commit_stat *c = &ws->commits[i];

		most = c->span.flushes > most ? c->span.flushes : most;
		if (c->files_known)
			most = c->files > most ? c->files : most;
	}
	most *= 1.15;
	frame(cr, H_TOP, H_BOT);
	y_axis(cr, H_TOP, H_BOT, most, "per commit write");
	entry_axis(cr, H_BOT, xmax);
	text_at(cr, (LEFT + RIGHT) / 2, H_BOT + 34, 12,
		"log entry of the commit write", 0.5);
	bw = (RIGHT - LEFT) / (xmax + 1) * 0.6;
	bw = bw < 2 ? 2 : bw > 8 ? 8 : bw;
	for (i = 0; i < ws->ncommits; i++) {
		const struct e4_wlog_commit_stat *c = &ws->commits[i];

		x = LEFT + c->commit_entry / xmax * (RIGHT - LEFT);
		y = H_BOT - c->span.flushes / most * (H_BOT - H_TOP);
		cairo_set_source_rgba(cr, 0.3, 0.3, 0.3, 0.7);
		cairo_rectangle(cr, x - bw / 2, y, bw, H_BOT - y);
		cairo_fill(cr);
		if (!c->files_known)
			continue;
		cairo_set_source_rgba(cr, 0.1, 0.6, 0.2, 0.8);
		mark(cr, x, H_BOT - c->files / most * (H_BOT - H_TOP), 0);
	}
	wlegend(cr, LEFT + 200, H_TOP - 8, "FLUSH entries since the previous "
		"commit write (bars)", 0.3, 0.3, 0.3, 1);
	wlegend(cr, LEFT + 520, H_TOP - 8, "files with new mappings", 0.1,
		0.6, 0.2, 0);
}

/* The batching panel: commit writes by promise marks satisfied (0..15,
 * 16 or more), and the promises no commit write satisfied. */
static void wlog_batching(cairo_t *cr, const struct e4_wlog_stats *ws)
{
	double most = 1, bw, x, y;
	char b[96];
	size_t k;

	for (k = 0; k < E4_WLOG_PROMISE_HIST; k++)
		most = ws->promise_hist[k] > most ? ws->promise_hist[k] : most;
	most *= 1.15;
	frame(cr, P_TOP, P_BOT);
	y_axis(cr, P_TOP, P_BOT, most, "commit writes");
	bw = (RIGHT - LEFT) / E4_WLOG_PROMISE_HIST;
	for (k = 0; k < E4_WLOG_PROMISE_HIST; k++) {
		uint64_t c = ws->promise_hist[k];

		x = LEFT + k * bw + bw * 0.12;
		y = P_BOT - c / most * (P_BOT - P_TOP);
		cairo_set_source_rgb(cr, 0.12, 0.4, 0.75);
		cairo_rectangle(cr, x, y, bw * 0.76, P_BOT - y);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(b, sizeof(b), "%" PRIu64, c);
		text_at(cr, x + bw * 0.38, y - 4, 10, b, 0.5);
		snprintf(b, sizeof(b), k + 1 < E4_WLOG_PROMISE_HIST ? "%zu" :
			 "%zu+", k);
		text_at(cr, LEFT + k * bw + bw / 2, P_BOT + 15, 10, b, 0.5);
	}
	snprintf(b, sizeof(b), "promise marks satisfied per commit write "
		 "(fsyncs per commit; %" PRIu64 " of %" PRIu64 " marks by "
		 "none)", ws->unsatisfied, ws->npromises);
	text_at(cr, (LEFT + RIGHT) / 2, P_BOT + 34, 12, b, 0.5);
}

/* What one plot draws. */
struct what {
	const char		*title;
	const struct e4_jstats	*live, *old;
	double			off;
	const struct e4_wlog_stats *ws;
};

static void draw(cairo_t *cr, const struct what *w)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_source_rgb(cr, 0, 0, 0);
	text_at(cr, W / 2, 30, 15, w->title, 0.5);
	if (w->ws) {
		double xmax = w->ws->all.last > 0 ? (double)w->ws->all.last : 1;

		wlog_blocks(cr, w->ws, xmax);
		wlog_flushes(cr, w->ws, xmax);
		if (w->ws->npromises)
			wlog_batching(cr, w->ws);
		return;
	}
	timeline(cr, w->live, w->old, w->off);
	histogram(cr, w->live, w->old);
}

static cairo_status_t put(void *closure, const unsigned char *data,
			  unsigned int len)
{
	FILE *f = closure;

	return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS :
		CAIRO_STATUS_WRITE_ERROR;
}

int e4s_plot_available(void)
{
	return 1;
}

/* Draw @w into @path (SVG or PNG by its suffix), under a temporary name
 * renamed over @path when complete. */
static errcode_t plot_file(const char *path, const struct what *w,
			   const char **why)
{
	size_t n = strlen(path);
	int png = n > 4 && !strcasecmp(path + n - 4, ".png");
	cairo_surface_t *sf;
	cairo_status_t cs;
	double h = w->ws && w->ws->npromises ? H_P : H;
	char *tmp;
	cairo_t *cr;
	errcode_t err = 0;
	FILE *f;
	int fd;

	*why = NULL;
	tmp = malloc(n + 16);
	if (!tmp)
		return ENOMEM;
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		free(tmp);
		return err;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "wb");
	if (!f) {
		err = errno;
		close(fd);
		goto fail;
	}
	if (png)
		sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, h);
	else
		sf = cairo_svg_surface_create_for_stream(put, f, W, h);
	cr = cairo_create(sf);
	draw(cr, w);
	cs = cairo_status(cr);
	cairo_destroy(cr);
	if (cs == CAIRO_STATUS_SUCCESS && png)
		cs = cairo_surface_write_to_png_stream(sf, put, f);
	cairo_surface_finish(sf);
	if (cs == CAIRO_STATUS_SUCCESS)
		cs = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	/* No cairo object is left: empty cairo's caches (the toy font
	 * face's fontconfig pattern) and fontconfig's (a later plot loads
	 * them again), so leak checkers see nothing. */
	cairo_debug_reset_static_data();
	FcFini();
	if (cs != CAIRO_STATUS_SUCCESS) {
		*why = cairo_status_to_string(cs);
		err = EIO;
	}
	if (fflush(f) || fsync(fileno(f)))
		err = err ? err : errno;
	if (fclose(f))
		err = err ? err : errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
fail:
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

errcode_t e4s_plot(const char *path, const char *title,
		   const struct e4_jstats *live, const struct e4_jstats *old,
		   double old_offset, const char **why)
{
	struct what w = { title, live, old, old_offset, NULL };

	return plot_file(path, &w, why);
}

errcode_t e4s_plot_wlog(const char *path, const char *title,
			const struct e4_wlog_stats *ws, const char **why)
{
	struct what w = { title, NULL, NULL, 0, ws };

	return plot_file(path, &w, why);
}

#endif /* HAVE_CAIRO */

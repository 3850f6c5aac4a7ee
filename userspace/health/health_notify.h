/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the checker tells its operator and service manager (prefix hc_):
 * log lines on stderr, and the text of its STATUS= line (sent through
 * sd_notify.h).
 */
#ifndef RINGCTL_HEALTH_NOTIFY_H
#define RINGCTL_HEALTH_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

/* A line of the checker's log, "ringctl health: ...", on stderr (the journal). */
void hc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct hc_state;
/*
 * After a read of the kernel: log each service of ST the kernel lacks,
 * once when it is found missing (at start, or when it goes), and once
 * when it appears (it is checked from then on).
 */
void hc_log_presence(struct hc_state *st);
/*
 * The STATUS= text for ST: services, backends, downs, the checker's
 * condition (VIEW_OK: the last read of the kernel worked), then the
 * services the kernel lacks, counted as unchecked and named as far as
 * LEN allows.
 */
void hc_status_text(char *buf, size_t len, const struct hc_state *st, bool view_ok);

#endif /* RINGCTL_HEALTH_NOTIFY_H */

/*-------------------------------------------------------------------------
 *
 * log.c
 *		The gateway's log: one line on stderr per event, with the time in
 *		UTC to the millisecond.  Called by the request handler (main.c) and
 *		the connection pool (pool.c); it calls nothing of theirs, so the
 *		two need not know each other to report.
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "gateway.h"

/*
 * GwLog
 *		One line on stderr, with the time.
 */
void
GwLog(const char *fmt,...)
{
	char		line[2048];
	char		ts[32];
	struct timeval tv;
	struct tm	tm;
	va_list		ap;
	size_t		n;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	fprintf(stderr, "%s.%03dZ %s\n", ts, (int) (tv.tv_usec / 1000), line);
}

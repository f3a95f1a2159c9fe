/*-------------------------------------------------------------------------
 *
 * options.c
 *		item_table_gateway's options: the command line, configuration files
 *		(--config, one "name = value" per line, the long options' names),
 *		their checks and --help (the program is described in main.c).
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

GwOptions	GwOpt = {
	.listen = "127.0.0.1",
	.port = 8000,
	.max_connections = 10000,
	.timeout = 60,
	.request_timeout = 30,
	.pool_wait_ms = 5000,
	.key_ttl = 5,
	.statement_timeout_ms = 30000,
	.lock_timeout_ms = 5000,
	.max_replica_lag_ms = 1000,
	.engine_loop = true,
	.io_uring = true,
};

void		(*GwOnReady) (int port) = NULL;

#ifndef GW_VERSION
#define GW_VERSION "unknown"
#endif

static void
usage(FILE *out)
{
	fprintf(out,
			"item_table_gateway serves DynamoDB's HTTP API from a PostgreSQL database\n"
			"with the item_table extension.\n\n"
			"Usage:\n"
			"  item_table_gateway [OPTION]... [CONNINFO]\n\n"
			"Options:\n"
			"  --listen ADDR          address to listen on (default 127.0.0.1)\n"
			"  --port N               TCP port (default 8000; 0 picks a free one)\n"
			"  --dbname CONNINFO      database to serve, a name or connection string\n"
			"                         (default: the PG* environment, as psql)\n"
			"  --pool N               PostgreSQL connections (default 2 x CPU cores)\n"
			"  --threads N            event loops (default: half the CPU cores), or\n"
			"                         with --engine mhd HTTP worker threads (default:\n"
			"                         CPU cores)\n"
			"  --engine loop|mhd      the HTTP engine: the gateway's own event loops\n"
			"                         (loop, default) or libmicrohttpd (mhd)\n"
			"  --io uring|epoll       how the loops read and write HTTP: io_uring\n"
			"                         (default, where the kernel allows it) or epoll\n"
			"  --answer-wait US       with io_uring, how long a loop with batches out\n"
			"                         on its PostgreSQL sessions waits to take all\n"
			"                         their answers in one wake-up (0 to 1000,\n"
			"                         default 0: at the first; Linux 6.12 or later)\n"
			"  --pool-wait MS         longest wait for a connection before answering\n"
			"                         ThrottlingException (default 5000)\n"
			"  --pool-per-role N      most connections one role's requests hold at\n"
			"                         once (default: half of --pool, rounded up)\n"
			"  --statement-timeout MS\n"
			"                         cancel a request running longer, answering\n"
			"                         InternalServerError (default 30000; 0: never)\n"
			"  --lock-timeout MS      cancel a request waiting longer for a lock,\n"
			"                         likewise (default 5000; 0: never)\n"
			"  --replica CONNINFO     a hot standby of the database, for eventually\n"
			"                         consistent reads (repeatable; docs/gateway.md)\n"
			"  --max-replica-lag SEC  skip a replica whose replay lags more (default 1)\n"
			"  --metrics-port N       serve GET /metrics on this port only (default:\n"
			"                         on --port)\n"
			"  --auth sigv4|any|none  check AWS SigV4 signatures against\n"
			"                         item_table.access_keys (default); or accept any\n"
			"                         well-formed SigV4 credentials unchecked (any), or\n"
			"                         any request (none), run as the login role\n"
			"  --key-ttl SEC          seconds an access key is cached (default 5)\n"
			"  --tls-cert FILE        serve HTTPS with this certificate (PEM) ...\n"
			"  --tls-key FILE         ... and this private key (PEM)\n"
			"  --max-connections N    concurrent HTTP connections (default 10000)\n"
			"  --timeout SEC          close connections idle this long (default 60)\n"
			"  --request-timeout SEC  close a connection whose request has not arrived\n"
			"                         whole this long after it began (default 30)\n"
			"  --log                  one line per request on stderr: time, client,\n"
			"                         action, status, duration, request id\n"
			"  --config FILE          read options from FILE, where --config stands:\n"
			"                         options after it override the file's\n"
			"  --help                 show this help and exit\n"
			"  --version              show the version and exit\n\n"
			"A configuration file has one \"name = value\" a line, the name a long\n"
			"option without its dashes (\"port = 8000\", \"dbname = dbname=app\",\n"
			"\"log = true\"); lines starting with # and blank lines are ignored.\n\n"
			"When it is ready it prints \"item_table_gateway: listening on URL\".\n"
			"SIGTERM or SIGINT stops it after the requests in progress.\n");
}

/*
 * Options.  The command line and --config FILE set the same options, in
 * order: a file's lines take effect where --config stands, so options after
 * it override the file's and options before it are overridden by it.  A
 * file has one "name = value" a line, the name a long option without its
 * dashes and the value the rest of the line, trimmed (a connection string
 * may hold '=' and '#'); a flag takes true or false (yes/no, on/off, 1/0);
 * lines whose first non-blank character is '#', and blank lines, are
 * ignored.  An error names the file and the line.
 */
static const struct option longopts[] = {
	{"listen", required_argument, NULL, 'l'},
	{"port", required_argument, NULL, 'p'},
	{"dbname", required_argument, NULL, 'd'},
	{"pool", required_argument, NULL, 'P'},
	{"threads", required_argument, NULL, 'T'},
	{"engine", required_argument, NULL, 'E'},
	{"io", required_argument, NULL, 'I'},
	{"answer-wait", required_argument, NULL, 'W'},
	{"pool-wait", required_argument, NULL, 'w'},
	{"auth", required_argument, NULL, 'a'},
	{"key-ttl", required_argument, NULL, 'k'},
	{"tls-cert", required_argument, NULL, 'c'},
	{"tls-key", required_argument, NULL, 'K'},
	{"max-connections", required_argument, NULL, 'm'},
	{"timeout", required_argument, NULL, 't'},
	{"request-timeout", required_argument, NULL, 'R'},
	{"log", no_argument, NULL, 'L'},
	{"pool-per-role", required_argument, NULL, 'r'},
	{"statement-timeout", required_argument, NULL, 'S'},
	{"lock-timeout", required_argument, NULL, 'O'},
	{"replica", required_argument, NULL, 'e'},
	{"max-replica-lag", required_argument, NULL, 'g'},
	{"metrics-port", required_argument, NULL, 'M'},
	{"config", required_argument, NULL, 'C'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0}
};

/* "FILE:LINE" while a configuration file's line is applied, else NULL */
static const char *opt_where = NULL;

/* was --dbname given on the command line (not only in a file)? */
static bool conninfo_from_cli = false;

static void
bad_value(const char *name, const char *s, const char *hint)
{
	if (opt_where)
		fprintf(stderr, "item_table_gateway: %s: invalid value for %s: \"%s\"%s\n",
				opt_where, name, s, hint);
	else
		fprintf(stderr, "item_table_gateway: invalid value for --%s: \"%s\"%s\n",
				name, s, hint);
	exit(2);
}

static int
int_arg(const char *name, const char *s, int min, long max)
{
	char	   *end;
	long		v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max)
		bad_value(name, s, "");
	return (int) v;
}

static void read_config(const char *path);

/*
 * Apply one option; arg is NULL for a flag given on the command line.  A
 * string option keeps arg, which must outlive the options (argv does; a
 * file's values are copied).
 */
static void
set_option(int ch, const char *name, const char *arg)
{
	switch (ch)
	{
		case 'l':
			GwOpt.listen = arg;
			break;
		case 'p':
			GwOpt.port = int_arg(name, arg, 0, 65535);
			break;
		case 'd':
			GwOpt.conninfo = arg;
			if (opt_where == NULL)
				conninfo_from_cli = true;
			break;
		case 'P':
			GwOpt.pool = int_arg(name, arg, 1, 1000000000L);
			break;
		case 'T':
			GwOpt.threads = int_arg(name, arg, 1, 1000000000L);
			break;
		case 'E':
			if (strcmp(arg, "loop") == 0)
				GwOpt.engine_loop = true;
			else if (strcmp(arg, "mhd") == 0)
				GwOpt.engine_loop = false;
			else
				bad_value(name, arg, " (mhd or loop)");
			break;
		case 'I':
			if (strcmp(arg, "uring") == 0)
				GwOpt.io_uring = true;
			else if (strcmp(arg, "epoll") == 0)
				GwOpt.io_uring = false;
			else
				bad_value(name, arg, " (uring or epoll)");
			break;
		case 'W':
			GwOpt.answer_wait_us = int_arg(name, arg, 0, 1000);
			break;
		case 'w':
			GwOpt.pool_wait_ms = int_arg(name, arg, 0, 1000000000L);
			break;
		case 'a':
			GwOpt.auth_none = strcmp(arg, "none") == 0;
			GwOpt.auth_any = strcmp(arg, "any") == 0;
			if (!GwOpt.auth_none && !GwOpt.auth_any && strcmp(arg, "sigv4") != 0)
				bad_value(name, arg, " (sigv4, any or none)");
			break;
		case 'k':
			GwOpt.key_ttl = int_arg(name, arg, 0, 1000000000L);
			break;
		case 'c':
			GwOpt.tls_cert = arg;
			break;
		case 'K':
			GwOpt.tls_key = arg;
			break;
		case 'm':
			GwOpt.max_connections = int_arg(name, arg, 1, 1000000000L);
			break;
		case 't':
			GwOpt.timeout = int_arg(name, arg, 0, 1000000000L);
			break;
		case 'R':
			GwOpt.request_timeout = int_arg(name, arg, 1, 1000000000L);
			break;
		case 'L':
			if (arg == NULL || strcmp(arg, "true") == 0 || strcmp(arg, "yes") == 0 ||
				strcmp(arg, "on") == 0 || strcmp(arg, "1") == 0)
				GwOpt.log = true;
			else if (strcmp(arg, "false") == 0 || strcmp(arg, "no") == 0 ||
					 strcmp(arg, "off") == 0 || strcmp(arg, "0") == 0)
				GwOpt.log = false;
			else
				bad_value(name, arg, " (true or false)");
			break;
		case 'r':
			GwOpt.pool_per_role = int_arg(name, arg, 1, 1000000000L);
			break;
		case 'S':
			GwOpt.statement_timeout_ms = int_arg(name, arg, 0, 1000000000L);
			break;
		case 'O':
			GwOpt.lock_timeout_ms = int_arg(name, arg, 0, 1000000000L);
			break;
		case 'e':
			if (GwOpt.nreplicas == GW_MAX_REPLICAS)
				bad_value(name, arg, " (at most 16 replicas)");
			GwOpt.replicas[GwOpt.nreplicas++] = arg;
			break;
		case 'g':
			{
				char	   *end;
				double		v = strtod(arg, &end);

				if (*arg == '\0' || *end != '\0' || !(v >= 0.001 && v <= 86400))
					bad_value(name, arg, " (seconds, from 0.001 to 86400)");
				GwOpt.max_replica_lag_ms = (int) (v * 1000 + 0.5);
			}
			break;
		case 'M':
			GwOpt.metrics_port = int_arg(name, arg, 1, 65535);
			break;
		case 'C':
			read_config(arg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("item_table_gateway (item_table) %s\n", GW_VERSION);
			exit(0);
		default:
			usage(stderr);
			exit(2);
	}
}

static char *
trim(char *s)
{
	char	   *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static void
read_config(const char *path)
{
	FILE	   *f;
	char	   *line = NULL;
	size_t		cap = 0;
	long		lineno = 0;

	if (opt_where)
	{
		fprintf(stderr, "item_table_gateway: %s: a configuration file cannot read another (config)\n",
				opt_where);
		exit(2);
	}
	f = fopen(path, "r");
	if (f == NULL)
	{
		fprintf(stderr, "item_table_gateway: cannot read configuration file \"%s\": %s\n",
				path, strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) != -1)
	{
		char		where[4096];
		char	   *s = trim(line),
				   *eq,
				   *name,
				   *value;
		const struct option *o;

		lineno++;
		if (*s == '\0' || *s == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%ld", path, lineno);
		eq = strchr(s, '=');
		if (eq == NULL)
		{
			fprintf(stderr, "item_table_gateway: %s: expected \"name = value\", found \"%s\"\n",
					where, s);
			exit(2);
		}
		*eq = '\0';
		name = trim(s);
		value = trim(eq + 1);
		for (o = longopts; o->name; o++)
			if (strcmp(o->name, name) == 0)
				break;
		if (o->name == NULL)
		{
			fprintf(stderr, "item_table_gateway: %s: unknown option \"%s\"\n", where, name);
			exit(2);
		}
		if (o->val == 'C' || o->val == 'h' || o->val == 'V')
		{
			fprintf(stderr, "item_table_gateway: %s: \"%s\" is for the command line only\n",
					where, name);
			exit(2);
		}
		if (*value == '\0')
		{
			fprintf(stderr, "item_table_gateway: %s: no value for %s\n", where, name);
			exit(2);
		}
		value = strdup(value);
		if (value == NULL)
		{
			fprintf(stderr, "item_table_gateway: out of memory\n");
			exit(1);
		}
		opt_where = where;
		set_option(o->val, o->name, value);
		opt_where = NULL;
	}
	if (ferror(f))
	{
		fprintf(stderr, "item_table_gateway: cannot read configuration file \"%s\": %s\n",
				path, strerror(errno));
		exit(2);
	}
	free(line);
	fclose(f);
}

/*
 * GwReadOptions
 *		Read the command line (and a --config file, at its place among the
 *		options) into GwOpt: 0, or the exit status for main.
 */
int
GwReadOptions(int argc, char **argv)
{
	int			ch,
				idx = 0;

	while ((ch = getopt_long(argc, argv, "h", longopts, &idx)) != -1)
	{
		if (ch == '?')
		{
			usage(stderr);
			return 2;
		}
		set_option(ch, ch == 'h' ? "help" : longopts[idx].name, optarg);
	}
	if (optind < argc)
	{
		/* one CONNINFO argument, overriding a configuration file's dbname */
		if (conninfo_from_cli || optind + 1 < argc)
		{
			fprintf(stderr, "item_table_gateway: give the database once, with --dbname or as one argument\n");
			return 2;
		}
		GwOpt.conninfo = argv[optind];
	}
	if ((GwOpt.tls_cert == NULL) != (GwOpt.tls_key == NULL))
	{
		fprintf(stderr, "item_table_gateway: --tls-cert and --tls-key go together\n");
		return 2;
	}
	return 0;
}

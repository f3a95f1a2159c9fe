/*-------------------------------------------------------------------------
 *
 * local.c
 *		item_table_local: a DynamoDB endpoint in one command, for development
 *		and tests, in the place of DynamoDB Local.
 *
 * It keeps a private PostgreSQL cluster in a data directory (made with
 * initdb on first use, the extension created in its "postgres" database),
 * starts the server on a Unix socket in that directory only, then runs the
 * gateway (GwMain, main.c) on it, as item_table_gateway would run: the HTTP
 * side, SigV4 and the pool are the gateway's own code.  When the gateway
 * returns (SIGINT or SIGTERM, its requests in progress finished), the server
 * gets a fast shutdown and the program exits.
 *
 * Credentials, as DynamoDB Local's: by default any well-formed SigV4
 * request is taken (the gateway's --auth any) and runs as the role
 * "dynamodb", which the instance creates; --auth sigv4 checks real keys
 * (--create-key ROLE makes one).  Every request of any credentials reaches
 * the same tables: DynamoDB Local's -sharedDb behaviour (docs/local.md says
 * why there is no per-credentials separation).
 *
 * The data directory DIR holds:
 *		pgdata/					the cluster
 *		server.log				the server's log (initdb.log on first use)
 *		item_table_local.lock	locked (flock) while an instance runs in DIR,
 *								holding its pid, socket directory and URL
 *		.s.PGSQL.5432			the server's socket, when DIR's path is short
 *								enough for one (else a private directory in
 *								the temporary directory)
 *
 * The server process is started in a session of its own (a Ctrl-C on the
 * terminal reaches this program only, which then stops the server in
 * order) and is told to shut down fast if this program dies without doing
 * so (PR_SET_PDEATHSIG); it inherits the lock, so a directory stays "in
 * use" until its server has gone too.
 *
 * Run as root, it runs as an unprivileged user instead (--user, default
 * postgres, which the PostgreSQL packages make): PostgreSQL refuses to run
 * as root.
 *
 *-------------------------------------------------------------------------
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gateway.h"

#ifndef GW_VERSION
#define GW_VERSION "unknown"
#endif
#ifndef GW_PGBINDIR
#define GW_PGBINDIR ""
#endif

#define LOCAL_ROLE "dynamodb"	/* what requests run as under --auth any */
#define LOCAL_DB "postgres"
#define LOCAL_SUPERUSER "postgres"
#define LOCAL_PGPORT "5432"		/* the socket's name only: no TCP */
#define LOCK_NAME "item_table_local.lock"

static struct
{
	const char *data_dir;
	const char *listen;
	int			port;
	bool		in_memory;
	bool		auth_sigv4;
	bool		any_from_network;
	const char *create_key;
	bool		psql;
	const char *user;
	bool		log;
	int			pool;
	const char *pg_bin;
} opt = {
	.data_dir = "item_table_data",
	.listen = "127.0.0.1",
	.port = 8000,
	.user = "postgres",
};

static char data_dir[PATH_MAX];	/* absolute */
static char pgdata[PATH_MAX + 16];
static char sock_dir[PATH_MAX];
static char pg_bin[PATH_MAX];
static bool sock_dir_made = false;
static pid_t postmaster = 0;
static pid_t sync_pid = 0;		/* initdb --sync-only after a first start */
static sigset_t stop_sigs;

static void
say(const char *fmt,...) __attribute__((format(printf, 1, 2)));
static void
say(const char *fmt,...)
{
	va_list		ap;

	fputs("item_table_local: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
usage(FILE *out)
{
	fprintf(out,
			"item_table_local runs a DynamoDB endpoint on a private PostgreSQL cluster\n"
			"with item_table, in one process, in the place of DynamoDB Local.\n\n"
			"Usage:\n"
			"  item_table_local [OPTION]...\n"
			"  item_table_local --psql [--data-dir DIR] [-- PSQL-ARGUMENT...]\n\n"
			"Options:\n"
			"  --data-dir DIR         where the data lives, made on first use\n"
			"                         (default ./item_table_data)\n"
			"  --port N               TCP port (default 8000; 0 picks a free one)\n"
			"  --listen ADDR          address to listen on (default 127.0.0.1)\n"
			"  --in-memory            a cluster in a memory-backed directory, without\n"
			"                         fsync, removed on exit\n"
			"  --auth any|sigv4       accept any well-formed SigV4 credentials, as\n"
			"                         DynamoDB Local does (default), or check keys of\n"
			"                         item_table.access_keys\n"
			"  --create-key ROLE      print a new access key of ROLE (made if missing,\n"
			"                         with the right to create tables): at start, or\n"
			"                         from the instance running in DIR\n"
			"  --accept-any-credentials-from-network\n"
			"                         allow --listen on an address other than loopback\n"
			"                         with --auth any: anyone who reaches the port can\n"
			"                         read and change every table\n"
			"  --psql                 open psql on the instance running in DIR\n"
			"  --user NAME            run as this user when started as root\n"
			"                         (default postgres)\n"
			"  --pg-bin DIR           where initdb, postgres and psql are\n"
			"  --pool N               PostgreSQL connections of the gateway\n"
			"  --log                  one line per request on stderr\n"
			"  --help                 show this help and exit\n"
			"  --version              show the version and exit\n\n"
			"DynamoDB Local's options are taken too: -port N, -dbPath DIR (the\n"
			"--data-dir), -inMemory, -sharedDb (what it always does), and, accepted\n"
			"and without effect, -delayTransientStatuses, -optimizeDbBeforeStartup,\n"
			"-disableTelemetry and -cors LIST; -help.\n\n"
			"When it is ready it prints \"item_table_local: listening on URL ...\".\n"
			"SIGTERM or SIGINT stops the endpoint and the cluster; a second start\n"
			"in the same data directory finds the tables and items again.\n");
}

static const struct option longopts[] = {
	{"data-dir", required_argument, NULL, 'd'},
	{"dbPath", required_argument, NULL, 'd'},
	{"port", required_argument, NULL, 'p'},
	{"listen", required_argument, NULL, 'l'},
	{"in-memory", no_argument, NULL, 'm'},
	{"inMemory", no_argument, NULL, 'm'},
	{"auth", required_argument, NULL, 'a'},
	{"create-key", required_argument, NULL, 'k'},
	{"accept-any-credentials-from-network", no_argument, NULL, 'N'},
	{"psql", no_argument, NULL, 'q'},
	{"user", required_argument, NULL, 'u'},
	{"pg-bin", required_argument, NULL, 'b'},
	{"pool", required_argument, NULL, 'P'},
	{"log", no_argument, NULL, 'L'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	/* DynamoDB Local's, without effect here */
	{"sharedDb", no_argument, NULL, 0},
	{"delayTransientStatuses", no_argument, NULL, 0},
	{"optimizeDbBeforeStartup", no_argument, NULL, 0},
	{"disableTelemetry", no_argument, NULL, 0},
	{"cors", required_argument, NULL, 0},
	{NULL, 0, NULL, 0}
};

static int
int_arg(const char *name, const char *s, int min, int max)
{
	char	   *end;
	long		v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max)
	{
		say("invalid value for %s: \"%s\"", name, s);
		exit(2);
	}
	return (int) v;
}

static bool
is_executable_in(const char *dir, const char *name)
{
	char		path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, X_OK) == 0;
}

/*
 * Where initdb, postgres and psql are: --pg-bin; this program's own
 * directory (make install puts it in pg_config --bindir); the bindir it
 * was built against; else the newest /usr/lib/postgresql/N/bin whose
 * PostgreSQL has item_table installed (the Debian packages put this
 * program in /usr/bin, and the extension in each major's directory).
 */
static bool
find_pg_bin(void)
{
	char		self[PATH_MAX];
	ssize_t		n;
	int			major;

	if (opt.pg_bin)
	{
		snprintf(pg_bin, sizeof(pg_bin), "%s", opt.pg_bin);
		return is_executable_in(pg_bin, "postgres");
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
	{
		char	   *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash)
		{
			*slash = '\0';
			if (is_executable_in(self, "postgres") && is_executable_in(self, "initdb"))
			{
				snprintf(pg_bin, sizeof(pg_bin), "%s", self);
				return true;
			}
		}
	}
	if (GW_PGBINDIR[0] && is_executable_in(GW_PGBINDIR, "postgres") &&
		is_executable_in(GW_PGBINDIR, "initdb"))
	{
		char		lib[PATH_MAX];

		snprintf(lib, sizeof(lib), "%s/../lib/item_table.so", GW_PGBINDIR);
		if (access(lib, R_OK) == 0 || strncmp(GW_PGBINDIR, "/usr/lib/postgresql/", 20) != 0)
		{
			snprintf(pg_bin, sizeof(pg_bin), "%s", GW_PGBINDIR);
			return true;
		}
	}
	for (major = 40; major >= 15; major--)
	{
		char		dir[64],
					lib[128];

		snprintf(dir, sizeof(dir), "/usr/lib/postgresql/%d/bin", major);
		snprintf(lib, sizeof(lib), "/usr/lib/postgresql/%d/lib/item_table.so", major);
		if (is_executable_in(dir, "postgres") && is_executable_in(dir, "initdb") &&
			access(lib, R_OK) == 0)
		{
			snprintf(pg_bin, sizeof(pg_bin), "%s", dir);
			return true;
		}
	}
	return false;
}

/* start a program of pg_bin, its output into log (appended): its pid */
static pid_t
start_pg_program(char *const argv[], const char *log)
{
	pid_t		pid;
	char		path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", pg_bin, argv[0]);
	pid = fork();
	if (pid == 0)
	{
		int			fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		if (fd >= 0)
		{
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		sigprocmask(SIG_UNBLOCK, &stop_sigs, NULL);
		/*
		 * argv[0] is the full path: initdb and postgres find their own
		 * directory (and so postgres, the share directory) from it, and a
		 * bare name would send them searching a PATH that need not hold it
		 */
		((char **) argv)[0] = path;
		execv(path, argv);
		_exit(127);
	}
	return pid;
}

/* run a program of pg_bin, its output into log (appended): its exit status */
static int
run_pg_program(char *const argv[], const char *log)
{
	pid_t		pid = start_pg_program(argv, log);
	int			status;

	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void
tail_file(const char *path, int lines)
{
	FILE	   *f = fopen(path, "r");
	char	   *buf;
	long		size,
				from;
	int			seen = 0;

	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	from = size > 16384 ? size - 16384 : 0;
	buf = malloc(size - from + 1);
	if (buf == NULL)
	{
		fclose(f);
		return;
	}
	fseek(f, from, SEEK_SET);
	size = (long) fread(buf, 1, size - from, f);
	buf[size] = '\0';
	for (from = size - 1; from > 0; from--)
		if (buf[from - 1] == '\n' && ++seen > lines)
			break;
	fputs(buf + (from > 0 ? from : 0), stderr);
	free(buf);
	fclose(f);
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void) st;
	(void) flag;
	(void) ftw;
	return remove(path);
}

static void
rm_rf(const char *path)
{
	(void) nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
}

/* the connection string of the running cluster, for libpq */
static void
conninfo_of(char *out, size_t outlen, const char *sockdir)
{
	char		quoted[2 * PATH_MAX + 1];
	size_t		i,
				n = 0;

	/* a value in single quotes, ' and \ escaped with a backslash */
	for (i = 0; sockdir[i] && n + 2 < sizeof(quoted); i++)
	{
		if (sockdir[i] == '\'' || sockdir[i] == '\\')
			quoted[n++] = '\\';
		quoted[n++] = sockdir[i];
	}
	quoted[n] = '\0';
	snprintf(out, outlen, "host='%s' port=" LOCAL_PGPORT " dbname=" LOCAL_DB
			 " user=" LOCAL_SUPERUSER " application_name=item_table_local", quoted);
}

/*
 * As root: become the unprivileged user (after making the data directory
 * its own when it had to be made here).
 */
static void
drop_root(const char *dir_to_give)
{
	struct passwd *pw;

	if (geteuid() != 0)
		return;
	pw = getpwnam(opt.user);
	if (pw == NULL)
	{
		say("running as root, and the user \"%s\" to run as does not exist (give another with --user)",
			opt.user);
		exit(1);
	}
	if (pw->pw_uid == 0)
	{
		say("PostgreSQL cannot run as root: give an unprivileged user with --user");
		exit(1);
	}
	if (dir_to_give && chown(dir_to_give, pw->pw_uid, pw->pw_gid) != 0)
	{
		say("cannot give %s to user %s: %s", dir_to_give, opt.user, strerror(errno));
		exit(1);
	}
	if (initgroups(pw->pw_name, pw->pw_gid) != 0 || setgid(pw->pw_gid) != 0 ||
		setuid(pw->pw_uid) != 0)
	{
		say("cannot become user %s: %s", opt.user, strerror(errno));
		exit(1);
	}
	setenv("HOME", pw->pw_dir, 1);
	setenv("USER", pw->pw_name, 1);
	setenv("LOGNAME", pw->pw_name, 1);
}

/*
 * Read the lock file of a running instance: its pid and socket directory.
 */
static bool
read_lock(int fd, long *pid, char *sockdir, size_t sockdirlen)
{
	char		buf[PATH_MAX + 256];
	ssize_t		n = pread(fd, buf, sizeof(buf) - 1, 0);
	char	   *nl;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	*pid = strtol(buf, &nl, 10);
	if (*nl != '\n')
		return false;
	nl++;
	n = (ssize_t) strcspn(nl, "\n");
	if (n == 0 || (size_t) n >= sockdirlen)
		return false;
	memcpy(sockdir, nl, n);
	sockdir[n] = '\0';
	return true;
}

/* run one statement; false (and a message) when it fails */
static bool
exec_sql(PGconn *conn, const char *sql, int nparams, const char *const *params, PGresult **out)
{
	PGresult   *res = PQexecParams(conn, sql, nparams, NULL, params, NULL, NULL, 0);

	if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		say("setting up the database failed: %s", PQerrorMessage(conn));
		PQclear(res);
		return false;
	}
	if (out)
		*out = res;
	else
		PQclear(res);
	return true;
}

/*
 * The role requests run as: made (NOLOGIN) if missing, with the right to
 * create tables.  Its name is a parameter, handed to the DO block through a
 * setting of the session.
 */
static const char role_sql[] =
"DO $$ DECLARE r text := pg_catalog.current_setting('item_table_local.role');\n"
"BEGIN\n"
"  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = r) THEN\n"
"    EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', r);\n"
"  END IF;\n"
"  EXECUTE pg_catalog.format('GRANT CREATE ON SCHEMA item_data TO %I', r);\n"
"END $$";

static bool
make_role(PGconn *conn, const char *role)
{
	const char *params[1] = {role};

	return exec_sql(conn, "SELECT pg_catalog.set_config('item_table_local.role', $1, false)",
					1, params, NULL) &&
		exec_sql(conn, role_sql, 0, NULL, NULL);
}

/* a new access key of role (made if missing), printed on stdout */
static bool
create_key(PGconn *conn, const char *role)
{
	const char *params[1] = {role};
	PGresult   *res;

	if (!make_role(conn, role))
		return false;
	if (!exec_sql(conn,
				  "SELECT access_key_id, secret_access_key FROM item_table.create_access_key("
				  "pg_catalog.quote_ident($1)::regrole)", 1, params, &res))
		return false;
	printf("item_table_local: access key of role %s: aws_access_key_id=%s aws_secret_access_key=%s\n",
		   role, PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1));
	fflush(stdout);
	PQclear(res);
	return true;
}

/*
 * The database's setup, on every start (each step does nothing when done):
 * the extension, created or updated to the installed version, and the role
 * requests run as.
 */
static const char setup_sql[] =
"SET client_min_messages = warning;\n"
"CREATE EXTENSION IF NOT EXISTS item_table;\n"
"DO $$ BEGIN\n"
"  IF (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'item_table')\n"
"     IS DISTINCT FROM (SELECT default_version FROM pg_catalog.pg_available_extensions\n"
"                       WHERE name = 'item_table') THEN\n"
"    ALTER EXTENSION item_table UPDATE;\n"
"  END IF;\n"
"END $$;\n";

static bool
setup_database(PGconn *conn)
{
	PGresult   *res = PQexec(conn, setup_sql);
	bool		ok;

	/* PQexec of several statements: the last one's result, or the error */
	ok = PQresultStatus(res) == PGRES_TUPLES_OK || PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		say("setting up the database failed: %s", PQerrorMessage(conn));
	PQclear(res);
	return ok && make_role(conn, LOCAL_ROLE);
}

/* --psql and --create-key on an instance that runs */
static int
use_running(int lockfd, int argc, char **argv)
{
	long		pid;
	char		sockdir[PATH_MAX];
	char		conninfo[PATH_MAX + 200];

	if (!read_lock(lockfd, &pid, sockdir, sizeof(sockdir)))
	{
		say("the instance in %s is starting or stopping; try again", data_dir);
		return 1;
	}
	conninfo_of(conninfo, sizeof(conninfo), sockdir);
	if (opt.psql)
	{
		char	  **args = calloc(argc + 8, sizeof(char *));
		char		path[PATH_MAX + 16];
		int			n = 0;

		if (args == NULL)
			return 1;
		snprintf(path, sizeof(path), "%s/psql", pg_bin);
		args[n++] = "psql";
		args[n++] = "-d";
		args[n++] = conninfo;
		for (; optind < argc; optind++)
			args[n++] = argv[optind];
		args[n] = NULL;
		execv(path, args);
		say("cannot run %s: %s", path, strerror(errno));
		return 1;
	}
	else
	{
		PGconn	   *conn = PQconnectdb(conninfo);
		bool		ok;

		if (PQstatus(conn) != CONNECTION_OK)
		{
			say("cannot connect to the instance in %s: %s", data_dir, PQerrorMessage(conn));
			PQfinish(conn);
			return 1;
		}
		ok = create_key(conn, opt.create_key);
		PQfinish(conn);
		return ok ? 0 : 1;
	}
}

/* start the server; false when it does not come up */
static bool
start_server(void)
{
	char		log[PATH_MAX + 32];
	char		conninfo[PATH_MAX + 200];
	char		sockset[PATH_MAX + 64];
	char	   *argv[40];
	int			n = 0,
				i;
	pid_t		parent = getpid();

	snprintf(log, sizeof(log), "%s/server.log", data_dir);
	snprintf(sockset, sizeof(sockset), "unix_socket_directories=%s", sock_dir);
	argv[n++] = "postgres";
	argv[n++] = "-D";
	argv[n++] = pgdata;
	argv[n++] = "-c";
	argv[n++] = "listen_addresses=";
	argv[n++] = "-c";
	argv[n++] = sockset;
	argv[n++] = "-c";
	argv[n++] = "unix_socket_permissions=0700";
	argv[n++] = "-c";
	argv[n++] = "port=" LOCAL_PGPORT;
	argv[n++] = "-c";
	argv[n++] = "shared_preload_libraries=item_table";
	argv[n++] = "-c";
	argv[n++] = "log_min_messages=warning";
	if (opt.in_memory)
	{
		argv[n++] = "-c";
		argv[n++] = "fsync=off";
		argv[n++] = "-c";
		argv[n++] = "synchronous_commit=off";
		argv[n++] = "-c";
		argv[n++] = "full_page_writes=off";
		argv[n++] = "-c";
		argv[n++] = "wal_level=minimal";
		argv[n++] = "-c";
		argv[n++] = "max_wal_senders=0";
	}
	argv[n] = NULL;

	postmaster = fork();
	if (postmaster < 0)
	{
		say("cannot start the server: %s", strerror(errno));
		return false;
	}
	if (postmaster == 0)
	{
		char		path[PATH_MAX + 16];
		int			fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		/* its own session: a terminal's Ctrl-C is for item_table_local */
		setsid();
		/* shut down fast if item_table_local dies without stopping it */
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != parent)
			_exit(1);
		if (fd >= 0)
		{
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
		{
			dup2(fd, 0);
			close(fd);
		}
		sigprocmask(SIG_UNBLOCK, &stop_sigs, NULL);
		snprintf(path, sizeof(path), "%s/postgres", pg_bin);
		argv[0] = path;			/* as in start_pg_program */
		execv(path, argv);
		_exit(127);
	}

	conninfo_of(conninfo, sizeof(conninfo), sock_dir);
	for (i = 0; i < 6000; i++)	/* 60 s */
	{
		struct timespec nap = {0, 10 * 1000 * 1000};
		int			status;
		sigset_t	pending;

		if (PQping(conninfo) == PQPING_OK)
			return true;
		if (waitpid(postmaster, &status, WNOHANG) == postmaster)
		{
			postmaster = 0;
			say("the PostgreSQL server did not start; the end of %s:", log);
			tail_file(log, 15);
			return false;
		}
		if (sigpending(&pending) == 0 &&
			(sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM)))
		{
			say("stopped while the server started");
			return false;
		}
		nanosleep(&nap, NULL);
	}
	say("the PostgreSQL server did not accept connections within 60 s (see %s)", log);
	return false;
}

static void
stop_server(void)
{
	int			status,
				i;

	if (postmaster <= 0)
		return;
	kill(postmaster, SIGINT);	/* fast shutdown */
	for (i = 0; i < 3000; i++)
	{
		struct timespec nap = {0, 10 * 1000 * 1000};

		if (waitpid(postmaster, &status, WNOHANG) == postmaster)
		{
			postmaster = 0;
			return;
		}
		nanosleep(&nap, NULL);
	}
	say("the server did not stop within 30 s: stopping it at once");
	kill(postmaster, SIGQUIT);
	waitpid(postmaster, &status, 0);
	postmaster = 0;
}

/* the ready line, called by GwMain once it listens */
static void
local_ready(int port)
{
	bool		v6 = strchr(opt.listen, ':') != NULL;

	printf("item_table_local: listening on http://%s%s%s:%d (data in %s%s; SQL: item_table_local --psql --data-dir %s)\n",
		   v6 ? "[" : "", opt.listen, v6 ? "]" : "", port,
		   data_dir, opt.in_memory ? ", removed on exit" : "", data_dir);
}

static bool
is_loopback(const char *addr)
{
	return strcmp(addr, "localhost") == 0 || strncmp(addr, "127.", 4) == 0 ||
		strcmp(addr, "::1") == 0;
}

int
main(int argc, char **argv)
{
	int			ch,
				idx = 0,
				lockfd,
				rc;
	bool		made_dir = false,
				first_use;
	char		path[PATH_MAX + 64];
	char		conninfo[PATH_MAX + 200];
	PGconn	   *conn;
	struct stat st;

	while ((ch = getopt_long_only(argc, argv, "", longopts, &idx)) != -1)
	{
		const char *name = longopts[idx].name;

		switch (ch)
		{
			case 0:
				break;
			case 'd':
				opt.data_dir = optarg;
				break;
			case 'p':
				opt.port = int_arg(name, optarg, 0, 65535);
				break;
			case 'l':
				opt.listen = optarg;
				break;
			case 'm':
				opt.in_memory = true;
				break;
			case 'a':
				if (strcmp(optarg, "sigv4") == 0)
					opt.auth_sigv4 = true;
				else if (strcmp(optarg, "any") == 0)
					opt.auth_sigv4 = false;
				else
				{
					say("invalid value for --auth: \"%s\" (any or sigv4)", optarg);
					return 2;
				}
				break;
			case 'k':
				opt.create_key = optarg;
				break;
			case 'N':
				opt.any_from_network = true;
				break;
			case 'q':
				opt.psql = true;
				break;
			case 'u':
				opt.user = optarg;
				break;
			case 'b':
				opt.pg_bin = optarg;
				break;
			case 'P':
				opt.pool = int_arg(name, optarg, 1, 10000);
				break;
			case 'L':
				opt.log = true;
				break;
			case 'h':
				usage(stdout);
				return 0;
			case 'V':
				printf("item_table_local (item_table) %s\n", GW_VERSION);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc && !opt.psql)
	{
		say("unexpected argument \"%s\" (see --help)", argv[optind]);
		return 2;
	}
	if (!is_loopback(opt.listen) && !opt.auth_sigv4 && !opt.any_from_network)
	{
		say("refusing to listen on %s with any credentials accepted: give --auth sigv4 "
			"(and keys made with --create-key), or --accept-any-credentials-from-network",
			opt.listen);
		return 2;
	}
	if (opt.in_memory && opt.psql)
	{
		say("--psql opens the instance of a --data-dir; an -inMemory instance prints its directory when ready");
		return 2;
	}
	if (!find_pg_bin())
	{
		say("PostgreSQL's initdb and postgres were not found%s%s (give their directory with --pg-bin)",
			opt.pg_bin ? " in " : "", opt.pg_bin ? opt.pg_bin : "");
		return 1;
	}

	/* stop signals wait until the gateway's sigwait (or are polled) */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_sigs, NULL);
	/* a shell starts background commands with SIGINT ignored: take it */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);

	/* the data directory: made if missing, absolute, the user's */
	if (opt.in_memory)
	{
		struct statvfs vfs;
		const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : P_tmpdir;

		/* /dev/shm when it has room for a cluster (a container's often
		 * has 64 MB) */
		if (access("/dev/shm", W_OK | X_OK) == 0 && statvfs("/dev/shm", &vfs) == 0 &&
			(unsigned long long) vfs.f_bavail * vfs.f_frsize >= 512ULL * 1024 * 1024)
			base = "/dev/shm";

		snprintf(path, sizeof(path), "%s/item_table_local.XXXXXX", base);
		if (mkdtemp(path) == NULL)
		{
			say("cannot make a directory in %s: %s", base, strerror(errno));
			return 1;
		}
		made_dir = true;
	}
	else
	{
		snprintf(path, sizeof(path), "%s", opt.data_dir);
		if (mkdir(path, 0700) == 0)
			made_dir = true;
		else if (errno != EEXIST)
		{
			say("cannot make the data directory %s: %s", path, strerror(errno));
			return 1;
		}
	}
	if (realpath(path, data_dir) == NULL)
	{
		say("cannot use the data directory %s: %s", path, strerror(errno));
		return 1;
	}
	if (geteuid() == 0 && !made_dir && stat(data_dir, &st) == 0 && st.st_uid == 0)
	{
		/* root's own directory: given to the user only when it is empty */
		DIR		   *d = opendir(data_dir);
		struct dirent *e;
		bool		empty = d != NULL;

		while (d && (e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				empty = false;
		if (d)
			closedir(d);
		if (!empty)
		{
			say("the data directory %s belongs to root and is not empty: PostgreSQL runs as user %s, "
				"give a new or empty directory (it is made that user's)", data_dir, opt.user);
			return 1;
		}
		made_dir = true;
	}
	drop_root(made_dir ? data_dir : NULL);
	if (access(data_dir, R_OK | W_OK | X_OK) != 0)
	{
		say("the data directory %s is not usable by user %s: %s%s", data_dir,
			getpwuid(geteuid()) ? getpwuid(geteuid())->pw_name : "?", strerror(errno),
			errno == EACCES ? " (a directory above it may be closed to that user: choose a --data-dir it can reach)" : "");
		if (opt.in_memory)
			rm_rf(data_dir);
		return 1;
	}
	snprintf(pgdata, sizeof(pgdata), "%s/pgdata", data_dir);

	/* one instance per data directory */
	snprintf(path, sizeof(path), "%s/" LOCK_NAME, data_dir);
	lockfd = open(path, O_RDWR | O_CREAT, 0600);
	if (lockfd < 0)
	{
		say("cannot open %s: %s", path, strerror(errno));
		return 1;
	}
	if (flock(lockfd, LOCK_EX | LOCK_NB) != 0)
	{
		long		pid;
		char		sockdir[PATH_MAX];

		if (errno != EWOULDBLOCK)
		{
			say("cannot lock %s: %s", path, strerror(errno));
			return 1;
		}
		if (opt.psql || opt.create_key)
			return use_running(lockfd, argc, argv);
		if (read_lock(lockfd, &pid, sockdir, sizeof(sockdir)))
			say("the data directory %s is in use by a running item_table_local (pid %ld): stop it, or give another --data-dir",
				data_dir, pid);
		else
			say("the data directory %s is in use by a running item_table_local: stop it, or give another --data-dir",
				data_dir);
		return 1;
	}
	if (opt.psql)
	{
		say("no item_table_local is running in %s (start one, then --psql)", data_dir);
		return 1;
	}

	/*
	 * The socket: in the data directory when its path fits (and holds none
	 * of the characters unix_socket_directories, a list, would split on)
	 */
	if (strlen(data_dir) + sizeof("/.s.PGSQL." LOCAL_PGPORT ".lock") <= sizeof(((struct sockaddr_un *) 0)->sun_path) &&
		strpbrk(data_dir, ", \t\"") == NULL)
		snprintf(sock_dir, sizeof(sock_dir), "%s", data_dir);
	else
	{
		const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : P_tmpdir;

		snprintf(sock_dir, sizeof(sock_dir), "%s/item_table_local.XXXXXX", tmp);
		if (mkdtemp(sock_dir) == NULL)
		{
			say("cannot make a socket directory in %s: %s", tmp, strerror(errno));
			return 1;
		}
		sock_dir_made = true;
	}
	{
		char		buf[PATH_MAX + 64];
		int			len = snprintf(buf, sizeof(buf), "%ld\n%s\n", (long) getpid(), sock_dir);

		if (ftruncate(lockfd, 0) != 0 || pwrite(lockfd, buf, len, 0) != len)
		{
			say("cannot write %s/" LOCK_NAME ": %s", data_dir, strerror(errno));
			return 1;
		}
	}

	rc = 1;
	snprintf(path, sizeof(path), "%s/PG_VERSION", pgdata);
	first_use = access(path, F_OK) != 0;
	if (first_use)
	{
		char		log[PATH_MAX + 32];
		char	   *initdb[] = {"initdb", "-D", pgdata, "-U", LOCAL_SUPERUSER,
			"--auth=trust", "--encoding=UTF8", "--no-locale", "--no-instructions",
		"--no-sync", NULL};

		snprintf(log, sizeof(log), "%s/initdb.log", data_dir);
		rm_rf(pgdata);			/* an initdb cut short */
		if (run_pg_program(initdb, log) != 0)
		{
			say("initdb failed; the end of %s:", log);
			tail_file(log, 15);
			goto done;
		}
	}
	if (!start_server())
		goto done;

	/*
	 * initdb ran with --no-sync: its files go to disk in the background
	 * (initdb --sync-only) while the instance serves, rather than delaying
	 * the first start by seconds on a busy disk
	 */
	if (first_use && !opt.in_memory)
	{
		char		log[PATH_MAX + 32];
		char	   *sync_only[] = {"initdb", "--sync-only", "-D", pgdata, NULL};

		snprintf(log, sizeof(log), "%s/initdb.log", data_dir);
		sync_pid = start_pg_program(sync_only, log);
	}

	conninfo_of(conninfo, sizeof(conninfo), sock_dir);
	conn = PQconnectdb(conninfo);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		say("cannot connect to the server: %s", PQerrorMessage(conn));
		PQfinish(conn);
		goto done;
	}
	if (!setup_database(conn) || (opt.create_key && !create_key(conn, opt.create_key)))
	{
		PQfinish(conn);
		goto done;
	}
	PQfinish(conn);

	/* the gateway, on the cluster */
	GwOpt.listen = opt.listen;
	GwOpt.port = opt.port;
	GwOpt.conninfo = conninfo;
	GwOpt.auth_any = !opt.auth_sigv4;
	GwOpt.any_role = LOCAL_ROLE;
	GwOpt.log = opt.log;
	GwOpt.pool = opt.pool;
	if (GwOpt.auth_any)
	{
		/* one role: no cap of the connections one role's requests hold */
		long		ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		if (GwOpt.pool == 0)
			GwOpt.pool = 2 * (int) (ncpu > 0 ? ncpu : 1);
		GwOpt.pool_per_role = GwOpt.pool;
	}
	GwOnReady = local_ready;
	optind = 0;
	{
		char	   *gw_argv[] = {argv[0], NULL};

		rc = GwMain(1, gw_argv);
	}

done:
	stop_server();
	if (sync_pid > 0)
		waitpid(sync_pid, NULL, 0);
	if (sock_dir_made)
		rm_rf(sock_dir);
	if (opt.in_memory)
		rm_rf(data_dir);
	else if (ftruncate(lockfd, 0) != 0)
		rc = rc ? rc : 1;
	if (rc == 0)
		say("stopped");
	return rc;
}

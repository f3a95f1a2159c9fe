/*-------------------------------------------------------------------------
 *
 * metrics.c
 *		The gateway's counters, and GET /metrics in Prometheus' text
 *		exposition format (version 0.0.4).
 *
 * Counting costs a few relaxed atomic additions per request on fixed
 * arrays (no lock, no allocation): the label sets are bounded and known
 * at compile time.  An action is one of DynamoDB's and DynamoDB Streams'
 * (another, or none, counts as "other"); an error is one of the error
 * types item_table and the gateway answer (another counts as "other"); a
 * status is one of the few HTTP statuses the gateway answers.  A scrape
 * reads the arrays (a count may be a request ahead of another: each is
 * exact on its own), reads each pool's gauges under its lock, and writes
 * only the series that are not zero (the histograms: those of actions
 * seen).  Health checks and scrapes are not counted.
 *
 * The metrics (docs/gateway.md lists them with what to alert on):
 *
 *	item_table_gateway_requests_total{action,status,error}
 *	item_table_gateway_request_duration_seconds{action} (histogram)
 *	item_table_gateway_request_bytes_total, _response_bytes_total
 *	item_table_gateway_auth_failures_total{kind}
 *	item_table_gateway_pool_requests_total{pool}
 *	item_table_gateway_pool_throttles_total{pool}
 *	item_table_gateway_pool_connections{pool}, _pool_in_use{pool},
 *	item_table_gateway_pool_waiting{pool}
 *	item_table_gateway_replica_lag_seconds{pool}, _replica_healthy{pool}
 *	item_table_gateway_replica_fallbacks_total, _replica_refusals_total
 *
 *-------------------------------------------------------------------------
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

/* sorted: found by binary search; "other" is the last index */
static const char *const actions[] = {
	"BatchExecuteStatement", "BatchGetItem", "BatchWriteItem", "CreateBackup",
	"CreateGlobalTable", "CreateTable", "DeleteBackup", "DeleteItem",
	"DeleteResourcePolicy", "DeleteTable", "DescribeBackup",
	"DescribeContinuousBackups", "DescribeContributorInsights",
	"DescribeEndpoints", "DescribeExport", "DescribeGlobalTable",
	"DescribeGlobalTableSettings", "DescribeImport",
	"DescribeKinesisStreamingDestination", "DescribeLimits", "DescribeStream",
	"DescribeTable", "DescribeTableReplicaAutoScaling", "DescribeTimeToLive",
	"DisableKinesisStreamingDestination", "EnableKinesisStreamingDestination",
	"ExecuteStatement", "ExecuteTransaction", "ExportTableToPointInTime",
	"GetItem", "GetRecords", "GetResourcePolicy", "GetShardIterator",
	"ImportTable", "ListBackups", "ListContributorInsights", "ListExports",
	"ListGlobalTables", "ListImports", "ListStreams", "ListTables",
	"ListTagsOfResource", "PutItem", "PutResourcePolicy", "Query",
	"RestoreTableFromBackup", "RestoreTableToPointInTime", "Scan",
	"TagResource", "TransactGetItems", "TransactWriteItems", "UntagResource",
	"UpdateContinuousBackups", "UpdateContributorInsights",
	"UpdateGlobalTable", "UpdateGlobalTableSettings", "UpdateItem",
	"UpdateKinesisStreamingDestination", "UpdateTable",
	"UpdateTableReplicaAutoScaling", "UpdateTimeToLive"
};

#define NACTIONS ((int) (sizeof(actions) / sizeof(actions[0])) + 1)

/* index 0 is no error; "other" is the last index */
static const char *const errors[] = {
	"", "AccessDeniedException", "ConditionalCheckFailedException",
	"DuplicateItemException", "ExpiredIteratorException",
	"IdempotentParameterMismatchException", "IncompleteSignatureException",
	"InternalServerError", "InvalidSignatureException",
	"ItemCollectionSizeLimitExceededException", "LimitExceededException",
	"MissingAuthenticationTokenException",
	"ProvisionedThroughputExceededException", "RequestLimitExceeded",
	"ResourceInUseException", "ResourceNotFoundException",
	"SerializationException", "TableNotFoundException", "ThrottlingException",
	"TransactionCanceledException", "TransactionConflictException",
	"TransactionInProgressException", "TrimmedDataAccessException",
	"UnknownOperationException", "UnrecognizedClientException",
	"ValidationException"
};

#define NERRORS ((int) (sizeof(errors) / sizeof(errors[0])) + 1)

/* the statuses the gateway answers; the last index: another */
static const unsigned statuses[] = {200, 400, 404, 413, 500, 501};

#define NSTATUSES ((int) (sizeof(statuses) / sizeof(statuses[0])) + 1)

/* latency buckets' upper bounds, in microseconds (and as written) */
static const long bucket_us[] = {
	500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000
};
static const char *const bucket_le[] = {
	"0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
	"0.25", "0.5", "1", "2.5", "5", "10"
};

#define NBUCKETS ((int) (sizeof(bucket_us) / sizeof(bucket_us[0])) + 1)

static const char *const auth_kinds[AUTH_NKINDS] = {
	"missing", "incomplete", "expired", "signature", "unknown_key",
	"no_role", "key_lookup_error"
};

#define MAX_POOLS (1 + GW_MAX_REPLICAS)

typedef struct Histogram
{
	uint64_t	buckets[NBUCKETS];	/* not cumulative: summed when written */
	uint64_t	sum_us;
	uint64_t	count;
} Histogram;

static uint64_t requests[NACTIONS][NSTATUSES][NERRORS];
static Histogram latency[NACTIONS];
static uint64_t bytes_in,
			bytes_out;
static uint64_t auth_failures[AUTH_NKINDS];
static uint64_t pool_requests[MAX_POOLS];
static uint64_t pool_throttles[MAX_POOLS];

#define ADD(counter, n) __atomic_add_fetch(&(counter), (n), __ATOMIC_RELAXED)
#define GET(counter) __atomic_load_n(&(counter), __ATOMIC_RELAXED)

static int
action_index(const char *action)
{
	int			lo = 0,
				hi = NACTIONS - 2;

	if (action == NULL)
		return NACTIONS - 1;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = strcmp(action, actions[mid]);

		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return NACTIONS - 1;
}

static int
error_index(const char *error)
{
	int			i;

	if (error == NULL || error[0] == '\0')
		return 0;
	for (i = 1; i < NERRORS - 1; i++)
		if (strcmp(error, errors[i]) == 0)
			return i;
	return NERRORS - 1;
}

/*
 * MetricsRequest
 *		Count one answered request: its action (NULL: none), HTTP status,
 *		error type (NULL or "": none), time from its first byte, and body
 *		sizes.
 */
void
MetricsRequest(const char *action, unsigned status, const char *error,
			   long elapsed_us, size_t in, size_t out)
{
	int			a = action_index(action),
				s,
				b;

	for (s = 0; s < NSTATUSES - 1; s++)
		if (statuses[s] == status)
			break;
	ADD(requests[a][s][error_index(error)], 1);
	for (b = 0; b < NBUCKETS - 1; b++)
		if (elapsed_us <= bucket_us[b])
			break;
	ADD(latency[a].buckets[b], 1);
	ADD(latency[a].sum_us, (uint64_t) (elapsed_us > 0 ? elapsed_us : 0));
	ADD(latency[a].count, 1);
	ADD(bytes_in, in);
	ADD(bytes_out, out);
}

void
MetricsAuthFailure(GwAuthFailure kind)
{
	ADD(auth_failures[kind], 1);
}

/* a job sent to pool (throttled: answered ThrottlingException there) */
void
MetricsPoolJob(GwPool *pool, bool throttled)
{
	int			i = PoolIndex(pool);

	if (i < 0 || i >= MAX_POOLS)
		return;
	if (throttled)
		ADD(pool_throttles[i], 1);
	else
		ADD(pool_requests[i], 1);
}

/* a growing text buffer */
typedef struct Out
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		failed;
} Out;

static void out_printf(Out *o, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static void
out_printf(Out *o, const char *fmt,...)
{
	va_list		ap;
	int			n;

	if (o->failed)
		return;
	for (;;)
	{
		va_start(ap, fmt);
		n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (n < 0)
		{
			o->failed = true;
			return;
		}
		if ((size_t) n < o->cap - o->len)
		{
			o->len += n;
			return;
		}
		{
			size_t		cap = o->cap * 2 + n;
			char	   *b = realloc(o->buf, cap);

			if (b == NULL)
			{
				o->failed = true;
				return;
			}
			o->buf = b;
			o->cap = cap;
		}
	}
}

static void
header(Out *o, const char *name, const char *type, const char *help)
{
	out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* pools[i] for i in 0..npools-1: the primary's, then the replicas' */
static GwPool *
pool_at(int i)
{
	double		lag;
	bool		healthy;

	return i == 0 ? GwPrimary : RouteReplicaState(i - 1, &lag, &healthy);
}

/*
 * MetricsRender
 *		The text of GET /metrics (malloc'd; NULL when out of memory).
 */
char *
MetricsRender(size_t *len)
{
	Out			o = {0};
	int			a,
				s,
				e,
				b,
				i,
				npools = 1 + RouteReplicas();

	o.cap = 16384;
	o.buf = malloc(o.cap);
	if (o.buf == NULL)
		return NULL;
	o.buf[0] = '\0';

	header(&o, "item_table_gateway_requests_total", "counter",
		   "Requests answered, by action, HTTP status and error type.");
	for (a = 0; a < NACTIONS; a++)
		for (s = 0; s < NSTATUSES; s++)
			for (e = 0; e < NERRORS; e++)
			{
				uint64_t	n = GET(requests[a][s][e]);
				char		status[12];

				if (n == 0)
					continue;
				if (s < NSTATUSES - 1)
					snprintf(status, sizeof(status), "%u", statuses[s]);
				else
					snprintf(status, sizeof(status), "other");
				out_printf(&o, "item_table_gateway_requests_total{action=\"%s\",status=\"%s\",error=\"%s\"} %llu\n",
						   a < NACTIONS - 1 ? actions[a] : "other", status,
						   e < NERRORS - 1 ? errors[e] : "other",
						   (unsigned long long) n);
			}

	header(&o, "item_table_gateway_request_duration_seconds", "histogram",
		   "Time from a request's headers to its answer, by action.");
	for (a = 0; a < NACTIONS; a++)
	{
		uint64_t	cum = 0;
		const char *name = a < NACTIONS - 1 ? actions[a] : "other";

		if (GET(latency[a].count) == 0)
			continue;
		for (b = 0; b < NBUCKETS; b++)
		{
			cum += GET(latency[a].buckets[b]);
			out_printf(&o, "item_table_gateway_request_duration_seconds_bucket{action=\"%s\",le=\"%s\"} %llu\n",
					   name, b < NBUCKETS - 1 ? bucket_le[b] : "+Inf",
					   (unsigned long long) cum);
		}
		out_printf(&o, "item_table_gateway_request_duration_seconds_sum{action=\"%s\"} %.6f\n",
				   name, GET(latency[a].sum_us) / 1e6);
		/* the count is the +Inf bucket's, read once */
		out_printf(&o, "item_table_gateway_request_duration_seconds_count{action=\"%s\"} %llu\n",
				   name, (unsigned long long) cum);
	}

	header(&o, "item_table_gateway_request_bytes_total", "counter",
		   "Bytes of request bodies received.");
	out_printf(&o, "item_table_gateway_request_bytes_total %llu\n",
			   (unsigned long long) GET(bytes_in));
	header(&o, "item_table_gateway_response_bytes_total", "counter",
		   "Bytes of response bodies sent.");
	out_printf(&o, "item_table_gateway_response_bytes_total %llu\n",
			   (unsigned long long) GET(bytes_out));

	header(&o, "item_table_gateway_auth_failures_total", "counter",
		   "Requests refused by SigV4 authentication, by kind of failure.");
	for (i = 0; i < AUTH_NKINDS; i++)
		out_printf(&o, "item_table_gateway_auth_failures_total{kind=\"%s\"} %llu\n",
				   auth_kinds[i], (unsigned long long) GET(auth_failures[i]));

	header(&o, "item_table_gateway_pool_requests_total", "counter",
		   "Requests sent to each pool (primary, replicaN).");
	for (i = 0; i < npools; i++)
	{
		int			size,
					in_use,
					waiting;

		out_printf(&o, "item_table_gateway_pool_requests_total{pool=\"%s\"} %llu\n",
				   PipePoolStats(pool_at(i), &size, &in_use, &waiting),
				   (unsigned long long) GET(pool_requests[i]));
	}
	header(&o, "item_table_gateway_pool_throttles_total", "counter",
		   "Requests answered ThrottlingException after waiting --pool-wait for a connection of the pool.");
	for (i = 0; i < npools; i++)
	{
		int			size,
					in_use,
					waiting;

		out_printf(&o, "item_table_gateway_pool_throttles_total{pool=\"%s\"} %llu\n",
				   PipePoolStats(pool_at(i), &size, &in_use, &waiting),
				   (unsigned long long) GET(pool_throttles[i]));
	}
	{
		static const char *const gauges[3][2] = {
			{"item_table_gateway_pool_connections", "Connections the pool may hold (--pool)."},
			{"item_table_gateway_pool_in_use", "Connections of the pool running requests now."},
			{"item_table_gateway_pool_waiting", "Requests waiting for a connection of the pool now."}
		};
		int			g;

		for (g = 0; g < 3; g++)
		{
			header(&o, gauges[g][0], "gauge", gauges[g][1]);
			for (i = 0; i < npools; i++)
			{
				int			v[3];
				const char *name = PipePoolStats(pool_at(i), &v[0], &v[1], &v[2]);

				out_printf(&o, "%s{pool=\"%s\"} %d\n", gauges[g][0], name, v[g]);
			}
		}
	}

	if (npools > 1)
	{
		header(&o, "item_table_gateway_replica_lag_seconds", "gauge",
			   "Replay lag of each replica as last measured (-1: unknown: unreachable).");
		for (i = 0; i < npools - 1; i++)
		{
			double		lag;
			bool		healthy;
			int			size,
						in_use,
						waiting;
			GwPool	   *p = RouteReplicaState(i, &lag, &healthy);

			out_printf(&o, "item_table_gateway_replica_lag_seconds{pool=\"%s\"} %.3f\n",
					   PipePoolStats(p, &size, &in_use, &waiting), lag);
		}
		header(&o, "item_table_gateway_replica_healthy", "gauge",
			   "1 while the replica serves eventually consistent reads (reachable, a standby, lag within --max-replica-lag).");
		for (i = 0; i < npools - 1; i++)
		{
			double		lag;
			bool		healthy;
			int			size,
						in_use,
						waiting;
			GwPool	   *p = RouteReplicaState(i, &lag, &healthy);

			out_printf(&o, "item_table_gateway_replica_healthy{pool=\"%s\"} %d\n",
					   PipePoolStats(p, &size, &in_use, &waiting), healthy ? 1 : 0);
		}
	}
	header(&o, "item_table_gateway_replica_fallbacks_total", "counter",
		   "Eventually consistent reads sent to the primary because no replica was healthy.");
	out_printf(&o, "item_table_gateway_replica_fallbacks_total %llu\n",
			   (unsigned long long) RouteFallbacks());
	header(&o, "item_table_gateway_replica_refusals_total", "counter",
		   "Reads a replica refused for being a standby (a recovery conflict cancelled them) or for not having the table yet, run again on the primary.");
	out_printf(&o, "item_table_gateway_replica_refusals_total %llu\n",
			   (unsigned long long) RouteStandbyRefusals());

	if (o.failed)
	{
		free(o.buf);
		return NULL;
	}
	*len = o.len;
	return o.buf;
}

/*-------------------------------------------------------------------------
 *
 * sigv4.c
 *		AWS Signature Version 4 verification, as DynamoDB does it.
 *
 * A signed request carries
 *
 *	Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<YYYYMMDD>/<region>/
 *		dynamodb/aws4_request, SignedHeaders=<h1;h2;...>, Signature=<hex>
 *	X-Amz-Date: <YYYYMMDDTHHMMSSZ>
 *
 * and we recompute the signature from the request as received:
 *
 *	canonical request = method \n canonical URI \n canonical query \n
 *		canonical headers (name:value\n for every signed header) \n
 *		signed headers \n hex(SHA-256(body))
 *	string to sign    = AWS4-HMAC-SHA256 \n X-Amz-Date \n scope \n
 *		hex(SHA-256(canonical request))
 *	signing key       = HMAC("AWS4" secret, date) -> region -> "dynamodb"
 *		-> "aws4_request"
 *	signature         = hex(HMAC(signing key, string to sign))
 *
 * compared with CRYPTO_memcmp, so the time taken says nothing about how
 * much of a forged signature was right.  Any region is accepted (a client
 * configured for us-east-1 and one for eu-west-1 reach the same database);
 * the service must be "dynamodb" and the scope's date that of X-Amz-Date.
 * The header values are trimmed and their inner runs of spaces folded, and
 * a header sent several times has its values joined by commas, as the
 * signing SDKs do.  SignedHeaders must name host, x-amz-date and
 * x-amz-target, and content-type and x-amz-security-token when the request
 * carries them (else IncompleteSignatureException): what routes and
 * frames the request cannot be changed under a valid signature.  The
 * security token itself is not checked (access keys here have none); it
 * is only held to be signed.  Nothing here touches the network or the database: the
 * caller passes the headers, the body and the secret.
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "gateway.h"

/* a growing string; the gateway aborts on out-of-memory, as libpq callers do */
typedef struct Buf
{
	char	   *data;
	size_t		len;
	size_t		cap;
} Buf;

static void
buf_reserve(Buf *b, size_t more)
{
	if (b->len + more + 1 > b->cap)
	{
		size_t		cap = b->cap ? b->cap * 2 : 256;

		while (cap < b->len + more + 1)
			cap *= 2;
		b->data = realloc(b->data, cap);
		if (b->data == NULL)
		{
			fprintf(stderr, "item_table_gateway: out of memory\n");
			abort();
		}
		b->cap = cap;
	}
}

static void
buf_append(Buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void
buf_puts(Buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

static void
buf_putc(Buf *b, char c)
{
	buf_append(b, &c, 1);
}

static void
hex_encode(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t		i;

	for (i = 0; i < n; i++)
	{
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * SHA-256 and HMAC-SHA-256.  OpenSSL 3's one-shot SHA256() and HMAC() look
 * the algorithm up (under a lock) and allocate a context on every call,
 * which cost more than hashing a request's few blocks; so SHA-256 is
 * fetched once, each thread keeps one digest context (freed when the
 * thread ends), and HMAC is RFC 2104's two passes over it.  Should any of
 * that fail, the one-shot SHA256() does the work.
 */
static EVP_MD *sha256_md;
static pthread_key_t md_ctx_key;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void
free_md_ctx(void *ctx)
{
	EVP_MD_CTX_free(ctx);
}

static void
sha256_setup(void)
{
	if (pthread_key_create(&md_ctx_key, free_md_ctx) == 0)
		sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* the SHA-256 of the concatenation of two pieces (b may be empty) */
static void
sha256_2(const void *a, size_t alen, const void *b, size_t blen,
		 unsigned char out[SHA256_DIGEST_LENGTH])
{
	EVP_MD_CTX *ctx = NULL;

	pthread_once(&sha256_once, sha256_setup);
	if (sha256_md)
	{
		ctx = pthread_getspecific(md_ctx_key);
		if (ctx == NULL && (ctx = EVP_MD_CTX_new()) != NULL &&
			pthread_setspecific(md_ctx_key, ctx) != 0)
		{
			EVP_MD_CTX_free(ctx);
			ctx = NULL;
		}
	}
	if (ctx && EVP_DigestInit_ex(ctx, sha256_md, NULL) == 1 &&
		EVP_DigestUpdate(ctx, a, alen) == 1 &&
		(blen == 0 || EVP_DigestUpdate(ctx, b, blen) == 1) &&
		EVP_DigestFinal_ex(ctx, out, NULL) == 1)
		return;
	if (blen == 0)
		SHA256(a, alen, out);
	else
	{
		unsigned char *both = malloc(alen + blen);

		if (both == NULL)
		{
			fprintf(stderr, "item_table_gateway: out of memory\n");
			abort();
		}
		memcpy(both, a, alen);
		memcpy(both + alen, b, blen);
		SHA256(both, alen + blen, out);
		OPENSSL_cleanse(both, alen + blen);
		free(both);
	}
}

/*
 * GwHexSha256
 *		Lower-case hex SHA-256 of data into out (65 bytes with the NUL).
 */
void
GwHexSha256(const void *data, size_t len, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	sha256_2(data, len, "", 0, md);
	hex_encode(md, sizeof(md), out);
}

/* HMAC-SHA-256 (RFC 2104): H(K ^ opad || H(K ^ ipad || msg)) */
static void
hmac(const unsigned char *key, size_t keylen, const char *msg, size_t msglen,
	 unsigned char out[32])
{
	unsigned char k0[64],
				pad[64],
				inner[SHA256_DIGEST_LENGTH];
	int			i;

	memset(k0, 0, sizeof(k0));
	if (keylen > sizeof(k0))
		sha256_2(key, keylen, "", 0, k0);
	else
		memcpy(k0, key, keylen);
	for (i = 0; i < 64; i++)
		pad[i] = k0[i] ^ 0x36;
	sha256_2(pad, 64, msg, msglen, inner);
	for (i = 0; i < 64; i++)
		pad[i] = k0[i] ^ 0x5c;
	sha256_2(pad, 64, inner, sizeof(inner), out);
	OPENSSL_cleanse(k0, sizeof(k0));
	OPENSSL_cleanse(pad, sizeof(pad));
	OPENSSL_cleanse(inner, sizeof(inner));
}

/* RFC 3986 percent-encoding as SigV4 wants it; '/' kept when keep_slash */
static void
uri_encode(Buf *b, const char *s, bool keep_slash)
{
	static const char digits[] = "0123456789ABCDEF";

	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
			(keep_slash && c == '/'))
			buf_putc(b, (char) c);
		else
		{
			buf_putc(b, '%');
			buf_putc(b, digits[c >> 4]);
			buf_putc(b, digits[c & 15]);
		}
	}
}

/* copy src[0..n) into dst of size dstlen; false if it does not fit */
static bool
copy_part(char *dst, size_t dstlen, const char *src, size_t n)
{
	if (n >= dstlen)
		return false;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return true;
}

static const char *
find_header(const SigV4Request *req, const char *name)
{
	int			i;

	for (i = 0; i < req->nheaders; i++)
		if (strcasecmp(req->headers[i].name, name) == 0)
			return req->headers[i].value;
	return NULL;
}

/* is the header name (any case) among auth's SignedHeaders? */
static bool
is_signed(const SigV4Auth *auth, const char *name)
{
	const char *s = auth->signed_headers;
	size_t		len = strlen(name);

	while (*s)
	{
		const char *e = strchr(s, ';');
		size_t		n = e ? (size_t) (e - s) : strlen(s);

		if (n == len && strncasecmp(s, name, n) == 0)
			return true;
		s += n;
		if (*s == ';')
			s++;
	}
	return false;
}

/*
 * SigV4Parse
 *		Read the Authorization header and X-Amz-Date into *auth.  On
 *		failure, msg gets DynamoDB's message.
 */
SigV4Status
SigV4Parse(const SigV4Request *req, SigV4Auth *auth, char *msg, size_t msglen)
{
	const char *h = find_header(req, "Authorization");
	const char *p;
	const char *date;
	bool		have_cred = false,
				have_signed = false,
				have_sig = false;
	static const char algorithm[] = "AWS4-HMAC-SHA256";

	memset(auth, 0, sizeof(*auth));
	if (h == NULL || *h == '\0')
	{
		snprintf(msg, msglen, "Request is missing Authentication Token");
		return SIGV4_MISSING;
	}
	if (strncmp(h, algorithm, sizeof(algorithm) - 1) != 0 ||
		h[sizeof(algorithm) - 1] != ' ')
	{
		snprintf(msg, msglen, "Authorization header requires the AWS4-HMAC-SHA256 algorithm.");
		return SIGV4_INCOMPLETE;
	}

	/* Credential=..., SignedHeaders=..., Signature=... in any order */
	p = h + sizeof(algorithm);
	while (*p)
	{
		const char *name,
				   *eq,
				   *end;
		size_t		vlen;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		name = p;
		eq = strchr(p, '=');
		if (eq == NULL)
			break;
		end = eq + 1;
		while (*end && *end != ',' && *end != ' ')
			end++;
		vlen = end - (eq + 1);
		if (eq - name == 10 && strncmp(name, "Credential", 10) == 0)
		{
			/* <key id>/<date>/<region>/<service>/aws4_request */
			const char *v = eq + 1;
			const char *s1 = memchr(v, '/', vlen);
			const char *s2 = s1 ? memchr(s1 + 1, '/', end - s1 - 1) : NULL;
			const char *s3 = s2 ? memchr(s2 + 1, '/', end - s2 - 1) : NULL;
			const char *s4 = s3 ? memchr(s3 + 1, '/', end - s3 - 1) : NULL;

			if (s4 == NULL ||
				!copy_part(auth->key_id, sizeof(auth->key_id), v, s1 - v) ||
				auth->key_id[0] == '\0' ||
				s2 - s1 - 1 != 8 ||
				!copy_part(auth->scope_date, sizeof(auth->scope_date), s1 + 1, 8) ||
				!copy_part(auth->region, sizeof(auth->region), s2 + 1, s3 - s2 - 1) ||
				auth->region[0] == '\0')
			{
				snprintf(msg, msglen, "Authorization header requires 'Credential' parameter. Credential must be <access key>/<date>/<region>/dynamodb/aws4_request.");
				return SIGV4_INCOMPLETE;
			}
			if (s4 - s3 - 1 != 8 || strncmp(s3 + 1, "dynamodb", 8) != 0 ||
				end - s4 - 1 != 12 || strncmp(s4 + 1, "aws4_request", 12) != 0)
			{
				snprintf(msg, msglen, "Credential should be scoped to a valid region and to the service 'dynamodb', terminated by 'aws4_request'.");
				return SIGV4_INCOMPLETE;
			}
			have_cred = true;
		}
		else if (eq - name == 13 && strncmp(name, "SignedHeaders", 13) == 0)
		{
			if (vlen == 0 ||
				!copy_part(auth->signed_headers, sizeof(auth->signed_headers), eq + 1, vlen))
				break;
			have_signed = true;
		}
		else if (eq - name == 9 && strncmp(name, "Signature", 9) == 0)
		{
			size_t		i;

			if (vlen != 64)
				break;
			for (i = 0; i < 64; i++)
				if (!isxdigit((unsigned char) eq[1 + i]))
					break;
			if (i < 64)
				break;
			copy_part(auth->signature, sizeof(auth->signature), eq + 1, 64);
			for (i = 0; i < 64; i++)
				auth->signature[i] = (char) tolower((unsigned char) auth->signature[i]);
			have_sig = true;
		}
		p = end;
	}
	if (!have_cred || !have_signed || !have_sig)
	{
		snprintf(msg, msglen, "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.");
		return SIGV4_INCOMPLETE;
	}

	/*
	 * What the signature must cover: host, x-amz-date and x-amz-target
	 * always, content-type and x-amz-security-token when the request has
	 * them.  A header left out of SignedHeaders could be changed by anyone
	 * holding a captured request: another X-Amz-Target would turn a
	 * DescribeTable into a DeleteTable.  The SDKs and the CLI sign all of
	 * them.
	 */
	if (!is_signed(auth, "host"))
	{
		snprintf(msg, msglen, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
		return SIGV4_INCOMPLETE;
	}
	{
		static const struct
		{
			const char *name;
			bool		always;
		}			required[] = {
			{"X-Amz-Date", true},
			{"X-Amz-Target", true},
			{"Content-Type", false},
			{"X-Amz-Security-Token", false},
		};
		size_t		i;

		for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		{
			if (!required[i].always && find_header(req, required[i].name) == NULL)
				continue;
			if (!is_signed(auth, required[i].name))
			{
				snprintf(msg, msglen, "'%s' must be a 'SignedHeader' in the AWS Authorization.",
						 required[i].name);
				return SIGV4_INCOMPLETE;
			}
		}
	}

	date = find_header(req, "X-Amz-Date");
	if (date == NULL)
	{
		snprintf(msg, msglen, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
		return SIGV4_INCOMPLETE;
	}
	{
		int			i;
		bool		ok = strlen(date) == 16 && date[8] == 'T' && date[15] == 'Z';

		for (i = 0; ok && i < 15; i++)
			if (i != 8 && !isdigit((unsigned char) date[i]))
				ok = false;
		if (!ok)
		{
			snprintf(msg, msglen, "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
			return SIGV4_INCOMPLETE;
		}
		memcpy(auth->amz_date, date, 17);
	}
	if (strncmp(auth->scope_date, auth->amz_date, 8) != 0)
	{
		snprintf(msg, msglen, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%.8s', from '%s'.",
				 auth->scope_date, auth->amz_date, auth->amz_date);
		return SIGV4_MISMATCH;
	}
	return SIGV4_OK;
}

static time_t
parse_amz_date(const char *d)
{
	struct tm	tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = atoi((char[]) {d[0], d[1], d[2], d[3], 0}) - 1900;
	tm.tm_mon = atoi((char[]) {d[4], d[5], 0}) - 1;
	tm.tm_mday = atoi((char[]) {d[6], d[7], 0});
	tm.tm_hour = atoi((char[]) {d[9], d[10], 0});
	tm.tm_min = atoi((char[]) {d[11], d[12], 0});
	tm.tm_sec = atoi((char[]) {d[13], d[14], 0});
	return timegm(&tm);
}

static void
format_amz_date(time_t t, char out[17])
{
	struct tm	tm;

	gmtime_r(&t, &tm);
	strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

/*
 * SigV4CheckTime
 *		The request's date must be within 15 minutes of now, either way.
 */
SigV4Status
SigV4CheckTime(const SigV4Auth *auth, time_t now, char *msg, size_t msglen)
{
	time_t		t = parse_amz_date(auth->amz_date);
	char		now_s[17],
				bound_s[17];

	format_amz_date(now, now_s);
	if (t < now - 15 * 60)
	{
		format_amz_date(now - 15 * 60, bound_s);
		snprintf(msg, msglen, "Signature expired: %s is now earlier than %s (%s - 15 min.)",
				 auth->amz_date, bound_s, now_s);
		return SIGV4_EXPIRED;
	}
	if (t > now + 15 * 60)
	{
		format_amz_date(now + 15 * 60, bound_s);
		snprintf(msg, msglen, "Signature not yet current: %s is still later than %s (%s + 15 min.)",
				 auth->amz_date, bound_s, now_s);
		return SIGV4_EXPIRED;
	}
	return SIGV4_OK;
}

/* trimmed value with inner runs of spaces folded to one */
static void
append_trimmed(Buf *b, const char *v)
{
	bool		space = false;

	while (*v == ' ' || *v == '\t')
		v++;
	for (; *v; v++)
	{
		if (*v == ' ' || *v == '\t')
			space = true;
		else
		{
			if (space)
				buf_putc(b, ' ');
			space = false;
			buf_putc(b, *v);
		}
	}
}

static int
cmp_pair(const void *a, const void *b)
{
	const GwPair *x = a,
			   *y = b;
	int			c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

/* the canonical request of SigV4 */
static void
canonical_request(const SigV4Request *req, const SigV4Auth *auth, Buf *b)
{
	const char *s;
	char		payload[65];

	buf_puts(b, req->method);
	buf_putc(b, '\n');
	uri_encode(b, req->path[0] ? req->path : "/", true);
	buf_putc(b, '\n');

	/* query: names and values encoded, sorted by encoded name then value */
	if (req->nquery > 0)
	{
		GwPair	   *enc = calloc(req->nquery, sizeof(GwPair));
		int			i;

		if (enc == NULL)
			abort();
		for (i = 0; i < req->nquery; i++)
		{
			Buf			n = {0},
						v = {0};

			uri_encode(&n, req->query[i].name, false);
			uri_encode(&v, req->query[i].value ? req->query[i].value : "", false);
			buf_puts(&n, "");
			buf_puts(&v, "");
			enc[i].name = n.data;
			enc[i].value = v.data;
		}
		qsort(enc, req->nquery, sizeof(GwPair), cmp_pair);
		for (i = 0; i < req->nquery; i++)
		{
			if (i > 0)
				buf_putc(b, '&');
			buf_puts(b, enc[i].name);
			buf_putc(b, '=');
			buf_puts(b, enc[i].value);
			free((char *) enc[i].name);
			free((char *) enc[i].value);
		}
		free(enc);
	}
	buf_putc(b, '\n');

	/* every signed header: name:value[,value...] */
	s = auth->signed_headers;
	while (*s)
	{
		const char *e = strchr(s, ';');
		size_t		n = e ? (size_t) (e - s) : strlen(s);
		char		name[256];
		int			i;
		bool		first = true;

		if (n < sizeof(name))
		{
			memcpy(name, s, n);
			name[n] = '\0';
			buf_puts(b, name);
			buf_putc(b, ':');
			for (i = 0; i < req->nheaders; i++)
			{
				if (strcasecmp(req->headers[i].name, name) != 0)
					continue;
				if (!first)
					buf_putc(b, ',');
				append_trimmed(b, req->headers[i].value);
				first = false;
			}
			buf_putc(b, '\n');
		}
		s += n;
		if (*s == ';')
			s++;
	}
	buf_putc(b, '\n');
	buf_puts(b, auth->signed_headers);
	buf_putc(b, '\n');
	GwHexSha256(req->body ? req->body : "", req->body_len, payload);
	buf_puts(b, payload);
}

/*
 * The signing keys derived last, per thread: deriving one takes four
 * HMACs, which cost more than the rest of a verification, and a client
 * signs with the same key, day and region for a day.  A key is found by
 * the secret, the day and the region it was derived from; a thread keeps
 * SIGNING_KEYS of them and replaces the oldest.  (Per thread, so no lock:
 * an HTTP thread serves many clients, and a client's key is derived once
 * per thread and day.  The derived keys are as secret as the secrets,
 * which the access key cache keeps in memory anyway.)
 */
#define SIGNING_KEYS 8
#define SIGNING_SECRET_MAX 128

typedef struct SigningKey
{
	char		secret[SIGNING_SECRET_MAX];	/* "" when unused */
	char		date[9];
	char		region[64];
	unsigned char key[32];
} SigningKey;

static __thread SigningKey signing_keys[SIGNING_KEYS];
static __thread int signing_next;

/* the signing key of secret, date (YYYYMMDD) and region into key */
static void
signing_key(const char *secret, const char *date, const char *region,
			unsigned char key[32])
{
	size_t		slen = strlen(secret),
				rlen = strlen(region);
	bool		cacheable = slen < SIGNING_SECRET_MAX && rlen < sizeof(signing_keys[0].region) &&
		strlen(date) == 8;
	Buf			k = {0};
	unsigned char t[32];
	int			i;

	if (cacheable)
		for (i = 0; i < SIGNING_KEYS; i++)
		{
			SigningKey *e = &signing_keys[i];

			if (e->secret[0] != '\0' && strcmp(e->date, date) == 0 &&
				strcmp(e->region, region) == 0 &&
				CRYPTO_memcmp(e->secret, secret, slen + 1) == 0)
			{
				memcpy(key, e->key, 32);
				return;
			}
		}

	buf_puts(&k, "AWS4");
	buf_puts(&k, secret);
	hmac((unsigned char *) k.data, k.len, date, 8, key);
	hmac(key, 32, region, rlen, t);
	hmac(t, 32, "dynamodb", 8, key);
	hmac(key, 32, "aws4_request", 12, t);
	memcpy(key, t, 32);
	OPENSSL_cleanse(t, sizeof(t));
	OPENSSL_cleanse(k.data, k.len);
	free(k.data);

	if (cacheable)
	{
		SigningKey *e = &signing_keys[signing_next];

		signing_next = (signing_next + 1) % SIGNING_KEYS;
		OPENSSL_cleanse(e, sizeof(*e));
		memcpy(e->secret, secret, slen + 1);
		memcpy(e->date, date, 9);
		memcpy(e->region, region, rlen + 1);
		memcpy(e->key, key, 32);
	}
}

/*
 * SigV4Verify
 *		Does auth->signature sign this request with this secret?
 */
bool
SigV4Verify(const SigV4Request *req, const SigV4Auth *auth, const char *secret)
{
	Buf			creq = {0},
				sts = {0};
	char		creq_hash[65],
				expected[65];
	unsigned char key[32],
				sig[32];
	bool		ok;

	canonical_request(req, auth, &creq);
	GwHexSha256(creq.data, creq.len, creq_hash);

	buf_puts(&sts, "AWS4-HMAC-SHA256\n");
	buf_puts(&sts, auth->amz_date);
	buf_putc(&sts, '\n');
	buf_puts(&sts, auth->scope_date);
	buf_putc(&sts, '/');
	buf_puts(&sts, auth->region);
	buf_puts(&sts, "/dynamodb/aws4_request\n");
	buf_puts(&sts, creq_hash);

	signing_key(secret, auth->scope_date, auth->region, key);
	hmac(key, 32, sts.data, sts.len, sig);
	hex_encode(sig, 32, expected);

	ok = CRYPTO_memcmp(expected, auth->signature, 64) == 0;

	OPENSSL_cleanse(key, sizeof(key));
	free(creq.data);
	free(sts.data);
	return ok;
}

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

/*
 * SHA-256 through OpenSSL's low-level interface (SHA256_Init/Update/Final):
 * deprecated in OpenSSL 3 in favour of EVP, but the same block function
 * (SHA-NI where the CPU has it) with a plain structure for a context,
 * which can be kept and copied.  EVP would look the algorithm up, or
 * allocate in EVP_MD_CTX_copy_ex, and a kept HMAC state is what makes a
 * verification cheap (below).
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "gateway.h"

static void
out_of_memory(void)
{
	fprintf(stderr, "item_table_gateway: out of memory\n");
	abort();
}

/* lower-case hex of n bytes at out (2n bytes and a NUL), two digits a look */
static void
hex_encode(const unsigned char *in, size_t n, char *out)
{
	static const char pairs[] =
		"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
		"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
		"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
		"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
		"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
		"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
		"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	size_t		i;

	for (i = 0; i < n; i++)
		memcpy(out + 2 * i, pairs + 2 * in[i], 2);
	out[2 * n] = '\0';
}

/*
 * GwHexSha256
 *		Lower-case hex SHA-256 of data into out (65 bytes with the NUL).
 */
void
GwHexSha256(const void *data, size_t len, char out[65])
{
	SHA256_CTX	c;
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256_Init(&c);
	SHA256_Update(&c, data, len);
	SHA256_Final(md, &c);
	hex_encode(md, sizeof(md), out);
}

/*
 * HMAC-SHA-256 (RFC 2104): H(K ^ opad || H(K ^ ipad || msg)).  The key's
 * two blocks (K ^ ipad, K ^ opad) are hashed once into an HmacKey; each
 * message then costs its own blocks and one more for the outer hash.
 */
typedef struct HmacKey
{
	SHA256_CTX	inner;			/* after K ^ ipad */
	SHA256_CTX	outer;			/* after K ^ opad */
} HmacKey;

static void
hmac_key(HmacKey *hk, const void *key, size_t keylen)
{
	unsigned char k0[64],
				pad[64];
	int			i;

	memset(k0, 0, sizeof(k0));
	if (keylen > sizeof(k0))
	{
		SHA256_CTX	c;

		SHA256_Init(&c);
		SHA256_Update(&c, key, keylen);
		SHA256_Final(k0, &c);
		OPENSSL_cleanse(&c, sizeof(c));
	}
	else
		memcpy(k0, key, keylen);
	for (i = 0; i < 64; i++)
		pad[i] = k0[i] ^ 0x36;
	SHA256_Init(&hk->inner);
	SHA256_Update(&hk->inner, pad, 64);
	for (i = 0; i < 64; i++)
		pad[i] = k0[i] ^ 0x5c;
	SHA256_Init(&hk->outer);
	SHA256_Update(&hk->outer, pad, 64);
	OPENSSL_cleanse(k0, sizeof(k0));
	OPENSSL_cleanse(pad, sizeof(pad));
}

/* the HMAC of the message under a prepared key */
static void
hmac_with(const HmacKey *hk, const void *msg, size_t msglen, unsigned char out[32])
{
	SHA256_CTX	c = hk->inner;
	unsigned char inner[SHA256_DIGEST_LENGTH];

	SHA256_Update(&c, msg, msglen);
	SHA256_Final(inner, &c);
	c = hk->outer;
	SHA256_Update(&c, inner, sizeof(inner));
	SHA256_Final(out, &c);

	/*
	 * Nothing to wipe: the states left are past the key's block (a hash
	 * cannot be run back to it) and the inner digest is not the key.
	 */
}

/*
 * GwHmacSha256
 *		HMAC-SHA-256 of msg under key (for the self-test and the key
 *		derivation).
 */
void
GwHmacSha256(const void *key, size_t keylen, const void *msg, size_t msglen,
			 unsigned char out[32])
{
	HmacKey		hk;

	hmac_key(&hk, key, keylen);
	hmac_with(&hk, msg, msglen, out);
	OPENSSL_cleanse(&hk, sizeof(hk));
}

/*
 * Each thread builds its canonical requests in one buffer of its own,
 * grown when a request needs more and kept: no allocation per request.
 * (Freed when the thread ends.)
 */
static pthread_key_t creq_key;
static pthread_once_t creq_once = PTHREAD_ONCE_INIT;
static __thread char *creq_buf;
static __thread size_t creq_cap;

static void
creq_free(void *p)
{
	free(p);
}

static void
creq_setup(void)
{
	if (pthread_key_create(&creq_key, creq_free) != 0)
		out_of_memory();
}

/* room for need bytes at creq_buf + len */
static inline char *
creq_room(size_t len, size_t need)
{
	if (len + need > creq_cap)
	{
		size_t		cap = creq_cap ? creq_cap : 4096;
		char	   *b;

		while (cap < len + need)
			cap *= 2;
		pthread_once(&creq_once, creq_setup);
		b = realloc(creq_buf, cap);
		if (b == NULL)
			out_of_memory();
		creq_buf = b;
		creq_cap = cap;
		(void) pthread_setspecific(creq_key, b);
	}
	return creq_buf + len;
}

/*
 * RFC 3986 percent-encoding as SigV4 wants it ('/' kept when keep_slash)
 * of s, written at out (3 * strlen(s) bytes at most); returns the end.
 */
static char *
uri_encode(char *out, const char *s, bool keep_slash)
{
	static const char digits[] = "0123456789ABCDEF";

	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
			(keep_slash && c == '/'))
			*out++ = (char) c;
		else
		{
			*out++ = '%';
			*out++ = digits[c >> 4];
			*out++ = digits[c & 15];
		}
	}
	return out;
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
		if (((req->headers[i].name[0] ^ name[0]) & ~0x20) == 0 &&
			strcasecmp(req->headers[i].name, name) == 0)
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

/* days since 1970-01-01 of a date of the proleptic Gregorian calendar */
static long
days_from_civil(long y, int m, int d)
{
	long		era;
	long		yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * The time of a YYYYMMDDTHHMMSSZ date (SigV4Parse checked its digits), as
 * timegm() would make it (out-of-range fields carried over), without its
 * cost.
 */
static time_t
parse_amz_date(const char *d)
{
#define DIGITS2(i) ((d[i] - '0') * 10 + (d[(i) + 1] - '0'))
	long		year = DIGITS2(0) * 100 + DIGITS2(2);
	int			mon = DIGITS2(4),
				mday = DIGITS2(6);

	/* a month out of 1..12 carries into the year, as timegm's tm_mon */
	year += (mon - 1 >= 0 ? (mon - 1) / 12 : -((12 - mon) / 12));
	mon = ((mon - 1) % 12 + 12) % 12 + 1;
	return (time_t) (days_from_civil(year, mon, 1) + mday - 1) * 86400 +
		DIGITS2(9) * 3600 + DIGITS2(11) * 60 + DIGITS2(13);
#undef DIGITS2
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

	if (t >= now - 15 * 60 && t <= now + 15 * 60)
		return SIGV4_OK;
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

/*
 * The value trimmed, its inner runs of blanks folded to one space, at
 * out (strlen(v) bytes at most): whole runs of other bytes are copied at
 * once.  Returns the end.
 */
static char *
put_trimmed(char *out, const char *v)
{
	for (;;)
	{
		size_t		n;

		while (*v == ' ' || *v == '\t')
			v++;
		n = strcspn(v, " \t");
		memcpy(out, v, n);
		out += n;
		v += n;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v == '\0')
			return out;
		*out++ = ' ';
	}
}

typedef struct EncPair
{
	char	   *name;
	char	   *value;
} EncPair;

static int
cmp_pair(const void *a, const void *b)
{
	const EncPair *x = a,
			   *y = b;
	int			c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

/*
 * The query's arguments, encoded and sorted by encoded name then value,
 * "a=1&b=2", at creq_buf + len; returns the new length.  (DynamoDB's
 * requests have no query: this allocates, the rest does not.)
 */
static size_t
put_query(const SigV4Request *req, size_t len)
{
	EncPair    *enc = calloc(req->nquery, sizeof(EncPair));
	int			i;

	if (enc == NULL)
		out_of_memory();
	for (i = 0; i < req->nquery; i++)
	{
		const char *v = req->query[i].value ? req->query[i].value : "";

		enc[i].name = malloc(3 * strlen(req->query[i].name) + 1);
		enc[i].value = malloc(3 * strlen(v) + 1);
		if (enc[i].name == NULL || enc[i].value == NULL)
			out_of_memory();
		*uri_encode(enc[i].name, req->query[i].name, false) = '\0';
		*uri_encode(enc[i].value, v, false) = '\0';
	}
	qsort(enc, req->nquery, sizeof(EncPair), cmp_pair);
	for (i = 0; i < req->nquery; i++)
	{
		size_t		nl = strlen(enc[i].name),
					vl = strlen(enc[i].value);
		char	   *o = creq_room(len, nl + vl + 2);

		if (i > 0)
			*o++ = '&';
		memcpy(o, enc[i].name, nl);
		o += nl;
		*o++ = '=';
		memcpy(o, enc[i].value, vl);
		o += vl;
		len = (size_t) (o - creq_buf);
		free(enc[i].name);
		free(enc[i].value);
	}
	free(enc);
	return len;
}

/*
 * Does the header name equal the n bytes of s, in any case?  (The first
 * bytes compared without case first: most names differ there.)
 */
static inline bool
name_is(const char *name, const char *s, size_t n)
{
	if (n == 0)
		return name[0] == '\0';
	return ((name[0] ^ s[0]) & ~0x20) == 0 && strncasecmp(name, s, n) == 0 &&
		name[n] == '\0';
}

/*
 * The canonical request of SigV4, in one pass into this thread's buffer:
 * returns its length (at creq_buf).
 */
static size_t
canonical_request(const SigV4Request *req, const SigV4Auth *auth)
{
	const char *path = req->path[0] ? req->path : "/";
	size_t		mlen = strlen(req->method),
				shlen = strlen(auth->signed_headers),
				len;
	const char *s;
	char	   *o;
	char		payload[65];

	/* method \n path \n */
	o = creq_room(0, mlen + 3 * strlen(path) + 2);
	memcpy(o, req->method, mlen);
	o += mlen;
	*o++ = '\n';
	o = uri_encode(o, path, true);
	*o++ = '\n';
	len = (size_t) (o - creq_buf);

	/* query \n */
	if (req->nquery > 0)
		len = put_query(req, len);
	*creq_room(len, 1) = '\n';
	len++;

	/* every signed header: name:value[,value...]\n */
	s = auth->signed_headers;
	while (*s)
	{
		const char *e = strchr(s, ';');
		size_t		n = e ? (size_t) (e - s) : strlen(s);
		int			i;
		bool		first = true;

		/* (a name of 256 bytes or more adds nothing) */
		if (n < 256)
		{
			o = creq_room(len, n + 2);
			memcpy(o, s, n);
			o[n] = ':';
			len += n + 1;
			for (i = 0; i < req->nheaders; i++)
			{
				const char *v;
				size_t		vl;

				if (!name_is(req->headers[i].name, s, n))
					continue;
				v = req->headers[i].value;
				vl = strlen(v);
				o = creq_room(len, vl + 2);
				if (!first)
					*o++ = ',';
				o = put_trimmed(o, v);
				len = (size_t) (o - creq_buf);
				first = false;
			}
			*creq_room(len, 1) = '\n';
			len++;
		}
		s += n;
		if (*s == ';')
			s++;
	}

	/* \n signed headers \n hex(SHA-256(body)) */
	GwHexSha256(req->body ? req->body : "", req->body_len, payload);
	o = creq_room(len, shlen + 2 + 64);
	*o++ = '\n';
	memcpy(o, auth->signed_headers, shlen);
	o += shlen;
	*o++ = '\n';
	memcpy(o, payload, 64);
	return len + shlen + 2 + 64;
}

/*
 * The signing keys derived last, per thread: deriving one takes four
 * HMACs, which cost more than the rest of a verification, and a client
 * signs with the same key, day and region for a day.  A key is found by
 * the secret, the day and the region it was derived from; a thread keeps
 * SIGNING_KEYS of them and replaces the oldest.  What is kept is the
 * signing key's HMAC state (its inner and outer blocks hashed), so that
 * a verification hashes only the string to sign and one more block.
 * (Per thread, so no lock: an HTTP thread serves many clients, and a
 * client's key is derived once per thread and day.  The derived keys are
 * as secret as the secrets, which the access key cache keeps in memory
 * anyway.)
 */
#define SIGNING_KEYS 8
#define SIGNING_SECRET_MAX 128

typedef struct SigningKey
{
	char		secret[SIGNING_SECRET_MAX];	/* "" when unused */
	char		date[9];
	char		region[64];
	HmacKey		hmac;
} SigningKey;

static __thread SigningKey signing_keys[SIGNING_KEYS];
static __thread int signing_next;

/*
 * The HMAC state of the signing key of secret, date (YYYYMMDD) and region:
 * a thread's kept one, or *tmp made (and kept if it can be).
 */
static const HmacKey *
signing_key(const char *secret, const char *date, const char *region,
			HmacKey *tmp)
{
	size_t		slen = strlen(secret),
				rlen = strlen(region);
	bool		cacheable = slen > 0 && slen < SIGNING_SECRET_MAX &&
		rlen < sizeof(signing_keys[0].region) && strlen(date) == 8;
	char		k[4 + 512];
	unsigned char key[32],
				t[32];
	int			i;

	if (cacheable)
		for (i = 0; i < SIGNING_KEYS; i++)
		{
			SigningKey *e = &signing_keys[i];

			if (e->secret[0] != '\0' && memcmp(e->date, date, 9) == 0 &&
				strcmp(e->region, region) == 0 &&
				CRYPTO_memcmp(e->secret, secret, slen + 1) == 0)
				return &e->hmac;
		}

	/* "AWS4" secret, then date, region, service, "aws4_request" */
	if (slen > sizeof(k) - 4)
		slen = sizeof(k) - 4;	/* (the caller's secrets are shorter) */
	memcpy(k, "AWS4", 4);
	memcpy(k + 4, secret, slen);
	GwHmacSha256(k, 4 + slen, date, strlen(date), key);
	GwHmacSha256(key, 32, region, rlen, t);
	GwHmacSha256(t, 32, "dynamodb", 8, key);
	GwHmacSha256(key, 32, "aws4_request", 12, t);
	hmac_key(tmp, t, 32);
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(key, sizeof(key));
	OPENSSL_cleanse(t, sizeof(t));

	if (cacheable)
	{
		SigningKey *e = &signing_keys[signing_next];

		signing_next = (signing_next + 1) % SIGNING_KEYS;
		OPENSSL_cleanse(e, sizeof(*e));
		memcpy(e->secret, secret, slen + 1);
		memcpy(e->date, date, 9);
		memcpy(e->region, region, rlen + 1);
		e->hmac = *tmp;
		OPENSSL_cleanse(tmp, sizeof(*tmp));
		return &e->hmac;
	}
	return tmp;
}

/*
 * SigV4Verify
 *		Does auth->signature sign this request with this secret?
 */
bool
SigV4Verify(const SigV4Request *req, const SigV4Auth *auth, const char *secret)
{
	char		sts[256];
	char	   *o = sts;
	size_t		rlen = strlen(auth->region);
	char		expected[65];
	unsigned char digest[32];
	HmacKey		tmp;
	const HmacKey *key;
	SHA256_CTX	c;
	size_t		clen;
	bool		ok;

	/* string to sign: algorithm \n date \n scope \n hex(SHA-256(creq)) */
	clen = canonical_request(req, auth);
	SHA256_Init(&c);
	SHA256_Update(&c, creq_buf, clen);
	SHA256_Final(digest, &c);
	memcpy(o, "AWS4-HMAC-SHA256\n", 17);
	o += 17;
	memcpy(o, auth->amz_date, 16);
	o += 16;
	*o++ = '\n';
	memcpy(o, auth->scope_date, 8);
	o += 8;
	*o++ = '/';
	memcpy(o, auth->region, rlen);	/* < 64: SigV4Auth's */
	o += rlen;
	memcpy(o, "/dynamodb/aws4_request\n", 23);
	o += 23;
	hex_encode(digest, 32, o);
	o += 64;

	key = signing_key(secret, auth->scope_date, auth->region, &tmp);
	hmac_with(key, sts, (size_t) (o - sts), digest);
	hex_encode(digest, 32, expected);

	ok = CRYPTO_memcmp(expected, auth->signature, 64) == 0;

	if (key == &tmp)
		OPENSSL_cleanse(&tmp, sizeof(tmp));
	return ok;
}

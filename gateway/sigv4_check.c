/*-------------------------------------------------------------------------
 *
 * sigv4_check.c
 *		A test program for sigv4.c, built and run by "make selftest" in
 *		gateway/ (the gateway suite of scripts/test.sh runs it):
 *
 *	- SHA-256 against FIPS 180-2's examples, HMAC-SHA-256 against
 *	  RFC 4231's test cases (a key longer than a block among them);
 *	- SigV4Verify against signatures made here by a second, plain
 *	  implementation (OpenSSL's one-shot HMAC(), the canonical request
 *	  built byte by byte): many access keys, days and regions in turn,
 *	  more than a thread keeps signing keys for, each verified with its
 *	  own secret and refused with another's; a header value of 20,000
 *	  bytes with runs of blanks, a hundred headers, repeated names, a
 *	  query; one byte changed anywhere is refused;
 *	- SigV4CheckTime's 15 minutes either way and its message, on dates
 *	  whose fields may be out of range, against timegm();
 *	- crc32.c's GwCrc32 against zlib's crc32(0, ...), and each of its
 *	  ways called directly (the folding where the CPU has PCLMULQDQ, the
 *	  table loop, zlib's by pieces): every length 0 to 1024, odd lengths
 *	  up to 64 KB, every start alignment 0 to 15, on random bytes, all
 *	  zeros and all ones; and CRC-32("123456789") = 0xCBF43926.
 *
 * Prints one line per failure and exits 1 if any.  "sigv4_check bench"
 * prints the CPU time of one verification instead.
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <zlib.h>

#include "gateway.h"

static int	failures;
static int	checks;

static void
check(int ok, const char *what)
{
	checks++;
	if (!ok)
	{
		failures++;
		printf("FAILED: %s\n", what);
	}
}

static void
hex(const unsigned char *in, size_t n, char *out)
{
	size_t		i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", in[i]);
}

static size_t
unhex(const char *h, unsigned char *out)
{
	size_t		n = 0;

	for (; h[0] && h[1]; h += 2)
	{
		unsigned int b;

		sscanf(h, "%2x", &b);
		out[n++] = (unsigned char) b;
	}
	return n;
}

/* ---------------- SHA-256 and HMAC vectors ---------------- */

static void
check_vectors(void)
{
	static const struct
	{
		const char *msg;
		const char *md;
	}			sha[] = {
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	};

	/* RFC 4231, section 4: cases 1 to 4, 6 and 7 (5 truncates) */
	static const struct
	{
		const char *key;		/* hex */
		const char *data;		/* hex */
		const char *mac;
	}			hm[] = {
		{"0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "4869205468657265",
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
		{"4a656665", "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd",
		"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
		{"0102030405060708090a0b0c0d0e0f10111213141516171819",
			"cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
		"82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
		{NULL,
			"54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
		{NULL,
			"5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
		"9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
	};
	size_t		i;

	for (i = 0; i < sizeof(sha) / sizeof(sha[0]); i++)
	{
		char		out[65];

		GwHexSha256(sha[i].msg, strlen(sha[i].msg), out);
		check(strcmp(out, sha[i].md) == 0, "SHA-256 of a FIPS 180-2 example");
	}
	for (i = 0; i < sizeof(hm) / sizeof(hm[0]); i++)
	{
		unsigned char key[200],
					data[300],
					mac[32];
		char		out[65];
		size_t		klen,
					dlen;

		if (hm[i].key)
			klen = unhex(hm[i].key, key);
		else
		{
			klen = 131;			/* cases 6 and 7: 131 bytes of 0xaa */
			memset(key, 0xaa, klen);
		}
		dlen = unhex(hm[i].data, data);
		GwHmacSha256(key, klen, data, dlen, mac);
		hex(mac, 32, out);
		check(strcmp(out, hm[i].mac) == 0, "HMAC-SHA-256 of an RFC 4231 test case");
	}
}

/* ---------------- SigV4 against a plain implementation ---------------- */

typedef struct Str
{
	char	   *s;
	size_t		len;
	size_t		cap;
} Str;

static void
put(Str *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap)
	{
		b->cap = (b->len + n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (b->s == NULL)
			abort();
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
puts_(Str *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
putc_(Str *b, char c)
{
	put(b, &c, 1);
}

static void
enc(Str *b, const char *s, int slash)
{
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;
		char		e[4];

		if (isalnum(c) || strchr("-_.~", c) || (slash && c == '/'))
			putc_(b, (char) c);
		else
		{
			snprintf(e, sizeof(e), "%%%02X", c);
			puts_(b, e);
		}
	}
}

static void
mac(const unsigned char *key, int klen, const char *msg, unsigned char out[32])
{
	unsigned int n = 32;

	HMAC(EVP_sha256(), key, klen, (const unsigned char *) msg, strlen(msg), out, &n);
}

/*
 * The signature of req (its headers all signed, in the order given, which
 * must be sorted and lower-case; the query in sorted order) by secret on
 * day and region, and the Authorization header that carries it.
 */
static void
sign(const SigV4Request *req, const char *key_id, const char *secret,
	 const char *amz_date, const char *region, char *auth, size_t authlen)
{
	Str			c = {0},
				sh = {0},
				sts = {0};
	unsigned char k[32],
				d[32];
	char		h[65],
				day[9];
	int			i,
				j;

	memcpy(day, amz_date, 8);
	day[8] = '\0';
	puts_(&c, req->method);
	putc_(&c, '\n');
	enc(&c, req->path, 1);
	putc_(&c, '\n');
	for (i = 0; i < req->nquery; i++)
	{
		if (i)
			putc_(&c, '&');
		enc(&c, req->query[i].name, 0);
		putc_(&c, '=');
		enc(&c, req->query[i].value, 0);
	}
	putc_(&c, '\n');
	for (i = 0; i < req->nheaders; i++)
	{
		const char *v = req->headers[i].value;
		int			space = 0,
					any = 0;

		if (i > 0 && strcmp(req->headers[i - 1].name, req->headers[i].name) == 0)
			putc_(&c, ',');
		else
		{
			if (i > 0)
				putc_(&c, '\n');
			puts_(&c, req->headers[i].name);
			putc_(&c, ':');
			if (sh.len)
				putc_(&sh, ';');
			puts_(&sh, req->headers[i].name);
		}
		for (j = 0; v[j]; j++)
		{
			if (v[j] == ' ' || v[j] == '\t')
				space = any;
			else
			{
				if (space)
					putc_(&c, ' ');
				putc_(&c, v[j]);
				space = 0;
				any = 1;
			}
		}
	}
	putc_(&c, '\n');
	putc_(&c, '\n');
	puts_(&c, sh.s);
	putc_(&c, '\n');
	SHA256((const unsigned char *) req->body, req->body_len, d);
	hex(d, 32, h);
	puts_(&c, h);

	puts_(&sts, "AWS4-HMAC-SHA256\n");
	puts_(&sts, amz_date);
	putc_(&sts, '\n');
	puts_(&sts, day);
	putc_(&sts, '/');
	puts_(&sts, region);
	puts_(&sts, "/dynamodb/aws4_request\n");
	SHA256((const unsigned char *) c.s, c.len, d);
	hex(d, 32, h);
	puts_(&sts, h);

	{
		Str			k0 = {0};

		puts_(&k0, "AWS4");
		puts_(&k0, secret);
		mac((unsigned char *) k0.s, (int) k0.len, day, k);
		free(k0.s);
	}
	mac(k, 32, region, d);
	mac(d, 32, "dynamodb", k);
	mac(k, 32, "aws4_request", d);
	mac(d, 32, sts.s, k);
	hex(k, 32, h);
	snprintf(auth, authlen,
			 "AWS4-HMAC-SHA256 Credential=%s/%s/%s/dynamodb/aws4_request, SignedHeaders=%s, Signature=%s",
			 key_id, day, region, sh.s, h);
	free(c.s);
	free(sh.s);
	free(sts.s);
}

/* does sigv4.c verify req with Authorization auth under secret? */
static int
verifies(const SigV4Request *req, const char *auth, const char *secret)
{
	GwPair		all[160];
	SigV4Request r = *req;
	SigV4Auth	a;
	char		msg[512];

	memcpy(all, req->headers, sizeof(GwPair) * req->nheaders);
	all[req->nheaders].name = "Authorization";
	all[req->nheaders].value = auth;
	r.headers = all;
	r.nheaders = req->nheaders + 1;
	if (SigV4Parse(&r, &a, msg, sizeof(msg)) != SIGV4_OK)
	{
		printf("SigV4Parse: %s\n", msg);
		return 0;
	}
	return SigV4Verify(&r, &a, secret);
}

static void
check_sigv4(void)
{
	static const char *const days[] = {"20261127T235959Z", "20261128T000001Z"};
	static const char *const regions[] = {"us-east-1", "eu-west-1"};
	char		auth[4096];
	char		ids[12][32],
				secrets[12][48];
	GwPair		h[160];
	SigV4Request req;
	char		body[] = "{\"TableName\": \"t\", \"Key\": {\"pk\": {\"S\": \"a\"}}}";
	int			round,
				k,
				d,
				g,
				i;

	for (k = 0; k < 12; k++)
	{
		snprintf(ids[k], sizeof(ids[k]), "AKITKEY%02d", k);
		/* secrets that share long prefixes, and one a prefix of another */
		snprintf(secrets[k], sizeof(secrets[k]), "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKE%s",
				 k == 11 ? "" : (char[]) {(char) ('A' + k), 0});
	}

	/* keys, days and regions in turn: 12 x 2 x 2 signing keys, 8 kept */
	for (round = 0; round < 3; round++)
		for (k = 0; k < 12; k++)
			for (d = 0; d < 2; d++)
				for (g = 0; g < 2; g++)
				{
					h[0] = (GwPair) {"content-type", "application/x-amz-json-1.0"};
					h[1] = (GwPair) {"host", "localhost:8000"};
					h[2] = (GwPair) {"x-amz-date", days[d]};
					h[3] = (GwPair) {"x-amz-target", "DynamoDB_20120810.GetItem"};
					req = (SigV4Request) {"POST", "/", h, 4, NULL, 0, body, strlen(body)};
					sign(&req, ids[k], secrets[k], days[d], regions[g], auth, sizeof(auth));
					check(verifies(&req, auth, secrets[k]),
						  "a key's signature verifies with its secret, in turn with others");
					check(!verifies(&req, auth, secrets[(k + 1) % 12]),
						  "a key's signature is refused with another key's secret");
					check(!verifies(&req, auth, secrets[(k + 11) % 12]),
						  "a key's signature is refused with another key's secret (prefix)");
					/* the other day's or region's signing key does not sign it */
					{
						char		other[4096];

						sign(&req, ids[k], secrets[k], days[d], regions[1 - g], other, sizeof(other));
						check(strcmp(other, auth) != 0 && verifies(&req, other, secrets[k]),
							  "another region's signature verifies too");
						memcpy(strstr(other, "Signature=") + 10, strstr(auth, "Signature=") + 10, 64);
						check(!verifies(&req, other, secrets[k]),
							  "one region's signature is refused in another's scope");
					}
				}

	/* a long value with runs of blanks, a hundred headers, repeated names */
	{
		char	   *longv = malloc(20001);
		char		names[100][16];
		char		vals[100][32];
		int			n = 0;

		for (i = 0; i < 20000; i++)
			longv[i] = i % 97 == 5 ? ' ' : i % 89 == 3 ? '\t' : (char) ('a' + i % 26);
		longv[0] = 'x';
		longv[20000] = '\0';
		h[n++] = (GwPair) {"content-type", "application/x-amz-json-1.0"};
		h[n++] = (GwPair) {"host", "example.com"};
		h[n++] = (GwPair) {"x-amz-date", days[1]};
		h[n++] = (GwPair) {"x-amz-long", longv};
		for (i = 0; i < 100; i++)
		{
			snprintf(names[i], sizeof(names[i]), "x-amz-meta-%03d", i / 2);
			snprintf(vals[i], sizeof(vals[i]), "v%d  with   spaces%s", i, i % 3 ? "" : "   ");
			h[n++] = (GwPair) {names[i], vals[i]};
		}
		h[n++] = (GwPair) {"x-amz-target", "DynamoDB_20120810.PutItem"};
		{
			GwPair		q[3] = {{"a b", "1/2"}, {"a+b", ""}, {"z", "\xc3\xa9"}};

			req = (SigV4Request) {"POST", "/a path/", h, n, q, 3, body, strlen(body)};
			sign(&req, ids[0], secrets[0], days[1], regions[0], auth, sizeof(auth));
			check(verifies(&req, auth, secrets[0]),
				  "a request with a 20,000-byte value, 100 headers and a query verifies");
			for (i = 0; i < 2; i++)
			{
				longv[12345] ^= 1;
				check(verifies(&req, auth, secrets[0]) == (i == 1),
					  "one byte changed in the long value is refused");
			}
			vals[77][1] = '8';
			check(!verifies(&req, auth, secrets[0]),
				  "one byte changed in the 80th header is refused");
			vals[77][1] = '7';
			q[1].value = "x";
			check(!verifies(&req, auth, secrets[0]), "a changed query is refused");
		}
		free(longv);
	}
}

/* SigV4CheckTime's bounds and messages, against timegm() */
static void
check_time(void)
{
	int			i;

	srand(31);
	for (i = 0; i < 20000; i++)
	{
		SigV4Auth	a;
		struct tm	tm;
		time_t		t;
		char		msg[512],
					want[512],
					b1[17],
					b2[17];

		memset(&a, 0, sizeof(a));
		/* years 1970..2099; month, day, hour, minute, second partly out of range */
		snprintf(a.amz_date, sizeof(a.amz_date), "%04d%02d%02dT%02d%02d%02dZ",
				 1970 + rand() % 130, i % 7 ? 1 + rand() % 12 : rand() % 100,
				 i % 5 ? 1 + rand() % 28 : rand() % 100, rand() % (i % 3 ? 24 : 100),
				 rand() % (i % 3 ? 60 : 100), rand() % (i % 3 ? 60 : 100));
		memset(&tm, 0, sizeof(tm));
		sscanf(a.amz_date, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
		t = timegm(&tm);
		check(SigV4CheckTime(&a, t + 900, msg, sizeof(msg)) == SIGV4_OK &&
			  SigV4CheckTime(&a, t - 900, msg, sizeof(msg)) == SIGV4_OK,
			  "a date 15 minutes off either way is current");
		check(SigV4CheckTime(&a, t + 901, msg, sizeof(msg)) == SIGV4_EXPIRED,
			  "a date 15 minutes and a second behind is expired");
		gmtime_r(&(time_t) {t + 901}, &tm);
		strftime(b1, sizeof(b1), "%Y%m%dT%H%M%SZ", &tm);
		gmtime_r(&(time_t) {t + 1}, &tm);
		strftime(b2, sizeof(b2), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(want, sizeof(want), "Signature expired: %s is now earlier than %s (%s - 15 min.)",
				 a.amz_date, b2, b1);
		check(strcmp(msg, want) == 0, "the expired message");
		check(SigV4CheckTime(&a, t - 901, msg, sizeof(msg)) == SIGV4_EXPIRED,
			  "a date 15 minutes and a second ahead is not yet current");
	}
}

/* ---------------- CRC-32 against zlib's ---------------- */

/*
 * Each way of crc32.c on len bytes at p, against zlib: one check per way,
 * a failure printed only the first time for a way and kind of buffer.
 */
static void
crc_same(const unsigned char *p, size_t len, const char *kind, int *failed)
{
	uint32_t	want = (uint32_t) crc32(0L, p, (uInt) len);
	struct
	{
		const char *name;
		uint32_t	(*fn) (const void *, size_t);
	}			ways[] = {
		{"GwCrc32", GwCrc32},
		{"GwCrc32Table", GwCrc32Table},
		{"GwCrc32Portable", GwCrc32Portable},
		{"GwCrc32Clmul", GwCrc32Clmul},
	};
	int			nways = GwCrc32HasClmul() ? 4 : 3;
	int			i;

	for (i = 0; i < nways; i++)
	{
		uint32_t	got = ways[i].fn(p, len);
		char		what[160];

		if (got == want)
			check(1, "a CRC-32 equals zlib's");
		else if (!failed[i]++)
		{
			snprintf(what, sizeof(what), "%s equals zlib's crc32 on %s (first seen: %zu bytes at alignment %d, %08x for %08x)",
					 ways[i].name, kind, len, (int) ((uintptr_t) p % 16), got, want);
			check(0, what);
		}
		else
		{
			/* failed again: counted, not printed */
			checks++;
			failures++;
		}
	}
}

static void
check_crc32(void)
{
	const size_t size = 65536 + 64;
	unsigned char *buf = malloc(size + 16);
	unsigned char *base = buf + (16 - (uintptr_t) buf % 16) % 16;
	static const char *const kinds[] = {"random bytes", "all zeros", "all ones"};
	int			kind;

	if (buf == NULL)
		abort();
	check(GwCrc32("123456789", 9) == 0xCBF43926U &&
		  GwCrc32Table("123456789", 9) == 0xCBF43926U &&
		  GwCrc32Portable("123456789", 9) == 0xCBF43926U,
		  "CRC-32 of \"123456789\" is 0xCBF43926");
	if (GwCrc32HasClmul())
	{
		unsigned char v[64 * 3];
		int			i;

		/* the folding's own minimum is 64 bytes: the vector repeated */
		for (i = 0; i < 64 * 3; i++)
			v[i] = (unsigned char) "123456789"[i % 9];
		check(GwCrc32Clmul(v, sizeof(v)) == (uint32_t) crc32(0L, v, sizeof(v)),
			  "the folding on 192 bytes of \"123456789\" repeated");
	}
	else
		printf("sigv4_check: no PCLMULQDQ here, the folding is not tested\n");

	for (kind = 0; kind < 3; kind++)
	{
		int			failed[4] = {0};
		size_t		i,
					len;
		int			align;

		srand(1234567);
		for (i = 0; i < size + 16; i++)
			buf[i] = kind == 0 ? (unsigned char) (rand() >> 7) : kind == 1 ? 0 : 0xff;
		for (align = 0; align < 16; align++)
		{
			/* every length to 1024 */
			for (len = 0; len <= 1024; len++)
				crc_same(base + align, len, kinds[kind], failed);
			/* odd lengths to 64 KB, ever further apart, and 64 KB itself */
			for (len = 1025; len <= 65536; len += 2 + len / 64)
				crc_same(base + align, len, kinds[kind], failed);
			crc_same(base + align, 65536 + 63 - align % 2, kinds[kind], failed);
		}
	}
	free(buf);
}

/*
 * "sigv4_check bench [N]": the CPU time of one verification of a GetItem
 * signed as the SDKs sign it (SigV4Parse, SigV4CheckTime, SigV4Verify,
 * the signing key kept), over N of them (default 300,000).
 */
static int
bench(long n)
{
	static const char secret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
	static const char date[] = "20261128T094500Z";
	char		body[] = "{\"TableName\": \"bench\", \"Key\": {\"pk\": {\"S\": \"USER#1234\"}}}";
	char		auth[4096],
				msg[512];
	GwPair		h[5];
	SigV4Request req;
	SigV4Auth	a;
	struct tm	tm = {0};
	struct timespec t0,
				t1;
	time_t		now;
	long		i,
				ok = 0;

	h[0] = (GwPair) {"content-type", "application/x-amz-json-1.0"};
	h[1] = (GwPair) {"host", "127.0.0.1:8000"};
	h[2] = (GwPair) {"x-amz-date", date};
	h[3] = (GwPair) {"x-amz-target", "DynamoDB_20120810.GetItem"};
	req = (SigV4Request) {"POST", "/", h, 4, NULL, 0, body, strlen(body)};
	sign(&req, "AKITBENCHKEY0000", secret, date, "us-east-1", auth, sizeof(auth));
	h[4] = (GwPair) {"Authorization", auth};
	req.nheaders = 5;
	sscanf(date, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	now = timegm(&tm);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (i = 0; i < n; i++)
		if (SigV4Parse(&req, &a, msg, sizeof(msg)) == SIGV4_OK &&
			SigV4CheckTime(&a, now, msg, sizeof(msg)) == SIGV4_OK &&
			SigV4Verify(&req, &a, secret))
			ok++;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	printf("%.3f us of CPU per verification (%ld of %ld verified)\n",
		   ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / n, ok, n);
	return ok == n ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "bench") == 0)
		return bench(argc > 2 ? atol(argv[2]) : 300000);
	check_vectors();
	check_sigv4();
	check_time();
	check_crc32();
	printf("sigv4_check: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

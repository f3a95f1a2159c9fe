/*-------------------------------------------------------------------------
 *
 * fuzz_number.c
 *		libFuzzer target: DynamoDB numbers (dnumber.c), their key encoding
 *		(key_codec.c) and exact addition (attr_value.c).
 *
 * The input is one or two number texts separated by a newline.  Each is
 * parsed by DynNumberParse and, independently, by a small reference
 * reader written from the documented rules (optional sign, digits with at
 * most one point and at least one digit, optional exponent; at most 38
 * significant digits; magnitude zero or within 1E-130 .. 9.99..E+125,
 * checked in that order).  The two must agree on the outcome and, for a
 * number, on its digits and exponent.  An accepted number must print as a
 * canonical decimal that parses back to the same number.
 *
 * For two numbers: DynNumberCompare is antisymmetric and agrees with the
 * sign of the exact difference and with memcmp of the key encodings, and
 * AttrNumberAdd is exact: a + b - b gives a back whenever both steps stay
 * within DynamoDB's limits.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/fmgrprotos.h"

#include "attr_value.h"
#include "fuzz_support.h"
#include "item_table.h"

/* ---- the reference reader ---- */
typedef struct RefNumber
{
	DynNumberStatus status;
	bool		negative;
	int			ndigits;
	int			exponent;
	char		digits[DYNNUM_MAX_DIGITS];
} RefNumber;

static void
ref_parse(const char *s, int len, RefNumber *r)
{
	int			i = 0;
	int			intdigits = 0;
	int			fracdigits = 0;
	int			first = -1;		/* index among all digits */
	int			last = -1;
	int			ndig = 0;
	long long	e = 0;
	bool		eneg = false;
	long long	pos;
	int			k;
	const char *digits_at;

	memset(r, 0, sizeof(*r));
	if (i < len && (s[i] == '+' || s[i] == '-'))
		r->negative = (s[i++] == '-');
	digits_at = s + i;
	while (i < len && s[i] >= '0' && s[i] <= '9')
	{
		if (s[i] != '0')
		{
			if (first < 0)
				first = ndig;
			last = ndig;
		}
		ndig++;
		intdigits++;
		i++;
	}
	if (i < len && s[i] == '.')
	{
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9')
		{
			if (s[i] != '0')
			{
				if (first < 0)
					first = ndig;
				last = ndig;
			}
			ndig++;
			fracdigits++;
			i++;
		}
	}
	if (intdigits + fracdigits == 0)
	{
		r->status = DYNNUM_SYNTAX;
		return;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E'))
	{
		int			start;

		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			eneg = (s[i++] == '-');
		start = i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
		{
			if (e < 1000000000LL)
				e = e * 10 + (s[i] - '0');
			i++;
		}
		if (i == start)
		{
			r->status = DYNNUM_SYNTAX;
			return;
		}
	}
	if (i != len)
	{
		r->status = DYNNUM_SYNTAX;
		return;
	}
	if (first < 0)
	{
		r->negative = false;	/* zero */
		return;
	}
	if (last - first + 1 > DYNNUM_MAX_DIGITS)
	{
		r->status = DYNNUM_TOO_MANY_DIGITS;
		return;
	}
	/* 0.d1d2.. x 10^pos, d1 the first non-zero digit */
	pos = (long long) intdigits - first + (eneg ? -e : e);
	if (pos > DYNNUM_MAX_EXP)
	{
		r->status = DYNNUM_OVERFLOW;
		return;
	}
	if (pos < DYNNUM_MIN_EXP)
	{
		r->status = DYNNUM_UNDERFLOW;
		return;
	}
	r->exponent = (int) pos;
	r->ndigits = last - first + 1;
	k = 0;
	for (i = 0; k < r->ndigits; digits_at++)
	{
		if (*digits_at == '.')
			continue;
		if (i >= first)
			r->digits[k++] = (char) (*digits_at - '0');
		i++;
	}
}

static bool
canonical_text(const char *t, int len)
{
	int			i = 0;
	int			point = -1;

	if (len == 1 && t[0] == '0')
		return true;
	if (t[i] == '-')
		i++;
	if (i >= len)
		return false;
	if (t[i] == '0')
	{
		/* 0.xxx only */
		if (i + 1 >= len || t[i + 1] != '.')
			return false;
	}
	for (; i < len; i++)
	{
		if (t[i] == '.')
		{
			if (point >= 0)
				return false;
			point = i;
		}
		else if (t[i] < '0' || t[i] > '9')
			return false;
	}
	if (point >= 0 && (point == len - 1 || t[len - 1] == '0'))
		return false;
	return true;
}

static char *
num_text(const DynNumber *n)
{
	char	   *buf = palloc(DYNNUM_MAX_TEXT);

	DynNumberFormat(n, buf);
	return buf;
}

static void
check_one(const char *s, int len, DynNumber *num, DynNumberStatus *status)
{
	RefNumber	ref;
	char		buf[DYNNUM_MAX_TEXT + 16];
	int			tlen;
	DynNumber	again;
	int			i;

	*status = DynNumberParse(s, len, num);
	ref_parse(s, len, &ref);
	fz_check(*status == ref.status, "\"%.*s\": DynNumberParse says %d, the rules say %d",
			 len, s, (int) *status, (int) ref.status);
	if (*status != DYNNUM_OK)
		return;
	fz_check(num->ndigits == ref.ndigits &&
			 (num->ndigits == 0 || (num->exponent == ref.exponent &&
									num->negative == ref.negative)),
			 "\"%.*s\": parsed as %d digits x 10^%d, the rules say %d digits x 10^%d",
			 len, s, num->ndigits, num->exponent, ref.ndigits, ref.exponent);
	for (i = 0; i < num->ndigits; i++)
		fz_check(num->digits[i] == ref.digits[i], "\"%.*s\": digit %d differs", len, s, i);

	tlen = DynNumberFormat(num, buf);
	fz_check(tlen > 0 && tlen < DYNNUM_MAX_TEXT && (int) strlen(buf) == tlen,
			 "\"%.*s\": canonical text has length %d", len, s, tlen);
	fz_check(canonical_text(buf, tlen), "\"%.*s\": \"%s\" is not a canonical decimal",
			 len, s, buf);
	fz_check(DynNumberParse(buf, tlen, &again) == DYNNUM_OK &&
			 DynNumberCompare(num, &again) == 0 &&
			 again.ndigits == num->ndigits &&
			 (num->ndigits == 0 || again.exponent == num->exponent) &&
			 memcmp(again.digits, num->digits, num->ndigits) == 0,
			 "\"%.*s\": canonical text \"%s\" does not read back", len, s, buf);
}

/* ---- pairs ---- */
typedef struct AddRun
{
	DynNumber  *a;
	DynNumber  *b;
	bool		subtract;
	AttrValue  *result;
} AddRun;

static void
run_add(void *arg)
{
	AddRun	   *run = arg;

	run->result = AttrNumberAdd(AttrNewNumber(run->a), AttrNewNumber(run->b),
								run->subtract);
}

static int
sign_of_difference(const DynNumber *a, const DynNumber *b)
{
	char	   *d = DatumGetCString(DirectFunctionCall1(numeric_out,
														DirectFunctionCall2(numeric_sub,
																			DirectFunctionCall3(numeric_in, CStringGetDatum(num_text(a)), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)),
																			DirectFunctionCall3(numeric_in, CStringGetDatum(num_text(b)), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)))));
	const char *p;

	for (p = d; *p; p++)
	{
		if (*p >= '1' && *p <= '9')
			return d[0] == '-' ? -1 : 1;
	}
	return 0;
}

static int
sign(int c)
{
	return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

static void
check_pair(DynNumber *a, DynNumber *b)
{
	int			ab = sign(DynNumberCompare(a, b));
	int			ba = sign(DynNumberCompare(b, a));
	ItemKeyPart pa,
				pb;
	ItemKey    *ka;
	ItemKey    *kb;
	int			enc;
	AddRun		sum;
	AddRun		back;

	fz_check(ab == -ba, "compare(%s, %s) = %d but compare(b, a) = %d",
			 num_text(a), num_text(b), ab, ba);
	fz_check(ab == sign_of_difference(a, b), "compare(%s, %s) = %d, the difference says otherwise",
			 num_text(a), num_text(b), ab);

	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	pa.type = pb.type = ITEMKEY_N;
	pa.num = *a;
	pb.num = *b;
	ka = KeyCodecBuild(&pa, NULL);
	kb = KeyCodecBuild(&pb, NULL);
	enc = memcmp(ITEMKEY_DATA(ka), ITEMKEY_DATA(kb), Min(ITEMKEY_LEN(ka), ITEMKEY_LEN(kb)));
	if (enc == 0)
		enc = ITEMKEY_LEN(ka) - ITEMKEY_LEN(kb);
	fz_check(sign(enc) == ab, "key encodings of %s and %s compare %d, the numbers %d",
			 num_text(a), num_text(b), sign(enc), ab);

	/* exact addition: (a + b) - b = a */
	sum.a = a;
	sum.b = b;
	sum.subtract = false;
	if (fz_call(run_add, &sum))
	{
		back.a = &sum.result->u.num;
		back.b = b;
		back.subtract = true;
		if (fz_call(run_add, &back))
			fz_check(DynNumberCompare(&back.result->u.num, a) == 0,
					 "(%s + %s) - %s = %s", num_text(a), num_text(b), num_text(b),
					 num_text(&back.result->u.num));
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl;
	DynNumber	nums[2];
	DynNumberStatus st[2];
	int			n = 0;
	size_t		start = 0;
	int			i;

	if (size > 8192)
		return -1;
	fz_input_begin();
	for (i = 0; i < 2; i++)
	{
		size_t		end;
		char	   *copy;

		nl = memchr(data + start, '\n', size - start);
		end = nl ? (size_t) (nl - (const char *) data) : size;
		/* an exact-size copy: reading past the end shows */
		copy = palloc(Max(end - start, 1));
		memcpy(copy, data + start, end - start);
		check_one(copy, (int) (end - start), &nums[i], &st[i]);
		n++;
		if (nl == NULL)
			break;
		start = end + 1;
	}
	if (n == 2 && st[0] == DYNNUM_OK && st[1] == DYNNUM_OK)
	{
		check_pair(&nums[0], &nums[1]);
		check_pair(&nums[1], &nums[0]);
	}
	fz_input_end();
	return 0;
}

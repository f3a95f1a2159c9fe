/*-------------------------------------------------------------------------
 *
 * dnumber.c
 *		Parse, check, print and compare DynamoDB numbers.
 *
 * Accepted syntax (DynamoDB's): an optional sign, digits with at most one
 * decimal point and at least one digit, then optionally 'e' or 'E', an
 * optional sign and at least one digit.  No whitespace, no NaN/Infinity, no
 * hex.  Leading and trailing zeros are not significant: "007", "7.000" and
 * "0.7e1" are all the number 7.
 *
 * The canonical text (what DynamoDB returns) is a plain decimal: never an
 * exponent, no '+', no leading zeros, no trailing fractional zeros, and
 * "-0" is "0".
 *
 * Everything here works on caller-provided buffers; nothing allocates.
 *
 *-------------------------------------------------------------------------
 */
#include "c.h"

#include "dnumber.h"

/* Exponent digits beyond this are clamped: the value is out of range anyway */
#define EXPONENT_CLAMP 100000

/*
 * DynNumberParse
 *		Parse len bytes of str (need not be NUL-terminated) into *num.
 *
 * Returns DYNNUM_OK or the first problem found; syntax is checked before the
 * digit count, and the digit count before the range, as DynamoDB does.
 */
DynNumberStatus
DynNumberParse(const char *str, int len, DynNumber *num)
{
	const char *p = str;
	const char *end = str + len;
	bool		negative = false;
	bool		seen_point = false;
	int			int_digits = 0;		/* digits before the point */
	int			first_nz = -1;		/* index of first non-zero digit */
	int			last_nz = -1;		/* index of last non-zero digit */
	int			ndigits_total = 0;
	long		exp10 = 0;
	const char *digits_start;
	int			nsig;
	long		exponent;
	int			i;
	int			k;

	if (p < end && (*p == '+' || *p == '-'))
	{
		negative = (*p == '-');
		p++;
	}
	digits_start = p;
	for (; p < end; p++)
	{
		if (*p >= '0' && *p <= '9')
		{
			if (*p != '0')
			{
				if (first_nz < 0)
					first_nz = ndigits_total;
				last_nz = ndigits_total;
			}
			ndigits_total++;
			if (!seen_point)
				int_digits++;
		}
		else if (*p == '.' && !seen_point)
			seen_point = true;
		else
			break;
	}
	if (ndigits_total == 0)
		return DYNNUM_SYNTAX;

	if (p < end && (*p == 'e' || *p == 'E'))
	{
		bool		eneg = false;
		int			edigits = 0;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
		{
			eneg = (*p == '-');
			p++;
		}
		for (; p < end && *p >= '0' && *p <= '9'; p++)
		{
			if (exp10 < EXPONENT_CLAMP)
				exp10 = exp10 * 10 + (*p - '0');
			edigits++;
		}
		if (edigits == 0)
			return DYNNUM_SYNTAX;
		if (eneg)
			exp10 = -exp10;
	}
	if (p != end)
		return DYNNUM_SYNTAX;

	memset(num, 0, sizeof(*num));
	if (first_nz < 0)
	{
		/* zero, whatever its sign or exponent */
		return DYNNUM_OK;
	}

	nsig = last_nz - first_nz + 1;
	if (nsig > DYNNUM_MAX_DIGITS)
		return DYNNUM_TOO_MANY_DIGITS;

	/* value = 0.(digits from first_nz) x 10^(int_digits - first_nz + exp10) */
	exponent = (long) int_digits - first_nz + exp10;
	if (exponent > DYNNUM_MAX_EXP)
		return DYNNUM_OVERFLOW;
	if (exponent < DYNNUM_MIN_EXP)
		return DYNNUM_UNDERFLOW;

	num->negative = negative;
	num->ndigits = (int8) nsig;
	num->exponent = (int16) exponent;

	/* copy the significant digits, skipping the point */
	k = 0;
	i = 0;
	for (p = digits_start; k < nsig; p++)
	{
		if (*p == '.')
			continue;
		if (i >= first_nz)
			num->digits[k++] = (uint8) (*p - '0');
		i++;
	}
	return DYNNUM_OK;
}

/*
 * DynNumberFormat
 *		Write the canonical text of num into buf (DYNNUM_MAX_TEXT bytes) and
 *		return its length.  The text is NUL-terminated.
 */
int
DynNumberFormat(const DynNumber *num, char *buf)
{
	char	   *p = buf;
	int			i;

	if (num->ndigits == 0)
	{
		buf[0] = '0';
		buf[1] = '\0';
		return 1;
	}
	if (num->negative)
		*p++ = '-';
	if (num->exponent <= 0)
	{
		*p++ = '0';
		*p++ = '.';
		for (i = 0; i < -num->exponent; i++)
			*p++ = '0';
		for (i = 0; i < num->ndigits; i++)
			*p++ = (char) ('0' + num->digits[i]);
	}
	else if (num->exponent < num->ndigits)
	{
		for (i = 0; i < num->ndigits; i++)
		{
			if (i == num->exponent)
				*p++ = '.';
			*p++ = (char) ('0' + num->digits[i]);
		}
	}
	else
	{
		for (i = 0; i < num->ndigits; i++)
			*p++ = (char) ('0' + num->digits[i]);
		for (; i < num->exponent; i++)
			*p++ = '0';
	}
	*p = '\0';
	return (int) (p - buf);
}

/*
 * DynNumberCompare
 *		Numeric three-way comparison: <0, 0, >0.
 */
int
DynNumberCompare(const DynNumber *a, const DynNumber *b)
{
	int			sa = a->ndigits == 0 ? 0 : (a->negative ? -1 : 1);
	int			sb = b->ndigits == 0 ? 0 : (b->negative ? -1 : 1);
	int			mag = 0;
	int			n;
	int			i;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (sa == 0)
		return 0;

	/* same sign: compare magnitudes */
	if (a->exponent != b->exponent)
		mag = a->exponent < b->exponent ? -1 : 1;
	else
	{
		n = Min(a->ndigits, b->ndigits);
		for (i = 0; i < n && mag == 0; i++)
		{
			if (a->digits[i] != b->digits[i])
				mag = a->digits[i] < b->digits[i] ? -1 : 1;
		}
		if (mag == 0 && a->ndigits != b->ndigits)
			mag = a->ndigits < b->ndigits ? -1 : 1;
	}
	return sa < 0 ? -mag : mag;
}

/*
 * DynNumberStatusMessage
 *		DynamoDB's message for a failed parse.  For DYNNUM_SYNTAX the caller
 *		appends the offending text after the returned prefix.
 */
const char *
DynNumberStatusMessage(DynNumberStatus status)
{
	switch (status)
	{
		case DYNNUM_OK:
			return "";
		case DYNNUM_SYNTAX:
			return "The parameter cannot be converted to a numeric value";
		case DYNNUM_TOO_MANY_DIGITS:
			return "Attempting to store more than 38 significant digits in a Number";
		case DYNNUM_OVERFLOW:
			return "Number overflow. Attempting to store a number with magnitude larger than supported range";
		case DYNNUM_UNDERFLOW:
			return "Number underflow. Attempting to store a number with magnitude smaller than supported range";
	}
	return "";
}

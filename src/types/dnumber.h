/*-------------------------------------------------------------------------
 *
 * dnumber.h
 *		DynamoDB numbers: parsing, limits, canonical text and comparison.
 *
 * A DynamoDB number is a decimal with at most 38 significant digits and a
 * magnitude of zero or between 1E-130 and 9.99...E+125.  We keep it as
 * sign, significant digits (no leading or trailing zeros) and a decimal
 * exponent such that value = 0.d1d2...dn x 10^exponent.  That form is what
 * both the canonical text and the order-preserving key encoding are made
 * from.  Plain C: no fmgr, no palloc.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_DNUMBER_H
#define ITEM_TABLE_DNUMBER_H


#define DYNNUM_MAX_DIGITS	38
#define DYNNUM_MIN_EXP		(-129)	/* 0.1e-129 = 1E-130 */
#define DYNNUM_MAX_EXP		126		/* 0.99..e126 = 9.9..E+125 */
/* "-0." + 129 zeros + 38 digits, plus NUL, rounded up */
#define DYNNUM_MAX_TEXT		176

typedef struct DynNumber
{
	bool		negative;
	int8		ndigits;		/* 0 means the value is zero */
	int16		exponent;		/* value = 0.digits x 10^exponent */
	uint8		digits[DYNNUM_MAX_DIGITS];	/* 0..9 each; first and last are
											 * non-zero */
} DynNumber;

typedef enum DynNumberStatus
{
	DYNNUM_OK = 0,
	DYNNUM_SYNTAX,				/* not a number at all */
	DYNNUM_TOO_MANY_DIGITS,		/* more than 38 significant digits */
	DYNNUM_OVERFLOW,			/* magnitude above 9.99..E+125 */
	DYNNUM_UNDERFLOW			/* magnitude below 1E-130 */
} DynNumberStatus;

extern DynNumberStatus DynNumberParse(const char *str, int len, DynNumber *num);
extern int	DynNumberFormat(const DynNumber *num, char *buf);
extern int	DynNumberCompare(const DynNumber *a, const DynNumber *b);
extern const char *DynNumberStatusMessage(DynNumberStatus status);

#endif							/* ITEM_TABLE_DNUMBER_H */

/*-------------------------------------------------------------------------
 *
 * crc32.c
 *		The CRC-32 of every answer's body, for x-amz-crc32: the same value
 *		as zlib's crc32(0, buf, len), that is IEEE 802.3's CRC-32
 *		(reflected, polynomial 0x04C11DB7, 0xEDB88320 bit-reversed, the
 *		register set to all ones first and inverted last), computed faster.
 *
 * On x86-64 with PCLMULQDQ (carry-less multiplication) the body is folded
 * 64 bytes at a time, in four 128-bit lanes, then the lanes into one and
 * that one over the remaining 16-byte blocks; the 128 bits left are
 * reduced to the 32 of the CRC, the last of the three steps a Barrett
 * reduction.  Bodies shorter than 64 bytes, and the last 0 to 15 bytes of
 * longer ones, go through a slice-by-8 table loop.  Without PCLMULQDQ, or
 * off x86-64, zlib's crc32() does it all.  Which one is decided once, in
 * a constructor: before it has run GwCrc32 is zlib's.
 *
 * The algebra.  In the reflected convention the first byte's lowest bit
 * is the highest-degree coefficient of the message polynomial M(x), and
 * the CRC is (M(x) * x^32) mod P(x), the initial all-ones register being
 * the same as the first 32 bits of M inverted.  Loaded little-endian into
 * a 128-bit register R, bit i (bit i % 8 of byte i / 8) is the
 * coefficient of x^(127 - i): the low 64-bit half H holds x^127 to x^64
 * and the high half L x^63 to x^0, R = H x^64 + L, each half with its bit
 * j the coefficient of x^(63 - j).  A 128-bit block followed by n more
 * message bits contributes R(x) x^n to the message, and (mod P) anything
 * congruent to R(x) x^n serves as well.  So to move R forward over F bits,
 * onto the block F bits later, it is replaced by
 *
 *		H(x) (x^(F+64) mod P) + L(x) (x^F mod P)
 *
 * two products of degree below 96 that fit in 128 bits, XORed into that
 * block.  The constants are 32 bits, bit k the coefficient of x^(31 - k).
 * PCLMULQDQ multiplies the 64-bit half (bit j for x^(63 - j)) by such a
 * constant as integers without carries: product bit m is the coefficient
 * of x^(94 - m), which read as a lane (bit m for x^(127 - m)) is the
 * product times x^33.  Hence each constant is x to an exponent 33 lower
 * than the one it stands for: x^(F+31) mod P for H and x^(F-33) mod P for
 * L.  The table below gives the exponents; each value is obtained by
 * starting from x^0 (0x80000000 in this convention) and multiplying by x
 * that many times, a multiplication by x being the step of the bitwise
 * CRC: c = (c >> 1) ^ (c & 1 ? 0xEDB88320 : 0).
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "gateway.h"

/* the CRC-32 polynomial, reflected, without its x^32 term */
#define CRC32_POLY 0xEDB88320U

/*
 * zlib's crc32() of len bytes: crc32() takes an unsigned int length, so a
 * buffer of 4 GB or more goes in pieces.  This is GwCrc32 where there is no
 * PCLMULQDQ.
 */
uint32_t
GwCrc32Portable(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uLong		crc = crc32(0L, Z_NULL, 0);

	while (len > 0)
	{
		uInt		n = len > (1U << 30) ? (1U << 30) : (uInt) len;

		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (uint32_t) crc;
}

/* ---------------- slice-by-8 ---------------- */

/*
 * crc_table[0][b] is the register after the byte b has been shifted
 * through an all-zero register; crc_table[k][b] is the same followed by k
 * zero bytes more, so that eight bytes can be looked up independently and
 * their effects XORed.  Filled by crc32_init(), before main().
 */
static uint32_t crc_table[8][256];

static void
crc_table_init(void)
{
	int			b,
				k;

	for (b = 0; b < 256; b++)
	{
		uint32_t	c = (uint32_t) b;

		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? CRC32_POLY : 0);
		crc_table[0][b] = c;
	}
	for (k = 1; k < 8; k++)
		for (b = 0; b < 256; b++)
			crc_table[k][b] = (crc_table[k - 1][b] >> 8) ^
				crc_table[0][crc_table[k - 1][b] & 0xff];
}

/* four bytes as a little-endian word, whatever the machine's order */
static inline uint32_t
le32(const unsigned char *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 |
		(uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/*
 * Continue the register crc (not inverted: all ones at the start) over len
 * bytes, eight at a time then one at a time.
 */
static uint32_t
crc_slice8(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len >= 8)
	{
		uint32_t	lo = le32(p) ^ crc;
		uint32_t	hi = le32(p + 4);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
			crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
			crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
			crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len-- > 0)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* the table loop alone, from the start (sigv4_check.c tests it) */
uint32_t
GwCrc32Table(const void *buf, size_t len)
{
	return ~crc_slice8(0xFFFFFFFFU, buf, len);
}

/* ---------------- PCLMULQDQ folding ---------------- */

#if defined(__x86_64__) && defined(__GNUC__)
#define GW_CRC32_CLMUL 1

#include <immintrin.h>

/*
 * The constants, each x^n mod P in the 32-bit reflected form above (see
 * the header for why the exponents are 33 below the distances).
 *
 * Folding four lanes forward over the next 64 bytes (F = 512):
 *	H: x^543 mod P (stands for x^576),  L: x^479 mod P (for x^512).
 * Folding one lane onto the next 16 bytes (F = 128):
 *	H: x^159 mod P (for x^192),  L: x^95 mod P (for x^128).
 * Each pair sits in a vector with H's constant in the low half, L's in the
 * high half, for PCLMULQDQ's selectors 0x00 (low by low) and 0x11 (high by
 * high).
 */
#define K_543 0x8f352d95U
#define K_479 0x1d9513d7U
#define K_159 0xae689191U
#define K_95 0xccaa009eU

/*
 * The reduction of the last lane R to the CRC, (R(x) x^32) mod P:
 *
 * 1. R x^32 = H x^96 + L x^32.  H times x^95 mod P is, read with bit m for
 *	  x^(95 - m), H (x^96 mod P); L x^32 is L in the low 64 bits with that
 *	  same reading.  Their sum S has 96 bits, so is of degree below 96.
 * 2. S = S1 x^64 + S0, S1 its low 32 bits (x^95..x^64), S0 the 64 above.
 *	  S1 times x^63 mod P is, read with bit m for x^(63 - m), S1 (x^64 mod P);
 *	  XORed with S0 (S shifted down 32 bits) it leaves T, of degree below 64.
 * 3. Barrett: T mod P = T + q P, with the quotient q = floor(T / P) =
 *	  floor(floor(T / x^32) mu / x^32), mu = floor(x^64 / P), exact for T
 *	  of degree below 64.  mu and P have degree 32 and are kept as 33 bits,
 *	  bit k for x^(32 - k); T's low 32 bits (x^63..x^32) times mu gives a
 *	  product with bit m for x^(63 - m), whose low 32 bits are q, and q
 *	  times P likewise.  Only the coefficients below x^32 of T + q P are
 *	  left (the rest cancels): bits 32 to 63, already in the CRC register's
 *	  order (bit k for x^(31 - k)).
 *
 * mu was found by long division of x^64 by P (0x104C11DB7): 0x104D101DF,
 * bit-reversed in 33 bits 0x1F7011641.  P bit-reversed in 33 bits is
 * 0xEDB88320 shifted up one, with the x^32 term as bit 0 (which only
 * touches the coefficients from x^32 up, the ones dropped).
 */
#define K_63 0xb8bc6765U
#define K_MU 0x1f7011641ULL
#define K_P ((uint64_t) CRC32_POLY << 1 | 1)

/* lane x folded by k's constants, XORed into the block y */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i
fold(__m128i x, __m128i k, __m128i y)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
									   _mm_clmulepi64_si128(x, k, 0x11)),
						 y);
}

/*
 * The CRC-32 by folding: len must be at least 64.  Not static, so that
 * sigv4_check.c can test it directly (only where GwCrc32HasClmul()).
 */
__attribute__((target("pclmul,sse4.1")))
uint32_t
GwCrc32Clmul(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	const __m128i k512 = _mm_set_epi64x(K_479, K_543);
	const __m128i k128 = _mm_set_epi64x(K_95, K_159);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i		x0,
				x1,
				x2,
				x3,
				s,
				t;

	if (len < 64)
		return GwCrc32Table(buf, len);

	/* the initial all-ones register inverts the first 32 bits */
	x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *) p),
					   _mm_cvtsi32_si128(-1));
	x1 = _mm_loadu_si128((const __m128i *) (p + 16));
	x2 = _mm_loadu_si128((const __m128i *) (p + 32));
	x3 = _mm_loadu_si128((const __m128i *) (p + 48));
	p += 64;
	len -= 64;

	/* four lanes, each onto its block of the next 64 bytes */
	while (len >= 64)
	{
		x0 = fold(x0, k512, _mm_loadu_si128((const __m128i *) p));
		x1 = fold(x1, k512, _mm_loadu_si128((const __m128i *) (p + 16)));
		x2 = fold(x2, k512, _mm_loadu_si128((const __m128i *) (p + 32)));
		x3 = fold(x3, k512, _mm_loadu_si128((const __m128i *) (p + 48)));
		p += 64;
		len -= 64;
	}

	/* the four into one, each lane 128 bits onto the next */
	x1 = fold(x0, k128, x1);
	x2 = fold(x1, k128, x2);
	x0 = fold(x2, k128, x3);

	/* that one onto the remaining whole 16-byte blocks */
	while (len >= 16)
	{
		x0 = fold(x0, k128, _mm_loadu_si128((const __m128i *) p));
		p += 16;
		len -= 16;
	}

	/* step 1: 128 bits to 96 (H by x^95 mod P, plus L) */
	s = _mm_xor_si128(_mm_clmulepi64_si128(x0, _mm_set_epi64x(0, K_95), 0x00),
					  _mm_srli_si128(x0, 8));
	/* step 2: 96 bits to 64 (the low 32 by x^63 mod P, plus the rest) */
	t = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(s, low32),
										   _mm_set_epi64x(0, K_63), 0x00),
					  _mm_srli_si128(s, 4));
	/* step 3: Barrett, q = (T's low 32 by mu)'s low 32, then T + q P */
	s = _mm_clmulepi64_si128(_mm_and_si128(t, low32),
							 _mm_set_epi64x(0, (long long) K_MU), 0x00);
	s = _mm_clmulepi64_si128(_mm_and_si128(s, low32),
							 _mm_set_epi64x(0, (long long) K_P), 0x00);
	t = _mm_xor_si128(t, s);

	/* the last 0 to 15 bytes, from the register in bits 32 to 63 */
	return ~crc_slice8((uint32_t) _mm_extract_epi32(t, 1), p, len);
}
#else

/* no folding here: GwCrc32HasClmul() is false, and this is never chosen */
uint32_t
GwCrc32Clmul(const void *buf, size_t len)
{
	return GwCrc32Portable(buf, len);
}
#endif							/* __x86_64__ && __GNUC__ */

/* ---------------- the choice ---------------- */

static uint32_t (*crc_impl) (const void *buf, size_t len) = GwCrc32Portable;
static bool crc_has_clmul;

/* fill the table, then choose: run before main() */
__attribute__((constructor))
static void
crc32_init(void)
{
	crc_table_init();
#ifdef GW_CRC32_CLMUL
	__builtin_cpu_init();
	if (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"))
	{
		crc_has_clmul = true;
		crc_impl = GwCrc32Clmul;
	}
#endif
}

/* whether GwCrc32 is GwCrc32Clmul here (sigv4_check.c) */
bool
GwCrc32HasClmul(void)
{
	return crc_has_clmul;
}

/* zlib's crc32(0, buf, len), by the fastest way this CPU has */
uint32_t
GwCrc32(const void *buf, size_t len)
{
	return crc_impl(buf, len);
}

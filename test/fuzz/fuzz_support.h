/*-------------------------------------------------------------------------
 *
 * fuzz_support.h
 *		What the libFuzzer targets share: running project code under a
 *		PG_TRY-like guard, classifying the errors it raises, reading JSON
 *		text into the stand-in jsonb, and reporting broken invariants.
 *
 * The targets link the project's own objects, compiled unmodified from
 * src/, with stand-ins for the few server facilities they use (standin.c,
 * jsonb_standin.c; see README.md).  An input is one call of a target's
 * LLVMFuzzerTestOneInput:
 *
 *		fz_input_begin();
 *		ok = fz_call(body, arg);	-- false: the code raised a clean error
 *		fz_input_end();				-- frees everything palloc'd meanwhile
 *
 * A clean error is any ERROR whose SQLSTATE is not of class XX (internal
 * error, data corrupted, index corrupted): DynamoDB's exceptions, invalid
 * text representation, stack depth and the like are how the parsers say
 * no.  An elog(ERROR) ("can't happen", class XX) reached from an input is
 * a finding: fz_call prints it and aborts, and libFuzzer keeps the input.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FUZZ_SUPPORT_H
#define FUZZ_SUPPORT_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "compat.h"

/* per-input bracket: stack base for check_stack_depth, memory arena */
extern void fz_input_begin(void);
extern void fz_input_end(void);

/* palloc'd memory in between outlives the input (read-only fixtures) */
extern void fz_permanent_begin(void);
extern void fz_permanent_end(void);

/*
 * Run body(arg) under an error guard.  Returns true if it returned, false
 * if it raised a clean error (then fz_last_error() describes it); aborts
 * the process on an internal error.
 */
typedef void (*FzBody) (void *arg);
extern bool fz_call(FzBody body, void *arg);

/* the last error raised (valid until the next fz_call or fz_input_end) */
extern const ErrorData *fz_last_error(void);

/* a broken invariant: print the message and abort (a libFuzzer crash) */
pg_noreturn extern void fz_fail(const char *fmt,...) pg_attribute_printf(1, 2);
#define fz_check(cond, ...) \
	do { \
		if (!(cond)) \
			fz_fail(__VA_ARGS__); \
	} while (0)

/* a palloc'd NUL-terminated copy of the fuzz input */
extern char *fz_cstring(const uint8_t *data, size_t size);

/*
 * JSON text to the stand-in jsonb (jsonb_standin.c); raises a clean ERROR
 * (invalid text representation) for what jsonb_in would reject.
 */
extern Jsonb *fz_json_to_jsonb(const char *text, int len);

/* JSON text of a jsonb container (for messages and comparisons) */
extern char *fz_jsonb_text(Jsonb *jb);

/* are two jsonb values the same JSON (same keys, elements, scalars)? */
extern bool fz_jsonb_equal(Jsonb *a, Jsonb *b);

#endif							/* FUZZ_SUPPORT_H */

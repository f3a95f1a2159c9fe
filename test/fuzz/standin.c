/*-------------------------------------------------------------------------
 *
 * standin.c
 *		Small stand-ins for the server facilities the parsers use, so that
 *		the project's objects run outside a backend under libFuzzer.
 *
 * Memory.  Every memory context is one per-input arena: palloc() is
 * malloc() with a small header that links the chunk into a list, and
 * fz_input_end() frees whatever is still on the list.  pfree() and
 * repalloc() really free, so AddressSanitizer sees use-after-free and
 * double free; the header is poisoned while the chunk is in use, so a
 * write just before a chunk is caught too.  Requests above MaxAllocSize
 * raise the same ERROR as the server's allocator.  A target may build
 * read-only fixtures once, on a second list that is never freed
 * (fz_permanent_begin/end).
 *
 * Errors.  errstart()/errfinish() and friends keep one ErrorData; an ERROR
 * longjmps to PG_exception_stack exactly as the server does, so the
 * project's own PG_TRY blocks (and CopyErrorData/FlushErrorState/
 * PG_RE_THROW) behave as in a backend, and fz_call() is the outermost
 * PG_TRY.  Levels below ERROR are dropped; FATAL and above abort.
 *
 * Encoding.  The database encoding is UTF8.  Verification uses the
 * server's own UTF-8 routines from libpgcommon (wchar.c), so what counts
 * as valid UTF-8 here is what counts in the server.
 *
 * Anything else the linked objects reference (SPI, catalog access, hash
 * tables, ...) belongs to code paths that need a database; the build
 * generates an abort()ing stub for each such symbol (gen_stubs.sh), so
 * reaching one from a parser would show up as a crash naming it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sanitizer/asan_interface.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/memutils.h"

#include "fuzz_support.h"

/* ----------------------------------------------------------------
 * memory: one arena per input
 * ----------------------------------------------------------------
 */
#define FZ_CHUNK_MAGIC	0x5A5A1234CAFEF00DULL	/* per-input chunk */
#define FZ_PERM_MAGIC	0x5A5A1234CAFEF11DULL	/* permanent chunk */

typedef struct FzChunk
{
	struct FzChunk *prev;
	struct FzChunk *next;
	size_t		size;
	uint64		magic;
} FzChunk;

static FzChunk fz_chunks = {&fz_chunks, &fz_chunks, 0, 0};	/* per input */
static FzChunk fz_perm_chunks = {&fz_perm_chunks, &fz_perm_chunks, 0, 0};	/* kept */
static bool fz_permanent = false;	/* allocate on the kept list */
static MemoryContextData fz_context;

MemoryContext CurrentMemoryContext = &fz_context;
MemoryContext TopMemoryContext = &fz_context;
MemoryContext ErrorContext = &fz_context;
MemoryContext CacheMemoryContext = &fz_context;
MemoryContext TopTransactionContext = &fz_context;
MemoryContext CurTransactionContext = &fz_context;
MemoryContext MessageContext = &fz_context;
MemoryContext PortalContext = &fz_context;

#define CHUNK_OF(p)		((FzChunk *) ((char *) (p) - sizeof(FzChunk)))

/*
 * Poison a per-input chunk's header while it is not being worked on.  The
 * headers of permanent chunks stay readable: LeakSanitizer follows the list
 * through them and so does not take kept fixtures for leaks.
 */
static void
chunk_hide(FzChunk *c)
{
	if (c->magic != FZ_PERM_MAGIC)
		ASAN_POISON_MEMORY_REGION(c, sizeof(FzChunk));
}

static void
chunk_show(FzChunk *c)
{
	ASAN_UNPOISON_MEMORY_REGION(c, sizeof(FzChunk));
}

/* list heads are static and never poisoned */
#define IS_HEAD(c)	((c) == &fz_chunks || (c) == &fz_perm_chunks)

static void
chunk_link(FzChunk *c, size_t size, bool permanent)
{
	FzChunk    *head = permanent ? &fz_perm_chunks : &fz_chunks;
	FzChunk    *first = head->next;

	c->size = size;
	c->magic = permanent ? FZ_PERM_MAGIC : FZ_CHUNK_MAGIC;
	c->prev = head;
	c->next = first;
	if (!IS_HEAD(first))
		chunk_show(first);
	first->prev = c;
	if (!IS_HEAD(first))
		chunk_hide(first);
	head->next = c;
	chunk_hide(c);
}

/* returns whether the chunk was permanent */
static bool
chunk_unlink(FzChunk *c)
{
	FzChunk    *prev;
	FzChunk    *next;
	bool		permanent;

	chunk_show(c);
	if (c->magic != FZ_CHUNK_MAGIC && c->magic != FZ_PERM_MAGIC)
		fz_fail("pfree/repalloc of a pointer that palloc did not return (%p)",
				(void *) (c + 1));
	permanent = (c->magic == FZ_PERM_MAGIC);
	prev = c->prev;
	next = c->next;
	if (!IS_HEAD(prev))
		chunk_show(prev);
	if (!IS_HEAD(next))
		chunk_show(next);
	prev->next = next;
	next->prev = prev;
	if (!IS_HEAD(prev))
		chunk_hide(prev);
	if (!IS_HEAD(next))
		chunk_hide(next);
	c->magic = 0;
	return permanent;
}

static void *
fz_alloc(Size size, int flags)
{
	FzChunk    *c;

	if ((flags & MCXT_ALLOC_HUGE) ? !AllocHugeSizeIsValid(size) : !AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	c = malloc(sizeof(FzChunk) + size);
	if (c == NULL)
	{
		if (flags & MCXT_ALLOC_NO_OOM)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu.", size)));
	}
	chunk_link(c, size, fz_permanent);
	if (flags & MCXT_ALLOC_ZERO)
		memset(c + 1, 0, size);
	return c + 1;
}

void *
palloc(Size size)
{
	return fz_alloc(size, 0);
}

void *
palloc0(Size size)
{
	return fz_alloc(size, MCXT_ALLOC_ZERO);
}

void *
palloc_extended(Size size, int flags)
{
	return fz_alloc(size, flags);
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return fz_alloc(size, 0);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return fz_alloc(size, MCXT_ALLOC_ZERO);
}

void *
MemoryContextAllocZeroAligned(MemoryContext context, Size size)
{
	return fz_alloc(size, MCXT_ALLOC_ZERO);
}

void *
MemoryContextAllocExtended(MemoryContext context, Size size, int flags)
{
	return fz_alloc(size, flags);
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return fz_alloc(size, MCXT_ALLOC_HUGE);
}

void
pfree(void *pointer)
{
	FzChunk    *c = CHUNK_OF(pointer);

	chunk_unlink(c);
	free(c);
}

void *
repalloc(void *pointer, Size size)
{
	FzChunk    *c = CHUNK_OF(pointer);
	FzChunk    *n;
	bool		permanent;

	if (!AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	permanent = chunk_unlink(c);
	n = realloc(c, sizeof(FzChunk) + size);
	if (n == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	chunk_link(n, size, permanent);
	return n + 1;
}

void *
repalloc_huge(void *pointer, Size size)
{
	return repalloc(pointer, size);
}

char *
MemoryContextStrdup(MemoryContext context, const char *string)
{
	return pstrdup(string);
}

char *
pstrdup(const char *in)
{
	size_t		len = strlen(in);
	char	   *out = palloc(len + 1);

	memcpy(out, in, len + 1);
	return out;
}

char *
pnstrdup(const char *in, Size len)
{
	char	   *out;

	len = strnlen(in, len);
	out = palloc(len + 1);
	memcpy(out, in, len);
	out[len] = '\0';
	return out;
}

MemoryContext
AllocSetContextCreateInternal(MemoryContext parent, const char *name,
							  Size minContextSize, Size initBlockSize,
							  Size maxBlockSize)
{
	return &fz_context;
}

void
MemoryContextDelete(MemoryContext context)
{
	/* the arena is freed per input */
}

void
MemoryContextReset(MemoryContext context)
{
	/* the arena is freed per input */
}

void
MemoryContextSetParent(MemoryContext context, MemoryContext new_parent)
{
}

/*
 * Between fz_permanent_begin() and fz_permanent_end(), palloc'd memory
 * outlives the input: for fixtures a target builds once and only reads.
 */
void
fz_permanent_begin(void)
{
	fz_permanent = true;
}

void
fz_permanent_end(void)
{
	fz_permanent = false;
}

static void
fz_arena_free_all(void)
{
	FzChunk    *head = &fz_chunks;
	FzChunk    *c = head->next;

	while (c != head)
	{
		FzChunk    *next;

		chunk_show(c);
		next = c->next;
		free(c);
		c = next;
	}
	head->next = head->prev = head;
}

/* ----------------------------------------------------------------
 * formatting and StringInfo
 * ----------------------------------------------------------------
 */
size_t
pvsnprintf(char *buf, size_t len, const char *fmt, va_list args)
{
	int			nprinted = vsnprintf(buf, len, fmt, args);

	if (nprinted < 0)
		elog(ERROR, "vsnprintf failed: %m with format string \"%s\"", fmt);
	if ((size_t) nprinted < len)
		return (size_t) nprinted;
	if ((size_t) nprinted > MaxAllocSize - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("out of memory")));
	return nprinted + 1;
}

static char *
fz_vformat(const char *fmt, va_list args)
{
	size_t		len = 128;

	for (;;)
	{
		char	   *buf = palloc(len);
		va_list		copy;
		size_t		needed;

		va_copy(copy, args);
		needed = pvsnprintf(buf, len, fmt, copy);
		va_end(copy);
		if (needed < len)
			return buf;
		pfree(buf);
		len = needed;
	}
}

char *
psprintf(const char *fmt,...)
{
	va_list		args;
	char	   *result;

	va_start(args, fmt);
	result = fz_vformat(fmt, args);
	va_end(args);
	return result;
}

void
initStringInfo(StringInfo str)
{
	str->maxlen = 1024;
	str->data = palloc(str->maxlen);
	resetStringInfo(str);
}

StringInfo
makeStringInfo(void)
{
	StringInfo	res = palloc(sizeof(StringInfoData));

	initStringInfo(res);
	return res;
}

void
resetStringInfo(StringInfo str)
{
	str->data[0] = '\0';
	str->len = 0;
	str->cursor = 0;
}

void
enlargeStringInfo(StringInfo str, int needed)
{
	int			newlen;

	if (needed < 0)
		elog(ERROR, "invalid string enlargement request size: %d", needed);
	if (((Size) needed) >= (MaxAllocSize - (Size) str->len))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("out of memory"),
				 errdetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.",
						   str->len, needed)));
	needed += str->len + 1;
	if (needed <= str->maxlen)
		return;
	newlen = 2 * str->maxlen;
	while (needed > newlen)
		newlen = 2 * newlen;
	if (newlen > (int) MaxAllocSize)
		newlen = (int) MaxAllocSize;
	str->data = repalloc(str->data, newlen);
	str->maxlen = newlen;
}

int
appendStringInfoVA(StringInfo str, const char *fmt, va_list args)
{
	int			avail = str->maxlen - str->len;
	size_t		nprinted = pvsnprintf(str->data + str->len, (size_t) avail, fmt, args);

	if (nprinted < (size_t) avail)
	{
		str->len += (int) nprinted;
		return 0;
	}
	str->data[str->len] = '\0';
	return (int) nprinted;
}

void
appendStringInfo(StringInfo str, const char *fmt,...)
{
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(str, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(str, needed);
	}
}

void
appendBinaryStringInfo(StringInfo str, const char *data, int datalen)
{
	enlargeStringInfo(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
	str->data[str->len] = '\0';
}

void
appendBinaryStringInfoNT(StringInfo str, const char *data, int datalen)
{
	enlargeStringInfo(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
}

void
appendStringInfoString(StringInfo str, const char *s)
{
	appendBinaryStringInfo(str, s, strlen(s));
}

void
appendStringInfoChar(StringInfo str, char ch)
{
	if (str->len + 1 >= str->maxlen)
		enlargeStringInfo(str, 1);
	str->data[str->len] = ch;
	str->len++;
	str->data[str->len] = '\0';
}

void
appendStringInfoSpaces(StringInfo str, int count)
{
	if (count > 0)
	{
		enlargeStringInfo(str, count);
		memset(str->data + str->len, ' ', count);
		str->len += count;
		str->data[str->len] = '\0';
	}
}

/* ----------------------------------------------------------------
 * errors
 * ----------------------------------------------------------------
 */
sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;

static ErrorData fz_error;		/* the error being built or last raised */
static bool fz_error_building;	/* between errstart and errfinish */

static bool
fz_errstart(int elevel)
{
	if (elevel < ERROR)
		return false;
	if (fz_error_building)
		fz_fail("an error was raised while another one was being reported: %s",
				fz_error.message ? fz_error.message : "(no message yet)");
	memset(&fz_error, 0, sizeof(fz_error));
	fz_error.elevel = elevel;
	fz_error.sqlerrcode = ERRCODE_INTERNAL_ERROR;
	fz_error.saved_errno = errno;
	fz_error_building = true;
	return true;
}

bool
errstart(int elevel, const char *domain)
{
	return fz_errstart(elevel);
}

bool
errstart_cold(int elevel, const char *domain)
{
	return fz_errstart(elevel);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	fz_error.filename = filename;
	fz_error.lineno = lineno;
	fz_error.funcname = funcname;
	fz_error_building = false;
	if (fz_error.elevel >= FATAL)
		fz_fail("%s at %s:%d: %s", fz_error.elevel == FATAL ? "FATAL" : "PANIC",
				filename, lineno, fz_error.message ? fz_error.message : "");
	if (PG_exception_stack == NULL)
		fz_fail("ERROR outside any PG_TRY at %s:%d: %s", filename, lineno,
				fz_error.message ? fz_error.message : "");
	siglongjmp(*PG_exception_stack, 1);
}

int
errcode(int sqlerrcode)
{
	fz_error.sqlerrcode = sqlerrcode;
	return 0;
}

#define FZ_FORMAT_INTO(field, fmt) \
	do { \
		va_list		args; \
		int			save_errno = errno; \
		errno = fz_error.saved_errno; \
		va_start(args, fmt); \
		(field) = fz_vformat((fmt), args); \
		va_end(args); \
		errno = save_errno; \
	} while (0)

int
errmsg(const char *fmt,...)
{
	FZ_FORMAT_INTO(fz_error.message, fmt);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	FZ_FORMAT_INTO(fz_error.message, fmt);
	return 0;
}

int
errmsg_plural(const char *fmt_singular, const char *fmt_plural,
			  unsigned long n,...)
{
	va_list		args;

	va_start(args, n);
	fz_error.message = fz_vformat(n == 1 ? fmt_singular : fmt_plural, args);
	va_end(args);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	FZ_FORMAT_INTO(fz_error.detail, fmt);
	return 0;
}

int
errdetail_internal(const char *fmt,...)
{
	FZ_FORMAT_INTO(fz_error.detail, fmt);
	return 0;
}

int
errhint(const char *fmt,...)
{
	FZ_FORMAT_INTO(fz_error.hint, fmt);
	return 0;
}

int
errcontext_msg(const char *fmt,...)
{
	FZ_FORMAT_INTO(fz_error.context, fmt);
	return 0;
}

int
set_errcontext_domain(const char *domain)
{
	return 0;
}

int
errposition(int cursorpos)
{
	fz_error.cursorpos = cursorpos;
	return 0;
}

ErrorData *
CopyErrorData(void)
{
	ErrorData  *copy = palloc(sizeof(ErrorData));

	*copy = fz_error;
	if (copy->message)
		copy->message = pstrdup(copy->message);
	if (copy->detail)
		copy->detail = pstrdup(copy->detail);
	if (copy->hint)
		copy->hint = pstrdup(copy->hint);
	if (copy->context)
		copy->context = pstrdup(copy->context);
	return copy;
}

void
FreeErrorData(ErrorData *edata)
{
	if (edata->message)
		pfree(edata->message);
	if (edata->detail)
		pfree(edata->detail);
	if (edata->hint)
		pfree(edata->hint);
	if (edata->context)
		pfree(edata->context);
	pfree(edata);
}

void
FlushErrorState(void)
{
	memset(&fz_error, 0, sizeof(fz_error));
	fz_error_building = false;
}

void
pg_re_throw(void)
{
	if (PG_exception_stack == NULL)
		fz_fail("PG_RE_THROW outside any PG_TRY: %s",
				fz_error.message ? fz_error.message : "");
	siglongjmp(*PG_exception_stack, 1);
}

const ErrorData *
fz_last_error(void)
{
	return &fz_error;
}

void
fz_fail(const char *fmt,...)
{
	va_list		args;

	fprintf(stderr, "\n==fuzz== FAILURE: ");
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fprintf(stderr, "\n");
	fflush(stderr);
	abort();
}

/* ----------------------------------------------------------------
 * the guard around each piece of work
 * ----------------------------------------------------------------
 */
static char *fz_stack_base;

/* FUZZ_VERBOSE=1 in the environment prints every clean error */
static int	fz_verbose = -1;

/* the server's default max_stack_depth; deeper recursion is an ERROR */
#define FZ_MAX_STACK_DEPTH	(2048L * 1024L)

void
check_stack_depth(void)
{
	char		here;
	long		depth = (long) (fz_stack_base - &here);

	if (depth < 0)
		depth = -depth;
	if (fz_stack_base != NULL && depth > FZ_MAX_STACK_DEPTH)
		ereport(ERROR,
				(errcode(ERRCODE_STATEMENT_TOO_COMPLEX),
				 errmsg("stack depth limit exceeded")));
}

volatile sig_atomic_t InterruptPending = false;

void
ProcessInterrupts(void)
{
	InterruptPending = false;
}

void
fz_input_begin(void)
{
	char		here;

	fz_stack_base = &here;
	if (fz_verbose < 0)
		fz_verbose = getenv("FUZZ_VERBOSE") != NULL && getenv("FUZZ_VERBOSE")[0] == '1';
	FlushErrorState();
	PG_exception_stack = NULL;
	error_context_stack = NULL;
	CurrentMemoryContext = &fz_context;
}

void
fz_input_end(void)
{
	fz_permanent = false;
	FlushErrorState();
	fz_arena_free_all();
	fz_stack_base = NULL;
}

bool
fz_call(FzBody body, void *arg)
{
	volatile bool ok = true;
	MemoryContext oldcxt = CurrentMemoryContext;

	PG_TRY();
	{
		body(arg);
	}
	PG_CATCH();
	{
		int			code = fz_error.sqlerrcode;

		CurrentMemoryContext = oldcxt;
		/* class XX: internal error, data corrupted, index corrupted */
		if (ERRCODE_TO_CATEGORY(code) == ERRCODE_TO_CATEGORY(ERRCODE_INTERNAL_ERROR))
			fz_fail("internal error %s reached at %s:%d (%s): %s%s%s",
					unpack_sql_state(code),
					fz_error.filename ? fz_error.filename : "?",
					fz_error.lineno,
					fz_error.funcname ? fz_error.funcname : "?",
					fz_error.message ? fz_error.message : "",
					fz_error.detail ? " DETAIL: " : "",
					fz_error.detail ? fz_error.detail : "");
		if (fz_verbose)
			fprintf(stderr, "==fuzz== clean error %s: %s\n",
					unpack_sql_state(code), fz_error.message ? fz_error.message : "");
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

char *
unpack_sql_state(int sql_state)
{
	static char buf[12];
	int			i;

	for (i = 0; i < 5; i++)
	{
		buf[i] = PGUNSIXBIT(sql_state);
		sql_state >>= 6;
	}
	buf[i] = '\0';
	return buf;
}

char *
fz_cstring(const uint8_t *data, size_t size)
{
	char	   *s = palloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* ----------------------------------------------------------------
 * encoding: the database is UTF8
 * ----------------------------------------------------------------
 */
int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

const char *
GetDatabaseEncodingName(void)
{
	return "UTF8";
}

int
pg_database_encoding_max_length(void)
{
	return 4;
}

int
pg_mblen(const char *mbstr)
{
	return pg_utf_mblen((const unsigned char *) mbstr);
}

static void
report_invalid_utf8(const char *mbstr, int len)
{
	StringInfoData buf;
	int			n = Min(len, 4);
	int			i;

	initStringInfo(&buf);
	for (i = 0; i < n; i++)
		appendStringInfo(&buf, "%s0x%02x", i > 0 ? " " : "",
						 (unsigned char) mbstr[i]);
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("invalid byte sequence for encoding \"UTF8\": %s", buf.data)));
}

bool
pg_verify_mbstr(int encoding, const char *mbstr, int len, bool noError)
{
	int			ok;

	if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII)
		elog(ERROR, "the fuzz harness only knows UTF8 (asked for encoding %d)", encoding);
	ok = pg_encoding_verifymbstr(PG_UTF8, mbstr, len);
	if (ok == len)
		return true;
	if (noError)
		return false;
	report_invalid_utf8(mbstr + ok, len - ok);
	return false;
}

int
pg_verify_mbstr_len(int encoding, const char *mbstr, int len, bool noError)
{
	const char *p = mbstr;
	const char *end = mbstr + len;
	int			n = 0;

	if (!pg_verify_mbstr(encoding, mbstr, len, noError))
		return -1;
	while (p < end)
	{
		p += pg_utf_mblen((const unsigned char *) p);
		n++;
	}
	return n;
}

char *
pg_any_to_server(const char *s, int len, int encoding)
{
	if (len <= 0)
		return unconstify(char *, s);
	if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII)
		elog(ERROR, "the fuzz harness only knows UTF8 (asked for encoding %d)", encoding);
	(void) pg_verify_mbstr(PG_UTF8, s, len, false);
	return unconstify(char *, s);
}

char *
pg_server_to_any(const char *s, int len, int encoding)
{
	if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII)
		elog(ERROR, "the fuzz harness only knows UTF8 (asked for encoding %d)", encoding);
	return unconstify(char *, s);
}

unsigned char *
pg_do_encoding_conversion(unsigned char *src, int len, int src_encoding,
						  int dest_encoding)
{
	if (src_encoding != dest_encoding)
		elog(ERROR, "the fuzz harness converts no encodings (%d to %d)",
			 src_encoding, dest_encoding);
	return src;
}

/* ----------------------------------------------------------------
 * varlena, text, fmgr
 * ----------------------------------------------------------------
 */
struct varlena *
pg_detoast_datum(struct varlena *datum)
{
	if (VARATT_IS_EXTERNAL(datum) || VARATT_IS_COMPRESSED(datum))
		elog(ERROR, "the fuzz harness has no TOAST");
	if (VARATT_IS_SHORT(datum))
	{
		Size		len = VARSIZE_SHORT(datum) - VARHDRSZ_SHORT;
		struct varlena *r = palloc(len + VARHDRSZ);

		SET_VARSIZE(r, len + VARHDRSZ);
		memcpy(VARDATA(r), VARDATA_SHORT(datum), len);
		return r;
	}
	return datum;
}

struct varlena *
pg_detoast_datum_copy(struct varlena *datum)
{
	struct varlena *d = pg_detoast_datum(datum);
	struct varlena *r;

	if (d != datum)
		return d;
	r = palloc(VARSIZE(d));
	memcpy(r, d, VARSIZE(d));
	return r;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	if (VARATT_IS_EXTERNAL(datum) || VARATT_IS_COMPRESSED(datum))
		elog(ERROR, "the fuzz harness has no TOAST");
	return datum;
}

text *
cstring_to_text_with_len(const char *s, int len)
{
	text	   *result = palloc(len + VARHDRSZ);

	SET_VARSIZE(result, len + VARHDRSZ);
	memcpy(VARDATA(result), s, len);
	return result;
}

text *
cstring_to_text(const char *s)
{
	return cstring_to_text_with_len(s, strlen(s));
}

char *
text_to_cstring(const text *t)
{
	text	   *tunpacked = (text *) pg_detoast_datum_packed(unconstify(text *, t));
	int			len = VARSIZE_ANY_EXHDR(tunpacked);
	char	   *result = palloc(len + 1);

	memcpy(result, VARDATA_ANY(tunpacked), len);
	result[len] = '\0';
	return result;
}

static Datum
fz_direct_call(PGFunction func, Oid collation, int nargs, Datum *args)
{
	LOCAL_FCINFO(fcinfo, 3);
	Datum		result;
	int			i;

	InitFunctionCallInfoData(*fcinfo, NULL, nargs, collation, NULL, NULL);
	for (i = 0; i < nargs; i++)
	{
		fcinfo->args[i].value = args[i];
		fcinfo->args[i].isnull = false;
	}
	result = (*func) (fcinfo);
	if (fcinfo->isnull)
		elog(ERROR, "function %p returned NULL", (void *) func);
	return result;
}

Datum
DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1)
{
	return fz_direct_call(func, collation, 1, &arg1);
}

Datum
DirectFunctionCall2Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2)
{
	Datum		args[2] = {arg1, arg2};

	return fz_direct_call(func, collation, 2, args);
}

Datum
DirectFunctionCall3Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2,
						Datum arg3)
{
	Datum		args[3] = {arg1, arg2, arg3};

	return fz_direct_call(func, collation, 3, args);
}

/* ----------------------------------------------------------------
 * lists (only what the linked code uses)
 * ----------------------------------------------------------------
 */
List *
lappend(List *list, void *datum)
{
	if (list == NIL)
	{
		list = palloc(offsetof(List, initial_elements) + 4 * sizeof(ListCell));
		list->type = T_List;
		list->length = 0;
		list->max_length = 4;
		list->elements = list->initial_elements;
	}
	else if (list->length == list->max_length)
	{
		int			newmax = list->max_length * 2;

		if (list->elements == list->initial_elements)
		{
			ListCell   *cells = palloc(newmax * sizeof(ListCell));

			memcpy(cells, list->elements, list->length * sizeof(ListCell));
			list->elements = cells;
		}
		else
			list->elements = repalloc(list->elements, newmax * sizeof(ListCell));
		list->max_length = newmax;
	}
	list->elements[list->length++].ptr_value = datum;
	return list;
}

void
list_free(List *list)
{
	if (list == NIL)
		return;
	if (list->elements != list->initial_elements)
		pfree(list->elements);
	pfree(list);
}

/* ----------------------------------------------------------------
 * protocol buffers (item_key_recv/send)
 * ----------------------------------------------------------------
 */
const char *
pq_getmsgbytes(StringInfo msg, int datalen)
{
	const char *result;

	if (datalen < 0 || datalen > (msg->len - msg->cursor))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("insufficient data left in message")));
	result = &msg->data[msg->cursor];
	msg->cursor += datalen;
	return result;
}

void
pq_begintypsend(StringInfo buf)
{
	initStringInfo(buf);
	appendBinaryStringInfoNT(buf, "\0\0\0\0", 4);
}

bytea *
pq_endtypsend(StringInfo buf)
{
	bytea	   *result = (bytea *) buf->data;

	SET_VARSIZE(result, buf->len);
	return result;
}

void
pq_sendbytes(StringInfo buf, const char *data, int datalen)
{
	appendBinaryStringInfoNT(buf, data, datalen);
}

/* ----------------------------------------------------------------
 * JSON string escaping (the server's is in json.c)
 * ----------------------------------------------------------------
 */
void
escape_json(StringInfo buf, const char *str)
{
	const char *p;

	appendStringInfoChar(buf, '"');
	for (p = str; *p; p++)
	{
		switch (*p)
		{
			case '\b':
				appendStringInfoString(buf, "\\b");
				break;
			case '\f':
				appendStringInfoString(buf, "\\f");
				break;
			case '\n':
				appendStringInfoString(buf, "\\n");
				break;
			case '\r':
				appendStringInfoString(buf, "\\r");
				break;
			case '\t':
				appendStringInfoString(buf, "\\t");
				break;
			case '"':
				appendStringInfoString(buf, "\\\"");
				break;
			case '\\':
				appendStringInfoString(buf, "\\\\");
				break;
			default:
				if ((unsigned char) *p < ' ')
					appendStringInfo(buf, "\\u%04x", (int) *p);
				else
					appendStringInfoChar(buf, *p);
				break;
		}
	}
	appendStringInfoChar(buf, '"');
}

/* ----------------------------------------------------------------
 * variables the linked code references
 * ----------------------------------------------------------------
 */
int			XactIsoLevel = 1;	/* XACT_READ_COMMITTED */

/* SPI's result variables (only code paths that need a database use them) */
#include "executor/spi.h"

uint64		SPI_processed = 0;
SPITupleTable *SPI_tuptable = NULL;
int			SPI_result = 0;

/* what a generated stub calls (see gen_stubs.sh) */
void		fz_unavailable(const char *name);

void
fz_unavailable(const char *name)
{
	fz_fail("%s was called: the fuzz harness has no database (a code path outside the parsers was reached)",
			name);
}

/* a failed Assert (the harness builds with USE_ASSERT_CHECKING) */
void
ExceptionalCondition(const char *conditionName, const char *errorType,
					 const char *fileName, int lineNumber)
{
	fz_fail("%s(\"%s\", File: \"%s\", Line: %d)", errorType, conditionName,
			fileName, lineNumber);
}

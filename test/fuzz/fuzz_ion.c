/*-------------------------------------------------------------------------
 *
 * fuzz_ion.c
 *		libFuzzer target: Amazon Ion text of ION imports and exports
 *		(ion.c): the splitter, the reader and the writer.
 *
 * The input is the text of a data file.  It is fed to the splitter a line
 * at a time, as the import does (each line with its newline), and every
 * top-level value it gives is read by IonToItemJson.  Checks:
 *
 *	  - the splitter makes progress, gives values no longer than its limit
 *		and never more values than the input has bytes;
 *	  - a value the reader accepts is JSON text that jsonb_in accepts
 *		(when it holds no U+0000, which jsonb cannot);
 *	  - written back by IonWriteLine and read again, that item is the
 *		same JSON (the round trip an ION export and its import make):
 *		numbers exactly, strings and names however they are quoted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "fuzz_support.h"
#include "ion.h"

#define FUZZ_MAX_VALUE	4096

typedef struct Case
{
	const char *value;
	int			len;
	int			stage;			/* 1: the value was read; 2: its JSON taken */
} Case;

static void
read_value(void *arg)
{
	Case	   *c = arg;
	char	   *json = IonToItemJson(c->value, c->len);
	Jsonb	   *jb;

	c->stage = 1;
	StringInfoData line;
	char	   *again;

	/*
	 * jsonb cannot hold U+0000, and U+0001 pairs are the stored form's; the
	 * reader gives duplicate names as they are, jsonb keeps the last
	 */
	if (strstr(json, "\\u0000") != NULL || strstr(json, "\\u0001") != NULL)
		return;
	jb = fz_json_to_jsonb(json, strlen(json));
	c->stage = 2;
	initStringInfo(&line);
	IonWriteLine(&line, jb);
	again = IonToItemJson(line.data, line.len);
	fz_check(fz_jsonb_equal(jb, fz_json_to_jsonb(again, strlen(again))),
			 "round trip differs:\n  read:    %s\n  written: %s\n  again:   %s", json, line.data, again);
}

typedef struct Input
{
	const uint8_t *data;
	size_t		size;
} Input;

static void
give(const char *text, int len)
{
	Case		c;

	c.value = text;
	c.len = len;
	c.stage = 0;
	if (!fz_call(read_value, &c))
	{
		/*
		 * a clean refusal of the value; but an error after it was read (its
		 * JSON refused by jsonb_in, the item refused by the writer, the
		 * written line refused by the reader) is a finding
		 */
		const ErrorData *e = fz_last_error();

		fz_check(c.stage == 0, "an error after the value was read (stage %d): %s\n  value: %.*s",
				 c.stage, e && e->message ? e->message : "?", len, text);
	}
}

static void
run_input(void *arg)
{
	Input	   *in = arg;
	IonSplitter sp;
	size_t		pos = 0;
	size_t		nvalues = 0;

	IonSplitterInit(&sp, FUZZ_MAX_VALUE);
	while (pos < in->size)
	{
		const uint8_t *nl = memchr(in->data + pos, '\n', in->size - pos);
		size_t		end = nl ? (size_t) (nl - in->data) + 1 : in->size;
		size_t		at = pos;

		while (at < end)
		{
			size_t		used;
			bool		got = IonSplitterNext(&sp, (const char *) in->data + at, end - at, &used);

			fz_check(used <= end - at, "the splitter used more than it was given");
			at += used;
			if (!got)
			{
				fz_check(at == end, "the splitter stopped before the end without a value");
				break;
			}
			fz_check((size_t) sp.value.len <= FUZZ_MAX_VALUE + 16, "a value over the limit was kept");
			fz_check(++nvalues <= in->size, "more values than bytes");
			give(sp.value.data, sp.value.len);
		}
		pos = end;
	}
	if (IonSplitterFinish(&sp))
		give(sp.value.data, sp.value.len);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		in;

	if (size > 16384)
		return -1;
	in.data = data;
	in.size = size;
	fz_input_begin();
	(void) fz_call(run_input, &in);
	fz_input_end();
	return 0;
}

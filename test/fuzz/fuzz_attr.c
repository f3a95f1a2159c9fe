/*-------------------------------------------------------------------------
 *
 * fuzz_attr.c
 *		libFuzzer target: attribute-value validation and normalisation
 *		(attr_value.c), the jsonb attribute values of keys (key_io.c) and
 *		the key parts the API builds from attributes (api_common.c).
 *
 * The input is the JSON text of an item, as PutItem's Item or
 * normalize_item() receive it: {"name": {"S": "x"}, "n": {"N": "1"}, ...}.
 * It is read into the stand-in jsonb (what jsonb_in rejects is skipped)
 * and parsed with AttrItemFromJsonbStored.  For an accepted item:
 *
 *	  - AttrItemToJsonb gives canonical jsonb that parses again to an equal
 *		item, of the same size, and prints identically; without binary
 *		values (whose base64 is always re-encoded) it parses as stored form;
 *	  - when the parser said the input was already stored form, the output
 *		is the input itself (the server then stores the input unchanged);
 *	  - a copy is equal, every set contains each of its members, and
 *		describing the item works;
 *	  - for each S, N or B attribute, the key part built by key_io.c from
 *		its jsonb (ItemKeyPartFromAttributeValue, as item_key_from_values
 *		does) encodes exactly like the part the API builds
 *		(AttrKeyPart), and converts back to the same jsonb.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "api.h"
#include "attr_value.h"
#include "fuzz_support.h"
#include "item_table.h"

typedef struct AttrRun
{
	const char *text;
	int			len;
	Jsonb	   *input;
	AttrValue  *item;
	bool		as_stored;
	/* key part check */
	AttrValue  *value;
	bool		is_sort;
	ItemKeyPart part;
} AttrRun;

static void
run_parse(void *arg)
{
	AttrRun    *run = arg;

	run->input = fz_json_to_jsonb(run->text, run->len);
	run->item = AttrItemFromJsonbStored(run->input, &run->as_stored);
}

static void
run_key_part(void *arg)
{
	AttrRun    *run = arg;

	ItemKeyPartFromAttributeValue(AttrValueToJsonb(run->value), run->is_sort,
								  &run->part);
}

/* does the value hold B or BS anywhere (never "as stored")? */
static bool
has_binary(const AttrValue *v)
{
	int			i;

	check_stack_depth();
	switch (v->type)
	{
		case ATTR_B:
		case ATTR_BS:
			return true;
		case ATTR_M:
			for (i = 0; i < v->u.map.count; i++)
				if (has_binary(v->u.map.members[i].value))
					return true;
			return false;
		case ATTR_L:
			for (i = 0; i < v->u.list.count; i++)
				if (has_binary(v->u.list.elems[i]))
					return true;
			return false;
		default:
			return false;
	}
}

static void
check_sets(const AttrValue *v)
{
	int			i;

	check_stack_depth();
	switch (v->type)
	{
		case ATTR_M:
			for (i = 0; i < v->u.map.count; i++)
			{
				const AttrMember *m = &v->u.map.members[i];

				fz_check(AttrMapGet(v, m->name, m->namelen) == m->value,
						 "map member %d is not found by AttrMapGet", i);
				if (i > 0)
				{
					const AttrMember *p = &v->u.map.members[i - 1];

					fz_check(p->namelen < m->namelen ||
							 (p->namelen == m->namelen &&
							  memcmp(p->name, m->name, m->namelen) < 0),
							 "map members out of jsonb order at %d", i);
				}
				check_sets(m->value);
			}
			break;
		case ATTR_L:
			for (i = 0; i < v->u.list.count; i++)
				check_sets(v->u.list.elems[i]);
			break;
		case ATTR_SS:
		case ATTR_NS:
		case ATTR_BS:
			fz_check(v->u.list.count > 0, "empty set");
			for (i = 0; i < v->u.list.count; i++)
			{
				fz_check(AttrSetContains(v, v->u.list.elems[i]),
						 "set does not contain its member %d", i);
				if (i > 0)
					fz_check(AttrValueCompare(v->u.list.elems[i - 1], v->u.list.elems[i]) < 0,
							 "set members not sorted and unique at %d", i);
			}
			break;
		default:
			break;
	}
}

static void
check_key_parts(AttrRun *run)
{
	int			i;
	const AttrValue *item = run->item;

	for (i = 0; i < item->u.map.count; i++)
	{
		AttrValue  *v = item->u.map.members[i].value;
		int			role;

		if (!AttrTypeIsScalar(v->type))
			continue;
		for (role = 0; role < 2; role++)
		{
			ItemKeyPart api;
			ItemKey    *k1;
			ItemKey    *k2;
			Jsonb	   *back;

			run->value = v;
			run->is_sort = (role == 1);
			if (!fz_call(run_key_part, run))
				continue;		/* empty or too long for a key: clean */
			AttrKeyPart(v, &api);
			k1 = KeyCodecBuild(&run->part, NULL);
			k2 = KeyCodecBuild(&api, NULL);
			fz_check(VARSIZE(k1) == VARSIZE(k2) &&
					 memcmp(k1, k2, VARSIZE(k1)) == 0,
					 "key part of attribute %d: key_io and api_common encode differently", i);
			back = ItemKeyPartToAttributeValue(&run->part);
			fz_check(fz_jsonb_equal(back, AttrValueToJsonb(v)),
					 "key part of attribute %d converts back as %s", i, fz_jsonb_text(back));
		}
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	AttrRun		run;
	AttrRun		again;
	Jsonb	   *out;
	Jsonb	   *out2;
	int64		size1;
	StringInfoData desc;

	if (size > 65536)
		return -1;
	fz_input_begin();
	memset(&run, 0, sizeof(run));
	run.text = fz_cstring(data, size);
	run.len = (int) size;
	if (!fz_call(run_parse, &run))
	{
		fz_input_end();
		return 0;
	}

	/* all of this must work on an accepted item: no fz_call */
	size1 = AttrItemSize(run.item);
	fz_check(size1 >= 0, "negative item size");
	out = AttrItemToJsonb(run.item);
	if (run.as_stored)
		fz_check(fz_jsonb_equal(out, run.input),
				 "said to be stored form, but %s is written back as %s",
				 fz_jsonb_text(run.input), fz_jsonb_text(out));

	memset(&again, 0, sizeof(again));
	again.text = fz_jsonb_text(out);
	again.len = strlen(again.text);
	fz_check(fz_call(run_parse, &again), "canonical output %s does not parse: %s",
			 again.text, fz_last_error()->message);
	fz_check(again.as_stored || has_binary(run.item),
			 "canonical output %s is not stored form", again.text);
	fz_check(AttrValueEquals(run.item, again.item), "item changed by a round trip: %s",
			 again.text);
	fz_check(AttrItemSize(again.item) == size1, "item size changed by a round trip");
	out2 = AttrItemToJsonb(again.item);
	fz_check(fz_jsonb_equal(out, out2), "output not stable: %s", again.text);

	fz_check(AttrValueEquals(run.item, AttrCopy(run.item)), "a copy is not equal");
	check_sets(run.item);
	initStringInfo(&desc);
	AttrValueDescribe(&desc, run.item);
	check_key_parts(&run);

	fz_input_end();
	return 0;
}

/*-------------------------------------------------------------------------
 *
 * jsonb_binary.c
 *		jsonb's binary containers, read and written in place: the children
 *		of a container, and a response object built around item containers
 *		copied as they are.
 *
 * Why this exists: speed (GetItem's Item is the stored item's container too,
 * JsonbWithMember).  A Query or Scan page holds up to 1 MB of items,
 * each already a jsonb container in the table.  Building the response
 * with pushJsonbValue() would unpack every item into a JsonbValue tree and
 * serialise it again, two extra passes over every byte of every item;
 * here the items are copied into the Items array with one memcpy each.
 * Reading a container's children in place likewise lets attr_value.c size
 * and check a stored item without unpacking it.
 *
 * The format facts relied on (PostgreSQL's utils/jsonb.h documents them;
 * the on-disk format has not changed since jsonb appeared in 9.4, and
 * pg_upgrade keeps it across major versions, so it cannot change):
 *
 *	  - a Jsonb datum is a varlena header followed by its root container;
 *	  - a container is a uint32 header (count | JB_FOBJECT or JB_FARRAY),
 *		then one JEntry per child, then the children's data in the same
 *		order; an object's children are its count keys, sorted by length
 *		and then bytewise and unique, followed by their count values;
 *	  - a JEntry is its child's type (JENTRY_TYPEMASK) and, in
 *		JENTRY_OFFLENMASK, either the child's length or, for every
 *		JB_OFFSET_STRIDE-th child (index % JB_OFFSET_STRIDE == 0, keys and
 *		values counted together), the end offset of its data relative to
 *		the start of the data area, flagged JENTRY_HAS_OFF;
 *	  - container and numeric data start int-aligned (relative to the
 *		datum); the zero padding before them is part of their length;
 *	  - offsets inside a container are relative to its own data area, so
 *		a root container (a datum minus its varlena header) can be copied
 *		verbatim as the child of another container, given the alignment.
 *		Every jsonb datum starts int-aligned, so the root's internal
 *		alignment is preserved when it is placed at an int-aligned offset.
 *
 * The output is byte for byte what jsonb_in gives for the same text (the
 * pgTAP test jsonb_binary and the fuzz target jsonb check it): jsonb
 * compares, hashes and sends by value, but a datum with another layout
 * would still differ from one read back from its text.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "jsonb_binary.h"

/*
 * JsonbChildren
 *		Read from the JEntry array as described above: lengths add up to
 *		offsets, and an entry with JENTRY_HAS_OFF resets the running offset
 *		(JBE_ADVANCE_OFFSET).  The alignment padding before container and
 *		numeric data is stripped.
 */
int
JsonbChildren(const JsonbContainer *c, JsonbChild *out, int max)
{
	int			count = c->header & JB_CMASK;
	int			n = (c->header & JB_FOBJECT) ? count * 2 : count;
	const char *base = (const char *) &c->children[n];
	uint32		offset = 0;
	int			i;

	if (n > max)
		elog(ERROR, "jsonb container has more children than expected");
	for (i = 0; i < n; i++)
	{
		JEntry		e = c->children[i];
		uint32		start = offset;

		JBE_ADVANCE_OFFSET(offset, e);
		out[i].type = e & JENTRY_TYPEMASK;
		if (out[i].type == JENTRY_ISCONTAINER || out[i].type == JENTRY_ISNUMERIC)
			start = INTALIGN(start);
		out[i].data = base + start;
		out[i].len = offset - start;
	}
	return n;
}

static void
pad_to_int(StringInfo buf)
{
	while (buf->len % sizeof(uint32) != 0)
		appendStringInfoCharMacro(buf, '\0');
}

/* a JEntry: a length, or an end offset every JB_OFFSET_STRIDE entries */
static JEntry
make_jentry(uint32 type, int index, uint32 len, uint32 end)
{
	if (end > JENTRY_OFFLENMASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("total size of jsonb array elements exceeds the maximum of %u bytes",
						JENTRY_OFFLENMASK)));
	if (index % JB_OFFSET_STRIDE == 0)
		return type | end | JENTRY_HAS_OFF;
	return type | len;
}

/* append one child's data; returns its length (padding included) */
static uint32
append_child(StringInfo buf, uint32 type, const char *data, int len)
{
	int			before = buf->len;

	if (type == JENTRY_ISCONTAINER || type == JENTRY_ISNUMERIC)
		pad_to_int(buf);
	appendBinaryStringInfo(buf, data, len);
	return buf->len - before;
}

/*
 * Start a container of n children at the end of buf: pad, write the header
 * and reserve the JEntry array.  Returns where the JEntries start; the data
 * area starts right after them.
 */
static int
begin_container(StringInfo buf, uint32 header, int n)
{
	int			entries;

	pad_to_int(buf);
	appendBinaryStringInfo(buf, (char *) &header, sizeof(header));
	entries = buf->len;
	enlargeStringInfo(buf, sizeof(JEntry) * n);
	buf->len += sizeof(JEntry) * n;
	return entries;
}

static void
set_jentry(StringInfo buf, int entries, int index, JEntry e)
{
	memcpy(buf->data + entries + index * sizeof(JEntry), &e, sizeof(JEntry));
}

/* append an array container whose elements are the given root containers */
static void
append_array(StringInfo buf, Jsonb *const *elems, int nelems)
{
	int			entries = begin_container(buf, JB_FARRAY | (uint32) nelems, nelems);
	int			base = buf->len;
	int			i;

	for (i = 0; i < nelems; i++)
	{
		uint32		len;

		Assert(!JB_ROOT_IS_SCALAR(elems[i]));
		len = append_child(buf, JENTRY_ISCONTAINER, (const char *) &elems[i]->root,
						   VARSIZE(elems[i]) - VARHDRSZ);
		set_jentry(buf, entries, i,
				   make_jentry(JENTRY_ISCONTAINER, i, len, buf->len - base));
	}
}

/* object members being written: a key and either a child or the array */
typedef struct OutMember
{
	const char *key;
	int			keylen;
	JsonbChild	value;
	bool		is_array;
} OutMember;

/* jsonb's key order: shorter first, then bytewise */
static int
out_member_cmp(const void *a, const void *b)
{
	const OutMember *x = a;
	const OutMember *y = b;

	if (x->keylen != y->keylen)
		return x->keylen < y->keylen ? -1 : 1;
	return memcmp(x->key, y->key, x->keylen);
}

/*
 * object_with_member
 *		object's members re-sorted with the new member add and copied as
 *		they are; the new member's value is either add->value (copied as
 *		it is) or, with add->is_array, the array of elems written after its
 *		JEntry.  add_size: the bytes the new value takes, padding included.
 */
static Jsonb *
object_with_member(const Jsonb *object, const OutMember *add, Size add_size,
				   Jsonb *const *elems, int nelems)
{
	int			count;
	int			n;
	JsonbChild	chbuf[16];
	OutMember	mbuf[9];
	JsonbChild *ch;
	OutMember  *m;
	StringInfoData buf;
	Size		size;
	int			entries;
	int			base;
	int			i;

	if (!JB_ROOT_IS_OBJECT(object) || JB_ROOT_IS_SCALAR(object))
		elog(ERROR, "jsonb is not an object");
	count = JB_ROOT_COUNT(object);
	n = count + 1;
	/* a response has a handful of members: no allocation for those */
	ch = count * 2 <= (int) lengthof(chbuf) ? chbuf : palloc(sizeof(JsonbChild) * count * 2);
	m = n <= (int) lengthof(mbuf) ? mbuf : palloc(sizeof(OutMember) * n);
	JsonbChildren(&object->root, ch, count * 2);
	for (i = 0; i < count; i++)
	{
		m[i].key = ch[i].data;
		m[i].keylen = ch[i].len;
		m[i].value = ch[count + i];
		m[i].is_array = false;
	}
	m[count] = *add;
	if (n > 1)
		qsort(m, n, sizeof(OutMember), out_member_cmp);
	for (i = 1; i < n; i++)
		if (out_member_cmp(&m[i - 1], &m[i]) == 0)
			elog(ERROR, "jsonb object already has a member \"%s\"", add->key);

	/*
	 * One allocation for all: the object's data, the new key and its JEntry
	 * pair, the new value, and alignment padding (at most 3 bytes before
	 * each container).  The items of a page make up most of a Query
	 * response, and growing the buffer by doubling would copy them again
	 * and again.
	 */
	size = VARSIZE(object) + 3 * count + 2 * sizeof(JEntry) + add->keylen +
		add_size + 3;
	initStringInfo(&buf);
	enlargeStringInfo(&buf, size);
	appendBinaryStringInfo(&buf, "\0\0\0\0", VARHDRSZ);
	entries = begin_container(&buf, JB_FOBJECT | (uint32) n, n * 2);
	base = buf.len;
	for (i = 0; i < 2 * n; i++)
	{
		const OutMember *om = &m[i % n];
		uint32		type;
		uint32		len;

		if (i < n)
		{
			type = JENTRY_ISSTRING;
			len = append_child(&buf, type, om->key, om->keylen);
		}
		else if (om->is_array)
		{
			int			before = buf.len;

			type = JENTRY_ISCONTAINER;
			append_array(&buf, elems, nelems);
			len = buf.len - before;
		}
		else
		{
			type = om->value.type;
			len = append_child(&buf, type, om->value.data, om->value.len);
		}
		set_jentry(&buf, entries, i, make_jentry(type, i, len, buf.len - base));
	}
	if (ch != chbuf)
		pfree(ch);
	if (m != mbuf)
		pfree(m);
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
}

/* the JsonbChild of a value's root: its container, or a scalar's element */
static void
root_child(const Jsonb *value, JsonbChild *out)
{
	if (JB_ROOT_IS_SCALAR(value))
		(void) JsonbChildren(&value->root, out, 1);
	else
	{
		out->type = JENTRY_ISCONTAINER;
		out->data = (const char *) &value->root;
		out->len = VARSIZE(value) - VARHDRSZ;
	}
}

Jsonb *
JsonbWithArrayMember(const Jsonb *object, const char *key, Jsonb *const *elems,
					 int nelems)
{
	OutMember	add;
	Size		add_size = sizeof(uint32) + 3;
	int			i;

	add.key = key;
	add.keylen = strlen(key);
	add.is_array = true;
	for (i = 0; i < nelems; i++)
		add_size += sizeof(JEntry) + VARSIZE(elems[i]) - VARHDRSZ + 3;
	return object_with_member(object, &add, add_size, elems, nelems);
}

/*
 * JsonbWithMember
 *		As JsonbWithArrayMember, the new member's value the root of value
 *		copied as it is (GetItem's Item, the stored item's container).
 */
Jsonb *
JsonbWithMember(const Jsonb *object, const char *key, const Jsonb *value)
{
	OutMember	add;

	add.key = key;
	add.keylen = strlen(key);
	add.is_array = false;
	root_child(value, &add.value);
	return object_with_member(object, &add, add.value.len + 3, NULL, 0);
}

/*
 * JsonbObjectOf
 *		A new object of n members keys[i]: values[i], each value copied as
 *		it is (a container's root, or a scalar's one element).  Keys must
 *		differ.  Like JsonbWithArrayMember, it builds a response around
 *		item containers without unpacking and packing them again.
 */
Jsonb *
JsonbObjectOf(const char *const *keys, Jsonb *const *values, int n)
{
	OutMember  *m = palloc(sizeof(OutMember) * Max(n, 1));
	StringInfoData buf;
	Size		size = VARHDRSZ + sizeof(uint32) + 3;
	int			entries;
	int			base;
	int			i;

	for (i = 0; i < n; i++)
	{
		m[i].key = keys[i];
		m[i].keylen = strlen(keys[i]);
		m[i].is_array = false;
		root_child(values[i], &m[i].value);
		size += 2 * sizeof(JEntry) + m[i].keylen + m[i].value.len + 3;
	}
	qsort(m, n, sizeof(OutMember), out_member_cmp);
	for (i = 1; i < n; i++)
		if (out_member_cmp(&m[i - 1], &m[i]) == 0)
			elog(ERROR, "jsonb object member \"%s\" given twice", m[i].key);
	initStringInfo(&buf);
	enlargeStringInfo(&buf, size);
	appendBinaryStringInfo(&buf, "\0\0\0\0", VARHDRSZ);
	entries = begin_container(&buf, JB_FOBJECT | (uint32) n, n * 2);
	base = buf.len;
	for (i = 0; i < 2 * n; i++)
	{
		const OutMember *om = &m[i % n];
		uint32		type = i < n ? JENTRY_ISSTRING : om->value.type;
		uint32		len = i < n ? append_child(&buf, type, om->key, om->keylen) :
			append_child(&buf, type, om->value.data, om->value.len);

		set_jentry(&buf, entries, i, make_jentry(type, i, len, buf.len - base));
	}
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
}

/*
 * JsonbArrayOf
 *		A new array of the root containers of elems[0..n-1], copied as they
 *		are.
 */
Jsonb *
JsonbArrayOf(Jsonb *const *elems, int n)
{
	StringInfoData buf;
	Size		size = VARHDRSZ + sizeof(uint32) + 3;
	int			i;

	for (i = 0; i < n; i++)
		size += sizeof(JEntry) + VARSIZE(elems[i]) - VARHDRSZ + 3;
	initStringInfo(&buf);
	enlargeStringInfo(&buf, size);
	appendBinaryStringInfo(&buf, "\0\0\0\0", VARHDRSZ);
	append_array(&buf, elems, n);
	SET_VARSIZE(buf.data, buf.len);
	return (Jsonb *) buf.data;
}

/*
 * item_table_test_jsonb_bytes(j jsonb) -> bytea
 *		The bytes of a jsonb datum (detoasted, without its varlena header).
 *		A test hook: the install script does not declare it (jsonb_send
 *		sends text, and no SQL function shows a datum's bytes); the pgTAP
 *		test jsonb_binary declares it in pg_temp, to compare responses
 *		byte for byte with what jsonb_in makes of their text.
 */
PG_FUNCTION_INFO_V1(item_table_test_jsonb_bytes);

Datum
item_table_test_jsonb_bytes(PG_FUNCTION_ARGS)
{
	Jsonb	   *j = PG_GETARG_JSONB_P(0);
	bytea	   *r = palloc(VARSIZE(j));

	memcpy(VARDATA(r), VARDATA(j), VARSIZE(j) - VARHDRSZ);
	SET_VARSIZE(r, VARSIZE(j));
	PG_RETURN_BYTEA_P(r);
}

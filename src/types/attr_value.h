/*-------------------------------------------------------------------------
 *
 * attr_value.h
 *		DynamoDB attribute values in memory: parsed from and written back to
 *		jsonb in DynamoDB JSON ({"S":"x"}, {"N":"1"}, {"M":{...}}, ...),
 *		validated and normalised exactly as DynamoDB does.
 *
 * An item is an AttrValue of type ATTR_M whose members are its top-level
 * attributes.  Everything is palloc'd in the current memory context; a
 * value never points into a jsonb datum (it copies), so callers may free
 * the jsonb.
 *
 * Invariants kept by every constructor here:
 *	  - numbers are DynNumbers (canonical, within DynamoDB's limits);
 *	  - B values and BS members hold the raw, decoded bytes;
 *	  - S values, SS members and map member names hold the stored form of
 *		nul_escape.c (U+0000 and U+0001 escaped), well-formed;
 *	  - map members are in jsonb key order (shorter names first, then bytewise) and
 *		unique; lookups binary-search;
 *	  - set members are sorted by value (N numerically, S/B bytewise), unique
 *		and never empty.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_ATTR_VALUE_H
#define ITEM_TABLE_ATTR_VALUE_H


#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "dnumber.h"
#include "item_table.h"
#include "nul_escape.h"

#define ATTR_MAX_DEPTH			32		/* top-level attribute = level 1 */
#define ATTR_MAX_ITEM_SIZE		409600	/* bytes, DynamoDB's formula */
#define ATTR_MAX_NAME_BYTES		65535
#define ATTR_MAX_KEY_NAME_BYTES 255

typedef enum AttrType
{
	ATTR_S = 0,
	ATTR_N,
	ATTR_B,
	ATTR_BOOL,
	ATTR_NULL,
	ATTR_M,
	ATTR_L,
	ATTR_SS,
	ATTR_NS,
	ATTR_BS
} AttrType;

typedef struct AttrValue AttrValue;

typedef struct AttrMember
{
	char	   *name;			/* UTF-8, not NUL-terminated necessarily */
	int			namelen;
	AttrValue  *value;
} AttrMember;

struct AttrValue
{
	AttrType	type;
	union
	{
		struct
		{
			char	   *data;	/* S: UTF-8 bytes; B: raw bytes */
			int			len;
		}			bytes;
		DynNumber	num;		/* N */
		bool		boolean;	/* BOOL */
		struct
		{
			int			count;
			int			capacity;
			AttrMember *members;
		}			map;		/* M */
		struct
		{
			int			count;
			int			capacity;
			AttrValue **elems;
		}			list;		/* L, SS, NS, BS (members are S/N/B values) */
	}			u;
};

/* ---- parsing and validation (raise DynamoDB errors) ---- */

/*
 * AttrValueFromJsonb
 *		Parse one attribute value ({"S":"x"} etc.) held in a JsonbValue
 *		(jbvBinary for objects) at nesting level depth (1 = top-level
 *		attribute).  Raises ValidationException / SerializationException
 *		with DynamoDB's messages.
 */
extern AttrValue *AttrValueFromJsonb(JsonbValue *jv, int depth);

/*
 * AttrItemFromJsonb
 *		Parse a whole item ({"attr": {"S":"x"}, ...}) into an ATTR_M value.
 *		Checks names, values and nesting, not the item size.
 */
extern AttrValue *AttrItemFromJsonb(Jsonb *item);
/*
 * The same, also telling whether AttrItemToJsonb() of the result would be
 * the input itself (numbers canonical, sets in order, no conversion), so
 * that a caller may store the input as it is.
 */
extern AttrValue *AttrItemFromJsonbStored(Jsonb *item, bool *as_stored);

/* ---- output ---- */
extern Jsonb *AttrValueToJsonb(const AttrValue *v);	/* {"S":"x"} */
extern Jsonb *AttrItemToJsonb(const AttrValue *item);	/* {"a":{...}} */
/* push v as an attribute value into a jsonb under construction */
extern JsonbValue *AttrValuePush(JsonbParseState **state, const AttrValue *v,
								 JsonbIteratorToken token);
/* DynamoDB's rendering in messages, e.g. "{N:3}" / "{S:abc}" */
extern void AttrValueDescribe(StringInfo out, const AttrValue *v);
extern const char *AttrTypeName(AttrType type);	/* "S", "N", ..., "BS" */
/* a key attribute value (S, N or B) as an item_key part; no copy */
extern void AttrKeyPart(const AttrValue *v, ItemKeyPart *part);
/* DynamoDB's limits on a key value (prefix: NULL, or the start of each message) */
extern void AttrCheckKeyValue(const char *prefix, const char *name,
							  const AttrValue *v, bool is_sort);
/* the item_key of a partition value and a sort value (NULL: none) */
extern ItemKey *AttrKeyFromValues(const AttrValue *h, const AttrValue *r);
/* the long form in DynamoDB's messages: "STRING", ..., "BINARY_SET" */
extern const char *AttrTypeLongName(AttrType type);

/* ---- sizes (DynamoDB's formula, reference §1.4) ---- */
extern int64 AttrValueSize(const AttrValue *v);
extern int64 AttrItemSize(const AttrValue *item);

/* ---- stored items read in place (attr_value.c, "stored items") ---- */

/* DynamoDB's size of a stored item, or -1 when j is not laid out as an item */
extern int64 AttrStoredItemSize(const Jsonb *j);
/* the same in any database encoding (may parse the item) */
extern int64 AttrStoredItemSizeAnyEncoding(Jsonb *j);

/* ---- comparison ---- */
extern bool AttrValueEquals(const AttrValue *a, const AttrValue *b);
/* order of two S, N or B values of the same type: <0, 0, >0 */
extern int	AttrValueCompare(const AttrValue *a, const AttrValue *b);
/* is the value one of S/N/B (a "scalar" usable in < <= > >=)? */
#define AttrTypeIsScalar(t) ((t) == ATTR_S || (t) == ATTR_N || (t) == ATTR_B)
#define AttrTypeIsSet(t) ((t) == ATTR_SS || (t) == ATTR_NS || (t) == ATTR_BS)

/* ---- construction and maps ---- */
extern AttrValue *AttrNewMap(void);
extern AttrValue *AttrNewList(AttrType type);	/* L or a set type, empty */
extern AttrValue *AttrNewString(AttrType type, const char *data, int len);	/* S/B */
extern AttrValue *AttrNewNumber(const DynNumber *num);
extern AttrValue *AttrCopy(const AttrValue *v);	/* deep copy */
/* jsonb's order of object keys: shorter first, then bytewise (memcmp) */
extern int	AttrNameCmp(const char *a, int alen, const char *b, int blen);
extern AttrValue *AttrMapGet(const AttrValue *map, const char *name, int namelen);
extern void AttrMapPut(AttrValue *map, const char *name, int namelen, AttrValue *v);
extern bool AttrMapRemove(AttrValue *map, const char *name, int namelen);
extern void AttrListAppend(AttrValue *list, AttrValue *elem);
/* sort and de-duplicate a set in place; returns false if it had duplicates */
extern bool AttrSetNormalize(AttrValue *set);
/* is elem (S/N/B) a member of set? */
extern bool AttrSetContains(const AttrValue *set, const AttrValue *elem);

/* ---- arithmetic (exact; ValidationException past DynamoDB's limits) ---- */
extern AttrValue *AttrNumberAdd(const AttrValue *a, const AttrValue *b, bool subtract);

/* ---- SQL-callable: item_size() and normalize_item() are in the install
 * script; the test hook is declared by the pgTAP test jsonb_binary ---- */
extern Datum item_table_normalize_item(PG_FUNCTION_ARGS);
extern Datum item_table_item_size(PG_FUNCTION_ARGS);
extern Datum item_table_test_stored_item_size(PG_FUNCTION_ARGS);
extern Datum item_table_decode_item(PG_FUNCTION_ARGS);
extern Datum item_table_encode_item(PG_FUNCTION_ARGS);

/* ---- JSON text <-> jsonb with the stored form of strings (attr_size.c) ---- */
extern Jsonb *AttrJsonbFromJsonText(const char *json, int len);
extern text *AttrJsonbToJsonText(Jsonb *j);

/* ---- the canonical text of a number (palloc'd) ---- */
extern char *AttrNumberText(const AttrValue *v);

#endif							/* ITEM_TABLE_ATTR_VALUE_H */

/*-------------------------------------------------------------------------
 *
 * jsonb_binary.h
 *		jsonb's binary containers read and written in place (jsonb_binary.c
 *		states the format facts this relies on, and why it exists).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_JSONB_BINARY_H
#define ITEM_TABLE_JSONB_BINARY_H

#include "fmgr.h"
#include "utils/jsonb.h"

/* one child of a jsonb container: JEntry type and unpadded data */
typedef struct JsonbChild
{
	uint32		type;			/* JENTRY_IS* */
	const char *data;			/* a container's data starts with its header */
	int			len;
} JsonbChild;

/*
 * JsonbChildren
 *		All children of container c (for an object: the keys, then the
 *		values), at most max of them (more is an elog); returns the count.
 *		Nothing is copied: the children point into c.
 */
extern int	JsonbChildren(const JsonbContainer *c, JsonbChild *out, int max);

/*
 * JsonbWithArrayMember
 *		A new Jsonb (palloc'd in the current memory context) holding the
 *		members of object plus a member key whose value is the array of the
 *		root containers of elems[0..nelems-1], copied as they are.  The
 *		result has the bytes jsonb_in would give its text.  object must be
 *		an object without member key; each element an object or an array.
 */
extern Jsonb *JsonbWithArrayMember(const Jsonb *object, const char *key,
								   Jsonb *const *elems, int nelems);

/*
 * JsonbWithMember
 *		The same with a member key whose value is value's root container
 *		(or scalar), copied as it is.  object must be an object without
 *		member key.
 */
extern Jsonb *JsonbWithMember(const Jsonb *object, const char *key,
							  const Jsonb *value);

/*
 * JsonbObjectOf
 *		A new Jsonb object {keys[i]: values[i]}, each value's root
 *		container (or scalar) copied as it is; the result has the bytes
 *		jsonb_in would give its text.  Keys must differ.
 */
extern Jsonb *JsonbObjectOf(const char *const *keys, Jsonb *const *values, int n);

/* A new Jsonb array of the root containers of elems, copied as they are */
extern Jsonb *JsonbArrayOf(Jsonb *const *elems, int n);

/* test hook (not in the install script): the bytes of a jsonb datum */
extern Datum item_table_test_jsonb_bytes(PG_FUNCTION_ARGS);

#endif							/* ITEM_TABLE_JSONB_BINARY_H */

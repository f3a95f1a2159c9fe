/*-------------------------------------------------------------------------
 *
 * api_index.h
 *		Secondary-index definitions in the table API (api_index.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ITEM_TABLE_API_INDEX_H
#define ITEM_TABLE_API_INDEX_H


#include "api.h"

/* an AttributeDefinitions entry */
typedef struct ApiAttrDef
{
	char	   *name;
	char	   *type;			/* "S", "N" or "B" */
} ApiAttrDef;

/* a parsed index definition from a request */
typedef struct ApiIndexSpec
{
	char	   *name;
	bool		is_local;
	char	   *hash_key;
	char	   *range_key;
	bool		first_is_hash;
	bool		second_is_range;

	/*
	 * Every KeySchema element in order (hash_key and range_key are the
	 * first two); multi for a GSI whose KeySchema is not the classic one
	 * HASH and at most one RANGE (more than two elements, or two HASH).
	 * Then hash_key and range_key become the first HASH and first RANGE.
	 */
	int			nkeys;
	char	   *keys[ITEMKEY_MAX_TUPLE_PARTS];
	bool		key_is_hash[ITEMKEY_MAX_TUPLE_PARTS];
	bool		multi;
	int			projection;		/* IndexProjection */
	bool		has_nonkey;
	bool		projection_given;	/* ProjectionType present */
	List	   *nonkey;			/* char * */
	bool		element;		/* ItemTableElementIndex */
	Jsonb	   *throughput;		/* GSI ProvisionedThroughput, or NULL */
} ApiIndexSpec;

/* shape check of a key attribute name (1..255 bytes) at field */
extern void ApiCheckKeyAttributeName(ApiRequest *req, const char *name,
									 const char *field);
extern ApiIndexSpec *ApiParseIndex(ApiRequest *req, Jsonb *body, bool is_local,
								   const char *path);
/* the key attributes of one key schema against AttributeDefinitions */
extern void ApiCheckKeysDefined(const char *hash, const char *range, List *attrdefs);
/* the same for every key attribute of an index */
extern void ApiCheckIndexKeysDefined(ApiIndexSpec *s, List *attrdefs);
/* is name a key attribute of index s? */
extern bool ApiIndexHasKey(ApiIndexSpec *s, const char *name);
extern void ApiCheckIndex(ApiIndexSpec *s, const char *table_hash,
						  const char *table_range);
extern void ApiCreateIndex(const char *table, Oid base_relid, ApiIndexSpec *s,
						   List *attrdefs, bool creating, int64 rcu, int64 wcu);
extern void ApiDropIndexTables(const char *table, const char *index);
extern List *ApiIndexAttributeDefinitions(const char *table, const char *hash,
										  const char *range);
extern void ApiPushIndexDescriptions(JsonbParseState **state, const char *table,
									 bool on_demand);

#endif							/* ITEM_TABLE_API_INDEX_H */

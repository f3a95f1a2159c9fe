-- item_table 1.1 -> 1.2
--
-- An installation updated with ALTER EXTENSION item_table UPDATE ends with
-- the same objects as a fresh 1.2 installation (test/upgrade checks it).
-- This file changes the objects 1.1 already has; the build appends the
-- fragments of src/sql/ whose objects are all new in 1.2 (UPDATE_1_2_NEW
-- in the Makefile), so each new object is written once.

\echo Use "ALTER EXTENSION item_table UPDATE TO '1.2'" to load this file. \quit

-- control plane (tags, deletion protection, table class, limits, endpoints,
-- continuous backups)
ALTER TABLE tables
	ADD COLUMN deletion_protection boolean NOT NULL DEFAULT false,
	ADD COLUMN table_class text CHECK (table_class IN ('STANDARD', 'STANDARD_INFREQUENT_ACCESS')),
	ADD COLUMN table_class_updated_at timestamptz;

-- BillingModeSummary.LastUpdateToPayPerRequestDateTime
ALTER TABLE tables ADD COLUMN pay_per_request_at timestamptz;

-- ---------------------------------------------------------------------
-- background work (worker, backfill, TTL)

-- The backfill of an index being created is resumable and done by the
-- background worker unless the session that created it said manual.
ALTER TABLE indexes
	ADD COLUMN backfill_by text NOT NULL DEFAULT 'worker' CHECK (backfill_by IN ('worker', 'manual')),
	ADD COLUMN backfill_after item_key;

-- Multi-attribute GSI keys: the whole KeySchema of such an index.
ALTER TABLE indexes ADD COLUMN key_schema jsonb;
COMMENT ON PROCEDURE backfill_indexes(text, integer) IS
	'fill the indexes that UpdateTable created (status CREATING) from existing items, committing every batch, then mark them ACTIVE (resumes where the last committed batch ended)';

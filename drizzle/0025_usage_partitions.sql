-- usage_records becomes a table partitioned by month of created_at (UTC), so that reads of a period touch
-- only its months and retention (USAGE_RETENTION_DAYS) drops whole months instead of deleting rows one by
-- one. drizzle-kit cannot declare partitioning, so this is written by hand; src/db/schema.ts describes the
-- same columns, indexes and the primary key (id, created_at) -- a partitioned table's unique keys must
-- include the partition key. Partitions are named usage_records_pYYYY_MM, as the upkeep job
-- (src/gateway/usage-partitions.ts) names the months it creates ahead; usage_records_default catches a row
-- of a month that has no partition (the job moves such rows into their month's partition).
--
-- Fast on a big table: the rows move with one INSERT ... SELECT into a table without indexes, and the
-- indexes are built once after the copy (the old table's indexes go with it).

ALTER TABLE "usage_records" RENAME TO "usage_records_unpartitioned";--> statement-breakpoint
-- The old identity's sequence would take the name the new table's identity needs; max(id) carries over below.
ALTER TABLE "usage_records_unpartitioned" ALTER COLUMN "id" DROP IDENTITY;--> statement-breakpoint
ALTER TABLE "usage_records_unpartitioned" RENAME CONSTRAINT "usage_records_pkey" TO "usage_records_unpartitioned_pkey";--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "usage_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1) NOT NULL,
	"user_id" uuid NOT NULL,
	"api_key_id" uuid,
	"agent_id" uuid,
	"request_id" text,
	"model" text NOT NULL,
	"stream" boolean DEFAULT false NOT NULL,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"total_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_nano" bigint DEFAULT 0 NOT NULL,
	"prompt_cost_nano" bigint DEFAULT 0 NOT NULL,
	"completion_cost_nano" bigint DEFAULT 0 NOT NULL,
	"unpaid_nano" bigint DEFAULT 0 NOT NULL,
	"endpoint" text DEFAULT 'chat' NOT NULL,
	"status" text NOT NULL,
	"usage_source" text DEFAULT 'upstream' NOT NULL,
	"upstream_status" integer,
	"error" text,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"provider_id" text,
	"attempts" integer,
	"provider_cost_nano" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_records_id_created_at_pk" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
CREATE TABLE "usage_records_default" PARTITION OF "usage_records" DEFAULT;--> statement-breakpoint
-- A partition for every month (UTC) that has rows, found by a skip scan over the old created_at index
-- (one probe per month, not a pass over the rows), and for the current and next month.
DO $$
DECLARE
	month timestamp;
BEGIN
	FOR month IN
		WITH RECURSIVE months(m) AS (
			SELECT date_trunc('month', min(created_at) AT TIME ZONE 'UTC') FROM usage_records_unpartitioned
			UNION ALL
			SELECT (SELECT date_trunc('month', min(u.created_at) AT TIME ZONE 'UTC') FROM usage_records_unpartitioned u
				WHERE u.created_at >= (months.m + interval '1 month') AT TIME ZONE 'UTC')
			FROM months WHERE months.m IS NOT NULL
		)
		SELECT m FROM months WHERE m IS NOT NULL
		UNION
		SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + step * interval '1 month' FROM generate_series(0, 1) AS step
		ORDER BY 1
	LOOP
		EXECUTE format(
			'CREATE TABLE %I PARTITION OF usage_records FOR VALUES FROM (%L) TO (%L)',
			'usage_records_p' || to_char(month, 'YYYY_MM'),
			to_char(month, 'YYYY-MM-DD') || ' 00:00:00+00',
			to_char(month + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00'
		);
	END LOOP;
END
$$;--> statement-breakpoint
INSERT INTO "usage_records" OVERRIDING SYSTEM VALUE
SELECT "id", "user_id", "api_key_id", "agent_id", "request_id", "model", "stream", "prompt_tokens", "completion_tokens",
	"total_tokens", "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "endpoint", "status",
	"usage_source", "upstream_status", "error", "duration_ms", "provider_id", "attempts", "provider_cost_nano", "created_at"
FROM "usage_records_unpartitioned";--> statement-breakpoint
DROP TABLE "usage_records_unpartitioned";--> statement-breakpoint
-- New rows continue after the highest id copied (the writer's inserts take ids from the identity).
SELECT setval(pg_get_serial_sequence('usage_records', 'id'), coalesce((SELECT max("id") FROM "usage_records"), 0) + 1, false);--> statement-breakpoint
CREATE INDEX "usage_records_user_idx" ON "usage_records" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "usage_records_key_idx" ON "usage_records" USING btree ("api_key_id","created_at");--> statement-breakpoint
CREATE INDEX "usage_records_created_idx" ON "usage_records" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "usage_records_agent_idx" ON "usage_records" USING btree ("agent_id","created_at") WHERE "usage_records"."agent_id" is not null;--> statement-breakpoint
CREATE INDEX "usage_records_agent_request_idx" ON "usage_records" USING btree ("agent_id","request_id") WHERE "usage_records"."agent_id" is not null;

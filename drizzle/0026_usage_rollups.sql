CREATE TABLE "usage_rollups" (
	"user_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"api_key_id" uuid,
	"agent_id" uuid,
	"model" text NOT NULL,
	"endpoint" text NOT NULL,
	"provider_id" text,
	"requests" integer NOT NULL,
	"failed_requests" integer NOT NULL,
	"retried_requests" integer NOT NULL,
	"attempts" integer NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"total_tokens" bigint NOT NULL,
	"cost_nano" bigint NOT NULL,
	"prompt_cost_nano" bigint NOT NULL,
	"completion_cost_nano" bigint NOT NULL,
	"unpaid_nano" bigint NOT NULL,
	"priced_requests" integer NOT NULL,
	"priced_cost_nano" bigint NOT NULL,
	"provider_cost_nano" bigint NOT NULL,
	CONSTRAINT "usage_rollups_key" UNIQUE NULLS NOT DISTINCT("user_id","bucket","api_key_id","agent_id","model","endpoint","provider_id")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups_daily" (
	"user_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"api_key_id" uuid,
	"agent_id" uuid,
	"model" text NOT NULL,
	"endpoint" text NOT NULL,
	"provider_id" text,
	"requests" integer NOT NULL,
	"failed_requests" integer NOT NULL,
	"retried_requests" integer NOT NULL,
	"attempts" integer NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"total_tokens" bigint NOT NULL,
	"cost_nano" bigint NOT NULL,
	"prompt_cost_nano" bigint NOT NULL,
	"completion_cost_nano" bigint NOT NULL,
	"unpaid_nano" bigint NOT NULL,
	"priced_requests" integer NOT NULL,
	"priced_cost_nano" bigint NOT NULL,
	"provider_cost_nano" bigint NOT NULL,
	CONSTRAINT "usage_rollups_daily_key" UNIQUE NULLS NOT DISTINCT("user_id","bucket","api_key_id","agent_id","model","endpoint","provider_id")
);
--> statement-breakpoint
-- Rows written before this migration, rolled up as the settlement writer rolls up a batch (rows.ts).
INSERT INTO "usage_rollups" ("user_id", "bucket", "api_key_id", "agent_id", "model", "endpoint", "provider_id",
  "requests", "failed_requests", "retried_requests", "attempts", "prompt_tokens", "completion_tokens", "total_tokens",
  "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "priced_requests", "priced_cost_nano",
  "provider_cost_nano")
SELECT "user_id", date_bin('15 minutes', "created_at", timestamptz '2000-01-01 00:00:00+00'), "api_key_id", "agent_id",
  "model", "endpoint", "provider_id", count(*), count(*) FILTER (WHERE "status" <> 'ok'),
  count(*) FILTER (WHERE "attempts" > 1), coalesce(sum("attempts"), 0), sum("prompt_tokens"), sum("completion_tokens"),
  sum("total_tokens"), sum("cost_nano"), sum("prompt_cost_nano"), sum("completion_cost_nano"), sum("unpaid_nano"),
  count("provider_cost_nano"), coalesce(sum("cost_nano") FILTER (WHERE "provider_cost_nano" IS NOT NULL), 0),
  coalesce(sum("provider_cost_nano"), 0)
FROM "usage_records"
GROUP BY 1, 2, 3, 4, 5, 6, 7;--> statement-breakpoint
-- The UTC days, summed from the quarter hours just written.
INSERT INTO "usage_rollups_daily" ("user_id", "bucket", "api_key_id", "agent_id", "model", "endpoint", "provider_id",
  "requests", "failed_requests", "retried_requests", "attempts", "prompt_tokens", "completion_tokens", "total_tokens",
  "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "priced_requests", "priced_cost_nano",
  "provider_cost_nano")
SELECT "user_id", date_bin('1 day', "bucket", timestamptz '2000-01-01 00:00:00+00'), "api_key_id", "agent_id", "model",
  "endpoint", "provider_id", sum("requests"), sum("failed_requests"), sum("retried_requests"), sum("attempts"),
  sum("prompt_tokens"), sum("completion_tokens"), sum("total_tokens"), sum("cost_nano"), sum("prompt_cost_nano"),
  sum("completion_cost_nano"), sum("unpaid_nano"), sum("priced_requests"), sum("priced_cost_nano"),
  sum("provider_cost_nano")
FROM "usage_rollups"
GROUP BY 1, 2, 3, 4, 5, 6, 7;--> statement-breakpoint
-- Nearly every write to this table adds to a row already there: room left on each page lets PostgreSQL
-- update in place (HOT, no index entries) instead of moving the row.
ALTER TABLE "usage_rollups" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "usage_rollups_daily" SET (fillfactor = 70);--> statement-breakpoint
-- Usage rows are written once and never changed by the service; a correction made by hand (an UPDATE of
-- usage_records: moved in time, re-priced) moves its sums with it, the old values out and the new in, so
-- the rollups never disagree with the rows. Statement-level, over the transition tables: one grouped
-- upsert per statement however many rows it changes. Deleting rows does not touch the sums (retention
-- keeps them); what deletes an account deletes its rollups itself.
CREATE FUNCTION "usage_rollups_follow_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_rollups AS t (user_id, bucket, api_key_id, agent_id, model, endpoint, provider_id, requests,
    failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano,
    prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano)
  SELECT user_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00'), api_key_id, agent_id,
    model, endpoint, provider_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status <> 'ok'), 0),
    coalesce(sum(sign) FILTER (WHERE attempts > 1), 0), coalesce(sum(sign * attempts), 0), sum(sign * prompt_tokens),
    sum(sign * completion_tokens), sum(sign * total_tokens), sum(sign * cost_nano), sum(sign * prompt_cost_nano),
    sum(sign * completion_cost_nano), sum(sign * unpaid_nano),
    coalesce(sum(sign) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * cost_nano) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * provider_cost_nano), 0)
  FROM (SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1 AS sign, * FROM new_rows) moved
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ON CONSTRAINT usage_rollups_key DO UPDATE SET
    requests = t.requests + excluded.requests,
    failed_requests = t.failed_requests + excluded.failed_requests,
    retried_requests = t.retried_requests + excluded.retried_requests,
    attempts = t.attempts + excluded.attempts,
    prompt_tokens = t.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = t.completion_tokens + excluded.completion_tokens,
    total_tokens = t.total_tokens + excluded.total_tokens,
    cost_nano = t.cost_nano + excluded.cost_nano,
    prompt_cost_nano = t.prompt_cost_nano + excluded.prompt_cost_nano,
    completion_cost_nano = t.completion_cost_nano + excluded.completion_cost_nano,
    unpaid_nano = t.unpaid_nano + excluded.unpaid_nano,
    priced_requests = t.priced_requests + excluded.priced_requests,
    priced_cost_nano = t.priced_cost_nano + excluded.priced_cost_nano,
    provider_cost_nano = t.provider_cost_nano + excluded.provider_cost_nano;
  -- A sum every row left is no sum: gone, as if the rows had always been elsewhere.
  DELETE FROM usage_rollups t
  WHERE t.requests = 0
    AND (t.user_id, t.bucket) IN (SELECT user_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') FROM old_rows);
  -- The same for the UTC days.
  INSERT INTO usage_rollups_daily AS t (user_id, bucket, api_key_id, agent_id, model, endpoint, provider_id, requests,
    failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano,
    prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano)
  SELECT user_id, date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00'), api_key_id, agent_id,
    model, endpoint, provider_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status <> 'ok'), 0),
    coalesce(sum(sign) FILTER (WHERE attempts > 1), 0), coalesce(sum(sign * attempts), 0), sum(sign * prompt_tokens),
    sum(sign * completion_tokens), sum(sign * total_tokens), sum(sign * cost_nano), sum(sign * prompt_cost_nano),
    sum(sign * completion_cost_nano), sum(sign * unpaid_nano),
    coalesce(sum(sign) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * cost_nano) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * provider_cost_nano), 0)
  FROM (SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1 AS sign, * FROM new_rows) moved
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ON CONSTRAINT usage_rollups_daily_key DO UPDATE SET
    requests = t.requests + excluded.requests,
    failed_requests = t.failed_requests + excluded.failed_requests,
    retried_requests = t.retried_requests + excluded.retried_requests,
    attempts = t.attempts + excluded.attempts,
    prompt_tokens = t.prompt_tokens + excluded.prompt_tokens,
    completion_tokens = t.completion_tokens + excluded.completion_tokens,
    total_tokens = t.total_tokens + excluded.total_tokens,
    cost_nano = t.cost_nano + excluded.cost_nano,
    prompt_cost_nano = t.prompt_cost_nano + excluded.prompt_cost_nano,
    completion_cost_nano = t.completion_cost_nano + excluded.completion_cost_nano,
    unpaid_nano = t.unpaid_nano + excluded.unpaid_nano,
    priced_requests = t.priced_requests + excluded.priced_requests,
    priced_cost_nano = t.priced_cost_nano + excluded.priced_cost_nano,
    provider_cost_nano = t.provider_cost_nano + excluded.provider_cost_nano;
  DELETE FROM usage_rollups_daily t
  WHERE t.requests = 0
    AND (t.user_id, t.bucket) IN (SELECT user_id, date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00') FROM old_rows);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "usage_rollups_follow_update" AFTER UPDATE ON "usage_records"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "usage_rollups_follow_update"();--> statement-breakpoint
CREATE INDEX "usage_rollups_bucket_idx" ON "usage_rollups" USING brin ("bucket");--> statement-breakpoint
CREATE INDEX "usage_rollups_key_idx" ON "usage_rollups" USING btree ("api_key_id","bucket") WHERE "usage_rollups"."api_key_id" is not null;--> statement-breakpoint
CREATE INDEX "usage_rollups_agent_idx" ON "usage_rollups" USING btree ("agent_id","bucket") WHERE "usage_rollups"."agent_id" is not null;--> statement-breakpoint
CREATE INDEX "usage_rollups_daily_bucket_idx" ON "usage_rollups_daily" USING brin ("bucket");--> statement-breakpoint
CREATE INDEX "usage_rollups_daily_key_idx" ON "usage_rollups_daily" USING btree ("api_key_id","bucket") WHERE "usage_rollups_daily"."api_key_id" is not null;--> statement-breakpoint
CREATE INDEX "usage_rollups_daily_agent_idx" ON "usage_rollups_daily" USING btree ("agent_id","bucket") WHERE "usage_rollups_daily"."agent_id" is not null;
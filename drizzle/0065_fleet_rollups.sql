CREATE TABLE "usage_rollups_account" (
	"user_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
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
	CONSTRAINT "usage_rollups_account_key" UNIQUE NULLS NOT DISTINCT("user_id","bucket","model","provider_id")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups_account_daily" (
	"user_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
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
	CONSTRAINT "usage_rollups_account_daily_key" UNIQUE NULLS NOT DISTINCT("user_id","bucket","model","provider_id")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups_account_hourly" (
	"user_id" uuid NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
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
	CONSTRAINT "usage_rollups_account_hourly_key" UNIQUE NULLS NOT DISTINCT("user_id","bucket","model","provider_id")
);
--> statement-breakpoint
CREATE TABLE "usage_rollups_operator_daily" (
	"bucket" timestamp with time zone NOT NULL,
	"model" text NOT NULL,
	"provider_id" text,
	"stripe" smallint NOT NULL,
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
	CONSTRAINT "usage_rollups_operator_daily_key" UNIQUE NULLS NOT DISTINCT("bucket","model","provider_id","stripe")
);
--> statement-breakpoint
-- The new sums of what is already there, from the finer sums (the raw rows may be gone: retention drops
-- rows, never sums). The per-key sums hold every settled row, so these equal what the settlement statement
-- would have added row by row.
INSERT INTO "usage_rollups_account" ("user_id", "bucket", "model", "provider_id", "requests", "failed_requests", "retried_requests", "attempts", "prompt_tokens", "completion_tokens", "total_tokens", "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "priced_requests", "priced_cost_nano", "provider_cost_nano")
SELECT "user_id", "bucket", "model", "provider_id", sum("requests"), sum("failed_requests"), sum("retried_requests"), sum("attempts"), sum("prompt_tokens"), sum("completion_tokens"), sum("total_tokens"), sum("cost_nano"), sum("prompt_cost_nano"), sum("completion_cost_nano"), sum("unpaid_nano"), sum("priced_requests"), sum("priced_cost_nano"), sum("provider_cost_nano")
FROM "usage_rollups"
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "usage_rollups_account_hourly" ("user_id", "bucket", "model", "provider_id", "requests", "failed_requests", "retried_requests", "attempts", "prompt_tokens", "completion_tokens", "total_tokens", "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "priced_requests", "priced_cost_nano", "provider_cost_nano")
SELECT "user_id", date_bin('1 hour', "bucket", timestamptz '2000-01-01 00:00:00+00'), "model", "provider_id", sum("requests"), sum("failed_requests"), sum("retried_requests"), sum("attempts"), sum("prompt_tokens"), sum("completion_tokens"), sum("total_tokens"), sum("cost_nano"), sum("prompt_cost_nano"), sum("completion_cost_nano"), sum("unpaid_nano"), sum("priced_requests"), sum("priced_cost_nano"), sum("provider_cost_nano")
FROM "usage_rollups_account"
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "usage_rollups_account_daily" ("user_id", "bucket", "model", "provider_id", "requests", "failed_requests", "retried_requests", "attempts", "prompt_tokens", "completion_tokens", "total_tokens", "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "priced_requests", "priced_cost_nano", "provider_cost_nano")
SELECT "user_id", "bucket", "model", "provider_id", sum("requests"), sum("failed_requests"), sum("retried_requests"), sum("attempts"), sum("prompt_tokens"), sum("completion_tokens"), sum("total_tokens"), sum("cost_nano"), sum("prompt_cost_nano"), sum("completion_cost_nano"), sum("unpaid_nano"), sum("priced_requests"), sum("priced_cost_nano"), sum("provider_cost_nano")
FROM "usage_rollups_daily"
GROUP BY 1, 2, 3, 4;--> statement-breakpoint
INSERT INTO "usage_rollups_operator_daily" ("bucket", "model", "provider_id", "stripe", "requests", "failed_requests", "retried_requests", "attempts", "prompt_tokens", "completion_tokens", "total_tokens", "cost_nano", "prompt_cost_nano", "completion_cost_nano", "unpaid_nano", "priced_requests", "priced_cost_nano", "provider_cost_nano")
SELECT "bucket", "model", "provider_id", 0, sum("requests"), sum("failed_requests"), sum("retried_requests"), sum("attempts"), sum("prompt_tokens"), sum("completion_tokens"), sum("total_tokens"), sum("cost_nano"), sum("prompt_cost_nano"), sum("completion_cost_nano"), sum("unpaid_nano"), sum("priced_requests"), sum("priced_cost_nano"), sum("provider_cost_nano")
FROM "usage_rollups_daily"
GROUP BY 1, 2, 3;--> statement-breakpoint
-- Nearly every write adds to a row already there: room on each page for HOT updates, as usage_rollups.
ALTER TABLE "usage_rollups_account" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "usage_rollups_account_hourly" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "usage_rollups_account_daily" SET (fillfactor = 70);--> statement-breakpoint
ALTER TABLE "usage_rollups_operator_daily" SET (fillfactor = 70);--> statement-breakpoint
-- A correction of usage rows by hand moves these sums too, as usage_rollups_follow_update (0026) moves the
-- per-key ones. The service's sums are corrected in the correcting connection's stripe, which may then
-- hold a negative part of a group whose positive part is in another stripe: only a stripe whose every sum
-- is zero is dropped, and a group whose stripes sum to nothing is left for readers to skip (operators'
-- daily figures show no group without requests), since deleting it could race a writer adding to it.
CREATE FUNCTION "usage_rollups_fleet_follow_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_rollups_account AS t (user_id, bucket, model, provider_id, requests, failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano)
  SELECT user_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00'), model, provider_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status <> 'ok'), 0),
    coalesce(sum(sign) FILTER (WHERE attempts > 1), 0), coalesce(sum(sign * attempts), 0), sum(sign * prompt_tokens),
    sum(sign * completion_tokens), sum(sign * total_tokens), sum(sign * cost_nano), sum(sign * prompt_cost_nano),
    sum(sign * completion_cost_nano), sum(sign * unpaid_nano),
    coalesce(sum(sign) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * cost_nano) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * provider_cost_nano), 0)
  FROM (SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1 AS sign, * FROM new_rows) moved
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT usage_rollups_account_key DO UPDATE SET
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
  DELETE FROM usage_rollups_account t
  WHERE t.requests = 0
    AND (t.user_id, t.bucket) IN (SELECT user_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') FROM old_rows);
  INSERT INTO usage_rollups_account_hourly AS t (user_id, bucket, model, provider_id, requests, failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano)
  SELECT user_id, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00'), model, provider_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status <> 'ok'), 0),
    coalesce(sum(sign) FILTER (WHERE attempts > 1), 0), coalesce(sum(sign * attempts), 0), sum(sign * prompt_tokens),
    sum(sign * completion_tokens), sum(sign * total_tokens), sum(sign * cost_nano), sum(sign * prompt_cost_nano),
    sum(sign * completion_cost_nano), sum(sign * unpaid_nano),
    coalesce(sum(sign) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * cost_nano) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * provider_cost_nano), 0)
  FROM (SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1 AS sign, * FROM new_rows) moved
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT usage_rollups_account_hourly_key DO UPDATE SET
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
  DELETE FROM usage_rollups_account_hourly t
  WHERE t.requests = 0
    AND (t.user_id, t.bucket) IN (SELECT user_id, date_bin('1 hour', created_at, timestamptz '2000-01-01 00:00:00+00') FROM old_rows);
  INSERT INTO usage_rollups_account_daily AS t (user_id, bucket, model, provider_id, requests, failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano)
  SELECT user_id, date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00'), model, provider_id, sum(sign), coalesce(sum(sign) FILTER (WHERE status <> 'ok'), 0),
    coalesce(sum(sign) FILTER (WHERE attempts > 1), 0), coalesce(sum(sign * attempts), 0), sum(sign * prompt_tokens),
    sum(sign * completion_tokens), sum(sign * total_tokens), sum(sign * cost_nano), sum(sign * prompt_cost_nano),
    sum(sign * completion_cost_nano), sum(sign * unpaid_nano),
    coalesce(sum(sign) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * cost_nano) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * provider_cost_nano), 0)
  FROM (SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1 AS sign, * FROM new_rows) moved
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT usage_rollups_account_daily_key DO UPDATE SET
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
  DELETE FROM usage_rollups_account_daily t
  WHERE t.requests = 0
    AND (t.user_id, t.bucket) IN (SELECT user_id, date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00') FROM old_rows);
  INSERT INTO usage_rollups_operator_daily AS t (bucket, model, provider_id, stripe, requests, failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano)
  SELECT date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00'), model, provider_id, (pg_backend_pid() % 16)::smallint, sum(sign), coalesce(sum(sign) FILTER (WHERE status <> 'ok'), 0),
    coalesce(sum(sign) FILTER (WHERE attempts > 1), 0), coalesce(sum(sign * attempts), 0), sum(sign * prompt_tokens),
    sum(sign * completion_tokens), sum(sign * total_tokens), sum(sign * cost_nano), sum(sign * prompt_cost_nano),
    sum(sign * completion_cost_nano), sum(sign * unpaid_nano),
    coalesce(sum(sign) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * cost_nano) FILTER (WHERE provider_cost_nano IS NOT NULL), 0),
    coalesce(sum(sign * provider_cost_nano), 0)
  FROM (SELECT -1 AS sign, * FROM old_rows UNION ALL SELECT 1 AS sign, * FROM new_rows) moved
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT ON CONSTRAINT usage_rollups_operator_daily_key DO UPDATE SET
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
  DELETE FROM usage_rollups_operator_daily t
  WHERE t.requests = 0 AND t.failed_requests = 0 AND t.retried_requests = 0 AND t.attempts = 0 AND t.prompt_tokens = 0 AND t.completion_tokens = 0 AND t.total_tokens = 0 AND t.cost_nano = 0 AND t.prompt_cost_nano = 0 AND t.completion_cost_nano = 0 AND t.unpaid_nano = 0 AND t.priced_requests = 0 AND t.priced_cost_nano = 0 AND t.provider_cost_nano = 0
    AND t.bucket IN (SELECT date_bin('1 day', created_at, timestamptz '2000-01-01 00:00:00+00') FROM old_rows);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "usage_rollups_fleet_follow_update" AFTER UPDATE ON "usage_records"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "usage_rollups_fleet_follow_update"();

ALTER TABLE "outbox" ADD COLUMN "lane" text;--> statement-breakpoint
CREATE INDEX "outbox_lane_idx" ON "outbox" USING btree ("lane") WHERE "outbox"."status" = 'pending';--> statement-breakpoint
UPDATE "outbox" SET "lane" = CASE WHEN "kind" = 'alerts.webhook' THEN 'alerts.webhook:' || ("payload"->>'userId') WHEN "agent_id" IS NOT NULL THEN "kind" || ':agent:' || "agent_id"::text ELSE "kind" || ':to:' || "recipient" END WHERE "status" = 'pending';

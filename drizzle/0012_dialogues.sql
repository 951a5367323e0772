ALTER TABLE "dialogue_messages" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD COLUMN "operator_name" text;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD COLUMN "client_message_id" text;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "client_name" text;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "held_by" text;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "held_by_name" text;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "held_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "owner_read_message_id" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "dialogue_messages_client_message_unique" ON "dialogue_messages" USING btree ("dialogue_id","client_message_id");--> statement-breakpoint
CREATE INDEX "dialogues_agent_activity_idx" ON "dialogues" USING btree ("agent_id","last_message_at","id");--> statement-breakpoint
CREATE INDEX "usage_records_agent_idx" ON "usage_records" USING btree ("agent_id","created_at") WHERE "usage_records"."agent_id" is not null;--> statement-breakpoint
CREATE INDEX "usage_records_agent_request_idx" ON "usage_records" USING btree ("agent_id","request_id") WHERE "usage_records"."agent_id" is not null;
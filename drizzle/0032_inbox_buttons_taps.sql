ALTER TABLE "dialogue_messages" ADD COLUMN "buttons" jsonb;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD COLUMN "kind" text;--> statement-breakpoint
CREATE INDEX "dialogue_messages_client_idx" ON "dialogue_messages" USING btree ("dialogue_id","id") WHERE "dialogue_messages"."role" = 'user';--> statement-breakpoint
CREATE INDEX "dialogues_waiting_idx" ON "dialogues" USING btree ("agent_id") WHERE "dialogues"."mode" = 'operator' and "dialogues"."held_by" is null;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD CONSTRAINT "dialogue_messages_kind_known" CHECK ("dialogue_messages"."kind" is null or "dialogue_messages"."kind" = 'tap');
ALTER TABLE "dialogue_messages" DROP CONSTRAINT "dialogue_messages_role_known";--> statement-breakpoint
DROP INDEX "appointments_slot_unique";--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "dialogue_id" uuid;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "canceled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD COLUMN "tool_name" text;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_dialogue_id_dialogues_id_fk" FOREIGN KEY ("dialogue_id") REFERENCES "public"."dialogues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "appointments_dialogue_idx" ON "appointments" USING btree ("dialogue_id") WHERE "appointments"."dialogue_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "appointments_slot_unique" ON "appointments" USING btree ("agent_id","staff_id","starts_at") WHERE "appointments"."status" <> 'canceled';--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD CONSTRAINT "dialogue_messages_role_known" CHECK ("dialogue_messages"."role" in ('user', 'assistant', 'operator', 'tool'));--> statement-breakpoint
-- The dialogue's buttons booked what was labelled 'assistant' before the model could book too.
UPDATE "appointments" SET "source" = 'button' WHERE "source" = 'assistant';--> statement-breakpoint
-- A button booking left its phone on the dialogue it was made in: where exactly one dialogue of the agent
-- holds that phone, that is the booking's dialogue, so its client can list and cancel it.
UPDATE "appointments" a SET "dialogue_id" = (
  SELECT d."id" FROM "dialogues" d WHERE d."agent_id" = a."agent_id" AND d."client_phone" = a."client_phone"
) WHERE a."source" = 'button' AND a."dialogue_id" IS NULL AND (
  SELECT count(*) FROM "dialogues" d WHERE d."agent_id" = a."agent_id" AND d."client_phone" = a."client_phone"
) = 1;

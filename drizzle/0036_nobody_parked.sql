ALTER TABLE "agents" ADD COLUMN "working_hours" jsonb;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "out_of_balance_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "operator_ack_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "rate_notice_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "dialogues_with_person_idx" ON "dialogues" USING btree ("held_at") WHERE "dialogues"."mode" = 'operator';
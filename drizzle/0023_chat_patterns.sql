ALTER TABLE "agents" ADD COLUMN "accepts_images" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD COLUMN "images" jsonb;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "answer_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "answer_locked_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "answer_request_id" text;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "last_keyboard" jsonb;--> statement-breakpoint
CREATE INDEX "dialogues_answer_due_idx" ON "dialogues" USING btree ("answer_due_at") WHERE "dialogues"."answer_due_at" is not null or "dialogues"."answer_locked_until" is not null;
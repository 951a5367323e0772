CREATE TABLE "visit_followups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"appointment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"outcome" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visit_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"appointment_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"dialogue_id" uuid,
	"score" integer NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "attendance" integer;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "attendance_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "attendance_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "review_delay_minutes" integer DEFAULT 120;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "review_low_score" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "review_url" text;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "rebook_days" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "no_show_message" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "visit_followups" ADD CONSTRAINT "visit_followups_appointment_id_appointments_id_fk" FOREIGN KEY ("appointment_id") REFERENCES "public"."appointments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_reviews" ADD CONSTRAINT "visit_reviews_appointment_id_appointments_id_fk" FOREIGN KEY ("appointment_id") REFERENCES "public"."appointments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_reviews" ADD CONSTRAINT "visit_reviews_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_reviews" ADD CONSTRAINT "visit_reviews_dialogue_id_dialogues_id_fk" FOREIGN KEY ("dialogue_id") REFERENCES "public"."dialogues"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "visit_followups_once" ON "visit_followups" USING btree ("appointment_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "visit_reviews_appointment_unique" ON "visit_reviews" USING btree ("appointment_id");--> statement-breakpoint
CREATE INDEX "visit_reviews_agent_idx" ON "visit_reviews" USING btree ("agent_id","created_at");
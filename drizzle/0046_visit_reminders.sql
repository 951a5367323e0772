CREATE TABLE "appointment_reminders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"appointment_id" uuid NOT NULL,
	"offset_minutes" integer NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "reminder_offsets_minutes" jsonb DEFAULT '[1440,120]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "quiet_from_minutes" integer DEFAULT 1260 NOT NULL;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD COLUMN "quiet_to_minutes" integer DEFAULT 540 NOT NULL;--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD CONSTRAINT "appointment_reminders_appointment_id_appointments_id_fk" FOREIGN KEY ("appointment_id") REFERENCES "public"."appointments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "appointment_reminders_once" ON "appointment_reminders" USING btree ("appointment_id","offset_minutes","starts_at");
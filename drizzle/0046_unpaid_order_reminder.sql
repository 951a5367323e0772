ALTER TABLE "commerce_settings" ADD COLUMN "unpaid_reminder_hours" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "unpaid_reminder_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "orders_unpaid_reminder_idx" ON "orders" USING btree ("created_at") WHERE "orders"."status" = 'pending' and "orders"."unpaid_reminder_at" is null;
ALTER TABLE "orders" DROP CONSTRAINT "orders_status_known";--> statement-breakpoint
ALTER TABLE "commerce_settings" ADD COLUMN "delivery" jsonb;--> statement-breakpoint
ALTER TABLE "commerce_settings" ADD COLUMN "unpaid_reminder_hours" integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "commerce_settings" ADD COLUMN "yookassa_receipts" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "commerce_settings" ADD COLUMN "receipt_vat_code" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "delivery" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "tracking_number" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cancel_reason" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "status_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "unpaid_reminder_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "orders_unpaid_reminder_idx" ON "orders" USING btree ("created_at") WHERE "orders"."status" = 'pending' and "orders"."unpaid_reminder_at" is null;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_status_known" CHECK ("orders"."status" in ('pending', 'paid', 'shipped', 'delivered', 'cancelled'));
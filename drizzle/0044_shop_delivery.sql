ALTER TABLE "commerce_settings" ADD COLUMN "delivery" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "delivery" jsonb;
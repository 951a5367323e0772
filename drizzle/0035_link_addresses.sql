-- Links issued before this release are bound to no address: they are voided (a new one is one click away).
DELETE FROM "email_verifications";--> statement-breakpoint
DELETE FROM "password_resets";--> statement-breakpoint
ALTER TABLE "email_verifications" ADD COLUMN "email" text NOT NULL;--> statement-breakpoint
ALTER TABLE "password_resets" ADD COLUMN "email" text NOT NULL;
ALTER TABLE "agents" ADD COLUMN "accepts_images" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD COLUMN "images" jsonb;
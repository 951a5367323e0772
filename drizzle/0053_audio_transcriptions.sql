ALTER TABLE "agents" ADD COLUMN "transcribe_voice" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "transcription_model" text;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "audio_ms" integer;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "kind" text DEFAULT 'per_token' NOT NULL;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "per_second_nano" bigint DEFAULT 0 NOT NULL;
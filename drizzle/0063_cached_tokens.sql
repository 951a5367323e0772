ALTER TABLE "usage_records" ADD COLUMN "cached_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "cache_write_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "reasoning_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "cached_prompt_nano_per_million" bigint;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "cache_write_nano_per_million" bigint;
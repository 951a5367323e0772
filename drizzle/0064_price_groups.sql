CREATE TABLE "price_group_prices" (
	"group_name" text NOT NULL,
	"pattern" text NOT NULL,
	"prompt_nano_per_million" bigint NOT NULL,
	"completion_nano_per_million" bigint NOT NULL,
	"kind" text DEFAULT 'per_token' NOT NULL,
	"per_second_nano" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "price_group_prices_group_name_pattern_pk" PRIMARY KEY("group_name","pattern")
);
--> statement-breakpoint
CREATE TABLE "price_groups" (
	"name" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"multiplier_ppm" bigint DEFAULT 1000000 NOT NULL,
	"allowed_models" text[],
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "price_groups_name_slug" CHECK ("price_groups"."name" ~ '^[a-z0-9][a-z0-9_-]{0,39}$'),
	CONSTRAINT "price_groups_multiplier_not_negative" CHECK ("price_groups"."multiplier_ppm" >= 0)
);
--> statement-breakpoint
-- Hand-written: the group every existing and new account starts in (×1, all models, the default), before
-- users.price_group points at it.
INSERT INTO "price_groups" ("name", "title", "multiplier_ppm", "is_default") VALUES ('base', 'Базовая', 1000000, true);--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "price_group" text DEFAULT 'base' NOT NULL;--> statement-breakpoint
ALTER TABLE "price_group_prices" ADD CONSTRAINT "price_group_prices_group_name_price_groups_name_fk" FOREIGN KEY ("group_name") REFERENCES "public"."price_groups"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE UNIQUE INDEX "price_groups_one_default" ON "price_groups" USING btree ("is_default") WHERE "price_groups"."is_default";--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_price_group_price_groups_name_fk" FOREIGN KEY ("price_group") REFERENCES "public"."price_groups"("name") ON DELETE restrict ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "users_price_group_idx" ON "users" USING btree ("price_group");
CREATE TABLE "promo_campaigns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"amount_nano" bigint NOT NULL,
	"kind" text NOT NULL,
	"code_count" integer NOT NULL,
	"uses_per_code" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"registered_after" timestamp with time zone,
	"stopped_at" timestamp with time zone,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "promo_campaigns_kind_known" CHECK ("promo_campaigns"."kind" in ('unique', 'shared')),
	CONSTRAINT "promo_campaigns_amount_positive" CHECK ("promo_campaigns"."amount_nano" > 0),
	CONSTRAINT "promo_campaigns_counts_positive" CHECK ("promo_campaigns"."code_count" > 0 and "promo_campaigns"."uses_per_code" > 0)
);
--> statement-breakpoint
CREATE TABLE "promo_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"code_sealed" text NOT NULL,
	"max_uses" integer NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "promo_codes_hash_unique" UNIQUE("code_hash"),
	CONSTRAINT "promo_codes_uses_within" CHECK ("promo_codes"."uses" >= 0 and "promo_codes"."uses" <= "promo_codes"."max_uses")
);
--> statement-breakpoint
CREATE TABLE "promo_redemptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid NOT NULL,
	"code_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"actor_id" uuid,
	"amount_nano" bigint NOT NULL,
	"ledger_entry_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "promo_campaigns" ADD CONSTRAINT "promo_campaigns_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promo_codes" ADD CONSTRAINT "promo_codes_campaign_id_promo_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."promo_campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promo_redemptions" ADD CONSTRAINT "promo_redemptions_campaign_id_promo_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."promo_campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promo_redemptions" ADD CONSTRAINT "promo_redemptions_code_id_promo_codes_id_fk" FOREIGN KEY ("code_id") REFERENCES "public"."promo_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promo_redemptions" ADD CONSTRAINT "promo_redemptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promo_redemptions" ADD CONSTRAINT "promo_redemptions_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "promo_campaigns_created_idx" ON "promo_campaigns" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "promo_codes_campaign_idx" ON "promo_codes" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "promo_redemptions_campaign_user_unique" ON "promo_redemptions" USING btree ("campaign_id","user_id");--> statement-breakpoint
CREATE INDEX "promo_redemptions_campaign_idx" ON "promo_redemptions" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE INDEX "promo_redemptions_code_idx" ON "promo_redemptions" USING btree ("code_id");--> statement-breakpoint
CREATE INDEX "promo_redemptions_user_idx" ON "promo_redemptions" USING btree ("user_id");
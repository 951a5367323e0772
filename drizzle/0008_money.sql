CREATE TABLE "admin_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"admin_id" uuid,
	"admin_email" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"before" jsonb,
	"after" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_leases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key_id" uuid NOT NULL,
	"instance_id" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"amount_nano" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "key_leases_amount_not_negative" CHECK ("key_leases"."amount_nano" >= 0)
);
--> statement-breakpoint
CREATE TABLE "model_prices" (
	"pattern" text PRIMARY KEY NOT NULL,
	"prompt_nano_per_million" bigint NOT NULL,
	"completion_nano_per_million" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topups" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"amount_nano" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"payment_id" text,
	"confirmation_url" text,
	"cancellation_reason" text,
	"credited_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "topups_payment_id_unique" UNIQUE("payment_id"),
	CONSTRAINT "topups_status_known" CHECK ("topups"."status" in ('pending', 'succeeded', 'canceled')),
	CONSTRAINT "topups_amount_positive" CHECK ("topups"."amount_nano" > 0)
);
--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "prompt_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "prompt_tokens" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "completion_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "completion_tokens" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "total_tokens" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "usage_records" ALTER COLUMN "total_tokens" SET DEFAULT 0;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "spend_limit_nano" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "limit_reset" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_nano" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "budget_period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "commerce_settings" ADD COLUMN "yookassa_shop_id" text;--> statement-breakpoint
ALTER TABLE "commerce_settings" ADD COLUMN "yookassa_secret_key_sealed" text;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "prompt_cost_nano" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "completion_cost_nano" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "unpaid_nano" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "blocked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "admin_audit" ADD CONSTRAINT "admin_audit_admin_id_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_leases" ADD CONSTRAINT "key_leases_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topups" ADD CONSTRAINT "topups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_audit_created_idx" ON "admin_audit" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "key_leases_key_idx" ON "key_leases" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "key_leases_expiry_idx" ON "key_leases" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "topups_user_idx" ON "topups" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "topups_pending_idx" ON "topups" USING btree ("created_at") WHERE "topups"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_credit_reference_unique" ON "ledger_entries" USING btree ("kind","reference") WHERE "ledger_entries"."kind" in ('topup', 'admin_credit');--> statement-breakpoint
CREATE INDEX "ledger_entries_day_idx" ON "ledger_entries" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_limit_reset_known" CHECK ("api_keys"."limit_reset" in ('none', 'day', 'week', 'month'));--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_known" CHECK ("users"."role" in ('user', 'admin'));
CREATE TABLE "balance_leases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"instance_id" text NOT NULL,
	"amount_nano" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balance_leases_amount_not_negative" CHECK ("balance_leases"."amount_nano" >= 0)
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"api_key_id" uuid,
	"agent_id" uuid,
	"request_id" text,
	"model" text NOT NULL,
	"stream" boolean DEFAULT false NOT NULL,
	"prompt_tokens" integer DEFAULT 0 NOT NULL,
	"completion_tokens" integer DEFAULT 0 NOT NULL,
	"total_tokens" integer DEFAULT 0 NOT NULL,
	"cost_nano" bigint DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"usage_source" text DEFAULT 'upstream' NOT NULL,
	"upstream_status" integer,
	"error" text,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "balance_leases" ADD CONSTRAINT "balance_leases_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "balance_leases_user_idx" ON "balance_leases" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "balance_leases_expiry_idx" ON "balance_leases" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "usage_records_user_idx" ON "usage_records" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "usage_records_key_idx" ON "usage_records" USING btree ("api_key_id","created_at");
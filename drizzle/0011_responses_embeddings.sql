CREATE TABLE "upstream_responses" (
	"response_id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"api_key_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "endpoint" text DEFAULT 'chat' NOT NULL;--> statement-breakpoint
ALTER TABLE "upstream_responses" ADD CONSTRAINT "upstream_responses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_responses" ADD CONSTRAINT "upstream_responses_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upstream_responses_user_idx" ON "upstream_responses" USING btree ("user_id","created_at");
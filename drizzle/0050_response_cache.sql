CREATE TABLE "response_cache" (
	"user_id" uuid NOT NULL,
	"request_hash" text NOT NULL,
	"api_key_id" uuid,
	"model" text NOT NULL,
	"status" integer NOT NULL,
	"content_type" text NOT NULL,
	"body" text NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"total_tokens" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "response_cache_pk" PRIMARY KEY("user_id","request_hash")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "cache" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE "response_cache" ADD CONSTRAINT "response_cache_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "response_cache_expiry_idx" ON "response_cache" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_cache_known" CHECK ("api_keys"."cache" in ('off', 'on', 'any'));
CREATE TABLE "rate_limit_day_windows" (
	"api_key_id" uuid NOT NULL,
	"window_day" integer NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "rate_limit_day_windows_pk" PRIMARY KEY("api_key_id","window_day")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_user_day_windows" (
	"user_id" uuid NOT NULL,
	"window_day" integer NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "rate_limit_user_day_windows_pk" PRIMARY KEY("user_id","window_day")
);
--> statement-breakpoint
ALTER TABLE "rate_limit_user_windows" ADD COLUMN "tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_limit_windows" ADD COLUMN "tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rpm" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "tpm" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rpd" integer;--> statement-breakpoint
ALTER TABLE "rate_limit_day_windows" ADD CONSTRAINT "rate_limit_day_windows_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rate_limit_user_day_windows" ADD CONSTRAINT "rate_limit_user_day_windows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
CREATE TABLE "rate_limit_windows" (
	"api_key_id" uuid NOT NULL,
	"window_minute" bigint NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "rate_limit_windows_pk" PRIMARY KEY("api_key_id","window_minute")
);
--> statement-breakpoint
ALTER TABLE "rate_limit_windows" ADD CONSTRAINT "rate_limit_windows_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;
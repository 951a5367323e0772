CREATE TABLE "rate_limit_user_windows" (
	"user_id" uuid NOT NULL,
	"window_minute" bigint NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "rate_limit_user_windows_pk" PRIMARY KEY("user_id","window_minute")
);
--> statement-breakpoint
ALTER TABLE "rate_limit_user_windows" ADD CONSTRAINT "rate_limit_user_windows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
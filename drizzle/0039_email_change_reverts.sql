CREATE TABLE "email_change_reverts" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"old_email" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_change_reverts" ADD CONSTRAINT "email_change_reverts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_change_reverts_user_idx" ON "email_change_reverts" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "email_change_reverts_expiry_idx" ON "email_change_reverts" USING btree ("expires_at");
CREATE TABLE "password_resets" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "sessions_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "password_resets_user_idx" ON "password_resets" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "password_resets_expiry_idx" ON "password_resets" USING btree ("expires_at");--> statement-breakpoint
-- Every instance caches who a dashboard token belongs to (accounts/token-users.ts). Whoever changes what
-- that cache holds (role, block, e-mail, sessions generation) or deletes the user, in whatever module,
-- tells every instance at commit through this trigger; balance updates (the hot path) do not fire it.
CREATE FUNCTION "conduit_notify_token_user"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('conduit_token_user_changed', OLD.id::text);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "users_token_user_changed" AFTER UPDATE OF "role", "blocked_at", "email", "sessions_generation" ON "users"
  FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role OR OLD.blocked_at IS DISTINCT FROM NEW.blocked_at
    OR OLD.email IS DISTINCT FROM NEW.email OR OLD.sessions_generation IS DISTINCT FROM NEW.sessions_generation)
  EXECUTE FUNCTION "conduit_notify_token_user"();--> statement-breakpoint
CREATE TRIGGER "users_token_user_deleted" AFTER DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "conduit_notify_token_user"();

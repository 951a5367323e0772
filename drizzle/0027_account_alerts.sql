CREATE TABLE "account_alerts" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"low_balance_threshold_nano" bigint,
	"key_limit_alerts" boolean DEFAULT true NOT NULL,
	"webhook_url" text,
	"webhook_secret_sealed" text,
	"low_balance_alerted_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_limit_alerts" (
	"key_id" uuid PRIMARY KEY NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"limit_nano" bigint NOT NULL,
	"alerted_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_alerts" ADD CONSTRAINT "account_alerts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key_limit_alerts" ADD CONSTRAINT "key_limit_alerts_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Re-arms the low-balance alert when money comes in: at the commit of a transaction that credited the user
-- (a top-up, an operator's credit, a bonus: any positive ledger row), by which time its balance update is
-- done, the alert is cleared if the user's money (balance plus leases) is at or above the threshold. A
-- trigger rather than a call in each credit path, so no path that credits can forget it.
CREATE FUNCTION "account_alerts_rearm"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "account_alerts" a SET "low_balance_alerted_at" = NULL
  WHERE a."user_id" = NEW."user_id" AND a."low_balance_alerted_at" IS NOT NULL
    AND a."low_balance_threshold_nano" IS NOT NULL
    AND (SELECT u."balance_nano" FROM "users" u WHERE u."id" = NEW."user_id")
        + COALESCE((SELECT sum(l."amount_nano") FROM "balance_leases" l WHERE l."user_id" = NEW."user_id"), 0)
        >= a."low_balance_threshold_nano";
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "ledger_entries_rearm_low_balance" AFTER INSERT ON "ledger_entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW."amount_nano" > 0)
  EXECUTE FUNCTION "account_alerts_rearm"();

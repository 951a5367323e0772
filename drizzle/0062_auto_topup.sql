CREATE TABLE "auto_topups" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"amount_nano" bigint NOT NULL,
	"threshold_nano" bigint NOT NULL,
	"monthly_limit_nano" bigint NOT NULL,
	"armed" boolean DEFAULT true NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_topups_amount_positive" CHECK ("auto_topups"."amount_nano" > 0),
	CONSTRAINT "auto_topups_threshold_not_negative" CHECK ("auto_topups"."threshold_nano" >= 0),
	CONSTRAINT "auto_topups_limit_covers_amount" CHECK ("auto_topups"."monthly_limit_nano" >= "auto_topups"."amount_nano")
);
--> statement-breakpoint
CREATE TABLE "saved_cards" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"method_id_sealed" text NOT NULL,
	"title" text NOT NULL,
	"card_type" text,
	"last4" text,
	"expiry_month" text,
	"expiry_year" text,
	"saved_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "topups" ADD COLUMN "auto" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "topups" ADD COLUMN "save_card" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "topups" ADD COLUMN "actor_id" uuid;--> statement-breakpoint
ALTER TABLE "auto_topups" ADD CONSTRAINT "auto_topups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_cards" ADD CONSTRAINT "saved_cards_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "saved_cards" ADD CONSTRAINT "saved_cards_saved_by_users_id_fk" FOREIGN KEY ("saved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topups" ADD CONSTRAINT "topups_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "topups_auto_idx" ON "topups" USING btree ("user_id","created_at") WHERE "topups"."auto";--> statement-breakpoint
-- Re-arms auto top-up when money comes in (as 0027 does for the low-balance alert): at the commit of a
-- transaction that credited the user (a top-up, an operator's credit, a promo: any positive ledger row), the
-- latch is set again if the user's money (balance plus leases) is at or above the threshold, so the next
-- fall below it is a new crossing. A trigger, so no credit path can forget it.
CREATE FUNCTION "auto_topups_rearm"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "auto_topups" a SET "armed" = true
  WHERE a."user_id" = NEW."user_id" AND NOT a."armed"
    AND (SELECT u."balance_nano" FROM "users" u WHERE u."id" = NEW."user_id")
        + COALESCE((SELECT sum(l."amount_nano") FROM "balance_leases" l WHERE l."user_id" = NEW."user_id"), 0)
        >= a."threshold_nano";
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "ledger_entries_rearm_auto_topup" AFTER INSERT ON "ledger_entries"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW."amount_nano" > 0)
  EXECUTE FUNCTION "auto_topups_rearm"();

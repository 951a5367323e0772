CREATE TABLE "customer_requisites" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"company_name" text DEFAULT '' NOT NULL,
	"inn" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operator_requisites" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"company_name" text NOT NULL,
	"inn" text NOT NULL,
	"kpp" text DEFAULT '' NOT NULL,
	"ogrn" text NOT NULL,
	"address" text NOT NULL,
	"bank_name" text NOT NULL,
	"bik" text NOT NULL,
	"account" text NOT NULL,
	"correspondent_account" text NOT NULL,
	"vat_note" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operator_requisites_single_row" CHECK ("operator_requisites"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE "customer_requisites" ADD CONSTRAINT "customer_requisites_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
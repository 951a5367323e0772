CREATE TABLE "invoices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"number" integer NOT NULL,
	"user_id" uuid NOT NULL,
	"amount_nano" bigint NOT NULL,
	"currency" text NOT NULL,
	"supplier" jsonb NOT NULL,
	"customer" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invoices_number_unique" UNIQUE("number"),
	CONSTRAINT "invoices_amount_positive" CHECK ("invoices"."amount_nano" > 0),
	CONSTRAINT "invoices_number_positive" CHECK ("invoices"."number" > 0)
);
--> statement-breakpoint
ALTER TABLE "customer_requisites" ADD COLUMN "kpp" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "customer_requisites" ADD COLUMN "address" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "operator_requisites" ADD COLUMN "director_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "operator_requisites" ADD COLUMN "accountant_name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invoices_user_idx" ON "invoices" USING btree ("user_id","created_at");
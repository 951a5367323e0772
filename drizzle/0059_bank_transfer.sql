CREATE TABLE "bank_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"import_id" uuid NOT NULL,
	"dedupe_key" text NOT NULL,
	"document_kind" text NOT NULL,
	"document_number" text NOT NULL,
	"document_date" date NOT NULL,
	"received_on" date NOT NULL,
	"amount_nano" bigint NOT NULL,
	"payer_name" text NOT NULL,
	"payer_inn" text NOT NULL,
	"payer_kpp" text NOT NULL,
	"payer_account" text NOT NULL,
	"payer_bank" text NOT NULL,
	"payer_bik" text NOT NULL,
	"purpose" text NOT NULL,
	"raw" jsonb NOT NULL,
	"status" text NOT NULL,
	"invoice_id" uuid,
	"problem" text,
	"credited_user_id" uuid,
	"ledger_reference" text,
	"decided_at" timestamp with time zone,
	"decided_by" uuid,
	"ignored_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bank_payments_dedupe_key_unique" UNIQUE("dedupe_key"),
	CONSTRAINT "bank_payments_status_known" CHECK ("bank_payments"."status" in ('matched', 'unmatched', 'credited', 'ignored')),
	CONSTRAINT "bank_payments_amount_positive" CHECK ("bank_payments"."amount_nano" > 0)
);
--> statement-breakpoint
CREATE TABLE "bank_statement_imports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"admin_id" uuid,
	"admin_email" text NOT NULL,
	"file_name" text DEFAULT '' NOT NULL,
	"encoding" text NOT NULL,
	"period_from" text DEFAULT '' NOT NULL,
	"period_to" text DEFAULT '' NOT NULL,
	"counts" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "status" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "valid_until" timestamp with time zone;--> statement-breakpoint
-- Счета issued before validity was kept: valid for the default 10 days from issue, as INVOICE_VALID_DAYS says.
UPDATE "invoices" SET "valid_until" = "created_at" + interval '10 days';--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "valid_until" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "paid_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "paid_on" date;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "paid_by" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "paid_by_admin" uuid;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "ledger_reference" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "cancelled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "bank_payments" ADD CONSTRAINT "bank_payments_import_id_bank_statement_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."bank_statement_imports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_payments" ADD CONSTRAINT "bank_payments_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_payments" ADD CONSTRAINT "bank_payments_credited_user_id_users_id_fk" FOREIGN KEY ("credited_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_payments" ADD CONSTRAINT "bank_payments_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_statement_imports" ADD CONSTRAINT "bank_statement_imports_admin_id_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bank_payments_status_idx" ON "bank_payments" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "bank_payments_import_idx" ON "bank_payments" USING btree ("import_id");--> statement-breakpoint
CREATE INDEX "bank_payments_invoice_idx" ON "bank_payments" USING btree ("invoice_id");--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_paid_by_admin_users_id_fk" FOREIGN KEY ("paid_by_admin") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invoices_pending_idx" ON "invoices" USING btree ("valid_until") WHERE "invoices"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_status_known" CHECK ("invoices"."status" in ('pending', 'paid', 'cancelled'));--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_paid_by_known" CHECK ("invoices"."paid_by" is null or "invoices"."paid_by" in ('statement', 'manual'));
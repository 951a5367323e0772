CREATE TABLE "closing_documents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"year" integer NOT NULL,
	"number" integer NOT NULL,
	"user_id" uuid NOT NULL,
	"month" text NOT NULL,
	"date" text NOT NULL,
	"amount_nano" bigint NOT NULL,
	"vat_nano" bigint NOT NULL,
	"facts" jsonb NOT NULL,
	"status" text DEFAULT 'issued' NOT NULL,
	"corrects" uuid,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "closing_documents_kind" CHECK ("closing_documents"."kind" in ('act', 'upd')),
	CONSTRAINT "closing_documents_status" CHECK ("closing_documents"."status" in ('issued', 'superseded')),
	CONSTRAINT "closing_documents_number_positive" CHECK ("closing_documents"."number" > 0)
);
--> statement-breakpoint
ALTER TABLE "operator_requisites" ADD COLUMN "closing_documents" text DEFAULT 'act' NOT NULL;--> statement-breakpoint
ALTER TABLE "operator_requisites" ADD COLUMN "upd_status" integer;--> statement-breakpoint
ALTER TABLE "closing_documents" ADD CONSTRAINT "closing_documents_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "closing_documents_year_number_unique" ON "closing_documents" USING btree ("year","number");--> statement-breakpoint
CREATE UNIQUE INDEX "closing_documents_issued_unique" ON "closing_documents" USING btree ("user_id","month","kind") WHERE "closing_documents"."status" = 'issued';--> statement-breakpoint
CREATE INDEX "closing_documents_user_idx" ON "closing_documents" USING btree ("user_id","month");--> statement-breakpoint
CREATE INDEX "closing_documents_month_idx" ON "closing_documents" USING btree ("month");
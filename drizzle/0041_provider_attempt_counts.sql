CREATE TABLE "provider_attempt_counts" (
	"provider_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"faults" integer DEFAULT 0 NOT NULL,
	"client_errors" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "provider_attempt_counts_provider_id_minute_pk" PRIMARY KEY("provider_id","minute")
);
--> statement-breakpoint
CREATE INDEX "provider_attempt_counts_minute_idx" ON "provider_attempt_counts" USING btree ("minute");
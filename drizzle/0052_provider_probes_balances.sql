CREATE TABLE "provider_balances" (
	"provider_id" text PRIMARY KEY NOT NULL,
	"balance_nano" bigint,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"error" text,
	"below" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provider_probes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "provider_probes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"provider_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"ok" boolean NOT NULL,
	"status" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"trigger" text DEFAULT 'schedule' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "probe_model" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "balance_url" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "balance_path" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "balance_threshold_nano" bigint;--> statement-breakpoint
CREATE INDEX "provider_probes_provider_idx" ON "provider_probes" USING btree ("provider_id","at");
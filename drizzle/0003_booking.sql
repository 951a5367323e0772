CREATE TABLE "appointments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"specialist_id" text NOT NULL,
	"service_id" text NOT NULL,
	"staff_id" integer NOT NULL,
	"external_service_id" integer NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"datetime" text NOT NULL,
	"client_name" text NOT NULL,
	"client_phone" text NOT NULL,
	"status" text NOT NULL,
	"external_record_id" text,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "booking_cache" (
	"agent_id" uuid NOT NULL,
	"key" text NOT NULL,
	"value" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "booking_cache_pk" PRIMARY KEY("agent_id","key")
);
--> statement-breakpoint
CREATE TABLE "booking_settings" (
	"agent_id" uuid PRIMARY KEY NOT NULL,
	"partner_token_sealed" text NOT NULL,
	"login_sealed" text NOT NULL,
	"password_sealed" text NOT NULL,
	"company_id" integer NOT NULL,
	"sync_enabled" boolean DEFAULT false NOT NULL,
	"slot_cache_ttl_minutes" integer DEFAULT 15 NOT NULL,
	"specialist_mapping" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"service_mapping" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_sync_at" timestamp with time zone,
	"last_sync_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_cache" ADD CONSTRAINT "booking_cache_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "booking_settings" ADD CONSTRAINT "booking_settings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "appointments_slot_unique" ON "appointments" USING btree ("agent_id","staff_id","starts_at");--> statement-breakpoint
CREATE INDEX "appointments_pending_idx" ON "appointments" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "booking_cache_expires_idx" ON "booking_cache" USING btree ("expires_at");
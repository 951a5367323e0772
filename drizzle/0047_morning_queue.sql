CREATE TABLE "morning_summaries" (
	"agent_id" uuid NOT NULL,
	"day" text NOT NULL,
	"listed" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "morning_summaries_pk" PRIMARY KEY("agent_id","day")
);
--> statement-breakpoint
ALTER TABLE "escalations" ADD COLUMN "quiet_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "escalations" ADD COLUMN "summarized_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "morning_summaries" ADD CONSTRAINT "morning_summaries_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "escalations_morning_idx" ON "escalations" USING btree ("quiet_until") WHERE "escalations"."quiet_until" is not null and "escalations"."summarized_at" is null;
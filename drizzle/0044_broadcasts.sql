CREATE TABLE "broadcast_recipients" (
	"broadcast_id" uuid NOT NULL,
	"peer_id" text NOT NULL,
	"outbox_id" bigint,
	"skipped" text,
	CONSTRAINT "broadcast_recipients_pk" PRIMARY KEY("broadcast_id","peer_id")
);
--> statement-breakpoint
CREATE TABLE "broadcasts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"request_id" text NOT NULL,
	"text" text NOT NULL,
	"recipients" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "broadcasts_request_unique" UNIQUE("agent_id","request_id")
);
--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "broadcasts_denied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "broadcast_recipients_broadcast_id_broadcasts_id_fk" FOREIGN KEY ("broadcast_id") REFERENCES "public"."broadcasts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "broadcast_recipients_outbox_id_outbox_id_fk" FOREIGN KEY ("outbox_id") REFERENCES "public"."outbox"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD CONSTRAINT "broadcasts_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "broadcast_recipients_outbox_idx" ON "broadcast_recipients" USING btree ("outbox_id");--> statement-breakpoint
CREATE INDEX "broadcasts_agent_idx" ON "broadcasts" USING btree ("agent_id","created_at");
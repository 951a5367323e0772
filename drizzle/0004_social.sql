CREATE TABLE "dialogue_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dialogue_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"dialogue_id" uuid NOT NULL,
	"role" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dialogue_messages_role_known" CHECK ("dialogue_messages"."role" in ('user', 'assistant', 'operator'))
);
--> statement-breakpoint
CREATE TABLE "social_events" (
	"agent_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"outcome" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	CONSTRAINT "social_events_pk" PRIMARY KEY("agent_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "social_settings" (
	"agent_id" uuid PRIMARY KEY NOT NULL,
	"group_id" bigint NOT NULL,
	"access_token_sealed" text NOT NULL,
	"secret_key_sealed" text NOT NULL,
	"confirmation_code" text,
	"callback_server_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "messaging_allowed" boolean;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "flow" jsonb;--> statement-breakpoint
ALTER TABLE "dialogues" ADD COLUMN "last_message_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dialogue_messages" ADD CONSTRAINT "dialogue_messages_dialogue_id_dialogues_id_fk" FOREIGN KEY ("dialogue_id") REFERENCES "public"."dialogues"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_events" ADD CONSTRAINT "social_events_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_settings" ADD CONSTRAINT "social_settings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dialogue_messages_dialogue_idx" ON "dialogue_messages" USING btree ("dialogue_id","id");--> statement-breakpoint
CREATE INDEX "social_events_pending_idx" ON "social_events" USING btree ("received_at") WHERE "social_events"."processed_at" is null;
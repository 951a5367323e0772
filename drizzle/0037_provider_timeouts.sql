CREATE TABLE "provider_timeouts" (
	"provider_id" text NOT NULL,
	"account" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_timeouts_provider_id_account_pk" PRIMARY KEY("provider_id","account")
);

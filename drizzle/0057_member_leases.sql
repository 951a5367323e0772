CREATE TABLE "member_leases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"instance_id" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"amount_nano" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_leases_amount_not_negative" CHECK ("member_leases"."amount_nano" >= 0)
);
--> statement-breakpoint
ALTER TABLE "member_leases" ADD CONSTRAINT "member_leases_organization_id_users_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_leases" ADD CONSTRAINT "member_leases_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_leases_member_idx" ON "member_leases" USING btree ("organization_id","user_id");--> statement-breakpoint
CREATE INDEX "member_leases_expiry_idx" ON "member_leases" USING btree ("expires_at");
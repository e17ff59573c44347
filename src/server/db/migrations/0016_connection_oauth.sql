CREATE TABLE "connection_authorizations" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"sealed" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "upstream_grant" text;--> statement-breakpoint
ALTER TABLE "connection_authorizations" ADD CONSTRAINT "connection_authorizations_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connection_authorizations_user_idx" ON "connection_authorizations" USING btree ("user_id");
CREATE TABLE "deployment_addresses" (
	"user_id" text NOT NULL,
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"proxy_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deployment_addresses_user_id_server_kind_server_ref_pk" PRIMARY KEY("user_id","server_kind","server_ref"),
	CONSTRAINT "deployment_addresses_proxy_id_unique" UNIQUE("proxy_id")
);
--> statement-breakpoint
ALTER TABLE "deployment_addresses" ADD CONSTRAINT "deployment_addresses_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The deployments there are keep their addresses (the platform's checks are nobody's clients).
INSERT INTO "deployment_addresses" ("user_id", "server_kind", "server_ref", "proxy_id")
SELECT "user_id", "server_kind", "server_ref", "proxy_id" FROM "deployments" WHERE "user_id" <> 'switchboard-platform'
ON CONFLICT DO NOTHING;

CREATE TABLE "custom_domains" (
	"domain" text PRIMARY KEY NOT NULL,
	"deployment_id" text NOT NULL,
	"token" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"verified_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"missing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "custom_domains_status_check" CHECK ("custom_domains"."status" in ('pending', 'verified', 'suspended'))
);
--> statement-breakpoint
ALTER TABLE "oauth_resource" ADD COLUMN "custom_domain" text;--> statement-breakpoint
ALTER TABLE "custom_domains" ADD CONSTRAINT "custom_domains_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "custom_domains_deployment_idx" ON "custom_domains" USING btree ("deployment_id");--> statement-breakpoint
ALTER TABLE "oauth_resource" ADD CONSTRAINT "oauth_resource_custom_domain_custom_domains_domain_fk" FOREIGN KEY ("custom_domain") REFERENCES "public"."custom_domains"("domain") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_resource" ADD CONSTRAINT "oauth_resource_custom_domain_unique" UNIQUE("custom_domain");
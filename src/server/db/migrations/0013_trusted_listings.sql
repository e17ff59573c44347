CREATE TABLE "catalog_listings" (
	"server_id" text PRIMARY KEY NOT NULL,
	"approved" jsonb,
	"approved_at" timestamp with time zone,
	"candidate" jsonb,
	"candidate_at" timestamp with time zone,
	"check_status" text,
	"check_detail" text,
	"checked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "deployment_listings" (
	"deployment_id" text PRIMARY KEY NOT NULL,
	"tools" jsonb NOT NULL,
	"prompts" jsonb NOT NULL,
	"resources" jsonb NOT NULL,
	"listed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"user_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_server_kind_server_ref_user_id_day_pk" PRIMARY KEY("server_kind","server_ref","user_id","day")
);
--> statement-breakpoint
ALTER TABLE "request_log" DROP CONSTRAINT "request_log_outcome_check";--> statement-breakpoint
DROP INDEX "mcp_servers_approved_use_idx";--> statement-breakpoint
DROP INDEX "mcp_servers_approved_category_use_idx";--> statement-breakpoint
ALTER TABLE "tool_stats" DROP CONSTRAINT "tool_stats_server_kind_server_ref_tool_hour_pk";--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "recent_users" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_stats" ADD COLUMN "user_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "tool_stats" ADD CONSTRAINT "tool_stats_server_kind_server_ref_tool_hour_user_id_pk" PRIMARY KEY("server_kind","server_ref","tool","hour","user_id");--> statement-breakpoint
ALTER TABLE "catalog_listings" ADD CONSTRAINT "catalog_listings_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_listings" ADD CONSTRAINT "deployment_listings_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "usage_daily_day_idx" ON "usage_daily" USING btree ("day");--> statement-breakpoint
CREATE INDEX "mcp_servers_approved_use_idx" ON "mcp_servers" USING btree ("is_approved","recent_users");--> statement-breakpoint
CREATE INDEX "mcp_servers_approved_category_use_idx" ON "mcp_servers" USING btree ("is_approved","category","recent_users");--> statement-breakpoint
-- A catalogue entry's listing so far came from any user's deployment: it waits as a candidate for
-- an admin (docs/product.md#trusted-listings); nothing of it stays public.
INSERT INTO "catalog_listings" ("server_id", "candidate", "candidate_at")
  SELECT c."server_ref", jsonb_build_object('tools', c."tools", 'prompts', c."prompts", 'resources', c."resources"), c."listed_at"
  FROM "server_capabilities" c JOIN "mcp_servers" m ON m."id" = c."server_ref"
  WHERE c."server_kind" = 'catalog'
  ON CONFLICT DO NOTHING;--> statement-breakpoint
DELETE FROM "server_capabilities" WHERE "server_kind" = 'catalog';--> statement-breakpoint
-- An owned server's deployment keeps the listing its page showed (its owner's own).
INSERT INTO "deployment_listings" ("deployment_id", "tools", "prompts", "resources", "listed_at")
  SELECT d."id", c."tools", c."prompts", c."resources", c."listed_at"
  FROM "deployments" d JOIN "server_capabilities" c ON c."server_kind" = d."server_kind" AND c."server_ref" = d."server_ref"
  WHERE d."server_kind" = 'owned'
  ON CONFLICT DO NOTHING;--> statement-breakpoint
ALTER TABLE "server_capabilities" DROP COLUMN "approved_tools";--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_outcome_check" CHECK ("request_log"."outcome" in ('ok', 'error', 'tool_error', 'cancelled', 'rate_limited'));

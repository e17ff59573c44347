ALTER TABLE "mcp_servers" ADD COLUMN "check_outcome" text;--> statement-breakpoint
ALTER TABLE "catalog_listings" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "catalog_listings" ADD COLUMN "outcome_tools" integer;--> statement-breakpoint
ALTER TABLE "catalog_listings" ADD COLUMN "outcome_detail" text;
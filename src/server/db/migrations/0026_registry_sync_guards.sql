ALTER TABLE "mcp_servers" ADD COLUMN "admin_hold" text;--> statement-breakpoint
CREATE INDEX "mcp_servers_registry_name_lower_idx" ON "mcp_servers" USING btree (lower("registry_name"));--> statement-breakpoint
-- Entries an admin sent back to pending before there was a hold: their registry must not relist them either.
UPDATE "mcp_servers" SET "admin_hold" = 'unapproved' WHERE "source" = 'imported' AND NOT "is_approved" AND "withdrawn_at" IS NULL;

ALTER TABLE "mcp_servers" ADD COLUMN "admin_hold" text;--> statement-breakpoint
CREATE INDEX "mcp_servers_registry_name_lower_idx" ON "mcp_servers" USING btree (lower("registry_name"));
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{mcp}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "resources" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "legacy" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Keys made before scopes keep working as they did: every scope they needed, marked so owners can narrow them.
UPDATE "api_keys" SET "scopes" = '{mcp,deploy,servers}'::text[], "legacy" = true;

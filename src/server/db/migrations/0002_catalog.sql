CREATE TABLE "mcp_servers" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"type" text NOT NULL,
	"source" text NOT NULL,
	"url" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"repository_url" text,
	"homepage" text,
	"documentation" text,
	"npx_command" text,
	"logo" text,
	"required_keys" jsonb,
	"is_approved" boolean DEFAULT false NOT NULL,
	"submitted_by" text,
	"registry_name" text,
	"version" text,
	"packages" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"use_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "mcp_servers_registry_name_unique" UNIQUE("registry_name")
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_submitted_by_user_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mcp_servers_approved_category_idx" ON "mcp_servers" USING btree ("is_approved","category");--> statement-breakpoint
CREATE INDEX "mcp_servers_approved_use_idx" ON "mcp_servers" USING btree ("is_approved","use_count");--> statement-breakpoint
CREATE INDEX "mcp_servers_approved_created_idx" ON "mcp_servers" USING btree ("is_approved","created_at");--> statement-breakpoint
CREATE INDEX "mcp_servers_approved_name_idx" ON "mcp_servers" USING btree ("is_approved","name");
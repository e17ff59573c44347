CREATE TABLE "registry_sync" (
	"upstream" text PRIMARY KEY NOT NULL,
	"watermark" text,
	"status" text DEFAULT 'ok' NOT NULL,
	"started_at" timestamp with time zone,
	"beat_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"last_ok_at" timestamp with time zone,
	"error" text,
	"progress" jsonb DEFAULT '{"pages":0,"entries":0}'::jsonb NOT NULL,
	"counts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"skipped" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "upstream" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "upstream_status" text;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "upstream_doc" jsonb;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "upstream_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "local_edits" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "withdrawn_at" timestamp with time zone;
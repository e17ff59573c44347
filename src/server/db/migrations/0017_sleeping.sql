ALTER TABLE "deployments" ADD COLUMN "last_active_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "keep_awake" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "slept_on" text;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "woke_ms" integer;
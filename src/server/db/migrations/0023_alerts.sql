CREATE TABLE "alert_settings" (
	"deployment_id" text PRIMARY KEY NOT NULL,
	"email" boolean DEFAULT true NOT NULL,
	"error_rate_pct" integer,
	"p95_ms" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_settings_error_rate_check" CHECK ("alert_settings"."error_rate_pct" between 1 and 100),
	CONSTRAINT "alert_settings_p95_check" CHECK ("alert_settings"."p95_ms" between 1 and 600000)
);
--> statement-breakpoint
CREATE TABLE "deployment_alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"deployment_id" text NOT NULL,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"email" text DEFAULT 'pending' NOT NULL,
	CONSTRAINT "deployment_alerts_kind_check" CHECK ("deployment_alerts"."kind" in ('crash_loop', 'start_failed', 'error_rate', 'latency', 'definitions', 'test')),
	CONSTRAINT "deployment_alerts_email_check" CHECK ("deployment_alerts"."email" in ('pending', 'sent', 'failed', 'off', 'throttled'))
);
--> statement-breakpoint
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_alerts" ADD CONSTRAINT "deployment_alerts_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deployment_alerts_open_idx" ON "deployment_alerts" USING btree ("deployment_id","kind") WHERE "deployment_alerts"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "deployment_alerts_deployment_idx" ON "deployment_alerts" USING btree ("deployment_id","opened_at" DESC NULLS LAST);
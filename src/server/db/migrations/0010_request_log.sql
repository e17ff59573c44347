CREATE TABLE "request_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"deployment_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"client_name" text,
	"client_version" text,
	"method" text NOT NULL,
	"name" text,
	"duration_ms" real NOT NULL,
	"outcome" text NOT NULL,
	"error_code" integer,
	"bytes_in" integer NOT NULL,
	"bytes_out" integer NOT NULL,
	"transport" text NOT NULL,
	CONSTRAINT "request_log_outcome_check" CHECK ("request_log"."outcome" in ('ok', 'error', 'tool_error', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "tool_stats" (
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"tool" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"calls" integer NOT NULL,
	"errors" integer NOT NULL,
	"buckets" integer[] NOT NULL,
	CONSTRAINT "tool_stats_server_kind_server_ref_tool_hour_pk" PRIMARY KEY("server_kind","server_ref","tool","hour")
);
--> statement-breakpoint
ALTER TABLE "request_log" ADD CONSTRAINT "request_log_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_log_deployment_at_idx" ON "request_log" USING btree ("deployment_id","at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "request_log_at_idx" ON "request_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "tool_stats_hour_idx" ON "tool_stats" USING btree ("hour");
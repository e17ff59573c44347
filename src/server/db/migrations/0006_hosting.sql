CREATE TABLE "deploy_actions" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"source" jsonb NOT NULL,
	"secrets" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"status_detail" text,
	"exit_code" integer,
	"restarts" integer DEFAULT 0 NOT NULL,
	"proxy_id" text NOT NULL,
	"pid" integer,
	"pid_start" text,
	"started_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deployments_proxy_id_unique" UNIQUE("proxy_id")
);
--> statement-breakpoint
CREATE TABLE "server_capabilities" (
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"tools" jsonb NOT NULL,
	"prompts" jsonb NOT NULL,
	"resources" jsonb NOT NULL,
	"listed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deploy_actions" ADD CONSTRAINT "deploy_actions_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deploy_actions_user_idx" ON "deploy_actions" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "deploy_actions_server_idx" ON "deploy_actions" USING btree ("server_kind","server_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "deployments_user_server_idx" ON "deployments" USING btree ("user_id","server_kind","server_ref");--> statement-breakpoint
CREATE INDEX "deployments_server_idx" ON "deployments" USING btree ("server_kind","server_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "server_capabilities_server_idx" ON "server_capabilities" USING btree ("server_kind","server_ref");
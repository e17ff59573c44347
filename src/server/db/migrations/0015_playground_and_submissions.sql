CREATE TABLE "rejected_submissions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" text NOT NULL,
	"name" text NOT NULL,
	"submitted_by" text NOT NULL,
	"submitted_at" timestamp with time zone NOT NULL,
	"rejected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "playground" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_submissions" ADD CONSTRAINT "rejected_submissions_submitted_by_user_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rejected_submissions_user_idx" ON "rejected_submissions" USING btree ("submitted_by","rejected_at");
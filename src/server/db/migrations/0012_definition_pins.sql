CREATE TABLE "definition_pins" (
	"user_id" text NOT NULL,
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"approved" jsonb,
	"approved_hash" text,
	"current" jsonb,
	"current_hash" text,
	"rejected_hash" text,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "definition_pins_user_id_server_kind_server_ref_kind_name_pk" PRIMARY KEY("user_id","server_kind","server_ref","kind","name")
);
--> statement-breakpoint
CREATE TABLE "definition_reviews" (
	"user_id" text NOT NULL,
	"server_kind" text NOT NULL,
	"server_ref" text NOT NULL,
	"pinned_kinds" text[] DEFAULT '{}'::text[] NOT NULL,
	"warn_only" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "definition_reviews_user_id_server_kind_server_ref_pk" PRIMARY KEY("user_id","server_kind","server_ref")
);
--> statement-breakpoint
ALTER TABLE "server_capabilities" ADD COLUMN "approved_tools" jsonb;--> statement-breakpoint
ALTER TABLE "definition_pins" ADD CONSTRAINT "definition_pins_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "definition_reviews" ADD CONSTRAINT "definition_reviews_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
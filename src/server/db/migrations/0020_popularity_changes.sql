CREATE TABLE "popularity_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"server_id" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
	"old_users" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "popularity_changes_at_idx" ON "popularity_changes" USING btree ("changed_at");--> statement-breakpoint
-- Every change of an entry's public popularity keeps the value it had before (search-repo.ts pages
-- a listing as of when it started; rows older than an hour are trimmed by the popularity slide).
CREATE FUNCTION "remember_popularity"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "popularity_changes" ("server_id", "old_users") VALUES (OLD."id", OLD."recent_users");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "mcp_servers_popularity_changed" AFTER UPDATE OF "recent_users" ON "mcp_servers"
  FOR EACH ROW WHEN (OLD."recent_users" IS DISTINCT FROM NEW."recent_users") EXECUTE FUNCTION "remember_popularity"();

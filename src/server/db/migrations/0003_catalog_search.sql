-- Directory search: full text (prefix matching) plus trigram similarity for typos.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- array_to_string is only STABLE; tags never depend on settings, so this wrapper may be IMMUTABLE.
CREATE OR REPLACE FUNCTION sb_tags_text(tags text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string(tags, ' '), '') $$;
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "search_doc" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple', coalesce("name", '') || ' ' || coalesce("id", '')), 'A') ||
  setweight(to_tsvector('simple', sb_tags_text("tags")), 'A') ||
  setweight(to_tsvector('simple', coalesce("description", '')), 'B')
) STORED;
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD COLUMN "search_text" text GENERATED ALWAYS AS (
  lower(coalesce("name", '') || ' ' || coalesce("id", '') || ' ' || sb_tags_text("tags"))
) STORED;
--> statement-breakpoint
CREATE INDEX "mcp_servers_search_doc_idx" ON "mcp_servers" USING gin ("search_doc");
--> statement-breakpoint
CREATE INDEX "mcp_servers_search_text_trgm_idx" ON "mcp_servers" USING gin ("search_text" gin_trgm_ops);

CREATE INDEX "mcp_servers_approved_category_use_idx" ON "mcp_servers" USING btree ("is_approved","category","use_count");--> statement-breakpoint
CREATE INDEX "mcp_servers_tags_idx" ON "mcp_servers" USING gin ("tags");--> statement-breakpoint
-- The vocabulary of the catalogue, for typo correction: a misspelt query word is matched by
-- trigram similarity against this small table (not against every row), then searched with
-- full text. Words are collected by a trigger; stale ones are harmless (they match nothing).
CREATE TABLE "search_words" ("word" text PRIMARY KEY);
--> statement-breakpoint
CREATE INDEX "search_words_trgm_idx" ON "search_words" USING gin ("word" gin_trgm_ops);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION sb_collect_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_words (word)
    SELECT w FROM unnest(tsvector_to_array(NEW.search_doc)) AS w
    WHERE length(w) BETWEEN 3 AND 40 AND w !~ '[0-9]'
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "mcp_servers_search_words" AFTER INSERT OR UPDATE OF "name", "id", "tags", "description" ON "mcp_servers"
  FOR EACH ROW EXECUTE FUNCTION sb_collect_search_words();
--> statement-breakpoint
INSERT INTO "search_words" ("word")
  SELECT DISTINCT w FROM "mcp_servers", unnest(tsvector_to_array("search_doc")) AS w
  WHERE length(w) BETWEEN 3 AND 40 AND w !~ '[0-9]'
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Relevance ranking reads the most-used matches of a query; with the search columns in the
-- index it never touches the table (an index-only scan, measured 4x faster at 100,000 rows).
CREATE INDEX "mcp_servers_approved_use_search_idx" ON "mcp_servers" USING btree ("is_approved", "use_count") INCLUDE ("id", "search_doc", "search_text");

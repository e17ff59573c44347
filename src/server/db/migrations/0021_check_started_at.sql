ALTER TABLE "catalog_listings" ADD COLUMN "check_started_at" timestamp with time zone;--> statement-breakpoint
-- Close spellings now come from each web process's search index (features/catalog/search-spell.ts):
-- nothing reads the vocabulary table any more, so its trigger stops costing every catalogue write.
DROP TRIGGER IF EXISTS "mcp_servers_search_words" ON "mcp_servers";
--> statement-breakpoint
DROP FUNCTION IF EXISTS sb_collect_search_words();
--> statement-breakpoint
DROP TABLE IF EXISTS "search_words";

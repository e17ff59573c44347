-- Each web process's search index (features/catalog/catalog-index.ts) refreshes by reading only the
-- entries changed since its last read: index_xid is the transaction that last changed anything the
-- index holds, and a row is new to a process exactly when that transaction is not visible in the
-- snapshot the process last read under (pg_visible_in_snapshot). Unlike a timestamp or a sequence,
-- this misses no transaction that committed late.
ALTER TABLE "mcp_servers" ADD COLUMN "index_xid" xid8 NOT NULL DEFAULT pg_current_xact_id();
--> statement-breakpoint
CREATE INDEX "mcp_servers_index_xid_idx" ON "mcp_servers" USING btree ("index_xid");
--> statement-breakpoint
-- A new row gets it from the default. An update gets it only when a column the index reads
-- changes: the trigger's WHEN decides without calling the function, so the usage flushes' use_count
-- updates (the table's most frequent writes) pay nothing for it.
CREATE OR REPLACE FUNCTION sb_mark_index_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.index_xid := pg_current_xact_id();
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "mcp_servers_index_change" BEFORE UPDATE ON "mcp_servers" FOR EACH ROW
  WHEN ((OLD.id, OLD.is_approved, OLD.category, OLD.type, OLD.tags, OLD.recent_users, OLD.created_at, OLD.name,
    OLD.description, OLD.check_outcome)
    IS DISTINCT FROM (NEW.id, NEW.is_approved, NEW.category, NEW.type, NEW.tags, NEW.recent_users, NEW.created_at, NEW.name,
    NEW.description, NEW.check_outcome))
  EXECUTE FUNCTION sb_mark_index_change();

-- One namespace for people and organisations (docs/decisions/025-organisations.md): a username and an
-- organisation's slug never name the same owner, in any letter case. The services check first and say
-- so in words; these triggers hold it when two people claim a name at once. Each takes a lock on the
-- name (lower case) for its transaction, then looks at the other table: the second claim waits for the
-- first to commit, sees it, and is refused as a unique violation (23505), which the callers already
-- answer as 'taken'.
CREATE OR REPLACE FUNCTION namespace_claim() RETURNS trigger AS $$
DECLARE
  claimed text;
BEGIN
  IF TG_TABLE_NAME = 'profiles' THEN
    claimed := NEW.username;
  ELSE
    claimed := NEW.slug;
  END IF;
  IF claimed IS NULL THEN
    RETURN NEW;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('switchboard-namespace'), hashtext(lower(claimed)));
  IF TG_TABLE_NAME = 'profiles' THEN
    IF EXISTS (SELECT 1 FROM "organization" WHERE lower(slug) = lower(claimed)) THEN
      RAISE EXCEPTION 'the name % is an organisation''s', claimed USING ERRCODE = 'unique_violation';
    END IF;
  ELSE
    IF EXISTS (SELECT 1 FROM "profiles" WHERE lower(username) = lower(claimed)) THEN
      RAISE EXCEPTION 'the name % is a person''s', claimed USING ERRCODE = 'unique_violation';
    END IF;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER profiles_namespace BEFORE INSERT OR UPDATE OF username ON "profiles" FOR EACH ROW EXECUTE FUNCTION namespace_claim();
--> statement-breakpoint
CREATE TRIGGER organization_namespace BEFORE INSERT OR UPDATE OF slug ON "organization" FOR EACH ROW EXECUTE FUNCTION namespace_claim();

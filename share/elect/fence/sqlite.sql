-- elect fencing for SQLite: see elect-fencing(7).
--
-- Load once into the database the guarded jobs write to:
--	sqlite3 store.db < /usr/share/elect/fence/sqlite.sql
-- and have each job take the fence in the transaction of its writes:
--	sqlite3 store.db ".parameter set :token $ELECT_TOKEN" \
--	    ".read /usr/share/elect/fence/sqlite-take.sql" ".read job.sql" COMMIT
--
-- The table holds the highest token accepted for each leadership (name
-- '-' unless :name is set); the trigger refuses to lower it, with the
-- error "elect_fence: stale token refused", which sqlite-take.sql turns
-- into the end of the job's transaction, none of its writes made.
-- Loading this file again changes nothing that is there.

CREATE TABLE IF NOT EXISTS elect_fence (
	name	TEXT PRIMARY KEY NOT NULL DEFAULT '-'
		CHECK (length(name) BETWEEN 1 AND 64
		    AND name NOT GLOB '*[^A-Za-z0-9._:@-]*'),
	token	INTEGER NOT NULL
		CHECK (typeof(token) = 'integer' AND token >= 0),
	since	TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TRIGGER IF NOT EXISTS elect_fence_stale
BEFORE UPDATE OF token ON elect_fence
WHEN NEW.token < OLD.token
BEGIN
	SELECT RAISE(ABORT, 'elect_fence: stale token refused: a newer leader has written');
END;

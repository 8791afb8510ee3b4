-- elect fencing for PostgreSQL: see elect-fencing(7).
--
-- Load once into the database the guarded jobs write to:
--	psql -v ON_ERROR_STOP=1 -f /usr/share/elect/fence/postgres.sql
-- and begin each job's transaction with the fence:
--	SELECT elect_fence(:'token');		-- psql -v token="$ELECT_TOKEN"
--	SELECT elect_fence(:'token', 'backup');	-- a named leadership
--
-- elect_fence(token, name) raises the highest token the database has
-- accepted for the leadership NAME (default '-') to TOKEN, or refuses an
-- older one with SQLSTATE EF001 and the message "elect_fence: stale
-- token ...", which aborts the transaction and so every write in it.
-- The fence's row stays locked until the transaction ends: a newer
-- leader's transaction waits for an older one that took the fence first,
-- and an older one that comes after a newer one has committed is
-- refused.  Loading this file again changes nothing that is there.

CREATE TABLE IF NOT EXISTS elect_fence (
	name	text PRIMARY KEY DEFAULT '-'
		CHECK (name ~ '^[A-Za-z0-9._:@-]{1,64}$'),
	token	bigint NOT NULL CHECK (token >= 0),
	since	timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION elect_fence(new_token bigint,
    leadership text DEFAULT '-')
RETURNS bigint
LANGUAGE plpgsql
AS $fence$
DECLARE
	have bigint;
BEGIN
	IF new_token IS NULL OR leadership IS NULL THEN
		RAISE EXCEPTION 'elect_fence: no token (ELECT_TOKEN is set by elect-node --run-if-leader under lease)'
		    USING ERRCODE = 'EF002';
	END IF;
	INSERT INTO elect_fence AS f (name, token)
	    VALUES (leadership, new_token)
	    ON CONFLICT (name) DO UPDATE
		SET token = excluded.token, since = now()
		WHERE f.token <= excluded.token
	    RETURNING f.token INTO have;
	IF NOT FOUND THEN
		-- The row is locked by the upsert that did not update it.
		SELECT f.token INTO have FROM elect_fence AS f
		    WHERE f.name = leadership;
		RAISE EXCEPTION 'elect_fence: stale token % refused: leadership "%" has accepted %',
		    new_token, leadership, have
		    USING ERRCODE = 'EF001',
		    HINT = 'A newer leader has written: this job''s leadership is over.';
	END IF;
	RETURN new_token;
END
$fence$;

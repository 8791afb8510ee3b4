-- elect fencing for SQLite: takes the fence in a new transaction, which
-- the job's writes and its COMMIT follow.  See elect-fencing(7).
--	sqlite3 store.db ".parameter set :token $ELECT_TOKEN" \
--	    ".read /usr/share/elect/fence/sqlite-take.sql" ".read job.sql" COMMIT
-- :name, if set, names the leadership (default '-').  An older token
-- than the one accepted ends sqlite3 with the trigger's error, exit 1,
-- before anything else is run; the transaction is rolled back.
.bail on
BEGIN IMMEDIATE;
INSERT INTO elect_fence (name, token) VALUES (coalesce(:name, '-'), :token)
    ON CONFLICT (name) DO UPDATE
	SET token = excluded.token,
	    since = strftime('%Y-%m-%dT%H:%M:%fZ', 'now');

-- Teams on a shared server: every row of every table belongs to one, and row-level
-- security keyed on the connected role lets a role see its teams' rows only, and write to
-- those it is a member of without --read-only. The store's owner (the role owning the
-- tables, who runs `vybe admin`) is not subject to it and sees every team; a single-user
-- store has its owner only, so all its rows stay in the team 'default', as before.
CREATE TABLE teams (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);
INSERT INTO teams (name, created_at)
VALUES ('default', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'));

CREATE TABLE team_members (
    role TEXT NOT NULL,
    team TEXT NOT NULL REFERENCES teams (name),
    read_only INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (role, team)
);

-- The policies' functions are PL/pgSQL (their plans are cached; a SQL function's body would
-- be planned again at every call), name every table and function by its schema and run
-- with a fixed search_path, pg_temp last: a member's own temporary table or function
-- cannot stand in for team_members or pg_has_role.

-- Who asks: the connected role; inside `vybe data query`'s reader function (SECURITY
-- DEFINER, owned by vybe_reader, vybe.store.pg_reader) the role that connected, so a query
-- sees what its caller sees. Only the owner may SET ROLE vybe_reader.
CREATE FUNCTION vybe_viewer() RETURNS name LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN CASE WHEN current_user = 'vybe_reader' THEN session_user ELSE current_user END;
END $$;

-- The store's owner (or a superuser) sees every team.
CREATE FUNCTION vybe_sees_all() RETURNS boolean LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT pg_catalog.pg_has_role(public.vybe_viewer(), c.relowner, 'MEMBER')
        FROM pg_catalog.pg_class c WHERE c.oid = 'public.teams'::pg_catalog.regclass);
END $$;

-- The teams the asker is a member of (directly or through a role it belongs to); with
-- ``writable``, those it may write to; '{*}' for the owner. A policy compares it with
-- ARRAY[team, '*'] in one sub-select: one call a statement.
CREATE FUNCTION vybe_teams(writable boolean) RETURNS text[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    viewer name := CASE WHEN current_user = 'vybe_reader' THEN session_user ELSE current_user END;
BEGIN
    -- vybe_viewer() and vybe_sees_all() written out: one call, not three.
    IF (SELECT pg_catalog.pg_has_role(viewer, c.relowner, 'MEMBER') FROM pg_catalog.pg_class c
        WHERE c.oid = 'public.teams'::pg_catalog.regclass) THEN
        RETURN '{*}';
    END IF;
    RETURN (SELECT coalesce(array_agg(m.team), '{}') FROM public.team_members m
        JOIN pg_catalog.pg_roles r ON r.rolname = m.role
        WHERE pg_catalog.pg_has_role(viewer, r.oid, 'MEMBER')
            AND NOT (writable AND m.read_only <> 0));
END $$;

-- The team a new row belongs to: the one this transaction names (SET LOCAL vybe.team, from
-- VYBE_TEAM), else the writer's one writable team, else the owner's 'default'.
CREATE FUNCTION vybe_team() RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    named text := nullif(current_setting('vybe.team', true), '');
    mine text[];
BEGIN
    IF named IS NOT NULL THEN
        RETURN named;
    END IF;
    mine := public.vybe_teams(true);
    IF mine = '{*}' THEN
        RETURN 'default';
    END IF;
    IF cardinality(mine) = 1 THEN
        RETURN mine[1];
    END IF;
    IF cardinality(mine) = 0 THEN
        RAISE EXCEPTION 'the role % may write to no vybe team', public.vybe_viewer()
            USING ERRCODE = '42501';
    END IF;
    RAISE EXCEPTION 'the role % writes to several vybe teams (%): name one with VYBE_TEAM',
        public.vybe_viewer(), array_to_string(mine, ', ') USING ERRCODE = 'VY002';
END $$;

ALTER TABLE teams ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_reads ON teams FOR SELECT
    USING (ARRAY[name, '*'] && (SELECT vybe_teams(false)));
ALTER TABLE team_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_reads ON team_members FOR SELECT
    USING ((SELECT vybe_sees_all()) OR EXISTS (SELECT 1 FROM pg_roles r
        WHERE r.rolname = team_members.role AND pg_has_role(vybe_viewer(), r.oid, 'MEMBER')));

-- Every other table: a team column (the rows already there in 'default'), and the same
-- four policies.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['projects', 'tasks', 'task_dependencies', 'events', 'artifacts',
        'agent_state', 'idempotency', 'memory', 'sessions', 'messages', 'checkpoints',
        'checkpoint_attempts', 'message_words', 'event_words', 'search_backlog',
        'compaction_receipts', 'handoff_context', 'session_typed']
    LOOP
        EXECUTE format('ALTER TABLE %I ADD COLUMN team TEXT NOT NULL DEFAULT %L', t, 'default');
        EXECUTE format('ALTER TABLE %I ALTER COLUMN team SET DEFAULT vybe_team()', t);
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY team_reads ON %I FOR SELECT USING (ARRAY[team, ''*''] && (SELECT vybe_teams(false)))', t);
        EXECUTE format('CREATE POLICY team_adds ON %I FOR INSERT WITH CHECK (ARRAY[team, ''*''] && (SELECT vybe_teams(true)))', t);
        EXECUTE format('CREATE POLICY team_changes ON %I FOR UPDATE USING (ARRAY[team, ''*''] && (SELECT vybe_teams(true)))'
            ' WITH CHECK (ARRAY[team, ''*''] && (SELECT vybe_teams(true)))', t);
        EXECUTE format('CREATE POLICY team_removes ON %I FOR DELETE USING (ARRAY[team, ''*''] && (SELECT vybe_teams(true)))', t);
    END LOOP;
END $$;

-- An agent's name is its team's: two teams' agents may both be called claude.
ALTER TABLE agent_state DROP CONSTRAINT agent_state_pkey, ADD PRIMARY KEY (team, agent_name);

-- A memory's key is its team's too.
DROP INDEX memory_live_key;
CREATE UNIQUE INDEX memory_live_key ON memory (team, scope, scope_id, key)
    WHERE superseded_by IS NULL;

-- The rows the record's triggers write are their source row's team.
CREATE OR REPLACE FUNCTION vybe_index_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'messages' THEN
        INSERT INTO message_words (id, words, team)
        VALUES (NEW.id, vybe_message_words(NEW), NEW.team);
    ELSE
        INSERT INTO event_words (id, words, team) VALUES (NEW.id, vybe_event_words(NEW), NEW.team);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION vybe_count_typed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO session_typed (session_id, typed, team) VALUES (NEW.session_id, 1, NEW.team)
    ON CONFLICT (session_id) DO UPDATE SET typed = session_typed.typed + 1;
    RETURN NULL;
END $$;

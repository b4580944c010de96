-- A member's commit cost 1.21-1.26x the owner's: its statements' policies asked for the
-- member's teams about 15 times a commit (an initplan for each policy a statement applies,
-- and vybe_team() for each new row), each through two PL/pgSQL calls (vybe_teams, then
-- vybe_memberships, each with its own search_path to set) and three queries (the owner's
-- check on pg_class, then team_members joined to pg_roles, then aggregated). Now a policy
-- makes one call, to vybe_memberships, which runs one query: the owner's check and the
-- memberships together, each membership's role found by its name (to_regrole: no join
-- with pg_roles). What a role sees and may write is unchanged.
--
-- vybe_memberships is given current_user, as a policy sees it; inside `vybe data query`'s
-- reader function that is vybe_reader, and it answers for the role that connected instead
-- (as vybe_viewer() does). It answers only for a role the connected session may act as,
-- and '{*}' for the store's owner (the role owning the tables, as vybe_sees_all() says).
CREATE OR REPLACE FUNCTION vybe_memberships(viewer name, writable boolean) RETURNS text[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF viewer = 'vybe_reader' THEN
        viewer := session_user;
    END IF;
    IF NOT pg_catalog.pg_has_role(session_user, viewer, 'MEMBER') THEN
        RETURN '{}';
    END IF;
    RETURN (SELECT CASE WHEN pg_catalog.pg_has_role(viewer, c.relowner, 'MEMBER') THEN '{*}'
        ELSE ARRAY(SELECT m.team FROM public.team_members m
            WHERE pg_catalog.pg_has_role(viewer, pg_catalog.to_regrole(m.role), 'MEMBER')
                AND NOT (writable AND m.read_only <> 0)) END
        FROM pg_catalog.pg_class c WHERE c.oid = 'public.teams'::pg_catalog.regclass);
END $$;

-- What the policies ask, for a query's own use (`vybe data query`, psql).
CREATE OR REPLACE FUNCTION vybe_teams(writable boolean) RETURNS text[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN public.vybe_memberships(current_user, writable);
END $$;

-- vybe_team() as in 0020_teams.sql, its writable teams from vybe_memberships directly.
CREATE OR REPLACE FUNCTION vybe_team() RETURNS text LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    named text := nullif(current_setting('vybe.team', true), '');
    mine text[];
BEGIN
    IF named IS NOT NULL THEN
        RETURN named;
    END IF;
    mine := public.vybe_memberships(current_user, true);
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

-- The same four policies (0020_teams.sql), each one call of vybe_memberships in one
-- sub-select: an initplan, evaluated once a statement.
ALTER POLICY team_reads ON teams
    USING (ARRAY[name, '*'] && (SELECT vybe_memberships(current_user, false)));
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['projects', 'tasks', 'task_dependencies', 'events', 'artifacts',
        'agent_state', 'idempotency', 'memory', 'sessions', 'messages', 'checkpoints',
        'checkpoint_attempts', 'message_words', 'event_words', 'search_backlog',
        'compaction_receipts', 'handoff_context', 'session_typed']
    LOOP
        EXECUTE format('ALTER POLICY team_reads ON %I USING (ARRAY[team, ''*''] && (SELECT vybe_memberships(current_user, false)))', t);
        EXECUTE format('ALTER POLICY team_adds ON %I WITH CHECK (ARRAY[team, ''*''] && (SELECT vybe_memberships(current_user, true)))', t);
        EXECUTE format('ALTER POLICY team_changes ON %I USING (ARRAY[team, ''*''] && (SELECT vybe_memberships(current_user, true)))'
            ' WITH CHECK (ARRAY[team, ''*''] && (SELECT vybe_memberships(current_user, true)))', t);
        EXECUTE format('ALTER POLICY team_removes ON %I USING (ARRAY[team, ''*''] && (SELECT vybe_memberships(current_user, true)))', t);
    END LOOP;
END $$;

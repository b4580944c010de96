-- Teams as PostgreSQL roles. A policy asked for the member's teams (one call of
-- vybe_memberships, one query, for each policy of each statement: some 13 a commit, and
-- each planned as a sub-plan). Now it asks, of each row it checks, whether the role is in
-- that row's team's role: a lookup in the server's cached memberships, no query.
--
-- Each team has two NOLOGIN roles, made when its first member is granted:
-- vybe_<tag>_r_<team>, whose members read the team's rows, and vybe_<tag>_w_<team>, whose
-- members write them too (it is a member of the readers' role). team_members stays the
-- record `vybe admin list` shows; the roles are what the policies check, and `vybe admin
-- grant` and `revoke` change both in one transaction. Roles are the whole server's, so
-- <tag>, six hex digits drawn once for this database (and no other's on the server), keeps
-- two stores' teams of the same name apart.
DO $do$
DECLARE
    tag text;
    -- Who reaches a row: the role acting, when it is in the row's team's role (the one test
    -- a member's own rows take); inside `vybe data query`'s reader function (the role
    -- acting is vybe_reader) the role that connected, when it is in that role or may change
    -- the teams (the store's owner: the policies bind neither it nor its members outside
    -- that function). Each an expression: no sub-plan, no query. A policy is kept as it
    -- was parsed: neither a member's search_path nor its own functions change what it calls.
    reach text := '(pg_catalog.pg_has_role(pg_catalog.to_regrole(%1$L || %%1$I), ''MEMBER'')'
        ' OR CURRENT_USER = ''vybe_reader'' AND (pg_catalog.pg_has_role(SESSION_USER,'
        ' pg_catalog.to_regrole(%1$L || %%1$I), ''MEMBER'') OR pg_catalog.has_table_privilege('
        'SESSION_USER, ''public.teams''::pg_catalog.regclass, ''UPDATE'')))';
    reads text;
    writes text;
    t text;
BEGIN
    IF EXISTS (SELECT 1 FROM teams WHERE length(name) > 49) THEN
        RAISE EXCEPTION 'a team name is longer than 49 characters, too long for its roles'
            USING HINT = 'rename it (teams.name and every table''s team column) first';
    END IF;
    LOOP
        tag := 'vybe_' || substr(md5(random()::text || clock_timestamp()::text), 1, 6);
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname LIKE tag || '\_%');
    END LOOP;
    -- A team's readers' or writers' role's name. Plain SQL, its operator named by schema:
    -- it is folded into the query that calls it, whatever that query's search_path.
    EXECUTE format($f$CREATE FUNCTION vybe_team_role(team text, writable boolean)
        RETURNS text LANGUAGE sql IMMUTABLE
        AS $b$SELECT %L OPERATOR(pg_catalog.||) CASE WHEN writable THEN '_w_' ELSE '_r_' END
            OPERATOR(pg_catalog.||) team$b$ $f$, tag);
    reads := format(reach, tag || '_r_');
    writes := format(reach, tag || '_w_');
    EXECUTE format('ALTER POLICY team_reads ON teams USING %s', format(reads, 'name'));
    FOREACH t IN ARRAY ARRAY['projects', 'tasks', 'task_dependencies', 'events', 'artifacts',
        'agent_state', 'idempotency', 'memory', 'sessions', 'messages', 'checkpoints',
        'checkpoint_attempts', 'message_words', 'event_words', 'search_backlog',
        'compaction_receipts', 'handoff_context', 'session_typed']
    LOOP
        EXECUTE format('ALTER POLICY team_reads ON %I USING %s', t, format(reads, 'team'));
        EXECUTE format('ALTER POLICY team_adds ON %I WITH CHECK %s', t, format(writes, 'team'));
        EXECUTE format('ALTER POLICY team_changes ON %I USING %s WITH CHECK %s', t,
            format(writes, 'team'), format(writes, 'team'));
        EXECUTE format('ALTER POLICY team_removes ON %I USING %s', t, format(writes, 'team'));
    END LOOP;
END $do$;

-- Whether ``grantee`` was granted ``granted`` itself (not through another role).
CREATE FUNCTION vybe_in_role(grantee text, granted text) RETURNS boolean LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$SELECT EXISTS (SELECT 1 FROM pg_auth_members a
    WHERE a.roleid = to_regrole(granted) AND a.member = to_regrole(grantee))$$;

-- A team's two roles, made where they are missing (the writers' a member of the readers'),
-- and ``member`` given the one its membership needs and not the other; with read_only
-- NULL, neither. The owner runs it (CREATEROLE): `vybe admin grant` and `revoke`, the
-- migration below, `vybe store copy`.
CREATE FUNCTION vybe_team_member(member text, team text, read_only boolean) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    r text := public.vybe_team_role(team, false);
    w text := public.vybe_team_role(team, true);
    keep text := CASE WHEN read_only THEN r WHEN NOT read_only THEN w END;
    role text;
BEGIN
    FOREACH role IN ARRAY ARRAY[r, w] LOOP
        IF to_regrole(role) IS NULL THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', role);
        END IF;
    END LOOP;
    IF NOT public.vybe_in_role(w, r) THEN
        EXECUTE format('GRANT %I TO %I', r, w);
    END IF;
    FOREACH role IN ARRAY ARRAY[r, w] LOOP
        IF role = keep AND NOT public.vybe_in_role(quote_ident(member), role) THEN
            EXECUTE format('GRANT %I TO %I', role, member);
        ELSIF role IS DISTINCT FROM keep AND public.vybe_in_role(quote_ident(member), role) THEN
            EXECUTE format('REVOKE %I FROM %I', role, member);
        END IF;
    END LOOP;
END $$;
REVOKE EXECUTE ON FUNCTION vybe_team_member(text, text, boolean) FROM PUBLIC;

-- Every recorded membership given its role (of a role that still exists), as `vybe store
-- copy` does once it has copied team_members.
CREATE FUNCTION vybe_team_grants() RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM public.vybe_team_member(m.role, m.team, m.read_only <> 0)
        FROM public.team_members m WHERE to_regrole(quote_ident(m.role)) IS NOT NULL;
END $$;
REVOKE EXECUTE ON FUNCTION vybe_team_grants() FROM PUBLIC;
SELECT vybe_team_grants();

-- A role's teams, as the policies now see them: those whose readers' (or, ``writable``,
-- writers') role it is in. What vybe_team() names a new row's team from, and what
-- vybe_teams() tells a query.
CREATE OR REPLACE FUNCTION vybe_memberships(viewer name, writable boolean) RETURNS text[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF viewer = 'vybe_reader' THEN
        viewer := session_user;
    END IF;
    IF NOT pg_catalog.pg_has_role(session_user, viewer, 'MEMBER') THEN
        RETURN '{}';
    END IF;
    IF pg_catalog.has_table_privilege(viewer, 'public.teams', 'UPDATE') THEN
        RETURN '{*}';
    END IF;
    RETURN ARRAY(SELECT t.name FROM public.teams t
        WHERE pg_catalog.pg_has_role(viewer,
            pg_catalog.to_regrole(public.vybe_team_role(t.name, writable)), 'MEMBER')
        ORDER BY t.name);
END $$;

-- vybe_team() as in 0026_team_policy_calls.sql, and what it finds is kept for the rest of
-- the transaction (SET LOCAL vybe.team, as VYBE_TEAM would): one lookup a commit, not one
-- a new row. That setting only picks a row's team; the policies still check it.
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
        named := 'default';
    ELSIF cardinality(mine) = 1 THEN
        named := mine[1];
    ELSIF cardinality(mine) = 0 THEN
        RAISE EXCEPTION 'the role % may write to no vybe team', public.vybe_viewer()
            USING ERRCODE = '42501';
    ELSE
        RAISE EXCEPTION 'the role % writes to several vybe teams (%): name one with VYBE_TEAM',
            public.vybe_viewer(), array_to_string(mine, ', ') USING ERRCODE = 'VY002';
    END IF;
    PERFORM set_config('vybe.team', named, true);
    RETURN named;
END $$;

-- Who sees every team, as the policies say: a role that may change the teams (the store's
-- owner, its members, a superuser); inside `vybe data query`'s reader, the role that
-- connected. What `vybe admin` checks before it changes anything.
CREATE OR REPLACE FUNCTION vybe_sees_all() RETURNS boolean LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN pg_catalog.has_table_privilege(public.vybe_viewer(), 'public.teams', 'UPDATE');
END $$;

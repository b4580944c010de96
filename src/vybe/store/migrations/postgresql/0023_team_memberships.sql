-- A member's policies read its teams from team_members, which has row-level security of its
-- own: each read of it ran that table's policy too, vybe_viewer() once for every role of the
-- server, so a member's vybe_teams() cost 7x the owner's, and a member's commit, which asks
-- a dozen times (an initplan for each policy of each statement, and vybe_team() for each
-- new row), 1.4x the owner's. vybe_memberships reads team_members as the store's owner
-- (SECURITY DEFINER: past that table's policy) and answers only for a role the connected
-- session may act as (its own, or one it is a member of): a member learns its own teams,
-- never another role's, and a role the session is not in gets none.
--
-- vybe_teams keeps its checks and stays PL/pgSQL, for the reason 0020_teams.sql gives.
CREATE FUNCTION vybe_memberships(viewer name, writable boolean) RETURNS text[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, viewer, 'MEMBER') THEN
        RETURN '{}';
    END IF;
    RETURN (SELECT coalesce(array_agg(m.team), '{}') FROM public.team_members m
        JOIN pg_catalog.pg_roles r ON r.rolname = m.role
        WHERE pg_catalog.pg_has_role(viewer, r.oid, 'MEMBER')
            AND NOT (writable AND m.read_only <> 0));
END $$;

-- vybe_teams as before (0020_teams.sql), its membership read through vybe_memberships.
CREATE OR REPLACE FUNCTION vybe_teams(writable boolean) RETURNS text[] LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    viewer name := CASE WHEN current_user = 'vybe_reader' THEN session_user ELSE current_user END;
BEGIN
    IF (SELECT pg_catalog.pg_has_role(viewer, c.relowner, 'MEMBER') FROM pg_catalog.pg_class c
        WHERE c.oid = 'public.teams'::pg_catalog.regclass) THEN
        RETURN '{*}';
    END IF;
    RETURN public.vybe_memberships(viewer, writable);
END $$;

-- A hand-off between teams (`vybe task assign --to-team`): a writer of the task's team
-- gives that task, its hand-off event and the hand-off's context to another team. The
-- writer may neither see nor write that team's rows, so SECURITY DEFINER functions answer
-- for it, naming only what a hand-off needs: whether a team exists, whether an agent name
-- is known in any team (the one bit that tells a hand-off to an agent of another team from
-- one to an agent of the writer's own team not seen yet), and the move. None returns
-- another team's rows.
CREATE FUNCTION vybe_team_exists(team text) RETURNS boolean LANGUAGE plpgsql STABLE
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM public.teams t WHERE t.name = team);
END $$;

CREATE FUNCTION vybe_agent_known(agent text) RETURNS boolean LANGUAGE plpgsql STABLE
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM public.agent_state a WHERE a.agent_name = agent);
END $$;

-- The move itself, as the store's owner: the task, hand-off event ``event`` and its context
-- become ``to_team``'s, and the task's ties to its old team's rows (its dependencies both
-- ways, its project) go. Its search_path has public first for the tables' triggers (only
-- the owner creates there), pg_temp last. Only the writer that made that hand-off event may: the event is
-- of the task's team (which the writer could add to, or the INSERT's policy refused it) and
-- was added by this very transaction (its xmin), so no one moves a task it cannot write,
-- or by an old hand-off of someone else's.
CREATE FUNCTION vybe_hand_over(task text, event bigint, to_team text) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_catalog, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM public.teams t WHERE t.name = to_team)
        OR NOT EXISTS (SELECT 1 FROM public.events e JOIN public.tasks k ON k.id = e.task_id
            WHERE e.id = event AND e.task_id = task AND e.kind = 'task_assigned'
                AND e.team = k.team AND e.xmin = pg_current_xact_id()::xid) THEN
        RETURN false;
    END IF;
    DELETE FROM public.task_dependencies d WHERE d.task_id = task OR d.depends_on_task_id = task;
    UPDATE public.tasks SET team = to_team, project_id = NULL WHERE id = task;
    UPDATE public.events SET team = to_team WHERE id = event;
    UPDATE public.handoff_context SET team = to_team WHERE event_id = event;
    RETURN true;
END $$;

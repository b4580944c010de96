-- A hand-off between teams: on a PostgreSQL server, the functions and policies that let a
-- writer give one task to another team (postgresql/0021_team_handoffs.sql). A file has one
-- team, so there is nothing to add here.
SELECT 1;

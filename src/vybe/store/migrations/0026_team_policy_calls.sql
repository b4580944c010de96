-- The team policies ask for a member's teams with one call and one query on a PostgreSQL
-- server (postgresql/0026_team_policy_calls.sql). A file has one team and no policies, so
-- there is nothing to change here.
SELECT 1;

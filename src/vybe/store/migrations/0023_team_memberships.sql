-- The team policies' membership lookup made cheaper on a PostgreSQL server
-- (postgresql/0023_team_memberships.sql). A file has one team and no policies, so there is
-- nothing to change here.
SELECT 1;

-- Each team of a PostgreSQL server store is a pair of the server's roles, which its
-- policies check row by row (postgresql/0027_team_roles.sql). A file has one team and no
-- policies, so there is nothing to change here.
SELECT 1;

"""The reader role `vybe data query` runs as on a PostgreSQL store (vybe.store.pg_query):
``vybe_reader``, a NOLOGIN role that may only SELECT vybe's tables, and ``vybe_read_only``,
the SECURITY DEFINER function it owns, in which a query has only the reader's privileges.
The store makes them when it migrates (vybe.store.postgres), or at a first query."""

from __future__ import annotations

from psycopg import errors as pg_errors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

READER = "vybe_reader"
UNSAFE_READER = "VY001"  # the SQLSTATE the function raises if the reader may do more
# Made under the migrations' lock, in their transaction; every statement is idempotent, so
# it runs again after each migration (new tables) and at a first query on an older store.
# Handing the function to the reader takes a role that may SET ROLE to it (on PostgreSQL 16
# the maker of a role has only ADMIN on it, which grants the membership) and the reader's
# CREATE on the schema, which it has for that statement only: a store's owner that is no
# superuser could not hand the function over else.
ARRANGE = f"""
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{READER}') THEN
        CREATE ROLE {READER} NOLOGIN;
    END IF;
    IF NOT pg_has_role(current_user, '{READER}',
            CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'SET'
            ELSE 'MEMBER' END) THEN
        EXECUTE format('GRANT {READER} TO %I', current_user);
    END IF;
END $$;
GRANT USAGE ON SCHEMA public TO {READER};
GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READER};
CREATE OR REPLACE FUNCTION vybe_read_only(query TEXT) RETURNS SETOF RECORD
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $f$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user
               AND (rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb))
       OR EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member
                  WHERE r.rolname = current_user) THEN
        RAISE EXCEPTION 'the role % may do more than read', current_user
            USING ERRCODE = '{UNSAFE_READER}';
    END IF;
    RETURN QUERY EXECUTE query;
END $f$;
GRANT CREATE ON SCHEMA public TO {READER};
ALTER FUNCTION vybe_read_only(TEXT) OWNER TO {READER};
REVOKE CREATE ON SCHEMA public FROM {READER};
"""


def arrange(raw: Any) -> bool:
    """Make (or bring up to date) the reader role and function, in the caller's
    transaction; False, with nothing changed, where the connecting role may not."""
    raw.execute("SAVEPOINT vybe_reader")
    try:
        raw.execute(ARRANGE)
    except pg_errors.InsufficientPrivilege:
        raw.execute("ROLLBACK TO SAVEPOINT vybe_reader")
        return False
    raw.execute("RELEASE SAVEPOINT vybe_reader")
    return True

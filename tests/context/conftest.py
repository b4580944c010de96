import pytest

from vybe.context.record import MemoryRecord
from vybe.store import open_store
from vybe.store.record import SqliteRecord


@pytest.fixture(params=["store", "memory"])
def record(request, store_location):
    """Both implementations of the record: every behaviour must hold on each (the store's on
    the SQLite file or, under ``--store=postgres``, on the server)."""
    if request.param == "memory":
        yield MemoryRecord()
        return
    store = open_store(store_location)
    yield SqliteRecord(store)
    store.close()

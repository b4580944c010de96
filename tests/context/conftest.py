import pytest

from vybe.context.record import MemoryRecord
from vybe.store import Store
from vybe.store.record import SqliteRecord


@pytest.fixture(params=["sqlite", "memory"])
def record(request, tmp_path):
    """Both implementations of the record: every behaviour must hold on each."""
    if request.param == "memory":
        yield MemoryRecord()
        return
    store = Store(tmp_path / "vybe.db")
    yield SqliteRecord(store)
    store.close()

"""vybe.tuples.Row: a named tuple declared as a class, with what vybe uses of one."""

from __future__ import annotations

import copy
import pickle
from collections import namedtuple
from pathlib import Path

import pytest

import vybe
from vybe.context.types import MessageRow
from vybe.tuples import Row


class Point(Row):
    __slots__ = ()
    x: int
    y: int
    label: str = ""
    tags: tuple = ()


class Point3(Point):
    __slots__ = ()
    z: int = 0


Twin = namedtuple("Twin", "x y label tags", defaults=("", ()))


def test_fields_are_the_annotations_in_order_with_their_defaults():
    point = Point(1, 2)
    assert (point.x, point.y, point.label, point.tags) == (1, 2, "", ())
    assert Point._fields == ("x", "y", "label", "tags")
    assert Point(1, y=2, tags=("a",)) == (1, 2, "", ("a",))


def test_a_row_is_the_tuple_a_namedtuple_of_the_same_fields_is():
    point, twin = Point(1, 2, "p"), Twin(1, 2, "p")
    assert point == twin and hash(point) == hash(twin) and tuple(point) == tuple(twin)
    assert point._asdict() == twin._asdict()
    assert point._replace(y=5) == twin._replace(y=5)
    assert repr(point) == repr(twin).replace("Twin", "Point")
    x, y, *_ = point
    assert (x, y, point[2], point[-1]) == (1, 2, "p", ())


def test_a_subclass_adds_its_fields_after_its_bases():
    assert Point3._fields == ("x", "y", "label", "tags", "z")
    assert Point3(1, 2, z=3).z == 3
    assert Point(1, 2)._fields == ("x", "y", "label", "tags")


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((1,), {}),  # y missing
        ((1, 2, "p", (), "extra"), {}),
        ((1, 2), {"colour": "red"}),
        ((1, 2), {"x": 3}),  # x twice
    ],
)
def test_wrong_arguments_raise_type_error(args, kwargs):
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_replacing_an_unknown_field_raises_value_error():
    with pytest.raises(ValueError, match="colour"):
        Point(1, 2)._replace(colour="red")


def test_a_row_has_no_instance_dict_and_its_fields_are_read_only():
    point = Point(1, 2)
    with pytest.raises(AttributeError):
        point.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.colour = "red"  # type: ignore[attr-defined]


def test_a_row_survives_pickle_and_copy():
    row = MessageRow("s", 1, "user", "hi", data={"a": 1})
    for again in (pickle.loads(pickle.dumps(row)), copy.copy(row), copy.deepcopy(row)):
        assert again == row and type(again) is MessageRow


def test_a_message_row_gets_a_fresh_data_dict_each():
    first, second = MessageRow("s", 1, "user", "a"), MessageRow("s", 2, "user", "b")
    assert first.data == {} and first.data is not second.data


def test_no_module_of_vybe_defines_a_collections_namedtuple():
    """Each compiles its __new__ from source when its module loads: a hook loads a dozen."""
    source = Path(vybe.__file__).parent
    users = [p.name for p in source.rglob("*.py") if "namedtuple(" in p.read_text()]
    assert users == []

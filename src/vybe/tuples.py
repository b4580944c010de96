"""Tuples with named fields, declared as classes: vybe's record and option types.

``collections.namedtuple`` compiles each type's ``__new__`` from source text when its module
loads, and every hook process loads a dozen of them: a sizeable part of a bare
interpreter's start, on a path whose budget is 2x that start. A ``Row`` is
a plain class body (compiled once into the module's bytecode), with what vybe uses of a
named tuple: fields by name and position, defaults, ``_replace``, ``_asdict``, ``_fields``,
its repr, and equality, hashing, unpacking and pickling as the tuple it is::

    class Call(Row):
        __slots__ = ()
        id: str
        name: str
        arguments: dict = {}   # a default; fields after one need one too

The annotations, in order, are the fields (a subclass of a row type adds its own after
them); a value assigned to one is its default, shared by every row as a namedtuple's is.
"""

from __future__ import annotations

from operator import itemgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    R = TypeVar("R", bound="Row")


class Row(tuple[object, ...]):
    """A tuple whose fields the subclass's annotations name."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The class's own annotations (inspect, which would read them too, is a heavy import).
        names = tuple(cls.__dict__.get("__annotations__", ()))  # noqa: RUF063
        defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
        cls._fields = cls._fields + names
        cls._defaults = {**cls._defaults, **defaults}
        for index, name in enumerate(names, len(cls._fields) - len(names)):
            setattr(cls, name, property(itemgetter(index), doc=f"Field {index}: {name}"))

    def __new__(cls: type[R], *args: Any, **kwargs: Any) -> R:
        if kwargs or len(args) != len(cls._fields):
            args = cls._values(args, kwargs)
        return tuple.__new__(cls, args)

    @classmethod
    def _values(cls, args: tuple[object, ...], kwargs: dict[str, Any]) -> tuple[object, ...]:
        """The full row from positional and keyword values and the defaults; TypeError as a
        call with the wrong arguments raises it."""
        fields = cls._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__} takes {len(fields)} fields, got {len(args)}")
        values = list(args)
        for name in fields[len(args) :]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in cls._defaults:
                values.append(cls._defaults[name])
            else:
                raise TypeError(f"{cls.__name__}() missing its field {name!r}")
        if kwargs:
            raise TypeError(f"{cls.__name__}() got no field, or twice, {next(iter(kwargs))!r}")
        return tuple(values)

    def _replace(self: R, **changes: Any) -> R:
        """A copy with these fields changed (the subclass's ``__new__`` is not run again)."""
        values = tuple(
            changes.pop(name, value) for name, value in zip(self._fields, self, strict=True)
        )
        if changes:
            raise ValueError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
        return tuple.__new__(type(self), values)

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True)
        )
        return f"{type(self).__name__}({shown})"

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

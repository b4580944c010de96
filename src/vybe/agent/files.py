"""The file tools of the agent: read, write and edit, relative to the working folder.

They change files only inside the working folder and read only there unless the person
allowed more: every path is opened from the folder's own descriptor one component at a
time with no symlink followed, and a write goes to a temporary file renamed in place.

A hard link is a second name of one file, and may name a file that lives outside the folder
too (pnpm links every file of node_modules to its store). Only someone who may write the
folder holding the name can have made it, so a file with several names is read when that
folder is the user's own and no one else may write to it (the link came from the user or a
program of theirs, which could as well have copied the file there); otherwise a link another
account placed could hand the model a file of the user's from elsewhere, and it is refused.
Write and edit never change a file through any link (the rename replaces the name), but
replacing one name of a file with several splits it from the others, which keep the old
text (pnpm's store, a link the person made on purpose): they leave such a file alone."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import Any

from vybe import config
from vybe.errors import InvalidInput

MAX_LINES = 2000
MAX_BYTES = 50_000
BINARY_SNIFF = 8192  # a NUL in the first bytes: not text
CUT_NOTE = "[Output cut at {lines} lines / {kb} KB: {more}]"


def cut_output(text: str, more: str = "ask for less to see the rest") -> str:
    """At most MAX_LINES lines and MAX_BYTES bytes, saying so when anything was left out."""
    lines = text.splitlines(keepends=True)
    kept = "".join(lines[:MAX_LINES])
    data = kept.encode("utf-8")
    if len(data) > MAX_BYTES:
        kept = data[:MAX_BYTES].decode("utf-8", errors="ignore")
    if kept == text:
        return text
    note = CUT_NOTE.format(lines=MAX_LINES, kb=MAX_BYTES // 1000, more=more)
    return kept.rstrip("\n") + "\n" + note


def resolve(workdir: Path, path: object) -> Path:
    if not isinstance(path, str) or not path.strip() or "\0" in path:
        raise InvalidInput("path must be a non-empty string")
    return (workdir / Path(path).expanduser()).resolve()


def _inside(workdir: Path, path: object) -> list[str]:
    """The path's components below the working folder, judged on the text alone (no link
    is followed to decide it); outside the folder is refused."""
    if not isinstance(path, str) or not path.strip() or "\0" in path:
        raise InvalidInput("path must be a non-empty string")
    root = workdir.resolve()
    given = Path(path).expanduser()
    absolute = Path(os.path.normpath(given if given.is_absolute() else root / given))
    if absolute != root and root not in absolute.parents:
        raise InvalidInput(
            f"{path} is outside the working folder {root}: the file tools work only inside it"
            " (read goes further only when the person allows it)"
        )
    parts = list(absolute.relative_to(root).parts)
    if not parts:
        raise InvalidInput(f"{path} is the working folder itself, not a file")
    return parts


def _no_link(path: object, exc: OSError) -> InvalidInput:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return InvalidInput(f"{path}: a symbolic link on the way; the file tools never follow one")
    if exc.errno == errno.ENOENT:
        return InvalidInput(f"{path}: no such file")
    return InvalidInput(f"{path}: {exc.strerror}")


def _open_folder(workdir: Path, path: object, parts: list[str], make: bool) -> int:
    """A descriptor of the folder holding the file, reached one component at a time from
    the working folder's own descriptor with no symlink followed (so a folder swapped for a
    link after any check is refused, not followed); with ``make``, missing folders are made."""
    fd = os.open(workdir.resolve(), os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in parts[:-1]:
            if make:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, dir_fd=fd)
            next_fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = next_fd
    except OSError as exc:
        os.close(fd)
        raise _no_link(path, exc) from None
    return fd


def _regular(path: object, fd: int) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"{path} is not a regular file")
    return info


def _readable_links(path: object, folder: int, links: int) -> None:
    """A file with several names is read only from a folder that is the user's own and
    writable by no one else (see the module's docstring)."""
    info = os.fstat(folder)
    if info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return
    raise InvalidInput(
        f"{path} has {links} hard links and its folder is not yours alone: another account"
        " could have linked a file from outside the working folder there, so the file tools"
        " leave it alone"
    )


def _single_name(path: object, links: int) -> None:
    if links > 1:
        raise InvalidInput(
            f"{path} has {links} hard links: writing it would replace this name only and leave"
            " the others with the old text, so the file tools leave it alone"
        )


def _read_bytes(folder: int, path: object, name: str) -> tuple[bytes, os.stat_result]:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as exc:
        raise _no_link(path, exc) from None
    try:
        info = _regular(path, fd)
        if info.st_nlink > 1:
            _readable_links(path, folder, info.st_nlink)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(), info
    finally:
        os.close(fd)


def _load(workdir: Path, path: object, anywhere: bool) -> bytes:
    if anywhere:
        target = resolve(workdir, path)
        if not target.is_file():
            raise InvalidInput(f"{path}: no such file")
        return target.read_bytes()
    parts = _inside(workdir, path)
    folder = _open_folder(workdir, path, parts, make=False)
    try:
        return _read_bytes(folder, path, parts[-1])[0]
    finally:
        os.close(folder)


def read(
    workdir: Path,
    path: object,
    offset: Any = 1,
    limit: Any = MAX_LINES,
    *,
    anywhere: bool = False,
) -> str:
    """Lines ``offset``.. of a text file (1-based), at most ``limit`` of them; inside the
    working folder unless the person allowed reading ``anywhere``."""
    data = _load(workdir, path, anywhere)
    if b"\0" in data[:BINARY_SNIFF]:
        return f"(binary file, {len(data)} bytes: not shown)"
    start = max(int(offset or 1), 1)
    count = max(int(limit or MAX_LINES), 1)
    lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    chosen = "".join(lines[start - 1 : start - 1 + count])
    rest = len(lines) - (start - 1 + count)
    text = cut_output(chosen, f"read again with offset/limit ({len(lines)} lines in all)")
    if rest > 0 and text == chosen:
        text += f"\n[{rest} more lines: read again with offset={start + count}]"
    return text or "(empty file)"


def _replace(folder: int, name: str, data: bytes, mode: int | None) -> None:
    """Write ``data`` to a new file beside ``name`` and rename it over ``name``: a reader
    sees the old file or the new one, and whatever ``name`` was (a link) is not written."""
    config.write_whole(name, data, mode=mode, dir_fd=folder)


def _existing(folder: int, path: object, name: str) -> os.stat_result | None:
    """What ``name`` is now, without following it: None when missing; a link is refused."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise InvalidInput(f"{path} is a symbolic link; the file tools never follow one")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"{path} is not a regular file")
    _single_name(path, info.st_nlink)
    return info


def write(workdir: Path, path: object, content: object) -> str:
    """Create or replace a file with ``content``; parent folders are made."""
    parts = _inside(workdir, path)
    if not isinstance(content, str):
        raise InvalidInput("content must be a string")
    folder = _open_folder(workdir, path, parts, make=True)
    try:
        before = _existing(folder, path, parts[-1])
        mode = stat.S_IMODE(before.st_mode) if before else None
        _replace(folder, parts[-1], content.encode("utf-8"), mode)
    finally:
        os.close(folder)
    return f"wrote {len(content.encode('utf-8'))} bytes to {workdir.resolve().joinpath(*parts)}"


def edit(workdir: Path, path: object, old_text: object, new_text: object) -> str:
    """Replace the one occurrence of ``old_text``; none or several is an error."""
    parts = _inside(workdir, path)
    if not isinstance(old_text, str) or not old_text or not isinstance(new_text, str):
        raise InvalidInput("old_text must be a non-empty string and new_text a string")
    folder = _open_folder(workdir, path, parts, make=False)
    try:
        _existing(folder, path, parts[-1])
        data, info = _read_bytes(folder, path, parts[-1])
        _single_name(path, info.st_nlink)  # the file opened, not only the name looked at
        text = data.decode("utf-8")  # line endings as they are
        if "\r\n" in text and "\r\n" not in old_text:  # the model writes \n; the file, \r\n
            old_text, new_text = old_text.replace("\n", "\r\n"), new_text.replace("\n", "\r\n")
        found = text.count(old_text)
        if found != 1:
            where = "does not occur" if found == 0 else f"occurs {found} times"
            raise InvalidInput(f"old_text {where} in {path}; give a unique piece of the file")
        changed = text.replace(old_text, new_text, 1).encode("utf-8")
        _replace(folder, parts[-1], changed, stat.S_IMODE(info.st_mode))
    finally:
        os.close(folder)
    return f"edited {workdir.resolve().joinpath(*parts)}"

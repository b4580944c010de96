"""The file tools of the agent: read, write and edit, relative to the working folder."""

from __future__ import annotations

from pathlib import Path

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
    if not isinstance(path, str) or not path.strip():
        raise InvalidInput("path must be a non-empty string")
    return (workdir / Path(path).expanduser()).resolve()


def writable(workdir: Path, path: object) -> Path:
    """A path the file tools may change: inside the working folder, since writing anywhere
    (a shell's startup file, say) would get round the person's say over bash."""
    target = resolve(workdir, path)
    root = workdir.resolve()
    if target != root and root not in target.parents:
        raise InvalidInput(
            f"{path} is outside the working folder {root}: write and edit change files only"
            " inside it"
        )
    return target


def read(workdir: Path, path: object, offset: object = 1, limit: object = MAX_LINES) -> str:
    """Lines ``offset``.. of a text file (1-based), at most ``limit`` of them."""
    target = resolve(workdir, path)
    if not target.is_file():
        raise InvalidInput(f"{path}: no such file")
    with open(target, "rb") as handle:
        if b"\0" in handle.read(BINARY_SNIFF):
            return f"(binary file, {target.stat().st_size} bytes: not shown)"
    start = max(int(offset or 1), 1)
    count = max(int(limit or MAX_LINES), 1)
    lines = target.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    chosen = "".join(lines[start - 1 : start - 1 + count])
    rest = len(lines) - (start - 1 + count)
    text = cut_output(chosen, f"read again with offset/limit ({len(lines)} lines in all)")
    if rest > 0 and text == chosen:
        text += f"\n[{rest} more lines: read again with offset={start + count}]"
    return text or "(empty file)"


def write(workdir: Path, path: object, content: object) -> str:
    """Create or replace a file with ``content``; parent folders are made."""
    target = writable(workdir, path)
    if not isinstance(content, str):
        raise InvalidInput("content must be a string")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content.encode('utf-8'))} bytes to {target}"


def edit(workdir: Path, path: object, old_text: object, new_text: object) -> str:
    """Replace the one occurrence of ``old_text``; none or several is an error."""
    target = writable(workdir, path)
    if not target.is_file():
        raise InvalidInput(f"{path}: no such file")
    if not isinstance(old_text, str) or not old_text or not isinstance(new_text, str):
        raise InvalidInput("old_text must be a non-empty string and new_text a string")
    with open(target, encoding="utf-8", newline="") as handle:  # line endings as they are
        text = handle.read()
    if "\r\n" in text and "\r\n" not in old_text:  # the model writes \n; the file has \r\n
        old_text, new_text = old_text.replace("\n", "\r\n"), new_text.replace("\n", "\r\n")
    found = text.count(old_text)
    if found != 1:
        where = "does not occur" if found == 0 else f"occurs {found} times"
        raise InvalidInput(f"old_text {where} in {path}; give a unique piece of the file")
    with open(target, "w", encoding="utf-8", newline="") as handle:
        handle.write(text.replace(old_text, new_text, 1))
    return f"edited {target}"

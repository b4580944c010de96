"""Agent Skills: SKILL.md folders in the project's and the user's skills folders.

The system prompt lists each skill's name and description (from the SKILL.md frontmatter);
``skill_load`` returns a skill's whole text. A project folder (nearest first, from the
working folder up to the repository root) wins over the user's folder for the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vybe.config import config_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

PROJECT_FOLDERS = (".vybe/skills", ".claude/skills")
DESCRIPTION_LIMIT = 1024


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8", errors="replace")


def frontmatter(text: str) -> JSONObject:
    """The YAML mapping between the leading ``---`` lines, or {} when there is none."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
    if end is None:
        return {}
    import yaml

    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def project_roots(workdir: Path) -> list[Path]:
    """The working folder and its parents, up to the repository root (or home, or /)."""
    roots = []
    home = Path.home().resolve()
    for folder in [workdir.resolve(), *workdir.resolve().parents]:
        roots.append(folder)
        if (folder / ".git").exists() or folder == home:
            break
    return roots


def skill_folders(workdir: Path) -> list[Path]:
    """Where skills are looked for, in order of precedence."""
    folders = [root / sub for root in project_roots(workdir) for sub in PROJECT_FOLDERS]
    folders += [Path(config_dir(), "skills"), Path.home() / ".claude" / "skills"]
    return folders


def discover(workdir: Path) -> dict[str, Skill]:
    """Every skill found, by name; the first folder to define a name wins."""
    found: dict[str, Skill] = {}
    for folder in skill_folders(workdir):
        if not folder.is_dir():
            continue
        for skill_md in sorted(folder.glob("*/SKILL.md")):
            try:
                text = skill_md.read_text(encoding="utf-8", errors="replace")
            except OSError:  # a folder named SKILL.md, a dangling link: not a skill
                continue
            meta = frontmatter(text)
            name = str(meta.get("name") or skill_md.parent.name).strip()
            description = " ".join(str(meta.get("description") or "").split())
            if name and name not in found:
                found[name] = Skill(name, description[:DESCRIPTION_LIMIT], skill_md)
    return found


def catalog(skills: dict[str, Skill]) -> str:
    """One line per skill for the system prompt, or '' when there are none."""
    if not skills:
        return ""
    lines = [f"- {s.name}: {s.description or '(no description)'}" for s in skills.values()]
    return "\n".join(lines)


def load(skills: dict[str, Skill], name: object) -> str:
    """A skill's SKILL.md as it reads now, with the other files of its folder listed."""
    skill = skills.get(str(name))
    if skill is None:
        known = ", ".join(sorted(skills)) or "none"
        raise KeyError(f"no skill named {name!r}; the skills are: {known}")
    others = sorted(
        str(p.relative_to(skill.path.parent))
        for p in skill.path.parent.rglob("*")
        if p.is_file() and p != skill.path
    )
    listing = "\n".join(f"- {p}" for p in others[:50])
    extra = f"\n\nOther files of this skill (read them when the text asks):\n{listing}"
    return f"Skill {skill.name} ({skill.path}):\n\n{skill.text()}" + (extra if others else "")

"""Skills discovery: what cannot be read is not a skill, and does not stop the others."""

from __future__ import annotations

from vybe.agent import skills


def test_an_unreadable_skill_md_is_skipped(tmp_path, monkeypatch):
    folder = tmp_path / "skills"
    (folder / "broken" / "SKILL.md").mkdir(parents=True)  # a folder, not a file
    (folder / "dangling").mkdir()
    (folder / "dangling" / "SKILL.md").symlink_to(tmp_path / "gone.md")
    (folder / "good").mkdir()
    (folder / "good" / "SKILL.md").write_text("---\nname: good\ndescription: works\n---\nbody")
    monkeypatch.setattr(skills, "skill_folders", lambda workdir: [folder])
    assert list(skills.discover(tmp_path)) == ["good"]

"""PASS/FAIL lines and the summary line of the e2e suite."""

from __future__ import annotations


class Checks:
    def __init__(self) -> None:
        self.passed: list[str] = []
        self.failed: list[str] = []
        self.open: list[str] = []  # known breaks an open issue names: shown, not failing

    def known_open(self, name: str, ok: bool, detail: object = "") -> None:
        """A check of a break not fixed yet: OPEN while it fails, a plain PASS once it holds."""
        if ok:
            self.that(name, ok)
            return
        self.open.append(name)
        print(f"OPEN {name} (a known break, not fixed yet): {str(detail)[:200]}", flush=True)

    def that(self, name: str, ok: bool, detail: object = "") -> bool:
        if ok:
            self.passed.append(name)
            print(f"PASS {name}", flush=True)
        else:
            self.fail(name, detail)
        return ok

    def fail(self, name: str, detail: object = "") -> None:
        self.failed.append(name)
        text = str(detail).strip().replace("\n", "\n     ")
        print(f"FAIL {name}" + (f"\n     {text[:1500]}" if text else ""), flush=True)

    def summary(self, seconds: float) -> int:
        total = len(self.passed) + len(self.failed) + len(self.open)
        verdict = "OK" if not self.failed else "FAILED"
        still = f", {len(self.open)} known open" if self.open else ""
        print(f"e2e {verdict}: {len(self.passed)}/{total} checks passed{still} in {seconds:.0f} s")
        return 1 if self.failed else 0

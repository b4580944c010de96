"""PASS/FAIL lines and the summary line of the e2e suite."""

from __future__ import annotations


class Checks:
    def __init__(self) -> None:
        self.passed: list[str] = []
        self.failed: list[str] = []

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
        total = len(self.passed) + len(self.failed)
        verdict = "OK" if not self.failed else "FAILED"
        for name in self.failed:  # again at the end, where a log's tail shows them
            print(f"failed: {name}")
        print(f"e2e {verdict}: {len(self.passed)}/{total} checks passed in {seconds:.0f} s")
        return 1 if self.failed else 0

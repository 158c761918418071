"""A study's findings: what the paper reported, what we got, and whether that reproduces it.

Each study writes ``findings.json`` beside its report; the HTML report's summary table is
built from them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

STATUSES = ("reproduced", "partly", "not reproduced")


@dataclass
class Finding:
    """One claim of a paper checked against our run."""

    finding: str
    paper: Any
    ours: Any
    status: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of {STATUSES}")


def close(ours: float, paper: float, rel: float = 0.25, abs_: float = 0.0) -> bool:
    """True when ``ours`` is within ``rel`` (relative) or ``abs_`` (absolute) of ``paper``."""
    return abs(ours - paper) <= max(abs(paper) * rel, abs_)


def table(findings: list[Finding]) -> str:
    """The findings as a markdown table (finding, paper, ours, status, note)."""
    lines = ["| finding | paper | ours | status | note |", "|---|---|---|---|---|"]
    lines += [f"| {f.finding} | {f.paper} | {f.ours} | {f.status} | {f.note} |" for f in findings]
    return "\n".join(lines)


def study_report(
    out: Path, heading: str, lede: list[str], sections: list[tuple[str, str]], found: list[Finding]
) -> str:
    """Write a study's ``findings.json`` and ``report.md``: the heading, the lede, its
    findings (the paper's figures against ours) and its sections. Returns the lede and the
    sections, which the main report puts under its own heading beside its own table of these
    findings."""
    write(out, found)
    parts = [line for title, text in sections for line in ("", f"### {title}", "", text)]
    page = [f"# {heading}", "", *lede, "", "### Findings", "", table(found), *parts]
    (out / "report.md").write_text("\n".join(page) + "\n", encoding="utf-8")
    return "\n".join([*lede, *parts]) + "\n"


def write(out: Path, findings: list[Finding]) -> None:
    """Write ``findings.json`` into a study's output folder."""
    (out / "findings.json").write_text(
        json.dumps([asdict(f) for f in findings], indent=1) + "\n", encoding="utf-8"
    )


def read(out: Path) -> list[dict[str, Any]]:
    """The findings a study wrote, or none."""
    p = out / "findings.json"
    return json.loads(p.read_text(encoding="utf-8")) if p.exists() else []

"""The main job's report: one self-contained HTML page, checked in a real browser (headless
Chromium driven by Playwright): every section present, every figure decoded, no console
error, nothing fetched from the network."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from conftest import transim_cli

SECTIONS = (
    "Study 1: SCTP vs TCP transfer time in the initial slow start",
    "Study 2: TCP parameters (Nagle, fast retransmit and recovery) over ATM",
    "Study 3: an adaptive framework that switches TCP variants mid-session",
    "Study 4: SackPlus — lost retransmissions in SACK recovery",
    "Study 5: the FUL bit against uplink ACK-buffer overflow",
    "Two flows through one bottleneck",
    "Tahoe, Reno, NewReno and SACK with three drops from one window",
    "Bursty loss on a wireless hop",
    "Packet reordering: spurious retransmissions, RFC 6675 against RACK-TLP",
    "ACK congestion on an asymmetric access link",
    "Every congestion control on one path",
    "Fifty CUBIC and fifty Reno flows from two entries",
    "Flow completion times in a leaf-spine fabric under web-search traffic",
    "TCP incast: goodput collapse, and fine-grained timeouts and DCTCP against it",
    "Packet spraying against per-flow ECMP: hash collisions, or reordering",
    "BBR v1 and BBR v3 beside CUBIC: loss as a signal",
    "L4S: a scalable flow beside a Classic one in DualPI2",
    "Cross-validation: the same scenarios in ns-3",
    "Linux 2.6 slow start with small writes",
    "How CUBIC's first slow start ends",
    "Flow control: receiving applications slower than the path",
    "Applications that pause: the window after idle",
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    p = transim_cli("report", "--out", str(out))
    assert p.returncode == 0, p.stderr
    return out


def test_markdown_and_raw_results_are_written(report: Path) -> None:
    text = (report / "report.md").read_text()
    assert f"Sections finished: {len(SECTIONS)} of {len(SECTIONS)}" in text
    for img in (
        "dumbbell/cwnd.png",
        "study1-sctp/transfer_times.png",
        "study2-atm/table2.png",
        "many-flows/goodput.png",
        "datacenter-fct/fct.png",
        "incast/goodput.png",
        "slow-start-exits/cwnd.png",
        "flow-control/goodput.png",
        "on-off/fetch.png",
        "spraying/goodput.png",
        "bbr/shares.png",
        "l4s/l4s.png",
    ):
        assert (report / img).stat().st_size > 1000
    from transim.peers import Ns3Unavailable, find_ns3

    try:
        find_ns3()
        assert (report / "cross-validation" / "single_loss_cwnd.png").stat().st_size > 1000
        # A goodput apart by more than 2 % says why, in its row.
        rows = [
            r.split("|")[1:-1] for r in text.splitlines() if r.startswith(("| clean", "| lossy"))
        ]
        apart = [r for r in rows if abs(float(r[4].strip().rstrip("%"))) >= 2]
        assert apart and all(r[7].strip() for r in apart), apart
    except Ns3Unavailable:
        assert "Not run here: no ns-3 found" in text
    for study in ("study1-sctp", "study2-atm", "study3-adaptive", "study4-sackplus", "study5-ful"):
        findings = json.loads((report / study / "findings.json").read_text())
        assert findings and all(
            f["status"] in ("reproduced", "partly", "not reproduced") for f in findings
        )
        # Each study's own report puts its findings first, after its lede; the main
        # report.md once, under the study's heading.
        own = (report / study / "report.md").read_text()
        heads = re.findall(r"^### (.+)$", own, flags=re.M)
        assert heads[0] == "Findings" and heads.count("Findings") == 1, (study, heads[:3])
        assert f"| {findings[0]['finding']} |" in own
    assert text.count("### Findings") == 5


def test_html_is_self_contained(report: Path) -> None:
    html = (report / "report.html").read_text()
    assert "http://" not in html and "https://" not in html.replace("https://doi", "")
    assert "<script" not in html
    assert html.count('src="data:image/png;base64,') >= 10
    # The sections' ledes are Markdown: code spans become code, no backtick is left over.
    ledes = re.findall(r'<p class="lede">(.*?)</p>', html, flags=re.S)
    assert len(ledes) >= len(SECTIONS)  # one per section, and the page's own
    assert not [x for x in ledes if "`" in x]
    assert "<code>app = { kind = &quot;rounds&quot; }</code>" in html or (
        '<code>app = { kind = "rounds" }</code>' in html
    )


def test_the_lede_names_only_the_sections_a_report_lacks(report: Path, tmp_path: Path) -> None:
    html = (report / "report.html").read_text()
    lede = re.search(r'<p class="lede">(.*?)</p>', html, flags=re.S)
    assert lede and "Not in this report" not in lede.group(1)
    assert "not built yet" not in html
    # A study's findings table appears once in its section (the page's own, with statuses).
    assert "<h3>Findings</h3>" not in html
    # A report cut short (Ctrl-C, a failing section) says what it lacks.
    from transim.report import write_report

    page = write_report(tmp_path, {}, "quick", 0.0).read_text()
    lede = re.search(r'<p class="lede">(.*?)</p>', page, flags=re.S)
    assert lede
    text = unescape(" ".join(lede.group(1).split()))
    for title in SECTIONS:
        assert title in text, title


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is not installed (scripts/test.sh installs it)"
    return path


def test_report_renders_in_a_browser(report: Path) -> None:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 2000})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "request",
            lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None,
        )
        page.goto((report / "report.html").as_uri())
        page.wait_for_load_state("load")
        titles = page.eval_on_selector_all("section h2", "hs => hs.map(h => h.textContent)")
        images = page.eval_on_selector_all(
            "img", "is => is.map(i => [i.alt, i.complete, i.naturalWidth])"
        )
        statuses = page.eval_on_selector_all(
            "table.summary .status", "ss => ss.map(s => s.textContent)"
        )
        page.screenshot(path=str(report / "screenshot.png"), full_page=False)
        browser.close()
    assert titles == list(SECTIONS)
    assert len(images) >= 10
    assert all(ok and width > 0 for _, ok, width in images), images
    assert errors == [] and requests == []
    assert {"reproduced", "partly"} <= set(statuses)
    assert (report / "screenshot.png").stat().st_size > 10_000

"""The HTML rendering of the reproduction report: one self-contained file (figures embedded
as data URIs, styles inline, no script, nothing fetched) that opens from disk."""

from __future__ import annotations

import base64
import datetime
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import markdown
import markupsafe

from . import __version__
from .data import resource

_IMG = re.compile(r'<img alt="([^"]*)" src="([^"]+)"\s*/?>')
_MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg"}


def embed_images(html: str, base: Path) -> str:
    """Replace every image reference (relative to ``base``) by a data URI."""

    def one(m: re.Match[str]) -> str:
        alt, src = m.group(1), m.group(2)
        path = base / src
        if src.startswith("data:") or not path.exists():
            return m.group(0)
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        mime = _MIME.get(path.suffix.lower(), "application/octet-stream")
        return f'<img alt="{alt}" src="data:{mime};base64,{data}">'

    return _IMG.sub(one, html)


def to_html(md_text: str, base: Path) -> str:
    """Markdown (tables, images) to an HTML fragment with the images embedded."""
    html = markdown.markdown(md_text, extensions=["tables", "fenced_code"])
    return embed_images(html, base)


def inline_html(md_text: str) -> markupsafe.Markup:
    """One paragraph of Markdown (code spans, emphasis, links) as HTML without the
    paragraph around it: a section's lede, which the template puts in its own paragraph."""
    html = markdown.markdown(md_text).strip()
    if html.startswith("<p>") and html.endswith("</p>"):
        html = html[3:-4]
    return markupsafe.Markup(html)


def git_commit() -> str:
    """The checkout's commit, or a note that this is an installed package."""
    try:
        out = subprocess.run(
            ["git", "-C", str(resource()), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"
    return out.stdout.strip() if out.returncode == 0 else "unknown (installed package)"


@dataclass
class RenderedSection:
    """What the template shows of one section."""

    key: str
    title: str
    short: str
    text: str
    command: str
    scenarios: list[tuple[str, int]]
    sources: list[tuple[str, str]]
    html: str
    findings: list[dict[str, Any]] = field(default_factory=list)


def render(sections: list[RenderedSection], scale: str, elapsed: float, missing: list[str]) -> str:
    """The whole report as one HTML page; ``missing``: the titles of the sections it lacks."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("transim", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("report.html.j2").render(
        sections=sections,
        version=__version__,
        commit=git_commit(),
        scale=scale,
        generated=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        elapsed=f"{elapsed:.1f} s",
        missing=missing,
    )

"""Loading scenarios (TOML files, TOML text or dicts) and applying ``--set`` overrides.

The schema itself lives in the Rust engine; this module only turns text into a dict and
edits it. Every problem is reported as a :class:`ScenarioError` naming the field path.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _core


class ScenarioError(ValueError):
    """A scenario is invalid. ``path`` names the field (``topology.bottleneck.rate``)."""

    def __init__(self, message: str, path: str = "", detail: str = "", source: str = "") -> None:
        self.path = path
        self.message = message
        self.detail = detail or message
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)

    @classmethod
    def from_engine(cls, e: Exception, source: str = "") -> ScenarioError:
        """The engine's error (``_core.ScenarioError``: message, path, detail) for the
        scenario read from ``source``."""
        message, path, detail = e.args
        return cls(message, path=path, detail=detail, source=source)


ScenarioLike = str | Path | Mapping[str, Any]


def load(scenario: ScenarioLike) -> tuple[dict[str, Any], str]:
    """Return (scenario dict, source label) from a dict, a TOML or JSON path, or TOML text."""
    if isinstance(scenario, Mapping):
        return copy.deepcopy(dict(scenario)), "<dict>"
    # A one-line string without "=" cannot be TOML text: it is a path.
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario
    ):
        path = Path(scenario)
        if not path.is_file():
            raise ScenarioError(
                f"no such scenario file: {path} (`transim examples` lists the scenarios that "
                "come with transim; `transim examples --copy DIR` copies them)",
                source=str(path),
            )
        try:
            # utf-8-sig: a byte-order mark (Windows editors write one) is not part of the text.
            text, source = path.read_text(encoding="utf-8-sig"), str(path)
        except (OSError, UnicodeDecodeError) as e:
            raise ScenarioError(f"cannot read scenario file: {e}", source=str(path)) from None
        if path.suffix.lower() == ".json":
            return _parse_json(text, source), source
    elif isinstance(scenario, str):
        text, source = scenario.removeprefix("\ufeff"), "<string>"
    else:
        raise ScenarioError(
            "expected a dict, a path to a .toml or .json file or TOML text, "
            f"got {type(scenario).__name__}"
        )
    try:
        return tomllib.loads(text), source
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"not valid TOML: {e}", source=source) from None
    except RecursionError:
        raise ScenarioError(_TOO_DEEP, source=source) from None


#: How deeply tables and arrays may nest (the schema itself needs at most 6).
MAX_DEPTH = 32
_TOO_DEEP = f"tables or arrays nested more than {MAX_DEPTH} deep; a scenario needs at most 6"


def _parse_json(text: str, source: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"not valid JSON: {e}", source=source) from None
    except RecursionError:
        raise ScenarioError(_TOO_DEEP, source=source) from None
    if not isinstance(doc, dict):
        raise ScenarioError(
            f"a JSON scenario must be an object, got {type(doc).__name__}", source=source
        )
    return doc


def check_plain(value: Any, path: str = "", depth: int = 0) -> None:
    """Refuse, naming the field, what the engine's JSON cannot carry faithfully: NaN and
    infinities, types other than tables, arrays, strings, numbers and booleans (a Python
    set or a date would otherwise become a string), non-string keys, absurd nesting."""
    where = path or "(top level)"
    if depth > MAX_DEPTH:
        raise ScenarioError(_TOO_DEEP, path=where)
    if isinstance(value, bool | int | str) or value is None:
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ScenarioError(
                f"{where}: got {value}; expected a finite number", path=where, detail=str(value)
            )
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ScenarioError(
                    f"{where}: key {k!r} is a {type(k).__name__}; keys must be strings",
                    path=where,
                )
            check_plain(v, f"{path}.{k}" if path else k, depth + 1)
        return
    if isinstance(value, list | tuple):
        for i, v in enumerate(value):
            check_plain(v, f"{path}[{i}]", depth + 1)
        return
    raise ScenarioError(
        f"{where}: got a {type(value).__name__} ({value!r:.60}); expected a table, an array, "
        "a string, a number or a boolean",
        path=where,
    )


_INDEX = re.compile(r"\[(\d+)\]")


def _split_path(path: str) -> list[str | int]:
    """``flows[0].app.bytes`` or ``flows.0.app.bytes`` → ['flows', 0, 'app', 'bytes']."""
    parts: list[str | int] = []
    for raw in _INDEX.sub(r".\1", path).split("."):
        if raw == "":
            raise ScenarioError(f"--set: empty component in key path {path!r}")
        parts.append(int(raw) if raw.isdigit() else raw)
    return parts


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML literal (number, bool, string, array, inline table) if it
    parses as one, else the text itself as a string (so ``rate=10Mbps`` works unquoted)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(doc: dict[str, Any], assignment: str) -> None:
    """Apply one ``key.path=value`` assignment in place."""
    if "=" not in assignment:
        raise ScenarioError(f"--set expects key.path=value, got {assignment!r}")
    key, _, value = assignment.partition("=")
    assign(doc, key, parse_value(value.strip()))


def assign(doc: dict[str, Any], key: str, value: Any) -> None:
    """Set the field ``key`` (a dotted path such as ``flows[0].tcp.cc``) to ``value``."""
    parts = _split_path(key.strip())
    node: Any = doc
    for i, part in enumerate(parts[:-1]):
        where = ".".join(str(p) for p in parts[: i + 1])
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                size = len(node) if isinstance(node, list) else 0
                raise ScenarioError(
                    f"--set {key}: index {part} is out of range (the list has {size} items)",
                    path=where,
                )
            node = node[part]
        else:
            if not isinstance(node, dict):
                raise ScenarioError(f"--set {key}: {where} is not a table", path=where)
            node = node.setdefault(part, {})
    last = parts[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or last >= len(node):
            raise ScenarioError(f"--set {key}: index {last} is out of range", path=key)
        node[last] = value
    else:
        if not isinstance(node, dict):
            raise ScenarioError(f"--set {key}: parent of {last!r} is not a table", path=key)
        node[last] = value


def prepare(
    scenario: ScenarioLike,
    overrides: list[str] | None = None,
    seed: int | None = None,
) -> tuple[dict[str, Any], str]:
    """Load a scenario, apply overrides and the seed; return (dict, source label)."""
    doc, source = load(scenario)
    try:
        had_traffic = "traffic" in doc
        for o in overrides or []:
            apply_override(doc, o)
        if not had_traffic:
            _check_made_traffic(doc, overrides or [])
    except ScenarioError as e:
        e.source = source
        raise
    if seed is not None:
        doc["seed"] = seed
    try:
        check_plain(doc)
    except ScenarioError as e:
        raise ScenarioError(e.message, e.path, e.detail, source) from None
    _resolve_files(doc, source)
    return doc, source


def _check_made_traffic(doc: dict[str, Any], overrides: list[str]) -> None:
    """A ``--set traffic.…`` on a scenario without a ``[traffic]`` table makes one, which
    then lacks its pattern: name that, and what the user more likely meant, rather than
    leave the schema to report a missing ``traffic.pattern`` the user never wrote."""
    traffic = doc.get("traffic")
    if not isinstance(traffic, dict) or "pattern" in traffic:
        return
    first = next(o for o in overrides if o.strip().startswith("traffic"))
    raise ScenarioError(
        f"--set {first}: the scenario has no [traffic] table, and one made by --set needs "
        "traffic.pattern too; to change the scenario's own flows, set tcp.… (every flow) "
        "or flows[N].tcp.…",
        path="traffic",
    )


def _resolve_files(doc: dict[str, Any], source: str) -> None:
    """Files a scenario names (the adaptive framework's decision map) are relative to the
    scenario file."""
    base = Path(source).parent if source and not source.startswith("<") else Path.cwd()
    flows = doc.get("flows")
    flows = flows if isinstance(flows, list) else []  # a wrong type is the schema's to report
    tables = [doc.get("tcp")] + [f.get("tcp") for f in flows if isinstance(f, dict)]
    for t in tables:
        a = t.get("adaptive") if isinstance(t, dict) else None
        if isinstance(a, dict) and isinstance(a.get("map"), str):
            p = Path(a["map"])
            if not p.is_absolute():
                a["map"] = str((base / p).resolve())


def flow_count(doc: Mapping[str, Any]) -> int | None:
    """How many flows a scenario's ``[[flows]]`` entries make, each entry counted ``count``
    times (None when ``flows`` is not a list; flows a ``[traffic]`` pattern adds are known
    only once the scenario is built). A wrong ``count`` counts once: the schema reports it."""
    flows = doc.get("flows")
    if not isinstance(flows, list):
        return None
    total = 0
    for f in flows:
        n = f.get("count", 1) if isinstance(f, dict) else 1
        total += n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 1
    return total


def to_json(doc: Mapping[str, Any]) -> str:
    """Serialise for the engine (TOML dates, if any, become strings and are then rejected
    by the schema with a path)."""
    return json.dumps(doc, default=str)


def duration_seconds(doc: Mapping[str, Any], source: str = "") -> float:
    """The simulated seconds a prepared scenario asks for, read without checking the rest of
    it (the run checks that): for a progress bar before a large scenario's run."""
    # Only the duration goes to the engine: serialising all of a large scenario here, and
    # again for the run, would be work done twice.
    only = {"duration": doc["duration"]} if "duration" in doc else {}
    try:
        return float(_core.duration_seconds(to_json(only)))
    except _core.ScenarioError as e:
        raise ScenarioError.from_engine(e, source) from None


def check(scenario: ScenarioLike, overrides: list[str] | None = None) -> dict[str, Any]:
    """Check a scenario as :func:`validate` does, returning only ``kind`` (the topology kind
    as written), ``flows`` (how many it makes, generated ones included), ``duration``,
    ``seed`` and ``warnings`` (the advice on it, as :func:`transim.run` with ``advise``
    gives it): cheap at any number of flows, where the normalised scenario is not."""
    doc, source = prepare(scenario, overrides)
    try:
        out: dict[str, Any] = json.loads(_core.check(to_json(doc)))
    except _core.ScenarioError as e:
        raise ScenarioError.from_engine(e, source) from None
    topology = doc.get("topology")
    out["kind"] = topology.get("kind") if isinstance(topology, dict) else None
    return out


def validate(scenario: ScenarioLike, overrides: list[str] | None = None) -> dict[str, Any]:
    """Check a scenario against the engine's schema; return it normalised (units resolved)."""
    doc, source = prepare(scenario, overrides)
    try:
        return json.loads(_core.validate(to_json(doc)))
    except _core.ScenarioError as e:
        raise ScenarioError.from_engine(e, source) from None

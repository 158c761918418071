"""README.md against the code: its commands parse with the command line's own parser, the
scenario files it names exist, its scenario examples validate, its error example is what the command
line prints, and its Python example uses only functions, keywords and Result members that
exist."""

from __future__ import annotations

import ast
import copy
import inspect
import re
import shlex
import tomllib
from typing import Any

import pytest
import transim
from conftest import ROOT, transim_cli
from transim.cli import build_parser

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS: list[tuple[str, str]] = re.findall(r"```(\w*)\n(.*?)```", README, re.S)


def commands() -> list[str]:
    """Every `transim ...` command README shows: the lines of its sh blocks and the `$ `
    lines of its transcripts, comments and the `transim` itself taken off."""
    out = []
    for lang, body in BLOCKS:
        for line in body.splitlines():
            line = line.removeprefix("$ ") if lang == "" else line
            if line.startswith("transim "):
                out.append(line.split("#", 1)[0].strip().removeprefix("transim "))
    return out


def forms(command: str) -> list[list[str]]:
    """A command with `[optional parts]` both without them and with each (the first of
    `a|b` alternatives, `DIR` as a directory name)."""
    optional = re.findall(r"\[([^\]]+)\]", command)
    bare = re.sub(r"\s*\[[^\]]+\]", "", command)
    out = [shlex.split(bare)]
    for part in optional:
        filled = re.sub(r"(\w+)\|\w+", r"\1", part).replace("DIR", "out/copied")
        out.append(shlex.split(bare) + shlex.split(filled))
    return out


COMMANDS = commands()


def test_readme_shows_the_commands_it_should() -> None:
    # The set-up pair and the tour at least; a change to the block markup would empty it.
    assert len(COMMANDS) >= 20
    assert any(c.startswith("run ") for c in COMMANDS)
    assert any(c.startswith("compare ns3 ") for c in COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_parses_and_names_files_that_exist(command: str) -> None:
    parser = build_parser()
    for argv in forms(command):
        try:
            parser.parse_args(argv)
        except SystemExit as e:  # argparse's way of refusing
            pytest.fail(f"`transim {' '.join(argv)}` is refused by the parser ({e})")
        for arg in argv:
            if arg.startswith(("scenarios/", "benches/")):
                assert (ROOT / arg).is_file(), f"README names {arg}, which does not exist"


def test_every_scenario_file_named_exists() -> None:
    named = set(re.findall(r"(?:scenarios|benches)/[\w./-]+\.(?:toml|json)", README))
    assert len(named) >= 10
    assert sorted(f for f in named if not (ROOT / f).is_file()) == []


def scenario_blocks() -> list[dict[str, Any]]:
    return [tomllib.loads(body) for lang, body in BLOCKS if lang == "toml"]


def test_the_scenario_examples_validate() -> None:
    docs = scenario_blocks()
    assert len(docs) >= 3
    whole = [d for d in docs if "topology" in d]
    assert len(whole) >= 2
    for doc in whole:
        transim.validate(doc)
    # A fragment (only [[flows]]) stands in a whole example's place.
    for part in (d for d in docs if "topology" not in d):
        doc = copy.deepcopy(whole[0])
        doc.update(part)
        transim.validate(doc)


def test_the_error_example_is_what_the_command_line_prints() -> None:
    m = re.search(r"\$ transim (run [^\n]+)\n(error: [^\n]+)\n", README)
    assert m, "README's error example is gone"
    p = transim_cli(*shlex.split(m.group(1)))
    assert p.returncode == 2
    assert p.stderr.strip() == m.group(2)


def api_example() -> ast.Module:
    body = next(b for lang, b in BLOCKS if lang == "python" and "import transim" in b)
    return ast.parse(body)


def test_the_python_example_uses_what_exists() -> None:
    tree = api_example()
    used_module: set[str] = set()
    used_result: set[str] = set()
    run_keywords: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "transim":
                used_module.add(node.attr)
            elif node.value.id == "r":
                used_result.add(node.attr)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "run"
        ):
            run_keywords |= {k.arg for k in node.keywords if k.arg}
    assert {"run", "read_trace"} <= used_module and {"packets", "flow_trace"} <= used_result
    assert [n for n in used_module if not hasattr(transim, n)] == []
    r = transim.run(ROOT / "scenarios" / "dumbbell.toml", overrides=["duration=3s"])
    assert [n for n in used_result if not hasattr(r, n)] == []
    run_params = set(inspect.signature(transim.run).parameters)
    assert run_keywords - run_params == set()

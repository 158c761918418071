"""One flow's or link direction's record, read from a run's summary text by name or position
without reading the whole summary: at 100,000 flows the summary is 300 MB of JSON, which
takes Python seconds to build as objects, and a record is a few hundred bytes of it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from . import _core

#: What an error calls one record of each kind.
_NOUN = {"flows": "flow", "links": "link"}


def some_names(names: Iterable[str], shown: int = 10) -> str:
    """The first ``shown`` names, and how many more there are: an error about one of
    100,000 flows names a few of them, not all."""
    names = list(names)
    more = f" and {len(names) - shown:,} more" if len(names) > shown else ""
    return f"{names[:shown]}{more}"


def missing(which: str, key: str, names: Iterable[str]) -> KeyError:
    """The error for a name that no record of ``which`` ("flows" or "links") has."""
    if which == "flows":
        return KeyError(f"no flow named {key!r}; flows are {some_names(names)}")
    return KeyError(f"no link {key!r}; links are {some_names(names)}")


class _Index:
    """Where each record of one kind lies in the text, and the first record of each name."""

    def __init__(self, text: str | _core.SummaryText, which: str) -> None:
        self.names, self.spans = _core.summary_index(text, which)
        self.first: dict[str, int] = {}
        for i, name in enumerate(self.names):
            if name is not None:
                self.first.setdefault(name, i)


class PickedRecords:
    """Records read one by one from the engine's summary text, kept so that the same record
    is the same dict each time it is asked for, and so that edits to it can be carried into
    the summary when it is read (:meth:`splice`)."""

    def __init__(self, text: str | _core.SummaryText) -> None:
        self._text = text
        self._indexes: dict[str, _Index] = {}
        # The kinds of record one has been read of by position without an index: the next
        # such read indexes them (a loop over every position would read the text again
        # for each, quadratic in the records).
        self._read_alone: set[str] = set()
        # Where each record handed out lies in the text, and the record.
        self._spans: dict[tuple[str, int], tuple[int, int]] = {}
        self._picked: dict[tuple[str, int], dict[str, Any]] = {}

    def get(self, which: str, key: int | str) -> dict[str, Any]:
        """The record of ``which`` ("flows" or "links") at position ``key`` (negative from
        the end) or the first named ``key``. Raises IndexError or KeyError as a list and
        :meth:`transim.Result.flow` do. The first record asked for by its position from
        the start is read without indexing the names: the text is read only as far as that
        record."""
        if isinstance(key, int) and key >= 0 and (which, key) in self._picked:
            return self._picked[(which, key)]
        if isinstance(key, int) and key >= 0 and which not in self._read_alone:
            self._read_alone.add(which)
            span = _core.summary_span(self._text, which, key)
            if span is not None:
                return self._keep(which, key, span)
        idx = self._indexes.get(which)
        if idx is None:
            idx = self._indexes[which] = _Index(self._text, which)
        if isinstance(key, int):
            count = len(idx.spans)
            if not -count <= key < count:
                raise IndexError(
                    f"{_NOUN[which]} {key} is out of range: the run has {count:,} {which}"
                )
            i = key % count
        else:
            found = idx.first.get(key)
            if found is None:
                raise missing(which, key, (n for n in idx.names if n is not None))
            i = found
        if (which, i) in self._picked:
            return self._picked[(which, i)]
        return self._keep(which, i, idx.spans[i])

    def _keep(self, which: str, i: int, span: tuple[int, int]) -> dict[str, Any]:
        """Read record ``i`` of ``which`` from ``span`` of the text and keep it."""
        self._spans[(which, i)] = span
        record = self._picked[(which, i)] = self._read(which, i)
        return record

    def _read(self, which: str, i: int) -> dict[str, Any]:
        start, end = self._spans[(which, i)]
        record: dict[str, Any] = json.loads(_core.summary_record(self._text, start, end))
        return record

    def edited(self) -> bool:
        """Whether any record handed out no longer equals its text."""
        return any(record != self._read(w, i) for (w, i), record in self._picked.items())

    def splice(self, summary: dict[str, Any]) -> None:
        """Put the records handed out into ``summary`` (read from the same text) in place of
        their copies: the dicts a caller holds are the summary's own from now on."""
        for (which, i), record in self._picked.items():
            summary[which][i] = record

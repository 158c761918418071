"""Traces streamed to disk as Parquet while a run goes on, and read back.

The engine hands over trace rows in chunks of about 33,000 (see ``_core.run``'s ``traces``);
:class:`TraceWriter` appends each chunk as a row group of a Parquet file and starts a new
part file every 256 row groups (a writer keeps each row group's metadata until it closes the
file), so memory stays flat however long the run, and a crash loses at most the open part.
Each trace is a folder of parts (``part-00000.parquet``, …) in the folder given:

- ``trace_packets/``: one row per packet event (t, kind, flow, from_sender, seq, ack, len,
  tx, link, cause, wire), as ``Result.packet_trace``;
- ``trace_flows/``: TCP's per-flow series with a ``flow`` column (t, cwnd, ssthresh, srtt,
  rto, flight, snd_max, snd_una, pipe, sacked, pacing_rate);
- ``trace_sctp/``: SCTP's per-flow series with a ``flow`` column.

pandas (``read_parquet(folder)``), polars (``scan_parquet("folder/*.parquet")``), DuckDB and
Arrow datasets read a folder directly; :func:`read_trace` returns numpy arrays.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

PACKETS = "trace_packets"
FLOWS = "trace_flows"
SCTP = "trace_sctp"

#: Row groups per part file.
PART_GROUPS = 256


class TraceWriter:
    """A ``traces`` sink for ``_core.run`` that appends chunks to Parquet files in ``folder``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._writers: dict[str, Any] = {}
        self._parts: dict[str, int] = {}
        self._groups: dict[str, int] = {}
        self.rows: dict[str, int] = {}

    def __call__(
        self,
        flows: list[tuple[int, dict[str, np.ndarray]]],
        packets: dict[str, np.ndarray] | None,
    ) -> None:
        by_file: dict[str, list[tuple[int, dict[str, np.ndarray]]]] = {}
        for i, cols in flows:
            by_file.setdefault(SCTP if "tsn" in cols else FLOWS, []).append((i, cols))
        for name, parts in by_file.items():
            n = sum(len(c["t"]) for _, c in parts)
            if n == 0:
                continue
            cols = {"flow": np.concatenate([np.full(len(c["t"]), i, np.uint32) for i, c in parts])}
            for key in parts[0][1]:
                cols[key] = np.concatenate([c[key] for _, c in parts])
            self._append(name, cols)
        if packets is not None and len(packets["t"]):
            self._append(PACKETS, packets)

    def _append(self, name: str, cols: dict[str, np.ndarray]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table(cols)
        w = self._writers.get(name)
        if w is None:
            folder = self.folder / name
            if name not in self._parts:
                # A fresh trace: parts of an earlier run in this folder would mix in.
                folder.mkdir(parents=True, exist_ok=True)
                for old in folder.glob("part-*.parquet"):
                    old.unlink()
            part = self._parts.get(name, 0)
            w = pq.ParquetWriter(
                folder / f"part-{part:05d}.parquet", table.schema, compression="zstd"
            )
            self._writers[name] = w
            self._parts[name] = part + 1
            self._groups[name] = 0
        w.write_table(table)
        self.rows[name] = self.rows.get(name, 0) + table.num_rows
        self._groups[name] += 1
        if self._groups[name] >= PART_GROUPS:
            self._writers.pop(name).close()

    def close(self) -> list[Path]:
        """Finish every file (a part is readable once closed); return the trace folders."""
        for w in self._writers.values():
            w.close()
        self._writers.clear()
        return [self.folder / name for name in self._parts]


def read_trace(
    path: str | Path, flow: int | None = None, columns: list[str] | None = None
) -> dict[str, np.ndarray]:
    """Read a trace written by a run (a folder of parts, or one Parquet file) as numpy arrays
    (only ``flow``'s rows if given; only ``columns`` if given)."""
    import pyarrow.parquet as pq

    filters = [("flow", "=", flow)] if flow is not None else None
    if columns is not None and flow is not None and "flow" not in columns:
        columns = [*columns, "flow"]
    table = pq.read_table(path, columns=columns, filters=filters)
    return {name: table.column(name).to_numpy() for name in table.column_names}

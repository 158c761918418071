"""Human-readable formatting of rates, times and sizes."""

from __future__ import annotations


def fmt_rate(bps: float) -> str:
    """10e6 → '10.00 Mbps'."""
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.2f} {unit}"
    return f"{bps:.0f} bps"


def fmt_time(s: float) -> str:
    """0.0123 → '12.30 ms'."""
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def fmt_bytes(n: float) -> str:
    """13_240_000_000 → '13.24 GB' (decimal units, as rates are)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.0f} B"


def fmt_count(n: float) -> str:
    """1234567 → '1,234,567'."""
    return f"{n:,.0f}"


def folder_name(label: str) -> str:
    """A run's label as a folder name: lower case, words joined by hyphens, without
    commas and full stops ("SCTP, Max.Burst clamp kept" → "sctp-maxburst-clamp-kept")."""
    return "-".join(label.lower().replace(",", "").replace(".", "").split())

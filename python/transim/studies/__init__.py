"""Reproductions of published studies, one module each."""

STUDIES = {
    "sackplus": "Study 4: SackPlus, lost retransmissions in SACK recovery",
}

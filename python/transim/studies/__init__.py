"""Reproductions of published studies, one module each."""

STUDIES = {
    "sackplus": "Study 4: SackPlus, lost retransmissions in SACK recovery",
    "ful": "Study 5: the FUL bit against uplink ACK-buffer overflow",
}

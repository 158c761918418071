"""Reproductions of published studies, one module each."""

STUDIES = {
    "sctp": "Study 1: SCTP vs TCP transfer time in the initial slow start",
    "atm": "Study 2: TCP parameters (Nagle, FRR) over ATM UBR and ABR",
    "adaptive": "Study 3: an adaptive framework that switches TCP variants mid-session",
    "sackplus": "Study 4: SackPlus, lost retransmissions in SACK recovery",
    "ful": "Study 5: the FUL bit against uplink ACK-buffer overflow",
}

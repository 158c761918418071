"""Packet captures checked with the real tshark: it decodes every packet with no malformed
packet and no bad checksum (checksum validation on), and its own TCP analysis agrees with
transim's counters for the same run; SCTP's chunks and CRC32c decode too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import transim

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
PREFS = [
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "sctp.checksum:CRC-32C",
    "-o",
    "tcp.relative_sequence_numbers:TRUE",
]


def tshark(pcap: Path, filt: str, *fields: str) -> list[list[str]]:
    exe = shutil.which("tshark")
    assert exe, "tshark is not installed (scripts/test.sh installs it)"
    cmd = [exe, "-n", *PREFS, "-r", str(pcap), "-Y", filt, "-T", "fields"]
    for f in fields or ("frame.number",):
        cmd += ["-e", f]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return [line.split("\t") for line in p.stdout.splitlines() if line]


def merged(tmp: Path, name: str, *parts: Path) -> Path:
    """One file with both directions of a flow (as a capture at both hosts would give)."""
    out = tmp / name
    subprocess.run(["mergecap", "-w", str(out), *map(str, parts)], check=True, timeout=60)
    return out


def clean(pcap: Path) -> None:
    assert tshark(pcap, "_ws.malformed") == []
    assert tshark(pcap, "ip.checksum.status == 0 || tcp.checksum.status == 0") == []
    assert tshark(pcap, "sctp.checksum.status == 0") == []
    assert len(tshark(pcap, "frame")) > 0


def test_lossy_sack_run_agrees_with_transim(tmp_path: Path) -> None:
    r = transim.run(
        SCENARIOS / "dumbbell.toml",
        overrides=[
            "duration=4s",
            "tcp.recovery=sack1",
            "tcp.timestamps=true",
            "tcp.rcv_buf=200000",
        ],
        pcap=tmp_path,
    )
    f = r.flow(0)
    cap = merged(tmp_path, "flow0.pcap", tmp_path / "s0_to_r1.pcap", tmp_path / "d0_to_r2.pcap")
    clean(cap)
    # Every transmission leaves through s0->r1: all of the link's packets are in its file.
    link = r.link("s0->r1")
    assert len(tshark(tmp_path / "s0_to_r1.pcap", "frame")) == link["packets_in"]
    # Retransmissions: Wireshark calls a retransmission that closely follows new data
    # "out-of-order"; transim never reorders a flow, so both are retransmissions.
    rtx = tshark(cap, "tcp.analysis.retransmission || tcp.analysis.out_of_order")
    assert f["retransmissions"] > 0
    assert len(rtx) == f["retransmissions"]
    # Duplicate ACKs: the reverse path loses nothing, so what the receiver sent arrived.
    assert len(tshark(cap, "tcp.analysis.duplicate_ack")) == f["dupacks"] > 0
    # SACK blocks lie above the cumulative ACK; every duplicate ACK carries some.
    sacks = tshark(
        cap, "tcp.options.sack_le", "tcp.ack", "tcp.options.sack_le", "tcp.options.sack_re"
    )
    assert len(sacks) >= f["dupacks"]
    for ack, le, re_ in sacks:
        lefts = [int(x) for x in le.split(",")]
        rights = [int(x) for x in re_.split(",")]
        assert all(int(ack) < a < b for a, b in zip(lefts, rights, strict=True))
    # The receiver's window: 200,000 bytes, scaled by 4 on the wire.
    wins = {
        int(w[0])
        for w in tshark(cap, "tcp.srcport == 5001 && tcp.flags.syn == 0", "tcp.window_size")
    }
    assert wins == {200_000}


def test_forced_drop_newreno_agrees_with_transim(tmp_path: Path) -> None:
    # Slow-but-steady: every partial ACK restarts the timer, so the three holes are repaired
    # one per round trip without a timeout (ns-2's default would time out on the third).
    r = transim.run(
        SCENARIOS / "forced-drops.toml",
        overrides=["tcp.recovery=newreno", "tcp.partial_ack_timer=slow_but_steady"],
        pcap=tmp_path,
    )
    f = r.flow(0)
    names = {p.name for p in tmp_path.glob("*.pcap")}
    src = r.flows[0]["src"]
    dst = r.flows[0]["dst"]
    out_s = next(n for n in names if n.startswith(f"{src}_to_"))
    out_d = next(n for n in names if n.startswith(f"{dst}_to_"))
    cap = merged(tmp_path, "flow.pcap", tmp_path / out_s, tmp_path / out_d)
    clean(cap)
    rtx = tshark(cap, "tcp.analysis.retransmission || tcp.analysis.out_of_order")
    assert len(rtx) == f["retransmissions"] == 3
    assert len(tshark(cap, "tcp.analysis.duplicate_ack")) == f["dupacks"]
    assert tshark(cap, "tcp.options.sack_le") == []


def test_sctp_chunks_decode(tmp_path: Path) -> None:
    r = transim.run(
        SCENARIOS / "studies" / "sctp" / "testbed.toml",
        pcap=tmp_path,
        pcap_links=["server->router", "client->router"],
    )
    f = r.flow(0)
    cap = merged(
        tmp_path,
        "assoc.pcap",
        tmp_path / "server_to_router.pcap",
        tmp_path / "client_to_router.pcap",
    )
    clean(cap)
    assert len(tshark(cap, "sctp.checksum.status == 1")) == f["packets_sent"]
    data = tshark(cap, "sctp.chunk_type == 0", "sctp.data_tsn", "sctp.data_sid")
    tsns = [int(t) for row in data for t in row[0].split(",")]
    assert len(tsns) == f["data_chunks_sent"] == 95
    for kind in (1, 2, 10, 11, 3, 7, 8, 14):  # INIT ... SACK, SHUTDOWN ...
        assert tshark(cap, f"sctp.chunk_type == {kind}"), kind


def test_ful_bit_is_a_reserved_header_bit(tmp_path: Path) -> None:
    r = transim.run(
        SCENARIOS / "studies" / "ful" / "single-flow.toml",
        overrides=["tcp.ful=true"],
        pcap=tmp_path,
    )
    f = r.flow(0)
    ack_link = next(p for p in tmp_path.glob("*.pcap") if p.name.startswith(f"{f['dst']}_to_"))
    clean(ack_link)
    assert len(tshark(ack_link, "tcp.flags.res != 0")) == f["ful_notifications"] > 0


def test_captures_are_deterministic(tmp_path: Path) -> None:
    for d in ("a", "b"):
        transim.run(
            SCENARIOS / "dumbbell.toml",
            overrides=["duration=1s", "flows[1].start=0.5s"],
            pcap=tmp_path / d,
            pcap_links=["r1->r2"],
        )
    a, b = (tmp_path / d / "r1_to_r2.pcap" for d in ("a", "b"))
    assert a.read_bytes() == b.read_bytes() and a.stat().st_size > 10_000


def test_bad_capture_settings_name_the_field(tmp_path: Path) -> None:
    with pytest.raises(transim.ScenarioError) as e:
        transim.run(SCENARIOS / "dumbbell.toml", pcap=tmp_path, pcap_links=["r9->r1"])
    assert e.value.path == "trace.pcap.links[0]"


def test_ecn_codepoints_are_in_the_ip_header(tmp_path: Path) -> None:
    """DCTCP through a step-marking bottleneck: tshark reads every packet ECN-capable (the
    SYN, SYN-ACK and pure ACKs too, as Linux's DCTCP sends them), and after the bottleneck
    some data marked CE, as many as transim counted; with `ecn_all_packets = false` the
    handshake and the ACKs are Not-ECT (RFC 3168)."""
    sets = [
        "duration=3s",
        "tcp.cc=dctcp",
        "topology.bottleneck.qdisc=step",
        "topology.bottleneck.aqm.k=10",
        "topology.bottleneck.forward.loss.p=0",
    ]
    for all_packets, control in ((True, "2"), (False, "0")):
        out = tmp_path / str(all_packets)
        r = transim.run(
            SCENARIOS / "dumbbell.toml",
            overrides=[*sets, f"tcp.ecn_all_packets={str(all_packets).lower()}"],
            pcap=out,
        )
        clean(out / "s0_to_r1.pcap")
        syn = tshark(out / "s0_to_r1.pcap", "tcp.flags.syn == 1", "ip.dsfield.ecn")
        syn_ack = tshark(out / "d0_to_r2.pcap", "tcp.flags.syn == 1", "ip.dsfield.ecn")
        acks = tshark(out / "d0_to_r2.pcap", "tcp.len == 0 && tcp.flags.syn == 0", "ip.dsfield.ecn")
        assert syn == [[control]] and syn_ack == [[control]], (syn, syn_ack)
        assert acks and {a[0] for a in acks} == {control}
        data = tshark(out / "r2_to_d0.pcap", "tcp.len > 0", "ip.dsfield.ecn")
        ce = sum(1 for d in data if d[0] == "3")
        assert {d[0] for d in data} == {"2", "3"}
        assert ce == r.flow(0)["ecn"]["ce_received"] > 0


def test_ect1_and_its_marks_are_in_the_ip_header(tmp_path: Path) -> None:
    """The L4S scenario's scalable flow (DCTCP with `ecn_codepoint = "ect1"`) through
    DualPI2: tshark reads its packets ECT(1) before the bottleneck, ECT(1) or CE after it,
    as many CE as DualPI2 marked and the receiver counted; the Reno flow's are Not-ECT."""
    out = tmp_path / "pcap"
    r = transim.run(SCENARIOS / "l4s-coexistence.toml", overrides=["duration=3s"], pcap=out)
    clean(out / "s0_to_r1.pcap")
    sent = tshark(out / "s0_to_r1.pcap", "tcp.len > 0", "ip.dsfield.ecn")
    assert sent and {d[0] for d in sent} == {"1"}
    delivered = tshark(out / "r2_to_d0.pcap", "tcp.len > 0", "ip.dsfield.ecn")
    ce = sum(1 for d in delivered if d[0] == "3")
    assert {d[0] for d in delivered} == {"1", "3"}
    bottleneck = next(ln for ln in r.links if ln["name"] == "r1->r2")
    assert ce == bottleneck["dual_queue"]["l_marks"] == r.flow(0)["ecn"]["ce_received"] > 0
    classic = tshark(out / "s1_to_r1.pcap", "tcp.len > 0", "ip.dsfield.ecn")
    assert classic and {d[0] for d in classic} == {"0"}


DSACK_SCENARIO = """
name = "dsack"
duration = "20s"
seed = 1
[tcp]
profile = "rfc"
recovery = "rfc6675"
delayed_ack = "off"
initial_window = 10
rto_min = "1ms"
dsack = true
[topology]
kind = "dumbbell"
bottleneck = { rate = "1Mbps", delay = "1ms", queue = 1000 }
access = { rate = "100Mbps", delay = "0ms" }
[[flows]]
app = { kind = "finite", bytes = 100000 }
"""


def test_dsack_blocks_are_what_tshark_calls_dsack(tmp_path: Path) -> None:
    """A 1 ms minimum RTO makes timeouts fire while the data is queued, and the receiver
    reports each segment it gets twice in a D-SACK block (RFC 2883). tshark, which tells a
    D-SACK from its place (below the ACK, or inside the next block), finds as many as the
    sender counted."""
    sc = tmp_path / "dsack.toml"
    sc.write_text(DSACK_SCENARIO)
    r = transim.run(sc, pcap=tmp_path / "cap")
    f = r.flow(0)
    assert f["dsacks_received"] > 0 and f["data_packets_dropped"] == 0
    both = merged(
        tmp_path,
        "both.pcap",
        tmp_path / "cap" / f"{f['src']}_to_r1.pcap",
        tmp_path / "cap" / f"{f['dst']}_to_r2.pcap",
    )
    clean(both)
    rows = tshark(
        both,
        "tcp.options.sack.dsack",
        "tcp.options.sack.dsack_le",
        "tcp.options.sack.dsack_re",
        "tcp.ack",
    )
    assert len(rows) == f["dsacks_received"]
    # Each reports one whole segment below the cumulative ACK (go-back-N resends what had
    # arrived).
    for le, re, ack in rows:
        assert int(re) - int(le) == f["mss"] and int(re) <= int(ack)


def test_sctp_zero_window_sacks_decode(tmp_path: Path) -> None:
    """The zero-window episode of crates/transim-core/tests/sctp_reader.rs (a 3,000-byte
    buffer read at 1 byte/ms, four 1,452-byte messages, a SACK per packet), as tshark reads
    the receiver's SACKs: the window each advertised, worked out by hand there, and the
    dropped probes left out of the cumulative TSN (RFC 9260 §6.2)."""
    doc = {
        "duration": "10s",
        "seed": 1,
        "sctp": {
            "rcv_buf": 3000,
            "read_rate": "8kbps",
            "sack_freq": 1,
            "assoc_max_retrans": 1,
            "path_max_retrans": 1,
        },
        "topology": {
            "kind": "explicit",
            "nodes": ["A", "B"],
            "links": [{"between": ["A", "B"], "rate": "8Mbps", "delay": "10ms", "queue": 1000}],
        },
        "flows": [
            {"src": "A", "dst": "B", "protocol": "sctp", "app": {"kind": "finite", "bytes": 5808}}
        ],
    }
    transim.run(doc, pcap=tmp_path, pcap_links=["B->A"])
    cap = tmp_path / "B_to_A.pcap"
    clean(cap)
    sacks = tshark(
        cap, "sctp.chunk_type == 3", "sctp.sack_cumulative_tsn_ack_raw", "sctp.sack_a_rwnd"
    )
    assert [(int(c), int(w)) for c, w in sacks] == [
        (1, 1548),  # 3,000 less TSN 1 unread
        (2, 97),  # 2,904 delivered, 1 byte read
        (3, 0),  # TSN 3 accepted into 119 free bytes: the buffer is over full
        (3, 0),  # TSN 4 dropped at the zero window
        (3, 0),  # and again after T3-rtx
        (3, 1500),  # the window update, 1,500 bytes read since
        (4, 236),  # TSN 4 accepted after the second T3-rtx
    ]

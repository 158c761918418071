"""An executable restatement of ns-2.35's one-way TCP agents, for the Fall & Floyd timelines.

This is the "hand" that derives the expected timelines: the rules of ns-2.35's `Agent/TCP`
(Tahoe), `TCP/Reno`, `TCP/Newreno` and `TCP/Sack1` senders, the `TCPSink` and
`TCPSink/Sack1` receivers (with their SACK-block stack), `Queue/DropTail` and an error module
in front of the bottleneck queue, written down one rule per line from ns-2's sources
(`tcp.cc`, `tcp-reno.cc`, `tcp-newreno.cc`, `tcp-sack1.cc`, `scoreboard-rq.cc`, `rq.cc`,
`tcp-sink.cc`, `queue.cc`, `drop-tail.cc`, `delay.cc`) and ns-default.tcl's defaults. It
shares no code with the engine: it works in packet numbers (seqno 0 is the SYN), integer
nanoseconds and ns-2's event order (equal times run in the order they were scheduled).

Simplifications, each checked while it runs (an `AssertionError` says the set-up left them):
the retransmission timeout is ns-2's `minrto_` times the backoff, which holds while ns-2's
own estimate (srtt + 4 rttvar on the 10 ms tick) stays below `minrto_`; the receiver never
reports a SACK block below the cumulative ACK (so the scoreboard's `rcv_nxt_` quirk for such
blocks never arises).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SEC = 1_000_000_000
MS = 1_000_000
BULK = 1 << 30  # ns-2's TCP_MAXSEQ for an FTP source

DUPACK, TIMEOUT, EXITED = 1, 2, 4  # last_cwnd_action_ values that matter here


class Sim:
    """ns-2's scheduler: earliest time first, equal times in the order scheduled."""

    def __init__(self) -> None:
        self.now = 0
        self._q: list[tuple[int, int, Callable[..., None], tuple[Any, ...]]] = []
        self._n = 0

    def at(self, t: int, fn: Callable[..., None], *args: Any) -> int:
        heapq.heappush(self._q, (t, self._n, fn, args))
        self._n += 1
        return self._n - 1

    def run(self, until: int) -> None:
        while self._q and self._q[0][0] <= until:
            t, _, fn, args = heapq.heappop(self._q)
            self.now = t
            fn(*args)


class Timer:
    """A TimerHandler: `resched` replaces any pending expiry."""

    def __init__(self, sim: Sim, fn: Callable[[], None]) -> None:
        self.sim, self.fn, self.gen, self.pending = sim, fn, 0, False

    def resched(self, delay: int) -> None:
        self.gen += 1
        self.pending = True
        self.sim.at(self.sim.now + delay, self._fire, self.gen)

    def cancel(self) -> None:
        self.gen += 1
        self.pending = False

    def _fire(self, gen: int) -> None:
        if gen == self.gen and self.pending:
            self.pending = False
            self.fn()


@dataclass
class Pkt:
    data: bool
    seqno: int
    size: int
    sack: list[tuple[int, int]] = field(default_factory=list)


class Link:
    """A simplex link: DropTail queue (drops an arrival once limit − 1 packets wait), an
    optional error module in front of it, transmission then propagation."""

    def __init__(
        self,
        sim: Sim,
        rate_bps: int,
        delay: int,
        limit: int,
        to: Callable[[Pkt], None],
        drop: Callable[[Pkt], bool] | None = None,
    ) -> None:
        self.sim, self.rate, self.delay, self.limit, self.to = sim, rate_bps, delay, limit, to
        self.error = drop
        self.waiting: deque[Pkt] = deque()
        self.blocked = False
        self.drops: list[tuple[int, int, str]] = []

    def recv(self, p: Pkt) -> None:
        if self.error is not None and self.error(p):
            self.drops.append((self.sim.now, p.seqno, "error"))
            return
        if len(self.waiting) + 1 >= self.limit:
            self.drops.append((self.sim.now, p.seqno, "queue"))
            return
        self.waiting.append(p)
        if not self.blocked:
            self._send(self.waiting.popleft())

    def _send(self, p: Pkt) -> None:
        self.blocked = True
        tx = p.size * 8 * SEC // self.rate
        assert tx * self.rate == p.size * 8 * SEC, "transmission time not a whole ns"
        self.sim.at(self.sim.now + tx + self.delay, self.to, p)
        self.sim.at(self.sim.now + tx, self._resume)

    def _resume(self) -> None:
        if self.waiting:
            self._send(self.waiting.popleft())
        else:
            self.blocked = False


class Sink:
    """TCPSink (an ACK per packet, 40 bytes) or TCPSink/Sack1 (+ 8 bytes per SACK block,
    at most 3, from its stack of recent blocks)."""

    def __init__(self, sim: Sim, sack: bool, out: Callable[[Pkt], None]) -> None:
        self.sim, self.sack, self.out = sim, sack, out
        self.next, self.maxseen = 0, 0
        self.seen: set[int] = set()
        self.stack: list[tuple[int, int]] = []
        self.acks: list[tuple[int, int]] = []  # (time, cumulative ack)

    def recv(self, p: Pkt) -> None:
        seq, dup, just = p.seqno, False, False
        if seq > self.maxseen:
            self.maxseen, just = seq, True
            self.seen.add(seq)
        if seq < self.next:
            dup = True
        if self.next <= seq <= self.maxseen:
            if seq in self.seen and not just:
                dup = True
            self.seen.add(seq)
            while self.next in self.seen:
                self.next += 1
        cum = self.next - 1
        blocks = self._blocks(seq, cum, dup) if self.sack else []
        self.acks.append((self.sim.now, cum))
        self.out(Pkt(False, cum, 40 + 8 * len(blocks), blocks))

    def _blocks(self, old: int, cum: int, dup: bool) -> list[tuple[int, int]]:
        if cum >= self.maxseen:
            self.stack.clear()
            return []
        if not (cum < self.maxseen or dup):
            return []
        out: list[tuple[int, int]] = []
        right = next((i for i in range(old, self.maxseen + 1) if i not in self.seen), -1)
        if right == -1:
            right = self.maxseen + 1
        if old <= cum:
            left = 0  # a packet at or below the cumulative ACK: no first block
        else:
            left = next(i + 1 for i in range(right - 1, cum, -1) if i not in self.seen)
            out.append((left, right))
        k = 0
        while len(out) < 3 and k < len(self.stack):
            sl, sr = self.stack[k]
            if sr > self.maxseen + 1:
                break
            if left <= sl and right >= sr:
                del self.stack[k]  # the newest block covers it
                continue
            assert sr > cum + 1, f"stale SACK block {sl}-{sr} below ack {cum}"
            out.append((sl, sr))
            k += 1
        if old > cum:
            self.stack.insert(0, (left, right))
            del self.stack[3:]
        return out


class Scoreboard:
    """ScoreBoardRQ: SACKed ranges above `sack_min` (a union of [start, end) blocks), and
    `h_seqno`, the next hole the sender may retransmit."""

    def __init__(self) -> None:
        self.blocks: list[list[int]] = []
        self.h_seqno, self.sack_min, self.changed = -1, -1, False

    def total(self) -> int:
        return sum(e - s for s, e in self.blocks)

    def clear(self) -> None:
        self.blocks, self.h_seqno = [], -1

    def update(self, last_ack: int, sack: list[tuple[int, int]]) -> None:
        old = self.total()
        self.changed = False
        if self.sack_min <= last_ack:
            self.sack_min = last_ack + 1
            if self.blocks:
                base = self.sack_min
                self.blocks = [[max(s, base), e] for s, e in self.blocks if e > base]
                self.changed = True
        for s, e in sack:
            assert s > self.sack_min, "SACK block at or below the scoreboard's base"
            self._add(s, e)
        self.changed = self.changed or old != self.total()

    def _add(self, s: int, e: int) -> None:
        merged: list[list[int]] = []
        for b in sorted(self.blocks + [[s, e]]):
            if merged and b[0] <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b[1])
            else:
                merged.append(list(b))
        self.blocks = merged

    def next_retran(self) -> int:
        if self.h_seqno < self.sack_min:
            self.h_seqno = self.sack_min
        seq = self.h_seqno
        for i, (s, e) in enumerate(self.blocks):
            if s > seq:
                return seq  # a hole below a SACKed block
            if s <= seq <= e:
                if i + 1 >= len(self.blocks):
                    return -1  # no SACKed block above
                self.h_seqno = max(self.h_seqno, e)
                return e
        return -1

    def mark_retran(self, seq: int) -> None:
        if seq >= self.h_seqno:
            self.h_seqno = seq + 1


class Tahoe:
    """Agent/TCP with ns-2.35's defaults (bugFix_, singledup_, syn_, delay_growth_,
    windowInit_ 2, windowOption_ 1, aggressive_maxburst_, maxburst_ 0)."""

    def __init__(
        self,
        sim: Sim,
        out: Callable[[Pkt], None],
        wnd: int,
        minrto: int,
        limited_transmit: bool = True,
        precision_reduce: bool = True,
        wnd_init: int = 2,
    ) -> None:
        self.sim, self.out_link, self.wnd, self.minrto = sim, out, wnd, minrto
        self.singledup, self.precision_reduce, self.wnd_init = (
            limited_transmit,
            precision_reduce,
            wnd_init,
        )
        self.cwnd: float = 1.0
        self.ssthresh = wnd
        self.t_seqno, self.maxseq, self.last_ack, self.highest_ack = 0, -1, -1, -1
        self.dupacks, self.recover, self.curseq = 0, 0, 0
        self.last_cwnd_action, self.first_decrease = 0, True
        self.t_backoff, self.rtt_active, self.rtt_seq, self.rtt_ts = 1, False, -1, 0
        self.srtt8, self.rttvar4 = 0, int(12 / 0.01) << 2  # ns-2's rttvar_init_ 12 s
        self.timer = Timer(sim, self.timeout)
        self.sent: list[tuple[int, int]] = []  # (time, seqno) of every packet sent
        self.timeouts: list[int] = []

    # -- ns-2's helpers -------------------------------------------------------------
    def window(self) -> int:
        return int(min(self.cwnd, self.wnd))

    def windowd(self) -> float:
        return min(self.cwnd, float(self.wnd))

    def start(self) -> None:
        self.curseq = BULK
        self.send_much()

    def rtt_timeout(self) -> int:
        rtxcur = ((self.rttvar4 << 3) + self.srtt8) >> 3  # ticks: srtt + 4 rttvar
        assert self.srtt8 == 0 or rtxcur * 10 * MS < self.minrto, "RTO above minrto_"
        return min(self.minrto * self.t_backoff, 60 * SEC)

    def rtt_update(self, tao: int) -> None:
        # Worst case of ns-2's tick offset (boot_time_ is random): one tick more.
        t = max(1, tao // (10 * MS) + 1)
        if self.srtt8:
            delta = t - (self.srtt8 >> 3)
            self.srtt8 = max(1, self.srtt8 + delta)
            delta = abs(delta) - (self.rttvar4 >> 2)
            self.rttvar4 = max(1, self.rttvar4 + delta)
        else:
            self.srtt8, self.rttvar4 = t << 3, t << 1

    def set_rtx_timer(self) -> None:
        self.timer.resched(self.rtt_timeout())

    def reset_rtx_timer(self, mild: bool, backoff: bool) -> None:
        if backoff and (self.t_backoff < 64 or self.rtt_timeout() < 60 * SEC):
            self.t_backoff *= 2
        self.set_rtx_timer()
        if not mild:
            self.t_seqno = self.highest_ack + 1
        self.rtt_active = False

    def newtimer(self, ack: int) -> None:
        if self.t_seqno > ack or ack < self.maxseq or self.cwnd < 1:
            self.set_rtx_timer()
        else:
            self.timer.cancel()

    def output(self, seqno: int) -> None:
        force = self.highest_ack == self.maxseq
        size = 40 if seqno == 0 else 1040
        self.sent.append((self.sim.now, seqno))
        self.out_link(Pkt(True, seqno, size))
        if seqno > self.maxseq:
            self.maxseq = seqno
            if not self.rtt_active:
                self.rtt_active = True
                if seqno > self.rtt_seq:
                    self.rtt_seq, self.rtt_ts = seqno, self.sim.now
        if not self.timer.pending or force:
            self.set_rtx_timer()

    def send_much(self, maxburst: int = 0) -> None:
        win, n = self.window(), 0
        while self.t_seqno <= self.highest_ack + win and self.t_seqno < self.curseq:
            self.output(self.t_seqno)
            n += 1
            self.t_seqno += 1
            win = self.window()
            if maxburst and n == maxburst:
                break

    def send_one(self) -> None:
        if (
            self.t_seqno <= self.highest_ack + self.wnd
            and self.t_seqno < self.curseq
            and self.t_seqno <= self.highest_ack + self.cwnd + self.dupacks
        ):
            self.output(self.t_seqno)
            self.t_seqno += 1

    def opencwnd(self) -> None:
        if self.cwnd < self.ssthresh:
            self.cwnd += 1
        else:
            self.cwnd += 1.0 / self.cwnd

    def slowdown(self, ssthresh_half: bool, cwnd: str) -> None:
        slowstart = self.cwnd < self.ssthresh
        if self.precision_reduce:
            half: float = self.windowd() / 2
        else:
            half = float(self.window() // 2)
        if ssthresh_half:
            self.ssthresh = int(half)
        if cwnd == "half":
            self.cwnd = half
        elif cwnd in ("one", "restart"):
            self.cwnd = 1.0
        self.ssthresh = max(self.ssthresh, 2)
        self.first_decrease = False
        del slowstart  # first_decrease_/slowstart only matter for decrease_num_ != 0.5

    def newack(self, ack: int) -> None:
        self.dupacks = 0
        self.last_ack = self.highest_ack = ack
        self.t_seqno = max(self.t_seqno, ack + 1)
        if self.rtt_active and ack >= self.rtt_seq:
            self.t_backoff = 1
            self.rtt_active = False
            self.rtt_update(self.sim.now - self.rtt_ts)
        self.newtimer(ack)

    def recv_newack_helper(self, ack: int) -> None:
        self.newack(ack)
        self.opencwnd()

    def first_ack(self) -> None:
        if self.last_ack == 0:
            self.cwnd = float(self.wnd_init)  # delay_growth_: the SYN is acknowledged

    # -- Tahoe ------------------------------------------------------------------------
    def recv(self, p: Pkt) -> None:
        a = p.seqno
        if a > self.last_ack:
            self.recv_newack_helper(a)
            self.first_ack()
        elif a == self.last_ack:
            self.dupacks += 1
            if self.dupacks == 3:
                self.dupack_action()
            elif self.dupacks < 3 and self.singledup:
                self.send_one()
        self.send_much()

    def fr_allowed(self) -> bool:
        return self.highest_ack > self.recover or self.highest_ack == 0

    def dupack_action(self) -> None:
        if not self.fr_allowed():
            return
        self.recover = self.maxseq
        self.last_cwnd_action = DUPACK
        self.slowdown(True, "one")
        self.reset_rtx_timer(False, False)

    def timeout(self) -> None:
        self.timeouts.append(self.sim.now)
        self.cwnd = max(self.cwnd, 1.0)
        assert self.highest_ack != self.maxseq, "idle timeout"
        self.recover = self.maxseq
        self.last_cwnd_action = TIMEOUT
        self.slowdown(True, "restart")
        self.reset_rtx_timer(False, True)
        self.last_cwnd_action = TIMEOUT
        self.send_much()


class Reno(Tahoe):
    """TCP/Reno: the window is cwnd_ + dupwnd_ during fast recovery."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.dupwnd = 0

    def window(self) -> int:
        return min(int(self.cwnd) + self.dupwnd, self.wnd)

    def windowd(self) -> float:
        return min(self.cwnd + self.dupwnd, float(self.wnd))

    def recv(self, p: Pkt) -> None:
        a = p.seqno
        if a > self.last_ack:
            if self.last_cwnd_action == DUPACK:
                self.last_cwnd_action = EXITED
            self.dupwnd = 0
            self.recv_newack_helper(a)
            self.first_ack()
        elif a == self.last_ack:
            self.on_dupack()
        if self.dupacks == 0 or self.dupacks > 2:
            self.send_much()

    def on_dupack(self) -> None:
        """Reno and NewReno: the third duplicate ACK retransmits, later ones inflate
        dupwnd_ during recovery, the first two may send a new packet (singledup_)."""
        self.dupacks += 1
        if self.dupacks == 3:
            self.dupack_action()
        elif self.dupacks > 3 and self.last_cwnd_action == DUPACK:
            self.dupwnd += 1
        elif self.dupacks < 3 and self.singledup:
            self.send_one()

    def fr_allowed(self) -> bool:
        return super().fr_allowed() or self.last_cwnd_action == DUPACK

    def dupack_action(self) -> None:
        if not self.fr_allowed():
            return
        self.recover = self.maxseq
        self.last_cwnd_action = DUPACK
        self.slowdown(True, "half")
        self.reset_rtx_timer(True, False)
        self.output(self.last_ack + 1)
        self.dupwnd = 3

    def timeout(self) -> None:
        self.dupwnd = 0
        self.dupacks = 0
        self.recover = self.maxseq
        super().timeout()


class NewReno(Reno):
    """TCP/Newreno (newreno_changes1_ 1, partial_window_deflation_ 1, exit_recovery_fix_ 0)."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.firstpartial = False

    def fr_allowed(self) -> bool:
        return Tahoe.fr_allowed(self)

    def dupack_action(self) -> None:
        if not self.fr_allowed():
            return
        self.recover = self.maxseq
        self.reset_rtx_timer(True, False)
        self.last_cwnd_action = DUPACK
        self.slowdown(True, "half")
        self.output(self.last_ack + 1)
        self.dupwnd = 3

    def recv(self, p: Pkt) -> None:
        a = p.seqno
        if a > self.last_ack:
            if a >= self.recover or self.last_cwnd_action != DUPACK:
                if self.dupwnd > 0:
                    self.dupwnd = 0
                    if self.last_cwnd_action == DUPACK:
                        self.last_cwnd_action = EXITED
                self.firstpartial = False
                self.recv_newack_helper(a)
                self.first_ack()
            else:
                if not self.firstpartial:
                    self.firstpartial = True
                    self.newtimer(a)
                deflate = a - self.last_ack
                if self.dupwnd > deflate:
                    self.dupwnd -= deflate - 1
                else:
                    self.cwnd -= deflate - self.dupwnd
                    self.dupwnd = 1
                self.cwnd = max(self.cwnd, 1.0)
                self.last_ack = self.highest_ack = a
                self.t_seqno = max(self.t_seqno, a + 1)
                if self.rtt_active and a >= self.rtt_seq:
                    self.rtt_active = False
                    self.t_backoff = 1
                self.output(self.last_ack + 1)
        elif a == self.last_ack:
            self.on_dupack()
        if self.dupacks == 0:
            self.send_much()
        elif self.dupacks > 2:
            self.send_much(2)


class Sack1(Tahoe):
    """TCP/Sack1 (partial_ack_ false) with the ScoreBoardRQ scoreboard."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.scb = Scoreboard()
        self.fastrecov, self.timeout_flag, self.pipe = False, False, -1

    def recv(self, p: Pkt) -> None:
        a = p.seqno
        if not self.fastrecov:
            if a > self.last_ack:
                self.recv_newack_helper(a)
                self.timeout_flag = False
                self.scb.clear()
                self.first_ack()
            elif a < self.last_ack:
                pass
            elif not self.timeout_flag:
                self.scb.update(self.highest_ack, p.sack)
                if self.scb.changed:
                    self.dupacks += 1
                    if self.dupacks == 3:
                        self.dupack_action()
                    elif self.dupacks < 3 and self.singledup:
                        self.send_one()
            if self.dupacks == 0:
                self.send_much()
            return
        self.pipe -= 1
        if a >= self.recover:
            self.recover = 0
            self.fastrecov = False
            self.newack(a)
            self.timeout_flag = False
            self.scb.clear()
        elif a > self.highest_ack:
            self.highest_ack = a
            self.scb.update(self.highest_ack, p.sack)
            self.pipe -= 1
            self.newtimer(a)
            self.t_backoff = 1
        elif not self.timeout_flag:
            self.scb.update(self.highest_ack, p.sack)
            if self.scb.changed and self.dupacks > 0:
                self.dupacks += 1
        self.send_much()

    def dupack_action(self) -> None:
        if not self.fr_allowed():
            return
        self.recover = self.maxseq
        self.pipe = self.maxseq - self.highest_ack - 3
        self.reset_rtx_timer(True, False)
        self.fastrecov = True
        self.scb.mark_retran(self.highest_ack + 1)
        self.last_cwnd_action = DUPACK
        self.slowdown(True, "half")
        self.output(self.last_ack + 1)

    def timeout(self) -> None:
        self.dupacks = 0
        self.fastrecov = False
        self.timeout_flag = True
        self.last_ack = max(self.last_ack, self.highest_ack)
        self.recover = self.maxseq
        self.scb.clear()
        super().timeout()

    def send_much(self, maxburst: int = 0) -> None:
        win, n, found = self.window(), 0, True
        while (
            (
                (not self.fastrecov and self.t_seqno <= self.last_ack + win)
                or (self.fastrecov and self.pipe < int(self.cwnd))
            )
            and self.last_ack + 1 < self.curseq
            and found
        ):
            found = False
            x = self.scb.next_retran()
            if x == -1:
                limit = self.wnd if self.fastrecov else win
                if self.t_seqno <= self.highest_ack + limit and self.t_seqno < self.curseq:
                    found, x = True, self.t_seqno
                    self.t_seqno += 1
            elif self.recover > 0 and x <= self.highest_ack + self.wnd:
                found = True
                self.scb.mark_retran(x)
                win = self.window()
            if found:
                self.output(x)
                if self.t_seqno <= x:
                    self.t_seqno = x + 1
                n += 1
                self.pipe += 1
            if maxburst and n == maxburst:
                break


VARIANTS = {"tahoe": Tahoe, "reno": Reno, "newreno": NewReno, "sack1": Sack1}


@dataclass
class Timeline:
    sent: list[tuple[int, int]]  # (ns, seqno) of every packet the sender sent
    acks: list[tuple[int, int]]  # (ns, cumulative ack) of every ACK the sink sent
    drops: list[tuple[int, int, str]]  # (ns, seqno, cause) at the bottleneck
    timeouts: list[int]


def fall_floyd(
    variant: str,
    drops: list[int | tuple[int, int]],
    until: int = 6 * SEC,
    limited_transmit: bool = True,
    precision_reduce: bool = True,
    window: int = 28,
    queue: int = 8,
) -> Timeline:
    """ns-2's Fall & Floyd path: s --8 Mb/s, 0 ms-- r --800 kb/s, 100 ms, DropTail `queue`--
    k (other queues 50); a bulk flow from 1 s; the error module before r's queue drops the
    first transmission of each packet number in `drops`, or the given transmission of a
    (packet number, transmission) pair."""
    sim = Sim()
    tx: dict[int, int] = {}
    doomed = {d if isinstance(d, tuple) else (d, 1) for d in drops}

    def error(p: Pkt) -> bool:
        if not p.data:
            return False
        tx[p.seqno] = tx.get(p.seqno, 0) + 1
        return (p.seqno, tx[p.seqno]) in doomed

    sack = variant == "sack1"
    agent: Tahoe
    # Data path: s -> r -> k. ACK path: k -> r -> s.
    r_s = Link(sim, 8_000_000, 0, 50, lambda p: agent.recv(p))
    k_r = Link(sim, 800_000, 100 * MS, 50, r_s.recv)
    sink = Sink(sim, sack, k_r.recv)
    r_k = Link(sim, 800_000, 100 * MS, queue, sink.recv, error)
    s_r = Link(sim, 8_000_000, 0, 50, r_k.recv)
    agent = VARIANTS[variant](
        sim,
        s_r.recv,
        window,
        SEC,
        limited_transmit=limited_transmit,
        precision_reduce=precision_reduce,
    )
    sim.at(SEC, agent.start)
    sim.run(until)
    return Timeline(agent.sent, sink.acks, r_k.drops, agent.timeouts)

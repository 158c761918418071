"""Statistics for studies: Welch's two-sample t-test and confidence intervals (scipy)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import stats as sps


@dataclass(frozen=True)
class TTest:
    """Result of a two-sided Welch t-test."""

    t: float
    df: float
    p: float


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> TTest:
    """Welch's unequal-variance t-test with Welch–Satterthwaite degrees of freedom."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        raise ValueError("Welch's t-test needs at least two samples in each group")
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((x - ma) ** 2 for x in a) / (na - 1)
    vb = sum((x - mb) ** 2 for x in b) / (nb - 1)
    se2 = va / na + vb / nb
    if se2 == 0:
        return TTest(0.0 if ma == mb else math.inf, float(na + nb - 2), 1.0 if ma == mb else 0.0)
    t = (ma - mb) / math.sqrt(se2)
    df = se2**2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    p = 2 * sps.t.sf(abs(t), df)
    return TTest(t, df, float(p))


def welch_from_moments(
    mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float, n_b: int
) -> TTest:
    """Welch's test from summary statistics."""
    se2 = sd_a**2 / n_a + sd_b**2 / n_b
    t = (mean_a - mean_b) / math.sqrt(se2)
    df = se2**2 / ((sd_a**2 / n_a) ** 2 / (n_a - 1) + (sd_b**2 / n_b) ** 2 / (n_b - 1))
    return TTest(t, df, float(2 * sps.t.sf(abs(t), df)))

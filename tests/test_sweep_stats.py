"""aggregate(): mean, std, n and Student-t confidence intervals, against hand computations."""

import math

import numpy as np
import pandas as pd
import pytest
from ccsim import aggregate
from ccsim.stats import betainc, t_cdf, t_ppf


def test_confidence_interval_by_hand():
    # values 1, 2, 3, 4, 5: mean 3; s² = (4 + 1 + 0 + 1 + 4) / 4 = 2.5, s = 1.5811;
    # t(0.975, 4) = 2.7764 (tables); half-width = 2.7764 · 1.5811 / √5 = 1.9632.
    # values 10, 14: mean 12; s = √8 = 2.8284; t(0.975, 1) = 12.7062;
    # half-width = 12.7062 · 2.8284 / √2 = 25.4124.
    df = pd.DataFrame(
        {"q": [5, 5, 5, 5, 5, 7, 7], "flow": ["a"] * 7, "x": [1.0, 2, 3, 4, 5, 10, 14]}
    )
    out = aggregate(df, by=["q", "flow"], metrics=["x"])
    assert list(out.columns) == ["q", "flow", "x_mean", "x_std", "x_n", "x_ci95"]
    assert list(out.q) == [5, 7] and list(out.x_n) == [5, 2]
    assert out.x_mean.tolist() == pytest.approx([3.0, 12.0])
    assert out.x_std.tolist() == pytest.approx([1.5811, 2.8284], abs=1e-4)
    assert out.x_ci95.tolist() == pytest.approx([1.9632, 25.4124], abs=1e-4)


def test_other_confidence_and_single_values():
    # 99 %: t(0.995, 4) = 4.6041; half-width = 4.6041 · 1.5811 / √5 = 3.2556.
    df = pd.DataFrame({"g": [1] * 5 + [2], "x": [1.0, 2, 3, 4, 5, 9]})
    out = aggregate(df, by=["g"], metrics=["x"], confidence=0.99)
    assert out.x_ci99.iat[0] == pytest.approx(3.2556, abs=1e-4)
    # One value: no spread to estimate, so no interval.
    assert out.x_n.iat[1] == 1 and math.isnan(out.x_std.iat[1]) and math.isnan(out.x_ci99.iat[1])


def test_missing_values_are_not_counted():
    df = pd.DataFrame({"g": [1, 1, 1], "x": [2.0, np.nan, 4.0]})
    out = aggregate(df, by=["g"], metrics=["x"])
    assert out.x_n.iat[0] == 2 and out.x_mean.iat[0] == 3.0


def test_default_groups_come_from_the_sweep_axes():
    df = pd.DataFrame(
        {
            "point": [0, 0, 1, 1],
            "key": ["k0", "k0", "k1", "k1"],
            "limit": [5, 5, 5, 5],
            "replication": [0, 0, 1, 1],
            "seed": [1, 1, 2, 2],
            "flow": ["a", "b", "a", "b"],
            "kind": ["tcp"] * 4,
            "goodput_bps": [1.0, 2.0, 3.0, 4.0],
            "timeouts": np.array([0, 1, 2, 3], dtype=np.uint64),
        }
    )
    df.attrs["axes"] = ["limit"]
    out = aggregate(df)
    assert list(out.columns[:2]) == ["limit", "flow"]
    assert list(out.flow) == ["a", "b"] and out.goodput_bps_mean.tolist() == [2.0, 3.0]
    # Bookkeeping and text columns are not averaged.
    assert not {c for c in out.columns if c.startswith(("point_", "seed_", "replication_"))}
    assert "timeouts_mean" in out.columns and "kind_mean" not in out.columns
    df.attrs.clear()
    with pytest.raises(ValueError, match="aggregate needs `by`"):
        aggregate(df)


def test_bad_arguments():
    df = pd.DataFrame({"g": [1], "x": [1.0]})
    with pytest.raises(KeyError, match="'nope'"):
        aggregate(df, by=["nope"])
    with pytest.raises(KeyError, match="'y'"):
        aggregate(df, by=["g"], metrics=["y"])
    with pytest.raises(ValueError, match="between 0 and 1"):
        aggregate(df, by=["g"], confidence=95)


@pytest.mark.parametrize(
    "p, df, expected",
    [  # Student's t table values
        (0.975, 1, 12.706205),
        (0.975, 2, 4.302653),
        (0.975, 4, 2.776445),
        (0.975, 10, 2.228139),
        (0.975, 30, 2.042272),
        (0.975, 120, 1.979930),
        (0.95, 5, 2.015048),
        (0.995, 3, 5.840909),
        (0.025, 4, -2.776445),
    ],
)
def test_t_quantiles(p, df, expected):
    assert t_ppf(p, df) == pytest.approx(expected, abs=1e-6)
    assert t_cdf(t_ppf(p, df), df) == pytest.approx(p, abs=1e-12)


def test_t_against_scipy_when_present():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 7, 19, 50, 500):
        for p in (0.9, 0.975, 0.999):
            assert t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9)


def test_incomplete_beta_closed_forms():
    # I_x(1, 1) = x; I_x(2, 1) = x²; I_x(1, 2) = 1 - (1 - x)²
    for x in (0.1, 0.5, 0.9):
        assert betainc(1, 1, x) == pytest.approx(x)
        assert betainc(2, 1, x) == pytest.approx(x * x)
        assert betainc(1, 2, x) == pytest.approx(1 - (1 - x) ** 2)
    with pytest.raises(ValueError):
        t_ppf(1.0, 3)

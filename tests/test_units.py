"""Human units of scenario files: accepted and rejected forms (docs/scenarios.md "Units")."""

import pytest

from tcplab.units import UnitError, parse_duration, parse_queue_limit, parse_rate, parse_size


@pytest.mark.parametrize(
    "text, bps",
    [
        ("10Mbit/s", 10_000_000),
        ("500kbit/s", 500_000),
        ("500Kbit/s", 500_000),
        ("1.5Gbit/s", 1_500_000_000),
        ("64bit/s", 64),
        ("10Mbps", 10_000_000),
        ("10 Mbps", 10_000_000),
        ("2.5 Mbit/s", 2_500_000),
        ("100kbps", 100_000),
        ("1Gbps", 1_000_000_000),
        ("0.001Mbit/s", 1_000),
        (".5Mbit/s", 500_000),
    ],
)
def test_rate_accepted(text, bps):
    assert parse_rate(text) == bps


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("10", "the unit is missing"),
        (10, "a bare integer"),
        (10.0, "a bare number"),
        ("10M", 'unknown unit "M"'),
        ("10 mbps", 'did you mean "Mbps"'),
        ("10mbit/s", 'did you mean "Mbit/s"'),
        ("10MB/s", 'unknown unit "MB/s"'),
        ("0Mbit/s", "must be greater than zero"),
        ("-5Mbit/s", "must not be negative"),
        ("1.5bit/s", "not a whole number of bit/s"),
        ("10  Mbit/s", "expected a rate"),
        ("fast", "expected a rate"),
        ("", "expected a rate"),
        (True, "a boolean"),
    ],
)
def test_rate_rejected(value, fragment):
    with pytest.raises(UnitError) as e:
        parse_rate(value)
    assert fragment in str(e.value)
    assert "accepted units" in str(e.value) or "negative" in str(e.value) or "zero" in str(e.value) or "whole" in str(e.value) or "whitespace" in str(e.value)


def test_rate_zero_allowed_when_asked():
    assert parse_rate("0Mbit/s", allow_zero=True) == 0


@pytest.mark.parametrize(
    "text, ns",
    [
        ("530ms", 530_000_000),
        ("1s", 1_000_000_000),
        ("2.5s", 2_500_000_000),
        ("200us", 200_000),
        ("200µs", 200_000),
        ("7ns", 7),
        ("0ms", 0),
        ("0.5ms", 500_000),
    ],
)
def test_duration_accepted(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("530", "the unit is missing"),
        (530, "a bare integer"),
        ("1sec", 'unknown unit "sec"'),
        ("1 min", 'unknown unit "min"'),
        ("1MS", 'did you mean "ms"'),
        ("0.5ns", "not a whole number of nanoseconds"),
        ("-1s", "must not be negative"),
    ],
)
def test_duration_rejected(value, fragment):
    with pytest.raises(UnitError) as e:
        parse_duration(value)
    assert fragment in str(e.value)


def test_duration_zero_rejected_when_positive_required():
    with pytest.raises(UnitError, match="greater than zero"):
        parse_duration("0s", allow_zero=False)


@pytest.mark.parametrize(
    "text, n",
    [
        ("1460B", 1460),
        ("256KB", 256_000),
        ("256kB", 256_000),
        ("256KiB", 262_144),
        ("4MiB", 4_194_304),
        ("4MB", 4_000_000),
        ("1GB", 10**9),
        ("1GiB", 2**30),
        ("1.5KB", 1500),
        ("1.5KiB", 1536),
    ],
)
def test_size_accepted(text, n):
    assert parse_size(text) == n


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("1460", "the unit is missing"),
        (1460, "a bare integer"),
        ("4Mi", 'unknown unit "Mi"'),
        ("4mb", 'did you mean "MB"'),
        ("4kib", 'did you mean "KiB"'),
        ("0.3B", "not a whole number of bytes"),
        ("10pkts", 'unknown unit "pkts"'),
    ],
)
def test_size_rejected(value, fragment):
    with pytest.raises(UnitError) as e:
        parse_size(value)
    assert fragment in str(e.value)


def test_queue_limits():
    assert parse_queue_limit("100pkts") == ("packets", 100)
    assert parse_queue_limit("100 packets") == ("packets", 100)
    assert parse_queue_limit("150KB") == ("bytes", 150_000)
    assert parse_queue_limit("64KiB") == ("bytes", 65_536)
    for bad in ("100", 100, "100p", "0pkts"):
        with pytest.raises(UnitError):
            parse_queue_limit(bad)

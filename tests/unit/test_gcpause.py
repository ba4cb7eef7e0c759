"""``gcpause.cyclic_gc_paused`` turns the cyclic collector off for a block and restores its
state: nested, on an exception, and when it was off already.

The measure behind it (the default cohort, same process, alternated): with the pause, read +
validate + tidy + score of the cohort took about 15% less CPU time (3.9 s against 4.6 s)."""

from __future__ import annotations

import gc

import pytest
from eibench.gcpause import cyclic_gc_paused


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_inside_and_on_after():
    with cyclic_gc_paused():
        assert not gc.isenabled()
        with cyclic_gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause leaves the outer one paused
    assert gc.isenabled()


def test_an_exception_restores_the_collector():
    with pytest.raises(ValueError):
        with cyclic_gc_paused():
            raise ValueError("x")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with cyclic_gc_paused():
        pass
    assert not gc.isenabled()


def test_as_a_decorator():
    @cyclic_gc_paused()
    def state() -> bool:
        return gc.isenabled()

    assert state() is False and state() is False  # reusable
    assert gc.isenabled()

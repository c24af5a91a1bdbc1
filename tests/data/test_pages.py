"""data.pages.small_pages: numpy's huge-page request off inside, the previous setting back after (also on error)."""

from __future__ import annotations

import pytest

from hcrbench.data import pages


def test_small_pages_turns_the_request_off_and_restores_it():
    switch = pages._set_madvise_hugepage
    if switch is None:
        pytest.skip("this numpy has no huge-page switch")
    before = switch(True)
    try:
        with pages.small_pages():
            assert switch(False) is False  # off inside (switch returns the setting it replaces)
            with pages.small_pages():
                pass
            assert switch(False) is False  # a nested block restores "off", not "on"
        assert switch(True) is True  # back on after the block
        with pytest.raises(ValueError), pages.small_pages():
            raise ValueError
        assert switch(True) is True
    finally:
        switch(before)

"""The calibration page's teach step in Chromium: the tower rolls, the host confirms, it learns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tower_pages import LiveTable, capture_empty_and_dice, open_calibration

from vision.calibration import load_calibration
from vision.profile import fit_profile, load_examples, load_profile

pytestmark = pytest.mark.browser


def _calibrate(page: Any) -> None:
    """The two captures, the test read and the save, as a host does them."""
    capture_empty_and_dice(page)
    page.click("#test-read")
    page.wait_for_selector("#calibrate[data-step='save']")
    page.click("#save")
    page.wait_for_function("() => document.getElementById('saved').textContent.includes('Saved')")


def test_the_host_teaches_the_tower_its_dice(
    live_table: LiveTable, page_for: Any, artifacts: Path
) -> None:
    page = open_calibration(page_for, live_table)
    _calibrate(page)
    assert page.is_disabled("#teach-learn")
    for n in range(3):
        page.click("#teach-roll")
        page.wait_for_selector(f"#teach-rolls [data-roll='{n}']")
        roll = page.locator(f"#teach-rolls [data-roll='{n}']")
        assert roll.locator("img").count() == 6
        assert roll.locator("img").first.evaluate("img => img.naturalWidth") == 64
        if n == 1:  # the host corrects the first die: two taps
            die = roll.locator("[data-index='0']")
            before = int(die.get_attribute("data-value"))
            die.click()
            page.locator(f"#teach-rolls [data-roll='{n}'] [data-index='0']").click()
            changed = page.locator(f"#teach-rolls [data-roll='{n}'] [data-index='0']")
            assert int(changed.get_attribute("data-value")) == (before + 1) % 6 + 1
            page.screenshot(path=str(artifacts / "teach-correcting.png"), full_page=True)
        page.locator(f"#teach-rolls [data-roll='{n}'] [data-confirm]").click()
        page.wait_for_selector(f"#teach-rolls [data-roll='{n}'].confirmed")
    assert "18 dice confirmed" in page.text_content("#teach-status")

    # the service's answer names the values no taught die showed; the page says them
    # (the service's list, here made to name a 6, is the page's one source for them)
    def without_sixes(route: Any) -> None:
        answer = route.fetch().json()
        answer["taught"]["profile"]["untaught"] = [6]
        route.fulfill(json=answer)

    page.route("**/api/calibrate/teach/learn", without_sixes)
    page.click("#teach-learn")
    page.wait_for_selector("#teach-status.learned")
    learned = page.text_content("#teach-status")
    assert "learned these dice from 18 dice" in learned
    assert "reads with them once every value is taught: no die showed 6" in learned
    page.unroute("**/api/calibrate/teach/learn")
    page.screenshot(path=str(artifacts / "teach-learned.png"), full_page=True)

    state_dir = live_table.config.calibration_path.parent
    calibration = load_calibration(live_table.config.calibration_path)
    profile = load_profile(state_dir / "dice-profile.json", calibration)
    assert sum(profile.counts) == 18
    assert len(load_examples(state_dir / "teaching-examples.json")) == 18
    assert live_table.service.teacher.profile() is not None
    # rolling again to teach more, the page says what the tower keeps, and whether it
    # reads with it: a dice set never shown a 6 is kept but not read with
    examples = [e for e in load_examples(state_dir / "teaching-examples.json") if e.value != 6]
    fit_profile(examples, calibration, calibration.frame_size).save(state_dir / "dice-profile.json")
    page.click("#teach-roll")
    page.wait_for_function(
        "() => document.getElementById('teach-status').textContent.includes('dice set')"
    )
    text = page.text_content("#teach-status")
    assert "reads without it until every value is taught: no die showed 6" in text
    assert live_table.service.teacher.profile() is None
    assert page.js_errors == []

"""The TV and the phone follow the live state: never back to an older table."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from tower_pages import harness, wait_for_seq

pytestmark = pytest.mark.browser

# Marks the moment the page has had the answer to its /api/state fetch: a task queued
# after the body is parsed runs after the page's own handling of it.
ANSWERED = """
window.stateAnswered = false;
const fetchFirst = window.fetch;
window.fetch = (...args) => fetchFirst(...args).then((response) => {
  if (!String(args[0]).includes("/api/state")) return response;
  const parse = response.json.bind(response);
  response.json = () => parse().then((value) => {
    setTimeout(() => { window.stateAnswered = true; }, 0);
    return value;
  });
  return response;
});
"""


@pytest.mark.parametrize(("path", "root"), [("/", "tv"), ("/play", "play")])
def test_a_late_first_answer_never_takes_the_page_back_to_before_a_new_game(
    example_table: str, page_for: Any, path: str, root: str
) -> None:
    """The page's first ``/api/state`` answer can arrive after the stream's newer state.

    Here it was made while no game ran and arrives after the stream has shown
    the game that started since: the page keeps the game (a different
    ``game_id`` is no reason to go back to an older ``seq``).
    """
    idle_seq = harness(example_table, "use/idle")
    with urllib.request.urlopen(f"{example_table}/api/state", timeout=10) as response:
        idle = response.read()
    assert json.loads(idle)["game_id"] is None
    held: list[Any] = []
    page = page_for(width=390, height=844) if root == "play" else page_for()
    page.add_init_script(ANSWERED)

    def hold(route: Any) -> None:  # answered below, once the game is shown
        held.append(route)

    page.route("**/api/state", hold)
    page.goto(example_table + path)
    wait_for_seq(page, root, idle_seq)
    game_seq = harness(example_table, "use/duel")
    wait_for_seq(page, root, game_seq)
    assert len(held) == 1
    held[0].fulfill(status=200, content_type="application/json", body=idle)
    page.wait_for_function("window.stateAnswered")
    shown = page.evaluate(
        "(root) => [Number(document.getElementById(root).dataset.seq),"
        " document.getElementById(root).dataset.phase]",
        root,
    )
    with urllib.request.urlopen(f"{example_table}/api/state", timeout=10) as response:
        game = json.loads(response.read())
    assert game["phase"] != "idle"
    assert shown == [game_seq, game["phase"]]
    assert page.js_errors == []

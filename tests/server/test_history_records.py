"""/history's records: a player with no finished game has no best game (not "0")."""

from __future__ import annotations

import re

from server.service import TableService


def test_a_computer_player_of_an_abandoned_game_has_no_best_game(client, service: TableService):
    service.new_game("dicenow", {}, ["Ann", "Robo"], {"Robo": "dicenow"})
    for _ in range(80):  # Ann plays safe; the computer player plays its turns by itself
        if any(r["player"] == "Robo" for r in service.store.records("dicenow")):
            break
        state = service.state()
        if state["current"] == "Ann" and state["phase"] == "choose":
            service.keep(state["turn"]["best"]["dice"])
        elif state["current"] == "Ann" and state["phase"] == "ready":
            service.bank() if state["turn"]["can_bank"] else service.roll()
        assert service.wait_quiet(20)
    else:
        raise AssertionError("Robo banked no turn in 80 steps")
    service.end_game()
    html = client.get("/history").get_data(as_text=True)
    row = re.search(r"<tr><td>Robo</td>.*?</tr>", html, re.S)
    assert row is not None, html
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row[0], re.S)
    assert cells[0] == "Robo" and cells[3] == "—", cells  # best game: none finished
    assert int(cells[2].replace(",", "")) > 0, "its best turn is kept"

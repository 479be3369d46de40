/* The phone control: join, ROLL, BANK, tap dice to set aside, start a game.
   The PIN is entered once (or arrives in the TV's QR link) and kept in this
   phone's localStorage; every request that changes the table sends it. */
"use strict";

(() => {
  const { h, die, points, percent, sorted, live, request, storage } = Zilch;
  const $ = (id) => document.getElementById(id);
  const root = $("play");

  const PIN_KEY = "zilch.pin";
  const NAME_KEY = "zilch.name";
  const BUSY_PHASES = ["shaking", "settling", "reading"];
  const ROLL_PHASES = ["ready", "choose", "remove_dice", "return_dice", "fix_tray"];

  let state = null;
  let selected = new Set();  /* indices into turn.roll */
  let rollKey = "";
  let pending = false;
  let wasMyTurn = false;  /* buzz once when this phone's player is called */

  /* ---------- PIN and name ---------- */

  function takePinFromLink() {
    const match = /(?:^|[#&])pin=(\d{4,8})(?:&|$)/.exec(window.location.hash);
    if (match) {
      storage(PIN_KEY, match[1]);
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
  }

  function pin() {
    return storage(PIN_KEY) || "";
  }

  function showPinPanel(show) {
    $("pin-panel").hidden = !show;
    if (show) $("pin-input").focus();
  }

  /* ---------- messages ---------- */

  function showError(text) {
    const box = $("error");
    box.textContent = text || "";
    box.hidden = !text;
    if (text) $("notice").hidden = true;
  }

  function showNotice(text) {
    const box = $("notice");
    box.textContent = text || "";
    box.hidden = !text;
  }

  /* Send an action; plain-words errors, PIN problems send you to the PIN box. */
  async function act(path, body, done) {
    if (pending) return;
    if (!pin()) {
      showPinPanel(true);
      showError("Enter the table PIN shown on the TV first.");
      return;
    }
    pending = true;
    updateButtons();
    try {
      const result = await request("POST", path, body, { "X-Table-Pin": pin() });
      showError("");
      if (done) done(result);
    } catch (err) {
      if (err.status === 401) {
        storage(PIN_KEY, null);
        showPinPanel(true);
        showError("The tower did not accept that PIN. Enter the PIN shown on the TV.");
      } else {
        showError(err.message);
      }
    } finally {
      pending = false;
      updateButtons();
    }
  }

  /* ---------- dice selection ---------- */

  function roll() {
    return sorted((state && state.turn && state.turn.roll) || []);
  }

  function selectedValues() {
    return sorted([...selected].map((i) => roll()[i]));
  }

  function matchingOption() {
    const want = selectedValues();
    if (!want.length) return null;
    const options = (state && state.turn && state.turn.options) || [];
    return options.find((o) => {
      const dice = sorted(o.dice);
      return dice.length === want.length && dice.every((v, i) => v === want[i]);
    }) || null;
  }

  function selectOption(option) {
    selected = new Set();
    const values = roll();
    for (const value of sorted(option.dice)) {
      const index = values.findIndex((v, i) => v === value && !selected.has(i));
      if (index >= 0) selected.add(index);
    }
    renderDice();
  }

  function toggleDie(index) {
    if (!state || state.phase !== "choose" || !myMove()) return;
    if (selected.has(index)) selected.delete(index);
    else selected.add(index);
    renderDice();
  }

  function renderDice() {
    const choosing = state && state.phase === "choose" && myMove();
    const dice = roll().map((value, index) => {
      const button = h("button", {
        type: "button",
        class: "die-button" + (selected.has(index) ? " selected" : ""),
        "aria-pressed": selected.has(index) ? "true" : "false",
        "data-index": index,
        disabled: !choosing,
        onclick: () => toggleDie(index),
      }, die(value, selected.has(index) ? "selected" : ""));
      return button;
    });
    $("dice").replaceChildren(...dice);

    const turn = (state && state.turn) || {};
    const options = choosing ? turn.options || [] : [];
    const best = turn.best;
    $("options").replaceChildren(...options.map((o) => {
      const isBest = best && sorted(best.dice).join() === sorted(o.dice).join();
      return h("button", {
        type: "button",
        class: "option" + (isBest ? " best" : ""),
        onclick: () => selectOption(o),
      }, sorted(o.dice).join(" "), " → ", points(o.points), isBest ? " ★" : "");
    }));

    const option = matchingOption();
    const values = selectedValues();
    let text = "";
    if (choosing && values.length) {
      text = option
        ? "Set aside " + values.join(" ") + " for " + points(option.points) + " points"
        : values.join(" ") + " does not score as a set-aside";
    } else if (choosing) {
      text = "Tap the dice you keep";
    }
    const selection = $("selection");
    selection.textContent = text;
    selection.className = "selection" + (choosing && values.length && !option ? " invalid" : "");
    updateButtons();
  }

  /* ---------- rendering the state ---------- */

  /* The name this phone plays as, when that player is in the game; else null
     (a phone passed round the table acts for whoever's turn it is). */
  function myPlayer() {
    const me = storage(NAME_KEY);
    return me && state && (state.players || []).some((p) => p.name === me) ? me : null;
  }

  function currentPlayer() {
    return ((state && state.players) || []).find((p) => p.name === state.current) || null;
  }

  /* May this phone act now? Not for a computer player, nor on someone else's turn. */
  function myMove() {
    const current = currentPlayer();
    if (!current || current.bot) return false;
    const me = myPlayer();
    return me === null || me === current.name;
  }

  /* The action's body, naming this phone's player so the tower can refuse a wrong turn. */
  function withPlayer(body) {
    const me = myPlayer();
    return me === null ? body : { ...body, player: me };
  }

  function updateButtons() {
    const turn = (state && state.turn) || {};
    const phase = state ? state.phase : "";
    const playing = state && !state.finished && phase !== "idle" && phase !== "over" && myMove();
    const busy = pending || BUSY_PHASES.includes(phase);
    /* ROLL also answers the tower's requests (dice taken out, put back, the
       tray straightened); the tower checks the tray and says what is wrong */
    $("roll").disabled = !playing || busy || !ROLL_PHASES.includes(phase);
    $("bank").disabled = !playing || busy || !turn.can_bank;
    $("bank").textContent = turn.total ? "BANK " + points(turn.total) : "BANK";
    const option = matchingOption();
    const keep = $("keep");
    keep.disabled = !playing || busy || phase !== "choose" || !option;
    keep.textContent = option ? "Set aside for " + points(option.points) : "Set aside";
  }

  function statusText(s) {
    if (!s || s.phase === "idle" || !(s.players || []).length) return "No game yet. Start one below.";
    if (s.finished) {
      return (s.winners || []).join(" and ") + ((s.winners || []).length > 1 ? " win!" : " wins!");
    }
    const me = myPlayer();
    const current = currentPlayer();
    if (current && current.bot) return current.name + " (computer) is playing";
    if (current && me === current.name) return "Your turn, " + me + "!";
    return current ? current.name + "'s turn" : "";
  }

  function render(next) {
    state = next;
    const turn = state.turn || {};
    root.dataset.phase = state.phase || "";
    root.dataset.seq = state.seq === undefined ? "" : String(state.seq);
    const key = [state.game_id, state.current, JSON.stringify(turn.roll),
      (turn.set_aside || []).length].join("|");
    if (key !== rollKey) {
      rollKey = key;
      selected = new Set();
    }

    const me = storage(NAME_KEY);
    $("me").textContent = me || "";
    $("status").textContent = statusText(state);
    const mineNow = myPlayer() !== null && myMove() && !state.finished;
    if (mineNow && !wasMyTurn && navigator.vibrate) navigator.vibrate(250);
    wasMyTurn = mineNow;
    const message = $("message");
    message.textContent = state.message || "";
    message.hidden = !state.message;
    $("turn-total").textContent = points(turn.total);
    $("zilch-chance").textContent =
      typeof turn.zilch_chance === "number" ? percent(turn.zilch_chance) : "—";
    $("hint").textContent = turn.hint ? "Coach: " + turn.hint : "";
    $("set-aside").replaceChildren(...(turn.set_aside || []).map((group) =>
      h("span", { class: "group" }, sorted(group).map((v) => die(v, "kept")))));

    $("scores").replaceChildren(...(state.players || []).map((p) =>
      h("li", { class: p.name === state.current ? "current" : "" },
        h("span", {}, p.name, p.on_board ? "" : " (bench)"),
        h("strong", {}, points(p.score)))));

    const idle = state.phase === "idle" || !(state.players || []).length;
    root.classList.toggle("idle", idle);
    const joined = me && (state.players || []).some((p) => p.name === me);
    const joinOpen = !state.table || state.table.join_open !== false;
    $("join-panel").hidden = idle || joined || state.finished;
    $("join-form").dataset.open = joinOpen ? "true" : "false";
    $("join-help").textContent = joinOpen
      ? "Type your name: if you are not playing yet, you join the game."
      : "Type your name to play from this phone. This game takes no new players now.";
    $("scores-panel").hidden = idle;
    if (idle || state.finished) $("new-game-panel").open = true;
    renderDice();
  }

  function setOnline(online) {
    const el = $("connection");
    el.dataset.online = online ? "true" : "false";
    el.textContent = online ? "Live" : "Reconnecting…";
  }

  /* ---------- forms and buttons ---------- */

  function addBotRow(name, kind) {
    const row = $("bot-row").content.firstElementChild.cloneNode(true);
    row.querySelector(".bot-name").value = name || "";
    if (kind) row.querySelector(".bot-kind").value = kind;
    row.querySelector(".bot-remove").addEventListener("click", () => row.remove());
    $("ng-bots").append(row);
  }

  function newGameBody() {
    const players = $("ng-players").value.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
    const bots = [...document.querySelectorAll("#ng-bots .bot-row")]
      .map((row) => ({
        name: row.querySelector(".bot-name").value.trim(),
        bot: row.querySelector(".bot-kind").value,
      }))
      .filter((b) => b.name);
    return { preset: $("ng-preset").value, players: [...players, ...bots] };
  }

  $("pin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = $("pin-input").value.trim();
    if (!/^\d{4,8}$/.test(value)) {
      showError("The PIN is 4 to 8 digits, as shown on the TV.");
      return;
    }
    storage(PIN_KEY, value);
    showPinPanel(false);
    showError("");
    showNotice("PIN saved on this phone.");
  });

  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("join-name").value.trim();
    if (!name) {
      showError("Type your name to join.");
      return;
    }
    if (state && (state.players || []).some((p) => p.name === name)) {
      storage(NAME_KEY, name);
      showError("");
      showNotice("This phone plays as " + name + ".");
      render(state);
      return;
    }
    act("/api/join", { join: name }, () => {
      storage(NAME_KEY, name);
      showNotice("You joined as " + name + ".");
      if (state) render(state);
    });
  });

  $("roll").addEventListener("click", () => act("/api/roll", withPlayer({})));
  $("bank").addEventListener("click", () => act("/api/bank", withPlayer({ bank: true })));
  $("keep").addEventListener("click", () => {
    const option = matchingOption();
    if (!option) {
      showError("Those dice do not score together: choose one of the set-asides shown.");
      return;
    }
    act("/api/keep", withPlayer({ keep: selectedValues() }), () => {
      selected = new Set();
      renderDice();
    });
  });

  $("ng-add-bot").addEventListener("click", () => addBotRow("", ""));
  $("new-game-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = newGameBody();
    if (body.players.length < 1) {
      showError("Name at least one player for the new game.");
      return;
    }
    act("/api/new-game", body, () => {
      showNotice("New game started.");
      $("new-game-panel").open = false;
    });
  });

  $("forget").addEventListener("click", () => {
    storage(PIN_KEY, null);
    storage(NAME_KEY, null);
    showNotice("This phone forgot the PIN and your name.");
    showPinPanel(true);
    if (state) render(state);
  });

  takePinFromLink();
  showPinPanel(!pin());
  live(render, setOnline);
})();

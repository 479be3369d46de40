/* The phone control: join, ROLL, BANK, tap dice to set aside, start a game.
   The PIN is entered once (or arrives in the TV's QR link) and kept in this
   phone's localStorage; every request that changes the table sends it. */
"use strict";

(() => {
  const { h, die, points, percent, sorted, live, request, storage, newEntries, lastSeq,
    turnStart, freeRollDue, momentsIn, rulesFollower, bankReason, winChance } = Zilch;
  const $ = (id) => document.getElementById(id);
  const root = $("play");

  const PIN_KEY = "zilch.pin";
  const NAME_KEY = "zilch.name";
  const BUSY_PHASES = ["shaking", "settling", "reading"];
  /* ROLL answers the tower (dice taken out, put back, tray straightened); never
     while a set-aside must be chosen: that is what the dice buttons are for */
  const ROLL_PHASES = ["ready", "remove_dice", "return_dice", "fix_tray"];
  const NOTICE_MS = 4000;
  const MOMENT_MS = 3200;
  const LOG_LINES = 5;

  let state = null;
  let selected = new Set();  /* indices into turn.roll */
  let rollKey = "";
  let pending = false;
  let wasMyTurn = false;  /* buzz once when this phone's player is called */
  let noticeTimer = null;
  let seenLogSeq = null;
  let seenGame = null;
  let moments = [];
  let momentTimer = null;
  const rules = rulesFollower();

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

  /* A notice fades after a few seconds (an error stays until the next success). */
  function showNotice(text) {
    const box = $("notice");
    clearTimeout(noticeTimer);
    box.classList.remove("fading");
    box.textContent = text || "";
    box.hidden = !text;
    if (!text) return;
    noticeTimer = setTimeout(() => {
      box.classList.add("fading");
      noticeTimer = setTimeout(() => { box.hidden = true; box.classList.remove("fading"); }, 700);
    }, NOTICE_MS);
  }

  /* Send an action; plain-words errors, PIN problems send you to the PIN box. */
  async function act(path, body, done, extraHeaders) {
    if (pending) return;
    if (!pin()) {
      showPinPanel(true);
      showError("Enter the table PIN shown on the TV first.");
      return;
    }
    pending = true;
    updateButtons();
    try {
      const headers = { "X-Table-Pin": pin(), ...(extraHeaders || {}) };
      const result = await request("POST", path, body, headers);
      showError("");
      if (done) done(result);
    } catch (err) {
      if (err.status === 401 && /admin PIN/.test(err.message)) {
        /* the host's PIN was refused (replacing a game): the table PIN stays */
        Zilch.host.keepAdminPin("");
        showError(err.message);
      } else if (err.status === 401) {
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

  /* The name this phone was told, when that player is not in this game (a new game
     without them): the phone then acts for nobody until it joins or forgets. */
  function strayName() {
    const me = storage(NAME_KEY);
    return me && state && (state.players || []).length && myPlayer() === null ? me : null;
  }

  /* May this phone act now? Not for a computer player, nor on someone else's turn. */
  function myMove() {
    const current = currentPlayer();
    if (!current || current.bot || current.left || strayName()) return false;
    const me = myPlayer();
    return me === null || me === current.name;
  }

  /* The action's body, naming this phone's player and the turn it was meant for, so
     the tower refuses it once that turn has passed (never acting for the next player). */
  function withPlayer(body) {
    const me = myPlayer();
    const turn = state && state.turn_token ? { turn: state.turn_token } : {};
    return me === null ? { ...body, ...turn } : { ...body, ...turn, player: me };
  }

  function updateButtons() {
    const turn = (state && state.turn) || {};
    const phase = state ? state.phase : "";
    const playing = state && !state.finished && !state.paused && phase !== "idle" &&
      phase !== "over" && myMove();
    const busy = pending || BUSY_PHASES.includes(phase);
    /* ROLL also answers the tower's requests (dice taken out, put back, the
       tray straightened); the tower checks the tray and says what is wrong */
    const roll = $("roll");
    roll.disabled = !playing || busy || !ROLL_PHASES.includes(phase);
    roll.textContent = rollText(turn, phase);
    const bank = $("bank");
    bank.disabled = !playing || busy || !turn.can_bank;
    const why = state && !turn.can_bank && playing ? bankReason(state, rules.value) : "";
    if (turn.can_bank) bank.textContent = "BANK " + points(turn.total);
    else bank.replaceChildren(...["BANK", why ? h("span", { class: "why" }, why) : ""].filter(Boolean));
    const option = matchingOption();
    const keep = $("keep");
    keep.disabled = !playing || busy || phase !== "choose" || !option;
    keep.textContent = option ? "Set aside for " + points(option.points) : "Set aside";
  }

  function rollText(turn, phase) {
    if (phase === "choose") return "SET ASIDE FIRST";
    if (freeRollDue(turn)) return "FREE ROLL — 6 DICE";
    const n = typeof turn.dice_left === "number" ? turn.dice_left : 6;
    return "ROLL " + n + (n === 1 ? " DIE" : " DICE");
  }

  /* On a final turn: what this phone's player needs to get ahead. */
  function finalNote(s) {
    const start = turnStart(s);
    if (!start || !(start.data || {}).final || s.finished) return "";
    const mine = start.player === myPlayer();
    const players = s.players || [];
    const me = players.find((p) => p.name === s.current);
    const others = players.filter((p) => p.name !== s.current).map((p) => p.score);
    if (!me || !others.length) return "Last turn";
    const gap = Math.max(...others) - me.score;
    const who = mine ? "you need " : s.current + " needs ";
    if (gap < 0) return "Last turn: " + (mine ? "you lead" : s.current + " leads") + " by " + points(-gap);
    return "Last turn: " + who + points(gap + 50) + " to lead";
  }

  /* ---------- moments of this phone's player ---------- */

  function takeMoments(s) {
    const log = s.log || [];
    const newest = lastSeq(log);
    if (seenLogSeq === null || s.game_id !== seenGame) {
      seenGame = s.game_id;
      seenLogSeq = newest;
      return;
    }
    const fresh = momentsIn(newEntries(log, seenLogSeq), log);
    seenLogSeq = Math.max(seenLogSeq, newest);
    const me = myPlayer();
    const bots = new Set((s.players || []).filter((p) => p.bot).map((p) => p.name));
    /* the acting player's phone: theirs, or a phone passed round for anyone human */
    const mine = fresh.filter((m) => (me === null ? !bots.has(m.player) : m.player === me));
    if (!mine.length || strayName()) return;
    moments = moments.concat(mine).slice(-3);
    if (momentTimer === null) nextMoment();
  }

  function nextMoment() {
    const box = $("moment");
    const moment = moments.shift();
    if (!moment) {
      momentTimer = null;
      box.hidden = true;
      box.removeAttribute("data-moment");
      return;
    }
    box.replaceChildren(
      h("div", { class: "moment-title" }, moment.title),
      h("div", { class: "moment-detail" }, moment.detail));
    box.setAttribute("data-moment", moment.kind);
    box.hidden = false;
    if (navigator.vibrate && moment.kind === "zilch") navigator.vibrate([120, 60, 120]);
    momentTimer = setTimeout(nextMoment, MOMENT_MS);
  }

  function statusText(s) {
    if (!s || s.phase === "idle" || !(s.players || []).length) return "No game yet. Start one below.";
    if (s.finished) {
      return (s.winners || []).join(" and ") + ((s.winners || []).length > 1 ? " win!" : " wins!");
    }
    const me = myPlayer();
    const current = currentPlayer();
    if (strayName()) return strayName() + " is not in this game";
    if (me && (s.players || []).some((p) => p.name === me && p.left)) {
      return me + " has left this game";
    }
    if (s.paused) return "Paused by the host";
    if (current && current.bot) return current.name + " (computer) is playing";
    if (current && me === current.name) return "Your turn, " + me + "!";
    return current ? current.name + "'s turn" : "";
  }

  function render(next) {
    state = next;
    rules.follow(state, () => updateButtons());
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
    $("me").textContent = me ? (strayName() ? me + " (not playing)" : me) : "";
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
    $("hint").textContent = turn.coach || (turn.hint ? "Coach: " + turn.hint : "");
    $("set-aside").replaceChildren(...(turn.set_aside || []).map((group) =>
      h("span", { class: "group" }, sorted(group).map((v) => die(v, "kept")))));

    $("scores").replaceChildren(...(state.players || []).map((p) =>
      h("li", { class: p.name === state.current ? "current" : "", "data-player": p.name,
        "data-left": p.left ? "true" : null },
        h("span", { class: "who" + (p.left ? " left" : "") }, p.name,
          p.left ? " (left)" : p.on_board ? "" : " (bench)",
          p.streak ? h("span", { class: "badge streak" }, "streak " + p.streak) : null,
          p.zilches ? h("span", { class: "badge zilches" },
            p.zilches + (p.zilches === 1 ? " zilch" : " zilches")) : null),
        h("strong", {}, points(p.score)))));
    const lines = (state.log || []).slice(-LOG_LINES).reverse();
    $("phone-log").replaceChildren(...lines.map((e) =>
      h("li", { class: "kind-" + (e.kind || "event") }, e.text || "")));
    const note = finalNote(state);
    $("final-note").textContent = note;
    $("final-note").hidden = !note;
    $("play-again").hidden = !state.finished;
    showSkip();
    takeMoments(state);

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
    fillFormFrom(state);
    renderDice();
    renderWinChance(state);
  }

  /* Each player's chance to win, compact: the bar with a name at each end (two players)
     or the names below it (three or more), the last turn starts, the coach's line. */
  function renderWinChance(s) {
    const box = $("win-chance");
    const advice = $("win-advice");
    const win = winChance(s);
    box.hidden = !win;
    advice.hidden = !(win && win.advice);
    advice.textContent = win && win.advice ? "Coach: " + win.advice : "";
    if (!win) {
      box.replaceChildren();
      return;
    }
    const head = h("span", { class: "win-head" }, "Chance to win");
    if (!win.simulated && win.names.length === 2) {
      const [first, second] = win.names;
      box.replaceChildren(head,
        h("span", { class: "win-row" },
          h("span", { class: "win-name win-seat-0" }, win.label(first)), win.bar,
          h("span", { class: "win-name win-seat-1" }, win.label(second))),
        h("span", { class: "win-line", title: first + "'s chance at each turn start" }, win.line));
    } else {
      box.replaceChildren(head, h("span", { class: "win-row" }, win.bar),
        h("span", { class: "win-names" }, ...(win.known
          ? win.names.map((n, i) => h("span", { class: "win-name win-seat-" + (i % 6) }, win.label(n)))
          : [])),
        h("span", { class: "win-note" }, win.note));
    }
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

  /* The new game's body, or a string saying what is missing. */
  function newGameBody() {
    const players = $("ng-players").value.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
    const rows = [...document.querySelectorAll("#ng-bots .bot-row")];
    const bots = rows.map((row) => ({
      name: row.querySelector(".bot-name").value.trim(),
      bot: row.querySelector(".bot-kind").value,
    }));
    const unnamed = bots.findIndex((b) => !b.name);
    if (unnamed >= 0) {
      return "Computer player " + (unnamed + 1) + " has no name: name it or remove its row (✕).";
    }
    if (players.length + bots.length < 1) return "Name at least one player for the new game.";
    return { preset: $("ng-preset").value, players: [...players, ...bots] };
  }

  /* The same players (and computer players) as the game on the table, for "play again". */
  function samePlayers(s) {
    return (s.players || []).map((p) => (p.bot ? { name: p.name, bot: p.bot } : p.name));
  }

  function gameRunning() {
    return state && !state.finished && state.phase !== "idle" && (state.players || []).length > 0;
  }

  /* Replacing a running game also carries the host's admin PIN. */
  function startGame(body, adminPin) {
    act("/api/new-game", body, () => {
      showNotice("New game started.");
      pendingGame = null;
      $("new-game-panel").open = false;
      $("replace-panel").hidden = true;
    }, adminPin ? { "X-Admin-Pin": adminPin } : null);
  }

  /* After a game, the form offers its players again (no retyping). */
  function fillFormFrom(s) {
    if (!s || !(s.players || []).length || fillFormFrom.game === s.game_id) return;
    fillFormFrom.game = s.game_id;
    $("ng-players").value = s.players.filter((p) => !p.bot).map((p) => p.name).join("\n");
    $("ng-bots").replaceChildren();
    for (const p of s.players.filter((q) => q.bot)) addBotRow(p.name, p.bot);
    if (s.preset) $("ng-preset").value = s.preset;
  }

  $("pin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = $("pin-input").value.trim();
    if (!/^\d{4,8}$/.test(value)) {
      showError("The PIN is 4 to 8 digits, as shown on the TV.");
      return;
    }
    request("POST", "/api/pin", {}, { "X-Table-Pin": value })
      .then(() => {
        storage(PIN_KEY, value);
        showPinPanel(false);
        showError("");
        showNotice("PIN accepted and kept on this phone.");
        /* what needs the PIN to be shown (the camera's pictures of the dice) may show now */
        document.dispatchEvent(new CustomEvent("zilch:pin"));
      })
      .catch((err) => {
        storage(PIN_KEY, null);
        showPinPanel(true);
        showError(err.status === 401
          ? "That is not the table's PIN. Enter the PIN shown on the TV."
          : err.message);
      });
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

  /* Skip the turn of a player who has stepped away: any phone, asked twice. */
  let skipArmed = null;
  function showSkip() {
    const current = currentPlayer();
    /* only a turn not yet begun: a player who has rolled keeps or banks what they have */
    const can = current && !current.bot && !state.finished && !state.paused &&
      state.phase === "ready" && !!state.table && state.table.skip_open === true && !strayName();
    const button = $("skip");
    button.hidden = !can;
    if (!can) return;
    const armed = skipArmed === state.turn_token;
    button.textContent = armed
      ? "Tap again to skip " + current.name + "'s turn"
      : current.name === myPlayer() ? "Skip my turn" : "Skip " + current.name + "'s turn";
    button.classList.toggle("danger", armed);
  }
  $("skip").addEventListener("click", () => {
    if (skipArmed !== state.turn_token) {
      skipArmed = state.turn_token;
      showSkip();
      setTimeout(() => { skipArmed = null; if (state) showSkip(); }, 5000);
      return;
    }
    skipArmed = null;
    /* the turn, not the player: a phone may skip someone else who has left */
    act("/api/skip", state.turn_token ? { turn: state.turn_token } : {}, () => {
      showNotice("Turn skipped.");
    });
  });

  $("ng-add-bot").addEventListener("click", () => addBotRow("", ""));
  let pendingGame = null;
  $("new-game-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = newGameBody();
    if (typeof body === "string") {
      showError(body);
      return;
    }
    if (gameRunning()) {
      /* one tap must never wipe a game in progress */
      pendingGame = body;
      showError("");
      const scores = (state.players || []).map((p) => p.name + " " + points(p.score)).join(", ");
      $("replace-text").textContent = "A game is running (" + scores + ", round " + state.round +
        "). Starting a new one ends it: that needs the host's admin PIN.";
      $("replace-pin").value = Zilch.host.adminPin();
      $("replace-panel").hidden = false;
      return;
    }
    startGame(body);
  });
  $("replace-yes").addEventListener("click", () => {
    const admin = $("replace-pin").value.trim();
    if (!/^\d{4,8}$/.test(admin)) {
      showError("Enter the admin PIN (4 to 8 digits) to replace the running game.");
      return;
    }
    Zilch.host.keepAdminPin(admin);
    /* kept until it starts: a refused PIN may be typed again */
    if (pendingGame) startGame(pendingGame, admin);
  });
  $("replace-no").addEventListener("click", () => {
    pendingGame = null;
    $("replace-panel").hidden = true;
  });
  $("play-again").addEventListener("click", () => {
    if (state && state.finished) startGame({ preset: state.preset, players: samePlayers(state) });
  });

  $("forget").addEventListener("click", () => {
    storage(PIN_KEY, null);
    storage(NAME_KEY, null);
    showNotice("This phone forgot the PIN and your name.");
    showPinPanel(true);
    if (state) render(state);
  });

  /* the host's controls (host.js) report in the same boxes */
  Zilch.phone = { showError, showNotice };

  takePinFromLink();
  showPinPanel(!pin());
  live(render, setOnline);
})();

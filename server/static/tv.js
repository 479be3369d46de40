/* The TV display: draws the whole table from each state document.
   Every render replaces the children it owns, so the page can run for days
   without growing; the only timers are the announcement's and the idle
   screen's records refresh, each replaced, never stacked. */
"use strict";

(() => {
  const { h, die, points, percent, sorted, live, storage } = Zilch;
  const $ = (id) => document.getElementById(id);
  const root = $("tv");

  const LOG_LINES = 12;
  const ANNOUNCEMENT_MS = 12000;
  const RECORDS_REFRESH_MS = 5 * 60 * 1000;
  const UNSURE_BELOW = 0.6;
  const MAX_OPTIONS = 7;

  const PHASES = {
    idle: "Waiting for a game",
    ready: "Press ROLL or BANK",
    shaking: "Shaking…",
    settling: "Dice settling…",
    reading: "Reading the dice…",
    choose: "Choose dice to set aside",
    remove_dice: "Take out the dice you keep",
    return_dice: "Put the dice back in the tray",
    fix_tray: "Straighten the tray",
    over: "Game over",
  };

  let lastAnnouncementSeq = null;
  let announcementTimer = null;
  let recordsTimer = null;
  let serverSpeech = root.dataset.speech !== "off";
  let localSpeech = storage("zilch.tv.speech") !== "off";

  /* ---------- speech ---------- */

  function speechEnabled() {
    return serverSpeech && localSpeech;
  }

  function showSpeechToggle() {
    const button = $("speech-toggle");
    button.textContent = speechEnabled() ? "Speech on" : "Speech off";
    button.setAttribute("aria-pressed", speechEnabled() ? "true" : "false");
    button.disabled = !serverSpeech;
    button.title = serverSpeech
      ? "Speech on or off (key S)"
      : "Speech is switched off in the tower's configuration";
  }

  function toggleSpeech() {
    localSpeech = !localSpeech;
    storage("zilch.tv.speech", localSpeech ? "on" : "off");
    if (!localSpeech && window.speechSynthesis) window.speechSynthesis.cancel();
    showSpeechToggle();
  }

  function speak(text) {
    if (!speechEnabled() || !window.speechSynthesis || !text) return;
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.rate = 0.95;
    window.speechSynthesis.speak(utterance);
    root.dataset.lastSpoken = text;
  }

  /* ---------- pieces ---------- */

  function playerItem(player, state) {
    const current = player.name === state.current;
    const winner = (state.winners || []).includes(player.name);
    const badges = [
      h("span", { class: player.on_board ? "badge on-board" : "badge bench" },
        player.on_board ? "on board" : "bench"),
    ];
    if (player.bot) badges.push(h("span", { class: "badge bot" }, "computer"));
    if (player.streak) {
      badges.push(h("span", { class: "badge streak" }, "streak " + player.streak));
    }
    if (player.zilches) {
      badges.push(h("span", { class: "badge zilches" }, player.zilches + " zilch" +
        (player.zilches === 1 ? "" : "es")));
    }
    return h("li", {
      class: "player" + (current ? " current" : "") + (winner ? " won" : ""),
      "data-player": player.name,
    },
      h("div", { class: "player-row" },
        h("span", { class: "player-name" }, player.name),
        h("span", { class: "player-score" }, points(player.score))),
      h("div", { class: "player-badges" }, badges));
  }

  function trayDice(state) {
    const turn = state.turn || {};
    const reading = state.reading;
    const readingPhase = ["fix_tray", "reading"].includes(state.phase);
    if (reading && reading.dice && (readingPhase || !turn.roll)) {
      return [...reading.dice].sort((a, b) => a.value - b.value).map((d) =>
        die(d.value, !reading.ok || d.confidence < UNSURE_BELOW ? "unsure" : ""));
    }
    return sorted(turn.roll).map((v) => die(v));
  }

  function sameDice(a, b) {
    const x = sorted(a), y = sorted(b);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  }

  function optionItem(option, best) {
    const isBest = best && sameDice(option.dice, best.dice) && option.points === best.points;
    return h("li", { class: "option" + (isBest ? " best" : "") },
      h("span", { class: "option-dice" }, sorted(option.dice).map((v) => die(v, "small"))),
      h("span", { class: "option-points" }, points(option.points)),
      isBest ? h("span", { class: "best-mark" }, "★ best") : null);
  }

  function bankStatus(turn, state) {
    if (state.phase === "over" || !state.current) return "";
    if (turn.can_bank) return "Can bank " + points(turn.total);
    if (!turn.total) return "Nothing to bank yet";
    return "Cannot bank yet";
  }

  function logItem(entry) {
    return h("li", { class: "log-entry kind-" + (entry.kind || "event"), "data-seq": entry.seq },
      entry.text || "");
  }

  /* ---------- announcements ---------- */

  function showAnnouncement(announcement, fresh, finished) {
    const box = $("announcement");
    if (!announcement || !announcement.text) return;
    if (announcement.seq === lastAnnouncementSeq) return;
    const first = lastAnnouncementSeq === null;
    lastAnnouncementSeq = announcement.seq;
    if (first && !fresh) return;  /* an old announcement from before this page loaded */
    speak(announcement.text);
    clearTimeout(announcementTimer);
    if (finished) {
      box.hidden = true;  /* the winner banner says it already */
      return;
    }
    box.replaceChildren(h("div", { class: "announcement-text" }, announcement.text));
    box.dataset.kind = announcement.kind || "";
    box.hidden = false;
    announcementTimer = setTimeout(() => { box.hidden = true; }, ANNOUNCEMENT_MS);
  }

  /* ---------- idle screen ---------- */

  function recordRows(data) {
    const rows = Array.isArray(data) ? data : (data && (data.records || data.players)) || [];
    return rows.slice(0, 8);
  }

  function showRecords(data) {
    const rows = recordRows(data);
    const table = $("records");
    const header = h("tr", {},
      h("th", {}, "Player"), h("th", {}, "Game"), h("th", { class: "num" }, "Best turn"),
      h("th", { class: "num" }, "Best game"), h("th", { class: "num" }, "Wins"),
      h("th", { class: "num" }, "Losses"));
    const body = rows.map((r) => h("tr", {},
      h("td", {}, r.player || r.name || ""),
      h("td", {}, r.preset || ""),
      h("td", { class: "num" }, r.best_turn === undefined ? "" : points(r.best_turn)),
      h("td", { class: "num" }, r.best_game === undefined ? "" : points(r.best_game)),
      h("td", { class: "num" }, r.wins === undefined ? "" : r.wins),
      h("td", { class: "num" }, r.losses === undefined ? "" : r.losses)));
    table.replaceChildren(h("thead", {}, header), h("tbody", {}, body));
    table.hidden = rows.length === 0;
    $("records-empty").hidden = rows.length !== 0;
  }

  function loadRecords() {
    fetch("/api/records", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => showRecords(data))
      .catch(() => showRecords(null));
  }

  function enterIdle(state) {
    $("next-game").textContent = (state.table && state.table.next_game) || "not scheduled";
    if (recordsTimer === null) {
      loadRecords();
      recordsTimer = setInterval(loadRecords, RECORDS_REFRESH_MS);
    }
  }

  function leaveIdle() {
    if (recordsTimer !== null) {
      clearInterval(recordsTimer);
      recordsTimer = null;
    }
  }

  /* ---------- the whole page ---------- */

  function render(state, fresh) {
    root.dataset.phase = state.phase || "";
    root.classList.toggle("finished", Boolean(state.finished));
    root.dataset.seq = state.seq === undefined ? "" : String(state.seq);
    if (state.table && typeof state.table.speech === "boolean") {
      serverSpeech = state.table.speech;
      showSpeechToggle();
    }
    const idle = state.phase === "idle" || !(state.players || []).length;
    root.classList.toggle("idle", idle);
    $("idle").hidden = !idle;
    $("game").hidden = idle;
    if (idle) {
      enterIdle(state);
    } else {
      leaveIdle();
      renderGame(state);
    }
    showAnnouncement(state.announcement, fresh, Boolean(state.finished));
    renderWinner(state);
  }

  function renderGame(state) {
    const turn = state.turn || {};
    const info = [state.preset, state.round ? "round " + state.round : null]
      .filter(Boolean).join(" · ");
    $("game-info").textContent = info;
    $("final-round").hidden = !state.final_round || state.finished;

    const players = state.players || [];
    const list = $("players");
    list.classList.toggle("compact", players.length > 6 && players.length <= 10);
    list.classList.toggle("dense", players.length > 10);
    list.replaceChildren(...players.map((p) => playerItem(p, state)));

    $("current").textContent = state.finished ? "Game over"
      : state.current ? state.current : "";
    $("phase").textContent = state.finished ? "" : PHASES[state.phase] || "";

    const message = $("message");
    message.textContent = state.message || "";
    message.hidden = !state.message;

    $("tray").replaceChildren(...trayDice(state));
    const note = $("reading-note");
    const unsure = state.reading && state.reading.ok === false && state.reading.reason;
    note.textContent = unsure ? "Camera: " + state.reading.reason : "";
    note.hidden = !unsure;

    const groups = turn.set_aside || [];
    $("set-aside").replaceChildren(...(groups.length
      ? groups.map((group) => h("span", { class: "group" }, sorted(group).map((v) => die(v, "kept"))))
      : [h("span", { class: "none" }, "nothing yet")]));

    $("turn-total").textContent = points(turn.total);
    const bank = $("bank-status");
    bank.textContent = bankStatus(turn, state);
    bank.className = "bank-status" + (turn.can_bank ? " can-bank" : "");

    /* best first; a six-dice roll can have a dozen choices, more than fit */
    const options = [...(turn.options || [])].sort((a, b) => b.points - a.points);
    const limit = options.length > MAX_OPTIONS ? MAX_OPTIONS - 1 : MAX_OPTIONS;
    const shown = options.slice(0, limit).map((o) => optionItem(o, turn.best));
    if (options.length > limit) {
      shown.push(h("li", { class: "option more" }, "+" + (options.length - limit) + " more"));
    }
    $("options").replaceChildren(...(shown.length
      ? shown
      : [h("li", { class: "option none" }, state.phase === "choose" ? "none: zilch" : "—")]));

    const chance = turn.zilch_chance;
    $("zilch-chance").textContent = typeof chance === "number" ? percent(chance) : "—";
    $("hint").textContent = turn.hint ? "Coach: " + turn.hint : "";

    const log = (state.log || []).slice(-LOG_LINES).reverse();
    $("log").replaceChildren(...log.map(logItem));
  }

  function renderWinner(state) {
    const box = $("winner");
    if (!state.finished || !(state.winners || []).length) {
      box.hidden = true;
      return;
    }
    const scores = new Map((state.players || []).map((p) => [p.name, p.score]));
    const names = state.winners;
    const title = names.length === 1 ? names[0] + " wins!" : names.join(" and ") + " win!";
    box.replaceChildren(
      h("div", { class: "winner-title" }, title),
      h("div", { class: "winner-score" }, points(scores.get(names[0])) + " points"));
    box.hidden = false;
  }

  function setOnline(online) {
    const el = $("connection");
    el.dataset.online = online ? "true" : "false";
    el.textContent = online ? "Live" : "Reconnecting…";
  }

  let received = 0;
  $("speech-toggle").addEventListener("click", toggleSpeech);
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "s" || ev.key === "S") toggleSpeech();
  });
  showSpeechToggle();
  live((state) => {
    received += 1;
    render(state, received > 1);
  }, setOnline);
})();

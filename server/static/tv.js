/* The TV display: draws the whole table from each state document.
   Every render replaces the children it owns, so the page can run for days
   without growing; the only timers are the announcement's and the idle
   screen's records refresh, each replaced, never stacked. */
"use strict";

(() => {
  const { h, die, points, percent, sorted, live, storage, newEntries, lastSeq, trayOwner,
    turnStart, freeRollDue, momentsIn, rulesFollower, bankReason, winChance } = Zilch;
  const $ = (id) => document.getElementById(id);
  const root = $("tv");

  const LOG_LINES = 12;
  const ANNOUNCEMENT_MS = 12000;
  const MOMENT_MS = 3200;  /* a moment stays at least 2.5 s, the design's floor */
  const MOMENT_QUEUE = 4;
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
  let seenLogSeq = null;  /* the newest log entry already shown (null: none received yet) */
  let moments = [];
  let momentTimer = null;
  let audio = null;
  const rules = rulesFollower();
  let latest = null;
  let shownOptions = null; // the options last fitted and the best, fitted again on a resize
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
    const badges = [player.left
      ? h("span", { class: "badge left" }, "left the game")
      : h("span", { class: player.on_board ? "badge on-board" : "badge bench" },
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
      class: "player" + (current ? " current" : "") + (winner ? " won" : "") +
        (player.left ? " left" : ""),
      "data-player": player.name,
      "data-left": player.left ? "true" : null,
    },
      h("div", { class: "player-row" },
        h("span", { class: "player-name" }, player.name),
        h("span", { class: "player-score" }, points(player.score))),
      h("div", { class: "player-badges" }, badges));
  }

  /* What #tray shows: the current player's dice of this turn, or the dice
     of an ended turn marked stale and labelled as that turn's. */
  function trayView(state) {
    const turn = state.turn || {};
    const reading = state.reading;
    const who = state.current || "";
    const readingPhase = ["fix_tray", "reading"].includes(state.phase);
    if (reading && reading.dice && readingPhase) {
      return { label: "In the tray", stale: false, dice: [...reading.dice]
        .sort((a, b) => a.value - b.value)
        .map((d) => die(d.value, !reading.ok || d.confidence < UNSURE_BELOW ? "unsure" : "")) };
    }
    if (["shaking", "settling"].includes(state.phase)) {
      return { label: "In the tray", stale: false, dice: [],
        empty: "Shaking " + dice(turn.dice_left) + "…" };
    }
    if (turn.roll) {
      return { label: "In the tray", stale: false, dice: sorted(turn.roll).map((v) => die(v)) };
    }
    const owner = trayOwner(state);
    const seen = reading && reading.dice ? sorted(reading.dice.map((d) => d.value)) : [];
    if (owner.stale && owner.player && seen.length) {
      const stale = seen.map((v) => {
        const face = die(v, "stale");
        face.setAttribute("data-stale", "");
        return face;
      });
      const same = owner.dice && sorted(owner.dice).join() === seen.join();
      const label = same ? owner.player + "'s last roll" : "Left from " + owner.player + "'s turn";
      return { label, stale: true, dice: stale };
    }
    if (!owner.stale && seen.length) {
      return { label: "In the tray", stale: false, dice: seen.map((v) => die(v)) };
    }
    const next = freeRollDue(turn) ? "Free roll: " : (who ? who + " rolls " : "");
    return { label: "In the tray", stale: false, dice: [],
      empty: state.finished || !who ? "" : next + dice(turn.dice_left) + " next" };
  }

  function dice(n) {
    const count = typeof n === "number" ? n : 6;
    return count + (count === 1 ? " die" : " dice");
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

  /* As many options as the table has room for, each whole (at most MAX_OPTIONS), and then
     how many more there are: a row cut in half at the foot of the table reads as a choice. */
  function fitOptions(options, best) {
    shownOptions = [options, best];
    const list = $("options");
    const box = list.closest(".options-box");
    const room = list.closest(".table").getBoundingClientRect().bottom
      - parseFloat(getComputedStyle(box).paddingBottom);
    let limit = options.length > MAX_OPTIONS ? MAX_OPTIONS - 1 : options.length;
    for (;;) {
      const shown = options.slice(0, limit).map((o) => optionItem(o, best));
      if (options.length > limit) {
        shown.push(h("li", { class: "option more" }, "+" + (options.length - limit) + " more"));
      }
      list.replaceChildren(...shown);
      if (limit <= 1 || list.lastElementChild.getBoundingClientRect().bottom <= room) return;
      limit -= 1;
    }
  }

  function bankStatus(turn, state) {
    if (state.phase === "over" || !state.current) return "";
    if (turn.can_bank) return "Can bank " + points(turn.total);
    const why = bankReason(state, rules.value);
    return why ? why[0].toUpperCase() + why.slice(1) : "Cannot bank yet";
  }

  /* What the phase line says; ROLL or BANK only when banking is possible. */
  function phaseText(state) {
    const turn = state.turn || {};
    if (state.paused) return "Paused by the host";
    if (state.phase === "ready") {
      if (freeRollDue(turn)) return turn.can_bank ? "Free roll or BANK" : "Press ROLL for the free roll";
      return turn.can_bank ? "Press ROLL or BANK" : "Press ROLL";
    }
    return PHASES[state.phase] || "";
  }

  /* A final turn's stake: what the current player needs to get ahead of everyone else. */
  function finalNote(state) {
    const start = turnStart(state);
    if (!start || !(start.data || {}).final || state.finished) return "";
    const players = state.players || [];
    const me = players.find((p) => p.name === state.current);
    const others = players.filter((p) => p.name !== state.current).map((p) => p.score);
    if (!me || !others.length) return "Last turn";
    const gap = Math.max(...others) - me.score;
    return gap >= 0
      ? "Last turn: needs " + points(gap + 50) + " to lead"
      : "Last turn: leads by " + points(-gap);
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

  /* ---------- moments: zilch, hot dice, free roll, bank, penalty ---------- */

  function takeMoments(state) {
    const log = state.log || [];
    const newest = lastSeq(log);
    if (seenLogSeq === null || state.game_id !== takeMoments.game) {
      /* the page just loaded (or a new game began): nothing old is replayed */
      takeMoments.game = state.game_id;
      seenLogSeq = newest;
      return;
    }
    const found = momentsIn(newEntries(log, seenLogSeq), log);
    seenLogSeq = Math.max(seenLogSeq, newest);
    if (!found.length) return;
    moments = moments.concat(found).slice(-MOMENT_QUEUE);
    if (momentTimer === null) nextMoment();
  }

  function nextMoment() {
    const box = $("moment");
    const moment = moments.shift();
    if (!moment) {
      momentTimer = null;
      box.hidden = true;
      box.removeAttribute("data-moment");
      box.replaceChildren();
      return;
    }
    box.replaceChildren(
      h("div", { class: "moment-title" }, moment.title),
      h("div", { class: "moment-detail" }, moment.detail));
    box.setAttribute("data-moment", moment.kind);
    box.hidden = false;
    sound(moment.kind);
    momentTimer = setTimeout(nextMoment, MOMENT_MS);
  }

  /* Short tones made in the page (nothing fetched); off whenever speech is off. */
  const TONES = {
    zilch: [[392, 0.16], [311, 0.16], [233, 0.34]],
    penalty: [[220, 0.22], [165, 0.4]],
    bank: [[523, 0.12], [659, 0.12], [784, 0.26]],
    "hot-dice": [[523, 0.09], [659, 0.09], [784, 0.09], [1047, 0.24]],
    "free-roll": [[659, 0.1], [880, 0.22]],
  };

  function sound(kind) {
    if (!speechEnabled() || !TONES[kind]) return;
    root.dataset.lastSound = kind;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      audio = audio || new Context();
      let at = audio.currentTime + 0.02;
      for (const [frequency, length] of TONES[kind]) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = "triangle";
        osc.frequency.value = frequency;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
        osc.connect(gain).connect(audio.destination);
        osc.start(at);
        osc.stop(at + length + 0.02);
        at += length;
      }
    } catch (err) {
      /* no audio device: the moment is still shown */
    }
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
    const next = state.table && state.table.next_game;
    $("next-game").textContent = next || "";
    $("idle-next").hidden = !next;
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

  /* ---------- wrong PINs ---------- */

  let pinTimer = null;
  let pinUntil = 0;

  /* The tower takes no PINs for a while after many wrong ones from the network
     (state.table.pin_backoff_s, seconds left when the state was sent): say so
     and count down here, so the room knows why phones wait. */
  function showPinBackoff(seconds) {
    if (typeof seconds === "number" && seconds > 0) pinUntil = Date.now() + seconds * 1000;
    const badge = $("pin-backoff");
    const tick = () => {
      const left = Math.ceil((pinUntil - Date.now()) / 1000);
      if (left <= 0) {
        badge.hidden = true;
        clearInterval(pinTimer);
        pinTimer = null;
        return;
      }
      const clock = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      badge.textContent = "Too many wrong PINs: phones wait " + clock;
      badge.hidden = false;
    };
    tick();
    if (!badge.hidden && pinTimer === null) pinTimer = setInterval(tick, 1000);
  }

  /* ---------- the whole page ---------- */

  function render(state, fresh) {
    latest = state;
    rules.follow(state, () => render(latest, false));
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
    showPinBackoff(state.table && state.table.pin_backoff_s);
    takeMoments(state);
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
    $("phase").textContent = state.finished ? "" : phaseText(state);

    const message = $("message");
    message.textContent = state.message || "";
    message.hidden = !state.message;

    const tray = trayView(state);
    const trayBox = $("tray");
    trayBox.replaceChildren(...(tray.dice.length ? tray.dice
      : tray.empty ? [h("span", { class: "tray-empty" }, tray.empty)] : []));
    trayBox.classList.toggle("stale", tray.stale);
    const trayLabel = $("tray-label");
    trayLabel.textContent = tray.label;
    trayLabel.classList.toggle("stale", tray.stale);
    const note = finalNote(state);
    $("turn-note").textContent = note;
    $("turn-note").hidden = !note;
    const readingNote = $("reading-note");
    const unsure = state.reading && state.reading.ok === false && state.reading.reason;
    readingNote.textContent = unsure ? "Camera: " + state.reading.reason : "";
    readingNote.hidden = !unsure;

    const groups = turn.set_aside || [];
    $("set-aside").replaceChildren(...(groups.length
      ? groups.map((group) => h("span", { class: "group" }, sorted(group).map((v) => die(v, "kept"))))
      : [h("span", { class: "none" }, "nothing set aside")]));

    $("turn-total").textContent = points(turn.total);
    const bank = $("bank-status");
    bank.textContent = bankStatus(turn, state);
    bank.className = "bank-status" + (turn.can_bank ? " can-bank" : "");

    /* best first; a six-dice roll can have a dozen choices, more than fit */
    const options = [...(turn.options || [])].sort((a, b) => b.points - a.points);
    if (options.length) {
      fitOptions(options, turn.best);
    } else {
      shownOptions = null;
      $("options").replaceChildren(
        h("li", { class: "option none" }, state.phase === "choose" ? "none: zilch" : "—"));
    }

    const chance = turn.zilch_chance;
    $("zilch-chance").textContent = typeof chance === "number" ? percent(chance) : "—";
    $("hint").textContent = turn.coach || (turn.hint ? "Coach: " + turn.hint : "");

    const log = (state.log || []).slice(-LOG_LINES).reverse();
    $("log").replaceChildren(...log.map(logItem));
    renderWinChance(state);
  }

  /* Each player's chance to win (Zilch.winChance draws the parts): two players with a
     name at each end of the bar, three or more with every name and its error below it. */
  function renderWinChance(state) {
    const box = $("win-chance");
    const win = winChance(state);
    box.hidden = !win;
    if (!win) {
      box.replaceChildren();
      return;
    }
    const parts = [];
    const many = win.simulated || win.names.length !== 2;
    box.classList.toggle("win-many", many);
    if (!many) {
      const [first, second] = win.names;
      parts.push(h("span", { class: "win-name" }, win.label(first)), win.bar,
        h("span", { class: "win-name" }, percent(state.win_chance.players[second]) + " " + second),
        h("span", { class: "win-line", title: first + "'s chance at each turn start" }, win.line));
    } else {
      /* the band has room for one more line: the names (the games behind them last,
         the first thing cut when many names fill the line), and a thin bar under them */
      parts.push(h("span", { class: "win-title" }, "Chance to win"),
        h("span", { class: "win-names" }, ...(win.known
          ? win.names.map((n, i) => h("span", { class: "win-name win-seat-" + (i % 6) }, win.label(n)))
          : []), h("span", { class: "win-note" }, win.known ? points(win.games) + " games" : win.note)),
        win.bar);
      win.bar.classList.add("win-bar-thin");
    }
    if (win.advice) parts.push(h("span", { class: "win-advice" }, "Coach: " + win.advice));
    box.replaceChildren(...parts);
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
  window.addEventListener("resize", () => {
    if (shownOptions !== null && !$("game").hidden) fitOptions(...shownOptions);
  });
  /* a long phone address breaks before its path ("…:8080" / "/play"), never inside a word */
  for (const el of document.querySelectorAll(".url")) {
    const text = el.textContent;
    const at = text.lastIndexOf("/");
    if (at > 0) el.replaceChildren(text.slice(0, at), h("wbr"), text.slice(at));
  }
  live((state) => {
    received += 1;
    render(state, received > 1);
  }, setOnline);
})();

/* Shared helpers for the Zilch Tower pages: safe DOM building, dice faces,
   number formatting, the live state stream and JSON requests. No library,
   nothing fetched from outside the tower. */
"use strict";

const Zilch = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";

  /* Build an element. Text children become text nodes, so names typed by
     players can never inject markup. attrs: class, dataset-like data-*,
     on<event> handlers, and plain attributes. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2), value);
      } else if (key === "class") {
        el.className = value;
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
    append(el, children);
    return el;
  }

  function append(el, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  /* Pip positions on a 100x100 face, per value. */
  const PIPS = {
    1: [[50, 50]],
    2: [[28, 28], [72, 72]],
    3: [[28, 28], [50, 50], [72, 72]],
    4: [[28, 28], [72, 28], [28, 72], [72, 72]],
    5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
    6: [[28, 26], [72, 26], [28, 50], [72, 50], [28, 74], [72, 74]],
  };

  /* An SVG die face carrying its value in data-die (the display's contract). */
  function die(value, extraClass) {
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("class", "die" + (extraClass ? " " + extraClass : ""));
    svg.setAttribute("data-die", String(value));
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "die showing " + value);
    const face = document.createElementNS(SVG_NS, "rect");
    for (const [k, v] of Object.entries({ x: 4, y: 4, width: 92, height: 92, rx: 16, class: "face" })) {
      face.setAttribute(k, String(v));
    }
    svg.append(face);
    for (const [cx, cy] of PIPS[value] || []) {
      const pip = document.createElementNS(SVG_NS, "circle");
      pip.setAttribute("cx", String(cx));
      pip.setAttribute("cy", String(cy));
      pip.setAttribute("r", "9.5");
      pip.setAttribute("class", value === 1 ? "pip pip-one" : "pip");
      svg.append(pip);
    }
    return svg;
  }

  const numberFormat = new Intl.NumberFormat("en-GB");
  function points(n) {
    return numberFormat.format(Number(n) || 0);
  }

  function percent(p) {
    return (100 * (Number(p) || 0)).toFixed(p < 0.1 ? 1 : 0) + "%";
  }

  /* Sorted copy of a list of die values. */
  function sorted(values) {
    return [...(values || [])].map(Number).sort((a, b) => a - b);
  }

  /* Is `wanted` (a multiset of values) contained in `pool`? */
  function multisetWithin(wanted, pool) {
    const left = new Map();
    for (const v of pool) left.set(v, (left.get(v) || 0) + 1);
    for (const v of wanted) {
      if (!left.get(v)) return false;
      left.set(v, left.get(v) - 1);
    }
    return true;
  }

  /* Follow the live state: a fetch of /api/state, then the event stream.
     EventSource reconnects by itself and resends Last-Event-ID after a lost
     connection; when the browser gives up for good (an error page instead of
     the stream, say while the tower restarts) a fresh stream is opened after
     a pause, so a TV left on never needs a reload. */
  const RETRY_MS = 3000;

  function announce(state) {
    document.dispatchEvent(new CustomEvent("zilch:state", { detail: state }));
  }

  function live(onState, onStatus) {
    let lastSeq = -1;
    let dropped = false;
    let early = null;  /* the newest state that came before the page's scripts had all run */
    const deliver = (state) => {
      /* The first fetch and the stream can cross: never step back in time. seq numbers
         the table's whole journal, so a state of another game (the idle table before
         a new one, say) is no exception; a restarted tower is (see "open" below). */
      const seq = typeof state.seq === "number" ? state.seq : null;
      if (seq !== null && seq < lastSeq) return;
      if (seq !== null) lastSeq = seq;
      onState(state);
      /* the page's own additions (host.js, correct.js) follow the same states, after the
         page; a state that comes while the page is still loading them (the first fetch can
         answer before a later script has arrived) is told once every script has run */
      if (document.readyState !== "loading") {
        announce(state);
      } else {
        if (early === null) {
          document.addEventListener("DOMContentLoaded", () => announce(early), { once: true });
        }
        early = state;
      }
    };
    const status = (online) => onStatus && onStatus(online);

    function connect() {
      /* the stream opens with the newest state and sends every later one: once it
         has spoken, a late answer to this fetch is not shown (not even one of the
         same seq, whose words a notice may have changed since) */
      let streamed = false;
      fetch("/api/state", { cache: "no-store" })
        .then((r) => (r.ok ? r.json() : null))
        .then((s) => s && !streamed && deliver(s))
        .catch(() => {});
      const source = new EventSource("/api/events");
      source.addEventListener("state", (ev) => {
        streamed = true;
        try {
          deliver(JSON.parse(ev.data));
        } catch (err) {
          console.error("bad state event", err);
        }
      });
      source.addEventListener("open", () => {
        /* after an outage the tower may have restarted with a fresh journal */
        if (dropped) lastSeq = -1;
        dropped = false;
        status(true);
      });
      source.addEventListener("error", () => {
        dropped = true;
        status(false);
        if (source.readyState === EventSource.CLOSED) {
          source.close();
          setTimeout(connect, RETRY_MS);
        }
      });
    }

    connect();
  }

  /* A JSON request; resolves to the parsed body or rejects with an Error
     whose message is the service's own plain-words explanation. */
  async function request(method, url, body, headers) {
    const init = { method, headers: { Accept: "application/json", ...(headers || {}) } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      throw new Error("The tower did not answer. Is it switched on and on this network?");
    }
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      data = null;
    }
    if (!response.ok) {
      const message = (data && (data.error || data.message)) || response.statusText;
      const error = new Error(message || "Request failed (" + response.status + ")");
      error.status = response.status;
      throw error;
    }
    return data;
  }

  /* Read (no value), write, or remove (null) a key of the browser's storage; null where
     the browser allows none (private mode). */
  function kept(area, key, value) {
    try {
      const store = window[area];
      if (value === undefined) return store.getItem(key);
      if (value === null) store.removeItem(key);
      else store.setItem(key, value);
    } catch (err) {
      return null;
    }
    return value;
  }

  /* Kept on this phone or TV (localStorage): the table PIN, the player's name. */
  const storage = (key, value) => kept("localStorage", key, value);

  /* The admin PIN a page was given, kept for this tab only (sessionStorage); "" for none. */
  function adminPin(key) {
    return kept("sessionStorage", key) || "";
  }

  /* Keep the admin PIN for this tab, or forget it ("" or null). */
  function keepAdminPin(key, value) {
    kept("sessionStorage", key, value || null);
  }

  /* ---------- what the log says about the turn on the table ---------- */

  /* The log entries newer than `afterSeq` (every entry of one change shares its seq). */
  function newEntries(log, afterSeq) {
    return (log || []).filter((e) => typeof e.seq === "number" && e.seq > afterSeq);
  }

  function lastSeq(log) {
    return (log || []).reduce((m, e) => (typeof e.seq === "number" && e.seq > m ? e.seq : m), -1);
  }

  /* Whose dice the tray holds: the current player's of this turn (fresh), or
     those left from an ended turn (stale: the last roll was made before the
     current turn began, or by someone else). */
  function trayOwner(state) {
    const log = state.log || [];
    let start = -1;
    let roll = -1;
    log.forEach((e, i) => {
      if (e.kind === "turn_start") start = i;
      if (e.kind === "roll") roll = i;
    });
    if (roll < 0) return { stale: start >= 0 || !state.current, player: null };
    const rolled = log[roll].player || null;
    const fresh = roll > start && rolled === state.current && !state.finished;
    return { stale: !fresh, player: rolled, dice: (log[roll].data || {}).dice || null };
  }

  /* This turn's start entry for the current player, when the log still holds it. */
  function turnStart(state) {
    const log = state.log || [];
    for (let i = log.length - 1; i >= 0; i -= 1) {
      if (log[i].kind === "turn_start") return log[i].player === state.current ? log[i] : null;
    }
    return null;
  }

  /* A free roll waits: all six dice back with points on the turn (hot dice, nothing bonus). */
  function freeRollDue(turn) {
    return Boolean(turn && !turn.roll && turn.total > 0 && turn.dice_left === 6 &&
      !(turn.set_aside || []).length);
  }

  /* The moments of a turn that the pages show large: each from one log entry.
     A roll right after hot dice (or the nothing bonus) is the free roll. */
  function momentsIn(entries, log) {
    const found = [];
    const all = log || entries;
    for (const entry of entries) {
      const data = entry.data || {};
      const who = entry.player || "";
      const after = (text, prefix) => (text || "").replace(prefix, "").trim();
      if (entry.kind === "zilch") {
        found.push({ kind: "zilch", player: who, title: "ZILCH!", detail: after(entry.text, "Zilch!") });
      } else if (entry.kind === "free_roll") {
        found.push({ kind: "hot-dice", player: who, title: "HOT DICE!", detail: after(entry.text, "Hot dice!") });
      } else if (entry.kind === "nothing") {
        found.push({ kind: "free-roll", player: who, title: "FREE ROLL — 6 DICE", detail: entry.text || "" });
      } else if (entry.kind === "bank") {
        found.push({
          kind: "bank", player: who, title: "BANKED " + points(data.points),
          detail: who + (typeof data.score === "number" ? " has " + points(data.score) + "." : " banks."),
        });
      } else if (entry.kind === "penalty") {
        found.push({
          kind: "penalty", player: who, title: "PENALTY −" + points(data.amount), detail: entry.text || "",
        });
      } else if (entry.kind === "roll") {
        const index = all.indexOf(entry);
        const before = index > 0 ? all[index - 1] : null;
        if (before && before.player === who && ["free_roll", "nothing"].includes(before.kind)) {
          const total = (before.data || {}).total;
          found.push({
            kind: "free-roll", player: who, title: "FREE ROLL — 6 DICE",
            detail: who + " rolls all six again" +
              (typeof total === "number" ? " with " + points(total) + " on the turn." : "."),
          });
        }
      }
    }
    return found;
  }

  /* The rules in force (GET /api/rules), fetched again when the game or its rules change. */
  function rulesFollower() {
    const follower = { key: null, value: null };
    follower.follow = (state, changed) => {
      const key = JSON.stringify([state.game_id, state.preset, state.house_rules]);
      if (key === follower.key) return;
      follower.key = key;
      fetch("/api/rules", { cache: "no-store" })
        .then((r) => (r.ok ? r.json() : null))
        .then((data) => {
          if (follower.key !== key || !data || !data.fields) return;
          follower.value = data.fields;
          if (changed) changed();
        })
        .catch(() => {});
    };
    return follower;
  }

  /* Why the turn cannot be banked now, in words; "" when it can (or nothing is known). */
  function bankReason(state, fields) {
    const turn = state.turn || {};
    if (turn.can_bank) return "";
    if (state.phase === "choose") return "set dice aside first";
    if (!turn.total) return "nothing to bank yet";
    const me = (state.players || []).find((p) => p.name === state.current);
    if (!fields || !me) return "";
    const entry = Math.max(fields.entry_minimum || 0, fields.bank_minimum || 0);
    const zeroRule = fields.entry_rule === "while_zero" && me.score <= 0;
    if ((!me.on_board || zeroRule) && turn.total < entry) {
      return "needs " + points(entry) + " to get on board";
    }
    if (turn.total < (fields.bank_minimum || 0)) return "needs " + points(fields.bank_minimum) + " to bank";
    if (freeRollDue(turn) && fields.free_roll === "compulsory") return "the free roll comes first";
    return "";
  }

  /* Each player's chance to win, from the state document's win_chance (null: nothing to
     show). The TV and the phones draw the same parts: a bar like a chess engine's
     evaluation bar (one segment a player, in seat order), each name with its chance
     (with three or more players, the estimate's 95% error and the games behind it),
     the first player's chance at the last turn starts as a small line (two players)
     and the coach's "bank: 64% to win; roll: 58%" when the choice is there. */
  const SPARKS = "▁▂▃▄▅▆▇█";

  function winChance(state) {
    const win = state.win_chance;
    if (!win || state.finished || !win.players) return null;
    const names = (state.players || []).map((p) => p.name);
    const known = names.length > 0 && names.every((n) => typeof win.players[n] === "number");
    const margins = win.margins || {};
    const label = (n) => n + " " + percent(win.players[n]) +
      (typeof margins[n] === "number" ? " ±" + Math.max(1, Math.round(margins[n] * 100)) : "");
    const segments = known ? names.map((n, i) => {
      const seg = h("span", { class: "win-fill win-seat-" + (i % 6), "data-player": n });
      seg.style.width = Math.round(win.players[n] * 1000) / 10 + "%";
      return seg;
    }) : [];
    const bar = h("span", { class: "win-bar", role: "img",
      "aria-label": known ? "Chance to win: " + names.map(label).join(", ") : "Chance to win: estimating" },
    ...segments);
    const chances = (win.history && win.history.chances) || [];
    const line = chances.map((c) => SPARKS[Math.min(7, Math.floor(c * 8))]).join("");
    let note = "";
    if (win.method === "simulated") {
      note = known ? "from " + points(win.games) + " games played out" : "estimating…";
    }
    return {
      names, known, bar, label, line, note, games: win.games || 0,
      first: names[0], advice: win.advice || "", simulated: win.method === "simulated",
    };
  }

  return {
    h, die, points, percent, sorted, multisetWithin, live, request, storage, adminPin, keepAdminPin,
    newEntries, lastSeq, trayOwner, turnStart, freeRollDue, momentsIn, rulesFollower, bankReason,
    winChance,
  };
})();

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

  function live(onState, onStatus) {
    let lastSeq = -1;
    let lastGame = null;
    let dropped = false;
    const deliver = (state) => {
      /* The first fetch and the stream can cross: never step back in time. */
      const seq = typeof state.seq === "number" ? state.seq : null;
      if (seq !== null && state.game_id === lastGame && seq < lastSeq) return;
      lastGame = state.game_id;
      if (seq !== null) lastSeq = seq;
      onState(state);
    };
    const status = (online) => onStatus && onStatus(online);

    function connect() {
      fetch("/api/state", { cache: "no-store" })
        .then((r) => (r.ok ? r.json() : null))
        .then((s) => s && deliver(s))
        .catch(() => {});
      const source = new EventSource("/api/events");
      source.addEventListener("state", (ev) => {
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

  function storage(key, value) {
    try {
      if (value === undefined) return window.localStorage.getItem(key);
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch (err) {
      return null;
    }
    return value;
  }

  return { h, die, points, percent, sorted, multisetWithin, live, request, storage };
})();

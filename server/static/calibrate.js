/* The calibration page: polls the annotated live picture and walks through
   the steps (empty tray, six dice, test read, lock, save). The admin PIN is
   kept for this browser tab only. */
"use strict";

(() => {
  const { h, request } = Zilch;
  const $ = (id) => document.getElementById(id);
  const root = $("calibrate");

  const PIN_KEY = "zilch.admin-pin";
  const FRAME_MS = 700;
  const STEPS = ["empty", "dice", "test", "save"];

  let frameUrl = null;
  let frameTimer = null;
  let busy = false;

  const adminPin = () => Zilch.adminPin(PIN_KEY);
  const setAdminPin = (value) => Zilch.keepAdminPin(PIN_KEY, value);

  function showError(text) {
    $("error").textContent = text || "";
    $("error").hidden = !text;
  }

  function locked(show) {
    $("pin-panel").hidden = !show;
    $("steps-panel").hidden = show;
    if (show) {
      clearTimeout(frameTimer);
      frameTimer = null;
    }
  }

  function pinRejected() {
    setAdminPin("");
    locked(true);
    showError("The admin PIN was not accepted. Enter it again.");
  }

  /* ---------- the live picture ---------- */

  async function pollFrame() {
    frameTimer = null;
    if (document.hidden) {
      /* a phone in a pocket: no frames until the page is looked at again */
      document.addEventListener("visibilitychange", resume, { once: true });
      return;
    }
    try {
      const response = await fetch("/api/calibrate/frame.jpg", {
        headers: { "X-Admin-Pin": adminPin() },
        cache: "no-store",
      });
      if (response.status === 401) {
        pinRejected();
        return;
      }
      if (response.ok) {
        const blob = await response.blob();
        const url = URL.createObjectURL(blob);
        const img = $("live");
        img.onload = () => {
          if (frameUrl && frameUrl !== url) URL.revokeObjectURL(frameUrl);
          frameUrl = url;
          img.dataset.frames = String(Number(img.dataset.frames || 0) + 1);
        };
        img.src = url;
        $("live-reading").textContent = decodeURIComponent(response.headers.get("X-Reading") || "");
      } else {
        const data = await response.json().catch(() => null);
        $("live-reading").textContent =
          "No picture: " + ((data && data.error) || response.statusText);
      }
    } catch (err) {
      $("live-reading").textContent = "No picture: the tower did not answer.";
    }
    if (!$("steps-panel").hidden) frameTimer = setTimeout(pollFrame, FRAME_MS);
  }

  function resume() {
    if (frameTimer === null && !$("steps-panel").hidden) pollFrame();
  }

  /* ---------- steps ---------- */

  function render(status) {
    root.dataset.step = status.step;
    root.dataset.simulated = status.simulated ? "true" : "false";
    const current = STEPS.indexOf(status.step);
    for (const item of document.querySelectorAll(".step")) {
      const index = STEPS.indexOf(item.dataset.step);
      item.classList.toggle("current", index === current);
      item.classList.toggle("done", index < current || (status.saved && index === 3));
    }
    for (const button of document.querySelectorAll(".sim-only")) {
      button.hidden = !status.simulated;
    }
    $("capture-dice").disabled = !status.has_empty;
    $("test-read").disabled = !status.has_calibration;
    $("save").disabled = !status.test;
    $("report").replaceChildren(...(status.report || []).map((line) => h("li", {}, line)));
    const test = $("test-result");
    test.textContent = status.test ? status.test.words : "";
    test.className = "test-result" + (status.test ? (status.test.ok ? " ok" : " bad") : "");
    $("lock-state").textContent = status.lock_note || "";
    $("saved").textContent = status.saved ? "Saved to " + status.saved + ". The tower uses it now." : "";
  }

  async function call(method, path) {
    if (busy) return;
    busy = true;
    for (const b of document.querySelectorAll("#steps-panel button")) b.setAttribute("aria-busy", "true");
    try {
      const status = await request(method, "/api/calibrate/" + path,
        method === "POST" ? {} : undefined, { "X-Admin-Pin": adminPin() });
      showError("");
      render(status);
    } catch (err) {
      if (err.status === 401) pinRejected();
      else showError(err.message);
    } finally {
      busy = false;
      for (const b of document.querySelectorAll("#steps-panel button")) b.removeAttribute("aria-busy");
    }
  }

  function start() {
    locked(false);
    call("GET", "status");
    if (frameTimer === null) pollFrame();
  }

  $("pin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = $("pin-input").value.trim();
    if (!/^\d{4,8}$/.test(value)) {
      showError("The admin PIN is 4 to 8 digits.");
      return;
    }
    setAdminPin(value);
    showError("");
    start();
  });
  $("capture-empty").addEventListener("click", () => call("POST", "empty"));
  $("capture-dice").addEventListener("click", () => call("POST", "dice"));
  $("test-read").addEventListener("click", () => call("POST", "test"));
  $("lock").addEventListener("click", () => call("POST", "lock"));
  $("save").addEventListener("click", () => call("POST", "save"));
  for (const button of document.querySelectorAll("[data-sim]")) {
    button.addEventListener("click", () => call("POST", "sim/" + button.dataset.sim));
  }

  if (adminPin()) start();
  else locked(true);
})();

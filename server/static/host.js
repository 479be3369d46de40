/* The phone's Host panel: the controls that change a running game, each sent with
   the admin PIN (kept for this browser tab only): undo the last set-aside, rename a
   player, remove a player who has left, pause and resume, end the game. Follows the
   same states as the page (the "zilch:state" event of common.js). */
"use strict";

(() => {
  const { h, points, request } = Zilch;
  const $ = (id) => document.getElementById(id);
  const ADMIN_KEY = "zilch.admin";
  const ARM_MS = 5000;

  let state = null;
  let armed = "";  /* a control tapped once, waiting for the second tap */
  let armTimer = null;

  const adminPin = () => Zilch.adminPin(ADMIN_KEY);
  const keepAdminPin = (value) => Zilch.keepAdminPin(ADMIN_KEY, value);

  const say = (kind, text) => Zilch.phone && Zilch.phone[kind](text);

  function running() {
    return state && !state.finished && state.phase !== "idle" && (state.players || []).length > 0;
  }

  /* A control that changes the game: one tap arms it, the second within 5 s acts. */
  function arm(name) {
    if (armed === name) return true;
    armed = name;
    clearTimeout(armTimer);
    armTimer = setTimeout(() => { armed = ""; show(); }, ARM_MS);
    show();
    return false;
  }

  function present() {
    return (state.players || []).filter((p) => !p.left);
  }

  function fillPlayers(select, players) {
    const keep = select.value;
    select.replaceChildren(...players.map((p) => h("option", { value: p.name }, p.name)));
    if (players.some((p) => p.name === keep)) select.value = keep;
  }

  function show() {
    const on = Boolean(adminPin()) && running();
    $("host-actions").hidden = !on;
    $("admin-form").hidden = Boolean(adminPin());
    if (!on) return;
    $("pause").textContent = state.paused ? "Resume the game" : "Pause the game";
    const ending = armed === "end";
    $("end-game").textContent = ending ? "Tap again to end the game (it is not scored)"
      : "End the game";
    $("end-game").classList.toggle("danger", ending);

    const undo = (state.turn || {}).undo;
    const undoButton = $("undo");
    undoButton.hidden = !undo;
    if (undo) {
      const what = undo.player + "'s set-aside of " + undo.dice.join(" ");
      undoButton.textContent = armed === "undo" ? "Tap again to take back " + what
        : "Undo " + what;
      undoButton.classList.toggle("danger", armed === "undo");
    }
    $("undo-help").textContent = undo ? ""
      : "Undo takes back the last set-aside of a turn until the next roll.";

    fillPlayers($("rename-who"), state.players || []);
    const leaving = present();
    fillPlayers($("remove-who"), leaving);
    const who = $("remove-who").value;
    const removing = armed === "remove:" + who;
    const score = (leaving.find((p) => p.name === who) || {}).score || 0;
    $("remove").textContent = removing
      ? "Tap again: " + who + " leaves (keeps " + points(score) + ", turns skipped)"
      : "Has left: remove";
    $("remove").classList.toggle("danger", removing);
    $("remove").disabled = leaving.length < 2;
  }

  async function hostAct(path, body, done) {
    try {
      await request("POST", path, body, { "X-Admin-Pin": adminPin() });
      say("showError", "");
      if (done) done();
    } catch (err) {
      if (err.status === 401) keepAdminPin("");
      say("showError", err.message);
    }
    armed = "";
    if (state) show();
  }

  $("admin-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = $("admin-input").value.trim();
    request("POST", "/api/admin-pin", {}, { "X-Admin-Pin": value })
      .then(() => {
        keepAdminPin(value);
        say("showError", "");
        say("showNotice", "Admin PIN accepted for this tab.");
        show();
      })
      .catch((err) => say("showError", err.status === 401 ? "That is not the admin PIN."
        : err.message));
  });
  $("pause").addEventListener("click", () => {
    const paused = !state.paused;
    hostAct("/api/pause", { paused }, () => say("showNotice", paused ? "Game paused."
      : "Game resumed."));
  });
  $("end-game").addEventListener("click", () => {
    if (!arm("end")) return;
    hostAct("/api/end-game", {}, () => say("showNotice", "The game was ended."));
  });
  $("undo").addEventListener("click", () => {
    if (!arm("undo")) return;
    hostAct("/api/undo", {}, () => say("showNotice", "Set-aside taken back: choose again."));
  });
  $("rename-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const player = $("rename-who").value;
    const name = $("rename-to").value.trim();
    if (!name) {
      say("showError", "Type the new name for " + player + ".");
      return;
    }
    hostAct("/api/rename", { player, name }, () => {
      $("rename-to").value = "";
      say("showNotice", player + " is now called " + name + ".");
    });
  });
  $("remove-who").addEventListener("change", () => { armed = ""; show(); });
  $("remove").addEventListener("click", () => {
    const player = $("remove-who").value;
    if (!player || !arm("remove:" + player)) return;
    hostAct("/api/remove-player", { player }, () => say("showNotice", player + " has left."));
  });

  document.addEventListener("zilch:state", (ev) => {
    state = ev.detail;
    show();
  });

  Zilch.host = { adminPin, keepAdminPin };
})();

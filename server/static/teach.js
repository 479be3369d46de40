/* The calibration page's teach step: the tower rolls by itself, every die it read is shown
   as a crop with its value; the host taps a die to correct it, confirms the roll, and after
   a few rolls teaches the tower the dice set. Uses the admin PIN the page already holds. */
"use strict";

(() => {
  const { h, request } = Zilch;
  const $ = (id) => document.getElementById(id);
  const PIN_KEY = "zilch.admin-pin";

  let status = null;
  let edits = new Map();  /* roll number -> values being edited */
  let busy = false;

  const adminPin = () => Zilch.adminPin(PIN_KEY);

  function showError(text) {
    $("error").textContent = text || "";
    $("error").hidden = !text;
  }

  async function call(method, path, body) {
    if (busy) return;
    busy = true;
    for (const b of document.querySelectorAll("#teach button")) b.disabled = true;
    try {
      const url = "/api/calibrate/teach" + (path ? "/" + path : "");
      status = await request(method, url, method === "POST" ? body || {} : undefined,
        { "X-Admin-Pin": adminPin() });
      showError("");
    } catch (err) {
      /* a refused PIN in the page's own words (calibrate.js asks for it again) */
      showError(err.status === 401 ? "The admin PIN was not accepted. Enter it again." : err.message);
    } finally {
      busy = false;
      render();
    }
  }

  function valuesOf(roll) {
    if (!edits.has(roll.roll)) edits.set(roll.roll, roll.values || roll.dice.map((d) => d.value));
    return edits.get(roll.roll);
  }

  function dieButton(roll, index) {
    const values = valuesOf(roll);
    const read = roll.dice[index];
    return h("button", {
      type: "button",
      class: "teach-die" + (values[index] !== read.value ? " changed" : ""),
      "data-index": index,
      "data-value": values[index],
      "aria-label": "die " + (index + 1) + " shows " + values[index] + ": tap to change",
      onclick: () => {
        values[index] = (values[index] % 6) + 1;
        render();
      },
    }, h("img", { src: read.crop, alt: "" }), h("span", { class: "teach-value" }, String(values[index])));
  }

  function rollItem(roll) {
    const confirmed = roll.values !== null;
    const note = roll.ok ? "" : " (the tower was unsure: " + roll.reason + ")";
    return h("li", { class: "teach-roll" + (confirmed ? " confirmed" : ""), "data-roll": roll.roll },
      h("div", { class: "teach-dice" }, roll.dice.map((_, i) => dieButton(roll, i))),
      h("button", {
        type: "button",
        class: confirmed ? "" : "primary",
        "data-confirm": roll.roll,
        onclick: () => call("POST", "confirm", { roll: roll.roll, values: valuesOf(roll) }),
      }, confirmed ? "Confirmed ✓ (confirm again after a change)" : "These are right"),
      note);
  }

  /* A dice set missing a value is kept but not read with: it would refuse every die of that
     value. The values no taught die showed are the service's word (taught.profile.untaught). */
  function untaught() {
    const profile = (status.taught || {}).profile;
    return profile ? profile.untaught || [] : [];
  }

  function statusWords() {
    const missing = untaught();
    if (status.learned) {
      return "The tower learned these dice from " + status.learned.dice + " dice (" +
        Math.round(status.learned.cv_accuracy * 100) + "% right on dice it had not seen). " +
        "Saved to " + status.learned.path + "." + (missing.length
          ? " The tower reads with them once every value is taught: no die showed " +
            missing.join(" or ") + "; roll and confirm more."
          : "");
    }
    const taught = status.taught || {};
    const profile = taught.profile;
    const known = !profile ? ""
      : missing.length ? "The tower keeps a dice set of " + taught.examples + " dice but reads " +
        "without it until every value is taught: no die showed " + missing.join(" or ") + ". "
      : "The tower knows a dice set (" + taught.examples + " dice). ";
    return known + status.confirmed_dice + " dice confirmed; " + status.needed + " or more teach the tower.";
  }

  function render() {
    if (!status) return;
    $("teach-rolls").replaceChildren(...[...status.rolls].reverse().map(rollItem));
    const line = $("teach-status");
    line.textContent = statusWords();
    line.className = "teach-status" + (status.learned ? " learned" : "");
    $("teach-roll").disabled = busy;
    $("teach-learn").disabled = busy || status.confirmed_dice < status.needed;
  }

  function load() {
    if (adminPin()) call("GET", "");
  }

  $("teach-roll").addEventListener("click", () => call("POST", "roll"));
  $("teach-learn").addEventListener("click", () => {
    edits = new Map();
    call("POST", "learn");
  });
  $("pin-form").addEventListener("submit", () => setTimeout(load, 0));
  load();
})();

/* Saying what the dice show, on both pages.
   TV: "corrected by Ann" beside the dice while the corrected roll is on the table.
   Phone: while a roll may be corrected (before any set-aside from it, or right after it
   zilched) anyone with the table PIN taps the dice that were read wrong to change them;
   after the tower's last reshake the same panel enters what the dice show. Each die comes
   with the camera's picture of it (GET /api/correct), so the die tapped is the die that was
   misread, and the panel asks who says so when the phone has no name yet. The page's own
   script draws everything else; this one follows the same states ("zilch:state"). */
"use strict";

(() => {
  const { h, die, request, storage } = Zilch;
  const $ = (id) => document.getElementById(id);
  const PIN_KEY = "zilch.pin";
  const NAME_KEY = "zilch.name";
  const BY_KEY = "zilch.corrector";  /* who corrects from a phone that does not play */

  /* ---------- the TV ---------- */

  function correctionWords(correction) {
    if (!correction) return "";
    const who = correction.by ? " by " + correction.by : "";
    return (correction.entered ? "entered" : "corrected") + who;
  }

  function showCorrectionNote(state) {
    const note = $("correction-note");
    const correction = state.correction;
    note.textContent = correctionWords(correction);
    note.hidden = !correction;
    note.dataset.by = (correction && correction.by) || "";
  }

  /* ---------- the phone ---------- */

  let offered = "";  /* the offer the panel was drawn for: redrawn only when it changes */
  let values = [];
  let read = [];
  let pictures = [];  /* the camera's picture of each die read, in the reading's order */
  let sending = false;

  function offerKey(state) {
    const c = state.correctable;
    return c ? [state.game_id, state.current, c.mode, c.count, c.dice.join("")].join("|") : "";
  }

  /* The dice to start from: as read, as many as the roll has (after a reshake the
     camera may have seen too few or too many). */
  function startingDice(offer) {
    const dice = offer.dice.slice(0, offer.count);
    while (dice.length < offer.count) dice.push(1);
    return dice;
  }

  function picture(url, index) {
    return h("img", { class: "die-picture", src: url, alt: "the camera's view of die " + (index + 1) });
  }

  function drawDice() {
    const inButtons = pictures.length === values.length;
    const buttons = values.map((value, index) => h("button", {
      type: "button",
      class: "die-button" + (value !== read[index] ? " changed" : ""),
      "data-index": index,
      "data-value": value,
      "aria-label": "die " + (index + 1) + " shows " + value + ": tap to change",
      onclick: () => {
        values[index] = (values[index] % 6) + 1;
        drawDice();
      },
    }, inButtons ? picture(pictures[index], index) : null, die(value)));
    $("correct-dice").replaceChildren(...buttons);
    /* the camera saw another number of dice than the roll has: its pictures, apart */
    const seen = $("correct-seen");
    seen.replaceChildren(...(inButtons ? [] : pictures.map(picture)));
    seen.hidden = inButtons || !pictures.length;
    const changed = values.some((v, i) => v !== read[i]);
    $("correct-send").disabled = sending || !who() || (offeredMode() === "correct" && !changed);
  }

  /* Who says what the dice show: the phone's player, else the name typed in the panel. */
  function who() {
    return storage(NAME_KEY) || $("correct-name").value.trim();
  }

  async function fetchPictures(key) {
    const pin = storage(PIN_KEY);
    if (!pin) return;
    try {
      const offer = await request("GET", "/api/correct", undefined, { "X-Table-Pin": pin });
      if (key !== offered || offer.dice.join("") !== read.slice(0, offer.dice.length).join("")) return;
      pictures = offer.pictures || [];
      drawDice();
    } catch (err) {
      /* no pictures (an older tower, or the offer just went): the dice are enough */
    }
  }

  function offeredMode() {
    return offered.split("|")[2] || "";
  }

  function showPanel(state) {
    const panel = $("correct-panel");
    const offer = state.correctable;
    panel.hidden = !offer;
    if (!offer) {
      offered = "";
      return;
    }
    const key = offerKey(state);
    if (key === offered) return;
    offered = key;
    read = startingDice(offer);
    values = read.slice();
    pictures = [];
    const named = Boolean(storage(NAME_KEY));
    $("correct-who").hidden = named;
    if (!named) $("correct-name").value = storage(BY_KEY) || "";
    const enter = offer.mode === "enter";
    $("correct-title").textContent = enter ? "Tell the tower what the dice show" : "Dice read wrong?";
    $("correct-help").textContent = enter
      ? "The tower could not read the dice. Tap each die until it shows what the tray shows."
      : "Each die is shown as the camera saw it. Tap one it read wrong until it shows the right value.";
    $("correct-send").textContent = enter ? "These are the dice" : "Correct the dice";
    drawDice();
    fetchPictures(key);
  }

  function showError(text) {
    const box = $("error");
    if (!box) return;
    box.textContent = text || "";
    box.hidden = !text;
  }

  async function send() {
    const pin = storage(PIN_KEY) || "";
    if (!pin) {
      showError("Enter the table PIN shown on the TV first.");
      return;
    }
    const by = who();
    if (!by) {
      showError("Type your name first: the log says who corrected the dice.");
      return;
    }
    if (!storage(NAME_KEY)) storage(BY_KEY, by);
    const body = { correct: values.slice(), name: by };
    sending = true;
    drawDice();
    try {
      await request("POST", "/api/correct", body, { "X-Table-Pin": pin });
      showError("");
    } catch (err) {
      showError(err.message);
    } finally {
      sending = false;
      drawDice();
    }
  }

  /* ---------- wiring ---------- */

  const onTv = Boolean($("correction-note"));
  const onPhone = Boolean($("correct-panel"));
  if (onPhone) {
    $("correct-send").addEventListener("click", send);
    $("correct-name").addEventListener("input", drawDice);
  }
  /* a PIN saved while the panel is up: the pictures it could not fetch without one */
  document.addEventListener("zilch:pin", () => {
    if (onPhone && offered && !pictures.length) fetchPictures(offered);
  });
  document.addEventListener("zilch:state", (ev) => {
    const state = ev.detail || {};
    if (onTv) showCorrectionNote(state);
    if (onPhone) showPanel(state);
  });
})();

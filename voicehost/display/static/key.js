// A key page's private side: listen mode (the key read aloud by this browser's own speech synthesis,
// so it reaches only the earphones of the phone holding the page), the announcement of the holder's
// cards as they are covered, and the private requests (cover a card, check a clue) sent to this
// page's own secret address. Every word comes ready from the server in the game's language: this
// file picks, places and speaks it. board.js draws the board and hands over each snapshot.
"use strict";

(() => {
  const body = document.body;
  const byId = (id) => document.getElementById(id);
  const labels = JSON.parse(byId("key-labels").textContent);
  const speech = byId("private").dataset.speech; // the voice's language: pt-BR, pt-PT, it-IT, en-US
  const base = body.dataset.events.replace(/\/events$/, ""); // /key/<token>
  const panel = byId("private");
  const memory = storage();

  let snap = null;
  let listening = memory.get("listen") === "on";
  let team = memory.get("team") || "";
  let order = memory.get("order") === "grid" ? "grid" : "alpha";
  let seen = null; // {owner, cards}: the owner's covered cards in the last snapshot, to tell the new ones
  let covering = false; // one cover request at a time: a double tap must not answer "refused" over "covered"
  let offered = false;

  // this tab remembers the mode and choices across reloads; nothing is kept once it is closed
  function storage() {
    const name = (key) => `voicehost-${key}`;
    try {
      const store = window.sessionStorage;
      return {
        get: (key) => store.getItem(name(key)),
        set: (key, value) => {
          try {
            store.setItem(name(key), value);
          } catch (error) {
            // full or refused: the choice lasts until the page is reloaded
          }
        },
      };
    } catch (error) {
      const kept = new Map();
      return { get: (key) => kept.get(key) || null, set: (key, value) => kept.set(key, value) };
    }
  }

  // ---- speaking: in listen mode only; an answer interrupts what is being read, an announcement waits

  function speak(text, interrupt) {
    const voice = window.speechSynthesis;
    if (!listening || !text || !voice) return;
    // cancel only what is there: Safari may drop a speak() that follows a needless cancel()
    if (interrupt && (voice.speaking || voice.pending)) voice.cancel();
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = speech;
    voice.speak(utterance);
  }

  function answer(element, text) {
    element.textContent = text;
    speak(text, true);
  }

  // the choices are groups of toggle buttons, one pressed: `key` names the dataset entry they hold
  function press(key, value) {
    for (const button of panel.querySelectorAll("button")) {
      if (key in button.dataset) button.setAttribute("aria-pressed", String(button.dataset[key] === value));
    }
  }

  function setListening(on) {
    listening = on;
    memory.set("listen", on ? "on" : "off");
    body.dataset.listen = on ? "true" : "false";
    byId("listen-toggle").setAttribute("aria-pressed", String(on));
    byId("listen").hidden = !on;
    // while the page reads its answers aloud, a screen reader need not read them a second time
    for (const id of ["cover-answer", "check-answer"]) byId(id).setAttribute("aria-live", on ? "off" : "polite");
    if (!on && window.speechSynthesis) window.speechSynthesis.cancel();
  }

  // whose cards "your" means: the Duet side, the players' team in co-op, or the team chosen here
  function owner() {
    if (!snap) return "";
    const owners = Object.keys(snap.key.listen.by);
    if (owners.length === 1) return owners[0];
    return owners.includes(team) ? team : "";
  }

  function ask(question) {
    if (!snap) return;
    const mine = owner();
    answer(byId("answer"), mine ? snap.key.listen.by[mine].answers[question][order] : labels.listen_choose_team);
  }

  // ---- the holder's cards as they are covered --------------------------------------------------

  function announceCovered() {
    const mine = owner();
    const now = Object.entries(mine ? snap.key.listen.by[mine].covered : {});
    const cards = new Set(now.map(([index, text]) => `${index} ${text}`));
    if (seen && seen.owner === mine) {
      const fresh = now.filter(([index, text]) => !seen.cards.has(`${index} ${text}`)).map(([, text]) => text);
      if (fresh.length) {
        byId("covered-said").textContent = fresh.join(" ");
        for (const text of fresh) speak(text, false);
      }
    }
    seen = { owner: mine, cards };
  }

  // ---- private requests: to this page's own address, answered to this page only ---------------------

  async function send(what, payload) {
    try {
      const response = await fetch(`${base}/${what}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(payload),
        cache: "no-store",
      });
      if (response.ok) return await response.json();
      if (response.status === 400) return await response.json(); // unreadable: it says why, in the game's language
    } catch (error) {
      // the host is out of reach: said below
    }
    return { ok: false, text: labels.listen_no_answer };
  }

  async function cover(card) {
    if (covering) return;
    covering = true;
    try {
      answer(byId("cover-answer"), (await send("cover", { card })).text);
    } finally {
      covering = false;
    }
  }

  function drawCover() {
    const offer = snap.key.cover;
    if (offer && !offered) byId("cover-answer").textContent = "";
    offered = Boolean(offer);
    const cards = offer ? offer.cards : [];
    // after a card is covered the offer ends: the section stays for the answer that is on its way
    byId("cover").hidden = !offer && !covering && !byId("cover-answer").textContent;
    byId("cover-why").textContent = offer ? offer.why : "";
    const list = byId("cover-cards");
    if (list.dataset.cards === JSON.stringify(cards)) return;
    const hadFocus = list.contains(document.activeElement);
    list.replaceChildren(
      ...cards.map((card) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "big";
        button.textContent = card;
        button.addEventListener("click", () => cover(card));
        return button;
      }),
    );
    list.dataset.cards = JSON.stringify(cards);
    if (hadFocus) byId("cover-answer").focus(); // the card chosen is gone: the answer is where focus goes
  }

  // ---- wiring ------------------------------------------------------------------------------------

  byId("listen-toggle").addEventListener("click", () => {
    setListening(!listening);
    speak(labels.listen_on, true); // a tap starts the voice: phones speak only after one
  });
  byId("listen-stop").addEventListener("click", () => window.speechSynthesis && window.speechSynthesis.cancel());
  for (const button of panel.querySelectorAll("button[data-question]")) {
    button.addEventListener("click", () => ask(button.dataset.question));
  }
  for (const button of panel.querySelectorAll("button[data-choose-team]")) {
    button.addEventListener("click", () => {
      team = button.dataset.chooseTeam;
      memory.set("team", team);
      press("chooseTeam", team);
      speak(button.textContent, true);
      if (snap) announceCovered(); // from now on, this team's cards; none announced for the switch itself
    });
  }
  for (const button of panel.querySelectorAll("button[data-order]")) {
    button.addEventListener("click", () => {
      order = button.dataset.order;
      memory.set("order", order);
      press("order", order);
      speak(button.textContent, true);
    });
  }
  byId("check-form").addEventListener("submit", async (event) => {
    event.preventDefault(); // the page asks by itself; nothing is submitted (the policy forbids it anyway)
    const word = byId("check-word").value.trim();
    if (word) answer(byId("check-answer"), (await send("check", { word })).text);
  });

  document.addEventListener("voicehost:snapshot", (event) => {
    snap = event.detail;
    const choice = byId("team-choice");
    if (choice) choice.hidden = Object.keys(snap.key.listen.by).length === 1;
    byId("check").hidden = !snap.key.check;
    announceCovered();
    drawCover();
  });

  setListening(listening);
  press("chooseTeam", team);
  press("order", order);
})();

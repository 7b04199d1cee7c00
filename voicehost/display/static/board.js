// The board page: draws each snapshot the server pushes (server-sent events) and nothing else.
// All words come ready from the server in the game's language; this file only places them.
"use strict";

(() => {
  const body = document.body;
  const labels = JSON.parse(document.getElementById("labels").textContent);
  const byId = (id) => document.getElementById(id);
  const RECONNECT_MS = 2000; // when the browser gives up on a stream, start a new one after this
  const SHOW_LOST_MS = 1500; // a stream back within this time is not worth a warning

  let source = null;
  let lostTimer = null;
  let lastSaid = -1;
  let timerState = null; // {deadline (ms, performance.now clock), running, seconds}
  let timerTick = null;

  function setText(element, text) {
    if (element.textContent !== text) element.textContent = text;
  }

  function showIf(element, visible) {
    element.hidden = !visible;
  }

  // ---- cards -----------------------------------------------------------------------------------

  function makeCard() {
    const li = document.createElement("li");
    li.className = "card";
    li.innerHTML =
      '<span class="badge" aria-hidden="true"><span class="letter"></span><span class="shape"></span></span>' +
      '<span class="emoji" aria-hidden="true"></span>' +
      '<span class="name" aria-hidden="true"></span>' +
      '<span class="marks" aria-hidden="true"></span>' +
      '<span class="place" aria-hidden="true"></span>' +
      '<span class="reveal" aria-hidden="true"></span>' +
      '<span class="visually-hidden label"></span>';
    return li;
  }

  function drawCard(li, card, text, keyIdentity) {
    li.dataset.covered = card.covered ? "true" : "false";
    li.dataset.identity = card.identity || "";
    li.dataset.key = keyIdentity || "";
    li.dataset.picture = card.emoji ? "true" : "false";
    // the longest word sets the type size; a name of several words may wrap between them
    const longest = Math.max(4, ...card.name.split(/\s+/).map((word) => word.length));
    li.style.setProperty("--len", String(longest));
    setText(li.querySelector(".letter"), text.letter);
    setText(li.querySelector(".emoji"), card.emoji || "");
    setText(li.querySelector(".name"), card.name);
    setText(li.querySelector(".marks"), card.marks.map((side) => side.toUpperCase()).join(" "));
    setText(li.querySelector(".label"), text.label);
    setText(li.querySelector(".place"), text.place || "");
    drawReveal(li, text.reveal || []);
  }

  // the game is over: the key card turned over, one chip per side it shows (colour, side, letter, shape)
  function drawReveal(li, reveal) {
    const shown = JSON.stringify(reveal);
    const holder = li.querySelector(".reveal");
    if (holder.dataset.shown === shown) return;
    holder.dataset.shown = shown;
    holder.replaceChildren(
      ...reveal.map((item) => {
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.dataset.identity = item.identity;
        chip.textContent = item.side ? `${item.side} ${item.letter}` : item.letter;
        return chip;
      }),
    );
    li.dataset.reveal = reveal.length === 1 && !reveal[0].side ? reveal[0].identity : "";
  }

  function drawBoard(snap) {
    const view = snap.view;
    const board = byId("board");
    const key = snap.key || null;
    board.style.setProperty("--cols", String(view.columns));
    board.style.setProperty("--rows", String(view.rows));
    board.dataset.edition = view.edition;
    board.setAttribute("aria-label", snap.text.board);
    while (board.children.length > view.cards.length) board.lastElementChild.remove();
    while (board.children.length < view.cards.length) board.append(makeCard());
    view.cards.forEach((card, index) => {
      const text = key ? key.cards[index] : snap.text.cards[index];
      drawCard(board.children[index], card, text, key ? key.identities[index] : "");
    });
  }

  // ---- status ----------------------------------------------------------------------------------

  function drawStatus(snap) {
    const text = snap.text;
    const view = snap.view;
    const key = snap.key || null;
    document.documentElement.lang = view.lang;
    const title = key ? key.title : text.title;
    if (document.title !== title) document.title = title;
    setText(byId("title"), title);
    if (key) {
      setText(byId("note"), key.note);
      showIf(byId("note"), true);
    }
    setText(byId("turn"), text.turn);
    setText(byId("clue"), text.clue);
    setText(byId("guesses"), text.guesses);
    setText(byId("result"), text.result);
    showIf(byId("result"), Boolean(text.result));
    body.dataset.over = view.over ? "true" : "false";
    body.dataset.phase = view.phase;
    body.dataset.team = view.competitive ? view.competitive.team : "";

    const counters = byId("counters");
    while (counters.children.length > text.counters.length) counters.lastElementChild.remove();
    while (counters.children.length < text.counters.length) counters.append(document.createElement("li"));
    text.counters.forEach((item, index) => {
      const li = counters.children[index];
      li.dataset.kind = item.kind;
      setText(li, item.text);
    });

    const clues = byId("clues");
    while (clues.children.length > text.clues.length) clues.lastElementChild.remove();
    while (clues.children.length < text.clues.length) clues.append(document.createElement("li"));
    text.clues.forEach((item, index) => setText(clues.children[index], item));
    showIf(clues.parentElement, text.clues.length > 0);

    // the live region stays in the page at all times: screen readers announce changes only to a region they know
    if (snap.said.n !== lastSaid) {
      lastSaid = snap.said.n;
      setText(byId("said"), snap.said.text);
    }
  }

  // ---- the sand timer: counted down here between the server's updates ---------------------------

  function drawTimer() {
    const element = byId("timer");
    if (!timerState || body.dataset.over === "true") {
      showIf(element, false);
      return;
    }
    let seconds = timerState.seconds;
    if (timerState.running) seconds = Math.max(0, Math.ceil((timerState.deadline - performance.now()) / 1000));
    const shown = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    // the sand ran out (the server stops the timer at 0; a paused timer always has a second left)
    const up = seconds === 0;
    setText(byId("timer-value"), up ? labels.timer_up : timerState.running ? shown : `${shown} (${labels.timer_paused})`);
    element.dataset.low = timerState.running && seconds <= 10 ? "true" : "false";
    element.dataset.up = up ? "true" : "false";
    showIf(element, true);
  }

  function setTimer(timer) {
    if (timer === null) {
      timerState = null;
    } else {
      timerState = { seconds: timer.seconds, running: timer.running, deadline: performance.now() + timer.seconds * 1000 };
    }
    if (timerTick === null && timerState && timerState.running) timerTick = setInterval(drawTimer, 250);
    if (timerTick !== null && !(timerState && timerState.running)) {
      clearInterval(timerTick);
      timerTick = null;
    }
    drawTimer();
  }

  // ---- the stream ------------------------------------------------------------------------------

  function render(snap) {
    drawBoard(snap);
    drawStatus(snap);
    setTimer(snap.timer);
    // a key page's own script (key.js) follows the same snapshots
    document.dispatchEvent(new CustomEvent("voicehost:snapshot", { detail: snap }));
  }

  function connected() {
    clearTimeout(lostTimer);
    lostTimer = null;
    showIf(byId("connection"), false);
    body.dataset.connected = "true";
  }

  function lost() {
    body.dataset.connected = "false";
    if (lostTimer === null) lostTimer = setTimeout(() => showIf(byId("connection"), true), SHOW_LOST_MS);
  }

  function connect() {
    source = new EventSource(body.dataset.events);
    source.onopen = connected;
    source.onmessage = (event) => {
      connected();
      render(JSON.parse(event.data));
    };
    source.onerror = () => {
      lost();
      // the browser retries by itself (the stream's retry: field); if it gave up, start again
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setTimeout(connect, RECONNECT_MS);
      }
    };
  }

  connect();
})();

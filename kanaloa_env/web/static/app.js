// The page of `python -m kanaloa_env.web`: plain JavaScript, no libraries.
// It asks the server (kanaloa_env/web/app.py) for everything; all text from the server or a
// record is put in with textContent, never as HTML.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const ui = {
  tab: "play",
  games: [],
  recordFiles: [],
  uploaded: null, // {text, name} of the last uploaded file
  info: null, // the session's fixed facts
  view: null, // the position shown
  log: [],
  step: 0,
  last: 0,
  timer: null,
  follow: true, // a live game: show each new move
  liveDone: false, // a live game: over
  target: null, // watching: the step the pending key presses and clicks lead to
  navigating: false, // watching: a walk to `target` is under way
  choiceFrom: null, // the picture's region that opened the "which move?" box
};

// Names this page load (this browser tab) to the server, which counts games per tab.
const TAB_ID = newTabId();

function newTabId() {
  if (window.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  // randomUUID needs a secure context; the page may be served over plain http on a network.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- requests --------------------------------------------------------------------

let pending = 0;
function busy(delta) {
  pending += delta;
  document.body.dataset.busy = pending > 0 ? "1" : "0";
}

async function call(method, url, body) {
  busy(1);
  try {
    const opts = { method, headers: { "X-Kanaloa-Tab": TAB_ID } };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(url, opts);
    } catch (e) {
      throw new Error("the server does not answer (is it still running?)");
    }
    let data = null;
    try {
      data = await resp.json();
    } catch (e) {
      throw new Error(`the server answered ${resp.status} without a message`);
    }
    if (!resp.ok) throw new Error(data && data.error ? data.error : `error ${resp.status}`);
    return data;
  } finally {
    busy(-1);
  }
}

// What a screen reader says: what happened and whose turn it is (the polite live region).
function announce(text) {
  const box = $("announce");
  // The same words twice in a row are announced again only after a change of text.
  box.textContent = "";
  setTimeout(() => (box.textContent = text), 30);
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function guard(fn) {
  try {
    showError("");
    await fn();
  } catch (e) {
    showError(e.message);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the setup forms -------------------------------------------------------------

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function currentGame() {
  return ui.games.find((g) => g.name === $("game").value);
}

function fillSelect(select, items, selected) {
  select.replaceChildren();
  for (const [value, label] of items) {
    const o = el("option", { value }, label);
    if (String(value) === String(selected)) o.selected = true;
    select.append(o);
  }
}

function buildTableForm() {
  const g = currentGame();
  const P = Number($("num-players").value) || g.default_num_players;
  fillSelect($("num-players"), g.player_counts.map((n) => [n, String(n)]), P);
  const seat = Math.min(Number($("seat").value) || 0, P - 1);
  fillSelect($("seat"), [...Array(P).keys()].map((p) => [p, `player_${p}`]), seat);
  const bots = $("bots");
  const before = [...bots.querySelectorAll("select")].map((s) => s.value);
  bots.replaceChildren(el("legend", {}, "Bots"));
  const human = ui.tab === "play" ? seat : -1;
  for (let p = 0; p < P; p++) {
    if (p === human) continue;
    const label = el("label", {}, `player_${p} `);
    const s = el("select", { "data-seat": p, class: "bot" });
    const choice = before.shift();
    fillSelect(s, g.bots.map((b) => [b, b]), g.bots.includes(choice) ? choice : g.default_bot);
    label.append(s);
    bots.append(label);
  }
  const opts = $("options");
  if (opts.dataset.game !== g.name) {
    opts.dataset.game = g.name;
    opts.replaceChildren(el("legend", {}, "Variant"));
    for (const o of g.options) {
      const label = el("label", { title: o.help }, o.flag.replace(/^--/, "") + " ");
      let input;
      if (o.kind === "switch") {
        input = el("input", { type: "checkbox" });
      } else if (o.kind === "choice") {
        input = el("select");
        fillSelect(input, [["", "default"], ...o.choices.map((c) => [c, c])], "");
      } else {
        input = el("input", { type: o.kind === "int" ? "number" : "text", placeholder: "default", size: 6 });
      }
      input.dataset.flag = o.flag;
      input.dataset.kind = o.kind;
      label.append(input);
      opts.append(label);
    }
    opts.hidden = g.options.length === 0;
  }
}

function tableRequest() {
  const g = currentGame();
  const options = {};
  for (const input of $("options").querySelectorAll("[data-flag]")) {
    const v = input.dataset.kind === "switch" ? input.checked : input.value;
    if (v !== "" && v !== false) options[input.dataset.flag] = v;
  }
  const req = {
    game: g.name,
    num_players: Number($("num-players").value),
    bots: [...$("bots").querySelectorAll("select")].map((s) => s.value),
    options,
    seed: $("seed").value.trim() === "" ? null : $("seed").value.trim(),
  };
  if (ui.tab === "play") req.seat = Number($("seat").value);
  return req;
}

function buildRecordForm(notListed) {
  const items = ui.recordFiles.map((f, k) => [k, `${f.path} (${Math.ceil(f.bytes / 1024)} KB)`]);
  fillSelect($("record-file"), items.length ? items : [["", "no record folders (--records)"]], 0);
  $("open-file").disabled = items.length === 0;
  const more = $("not-listed");
  more.hidden = notListed === 0;
  more.textContent = `${notListed} more record ${notListed === 1 ? "file" : "files"} not listed (the list stops at a folder's first files)`;
}

// The record files the server found but did not list: a count at the top of its answer,
// per folder, or per listed file's folder; read whichever is there (none: 0).
function countNotListed(data) {
  const count = (v) => (Number.isInteger(v) && v > 0 ? v : 0);
  const sum = (v) => {
    if (Array.isArray(v)) return v.reduce((n, x) => n + (x && typeof x === "object" ? count(x.not_listed) : count(x)), 0);
    if (v && typeof v === "object") return Object.values(v).reduce((n, x) => n + count(x), 0);
    return count(v);
  };
  let n = sum(data.not_listed);
  if (Array.isArray(data.record_folders)) n += sum(data.record_folders);
  if (n === 0 && Array.isArray(data.record_files)) {
    const seen = new Map();
    for (const f of data.record_files) {
      if (f && f.not_listed !== undefined) seen.set(f.folder, count(f.not_listed));
    }
    for (const v of seen.values()) n += v;
  }
  return n;
}

// The "how to play" of game `name` (a game without one: none).
function showHowTo(name) {
  let any = false;
  for (const s of $("howto").querySelectorAll("section[data-game]")) {
    s.hidden = s.dataset.game !== name;
    any = any || !s.hidden;
  }
  $("howto").hidden = !any;
  const g = ui.games.find((x) => x.name === name);
  $("howto-game").textContent = g ? g.title : "";
}

function selectTab(tab) {
  stopTimer();
  ui.tab = tab;
  for (const b of $("tabs").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(b.dataset.tab === tab));
  }
  $("table-form").hidden = tab === "replay";
  $("record-form").hidden = tab !== "replay";
  for (const node of document.querySelectorAll(".play-only")) node.hidden = tab !== "play";
  buildTableForm();
  showHowTo(tab === "replay" ? ui.info && ui.info.game : $("game").value);
}

// ---- a session -------------------------------------------------------------------

function openSession(data) {
  stopTimer();
  ui.info = data.info;
  ui.log = [];
  ui.target = null;
  $("log").replaceChildren();
  addLog(data.log);
  ui.view = data.view;
  ui.last = data.view.last;
  ui.step = data.view.step;
  ui.follow = true;
  ui.liveDone = data.view.done;
  const seats = $("view-seat");
  const P = ui.info.players.length;
  fillSelect(
    seats,
    [["", "player to act"], ...[...Array(P).keys()].map((p) => [p, `player_${p}`]), ["all", "all hands open"]],
    ""
  );
  const players = $("players");
  players.replaceChildren();
  for (const p of ui.info.players) players.append(el("li", { "data-seat": p.seat }, `${p.name}: ${p.who}`));
  $("download").href = `/api/session/${ui.info.session}/record`;
  $("table").hidden = false;
  $("side").hidden = false;
  $("table").classList.toggle("playing", ui.info.kind === "play");
  $("controls").hidden = ui.info.kind === "play";
  $("zoom").hidden = !ui.info.pictures;
  $("again").hidden = ui.info.kind !== "play";
  $("heading").textContent = heading();
  $("text-details").open = !ui.info.pictures; // a game without pictures shows its text view
  showHowTo(ui.info.game);
  const shown = render().then(() => {
    // The table at the top of the window: the picture and the moves fit there together
    // (once the picture is in: before, the page may be too short to scroll that far).
    $("table").scrollIntoView({ block: "start" });
    if (ui.info.kind === "play") focusDecision();
    announce(`${heading()} ${turnWords()}`);
  });
  if (ui.info.kind === "live") startTimer();
  return shown;
}

function heading() {
  const i = ui.info;
  const start = i.seed !== null ? `seed ${i.seed}` : "from a position";
  const file = i.file_games > 1 ? `, game ${i.file_index} of ${i.file_games} in the file` : "";
  const what = { play: "you play", live: "bots play", replay: "a record" }[i.kind];
  return `${i.title}, ${i.players.length} players, ${start}${file}: ${what}.`;
}

// Whose turn it is, or how the game ended, in words for the live region.
function turnWords() {
  const v = ui.view;
  if (v.result && ui.step === ui.last) return v.result.lines.length ? v.result.lines[0] : "The game is over.";
  if (v.prompt) return `Your move: ${v.prompt}; ${v.moves.length} ${v.moves.length === 1 ? "move" : "moves"}.`;
  return v.to_act >= 0 ? `player_${v.to_act} to act.` : "";
}

// The keyboard's place after a move: the first move of the next decision, else the result.
function focusDecision() {
  const first = $("moves").querySelector("button");
  if (first) first.focus();
  else if (!$("result").hidden) $("result").focus();
}

function addLog(entries) {
  const list = $("log");
  for (const e of entries) {
    ui.log.push(e);
    const li = el("li", { "data-step": e.step, "data-player": e.player, "data-action": e.action });
    for (const line of e.lines) li.append(el("div", { class: "line" }, line));
    li.addEventListener("click", () => {
      if (ui.info.kind !== "play") navigate(e.step + 1);
    });
    list.append(li);
  }
}

function seatParam() {
  if (ui.info.kind === "play") return String(ui.info.human);
  return $("view-seat").value;
}

function pictureURL(step, seat) {
  const q = new URLSearchParams({ step: String(step) });
  if (seat !== "" && seat !== null && seat !== undefined) q.set("seat", String(seat));
  return `/api/session/${ui.info.session}/image.png?${q}`;
}

function loadImage(img, url) {
  return new Promise((resolve) => {
    busy(1);
    img.onload = () => {
      busy(-1);
      resolve(true);
    };
    img.onerror = () => {
      busy(-1);
      showError("the picture could not be loaded");
      resolve(false);
    };
    img.src = url;
  });
}

async function drawPictures(step) {
  const box = $("pictures");
  if (!ui.info.pictures) {
    box.replaceChildren();
    return;
  }
  const seat = seatParam();
  const seats = seat === "all" ? ui.info.players.map((p) => p.seat) : [seat];
  const frames = [];
  const loads = [];
  for (const s of seats) {
    const frame = el("div", { class: "board" });
    const who = seats.length > 1 ? `, player_${s}'s view` : "";
    const img = el("img", { alt: `${ui.info.title}, position ${step}${who} (the text view below says it in words)` });
    frame.append(img);
    if (seats.length > 1) frame.append(el("div", { class: "caption" }, `player_${s}'s view`));
    frames.push(frame);
    loads.push(loadImage(img, pictureURL(step, s)));
  }
  // The old picture stays until the new one is in: the page neither flickers nor jumps.
  await Promise.all(loads);
  box.classList.toggle("grid", seats.length > 1);
  box.replaceChildren(...frames);
  const img = box.querySelector("img");
  if (img && img.naturalWidth) {
    // The layout sizes the picture from its shape; the zoom shows it at its own size.
    box.style.setProperty("--ratio", String(img.naturalWidth / img.naturalHeight));
    box.style.setProperty("--natural-width", `${img.naturalWidth}px`);
  }
  if (seats.length === 1) addRegions(box.querySelector(".board"));
}

function addRegions(frame) {
  const v = ui.view;
  if (!v || !v.regions.length || ui.step !== ui.last) return;
  const img = frame.querySelector("img");
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
  svg.setAttribute("class", "regions");
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "your moves on the picture");
  const byAction = new Map(v.moves.map((m) => [m.action, m.label]));
  // Regions with the same shape (a bridge paid one way or another) are one target.
  const groups = new Map();
  for (const r of v.regions) {
    const key = r.shape + JSON.stringify(r.points);
    if (!groups.has(key)) groups.set(key, { region: r, actions: [] });
    if (!groups.get(key).actions.includes(r.action)) groups.get(key).actions.push(r.action);
  }
  for (const { region: r, actions } of groups.values()) {
    let node;
    const pts = r.points.map((p) => p.join(",")).join(" ");
    if (r.shape === "rect") {
      const [[x0, y0], [x1, y1]] = r.points;
      node = document.createElementNS(SVG, "rect");
      node.setAttribute("x", x0);
      node.setAttribute("y", y0);
      node.setAttribute("width", x1 - x0);
      node.setAttribute("height", y1 - y0);
      node.setAttribute("rx", 6);
    } else if (r.shape === "polygon") {
      node = document.createElementNS(SVG, "polygon");
      node.setAttribute("points", pts);
    } else {
      node = document.createElementNS(SVG, "polyline");
      node.setAttribute("points", pts);
      node.setAttribute("stroke-width", r.width || 12);
    }
    const words = actions.map((a) => byAction.get(a) || String(a));
    node.setAttribute("class", `hit ${r.shape}`);
    node.setAttribute("data-actions", actions.join(" "));
    // A move on the picture is a button for the keyboard and a screen reader too.
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.setAttribute(
      "aria-label",
      words.length === 1 ? words[0] : `${words.length} moves here: ${words.join("; or ")}`
    );
    const title = document.createElementNS(SVG, "title");
    title.textContent = words.join(" / ");
    node.append(title);
    node.addEventListener("click", () => pick(actions, node));
    node.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter" && ev.key !== " ") return;
      ev.preventDefault();
      pick(actions, node);
    });
    svg.append(node);
  }
  frame.append(svg);
}

function pick(actions, from) {
  if (actions.length === 1) {
    guard(() => play(actions[0]));
    return;
  }
  const box = $("choice-moves");
  box.replaceChildren();
  for (const m of ui.view.moves.filter((m) => actions.includes(m.action))) {
    const b = moveButton(m);
    b.addEventListener("click", () => {
      $("choice").hidden = true;
      guard(() => play(m.action));
    });
    box.append(b);
  }
  ui.choiceFrom = from || null;
  $("choice").hidden = false;
  box.querySelector("button").focus();
}

// A move's button: its label wraps between words, never at the hyphen of a line's name
// ("ALOA-HUNA"); the text is the label as the server gave it.
function moveButton(m) {
  const b = el("button", { type: "button", "data-action": m.action });
  for (const t of m.label.split(/(\s+)/)) {
    if (t) b.append(t.includes("-") ? el("span", { class: "nw" }, t) : document.createTextNode(t));
  }
  return b;
}

function closeChoice() {
  $("choice").hidden = true;
  const from = ui.choiceFrom;
  ui.choiceFrom = null;
  if (from && from.isConnected) from.focus();
}

async function render() {
  const v = ui.view;
  $("choice").hidden = true;
  $("where").textContent = `Step ${ui.step} of ${ui.last}` + (v.done && ui.step === ui.last ? ", game over." : ".");
  const toAct = v.to_act >= 0 ? `player_${v.to_act} to act` : "";
  $("prompt").textContent = v.prompt ? `Your move: ${v.prompt}.` : toAct;
  $("text").textContent = v.text;
  const slider = $("slider");
  slider.max = String(ui.last);
  slider.value = String(ui.step);
  $("playpause").textContent = ui.timer ? "pause" : "play";
  for (const li of $("log").children) {
    li.classList.toggle("future", Number(li.dataset.step) >= ui.step);
    li.classList.toggle("current", Number(li.dataset.step) === ui.step - 1);
  }
  scrollLog($("log").querySelector(".current"));
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of v.moves) {
    const b = moveButton(m);
    b.addEventListener("click", () => guard(() => play(m.action)));
    moves.append(b);
  }
  showResult(v.result && ui.step === ui.last ? v.result : null);
  await drawPictures(ui.step);
}

// The move log's own scroll shows `li`; the window stays where it is (scrollIntoView would
// move it too, away from the picture and the moves).
function scrollLog(li) {
  if (!li) return;
  const log = $("log");
  const top = li.offsetTop - log.offsetTop;
  if (top < log.scrollTop) log.scrollTop = top;
  else if (top + li.offsetHeight > log.scrollTop + log.clientHeight) log.scrollTop = top + li.offsetHeight - log.clientHeight;
}

function showResult(result) {
  $("result").hidden = !result;
  const body = $("ranking").querySelector("tbody");
  body.replaceChildren();
  $("final-lines").replaceChildren();
  if (!result) return;
  const order = result.ranks.map((r, p) => [r, p]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [rank, p] of order) {
    const tr = el("tr", { "data-seat": p, "data-rank": rank });
    tr.append(el("td", {}, String(rank)), el("td", {}, ui.info.players[p].name), el("td", {}, ui.info.players[p].who));
    body.append(tr);
  }
  // A sentence wraps; an indented line is a row of a table and keeps its columns.
  for (const line of result.lines) $("final-lines").append(el("div", { class: /^\s/.test(line) ? "row" : "" }, line));
}

// ---- play ------------------------------------------------------------------------

async function play(action) {
  if (document.body.dataset.busy === "1") return;
  // The keyboard waits on the table while the old moves go (not on the page's top).
  $("table").setAttribute("tabindex", "-1");
  $("table").focus({ preventScroll: true });
  for (const b of document.querySelectorAll("#moves button, #pictures svg")) b.remove();
  const data = await call("POST", `/api/session/${ui.info.session}/move`, { action, step: ui.last });
  const delay = Number($("speed").value);
  busy(1);
  try {
    for (const e of data.log) {
      addLog([e]);
      if (delay > 0 && e.player !== ui.info.human) {
        ui.step = e.step + 1;
        ui.last = ui.step;
        $("where").textContent = `Step ${ui.step}.`;
        $("prompt").textContent = `player_${e.player} moved`;
        for (const li of $("log").children) li.classList.toggle("current", Number(li.dataset.step) === e.step);
        await drawPictures(ui.step);
        await sleep(delay);
      }
    }
  } finally {
    busy(-1);
  }
  ui.view = data.view;
  ui.step = ui.last = data.view.last;
  await render();
  focusDecision();
  const happened = data.log.map((e) => e.lines[0]).join(". ");
  announce(`${happened}. ${turnWords()}`);
}

// ---- watch -----------------------------------------------------------------------

async function goto(step) {
  step = Math.max(0, Math.min(ui.last, step));
  const q = new URLSearchParams({ step: String(step) });
  const seat = seatParam();
  if (seat !== "" && seat !== "all") q.set("seat", seat);
  ui.view = await call("GET", `/api/session/${ui.info.session}/view?${q}`);
  ui.step = step;
  ui.follow = step === ui.last;
  await render();
}

// Go to `step` (watching). Presses and clicks that come while a position loads move the
// target on, so none is lost; the walk loads only the positions it must show.
function navigate(step) {
  ui.target = Math.max(0, Math.min(ui.last, step));
  if (ui.navigating) return;
  ui.navigating = true;
  busy(1);
  guard(async () => {
    try {
      while (ui.target !== null && ui.target !== ui.step) await goto(ui.target);
      const e = ui.log[ui.step - 1];
      announce(`Step ${ui.step} of ${ui.last}${e ? `: ${e.lines[0]}` : ""}`);
    } finally {
      ui.target = null;
      ui.navigating = false;
      busy(-1);
    }
  });
}

function navigateBy(delta) {
  navigate((ui.target !== null ? ui.target : ui.step) + delta);
}

async function tick() {
  if (ui.navigating) return; // the viewer is moving: the next tick carries on
  if (ui.info.kind === "live" && !ui.liveDone) {
    const data = await call("POST", `/api/session/${ui.info.session}/advance`, {});
    addLog(data.log);
    ui.last = data.view.last;
    ui.liveDone = data.view.done;
    if (ui.follow) {
      ui.view = data.view;
      ui.step = ui.last;
      if (seatParam() === "") await render();
      else await goto(ui.last);
    } else {
      $("slider").max = String(ui.last);
    }
    if (ui.liveDone) stopTimer();
  } else if (ui.step < ui.last) {
    await goto(ui.step + 1);
  }
  if (ui.info.kind === "replay" && ui.step >= ui.last) stopTimer();
}

function startTimer() {
  stopTimer();
  const delay = Math.max(Number($("speed").value), 50);
  const loop = async () => {
    try {
      await tick();
    } catch (e) {
      showError(e.message);
      stopTimer();
      return;
    }
    if (ui.timer) ui.timer = setTimeout(loop, delay);
  };
  ui.timer = setTimeout(loop, delay);
  $("playpause").textContent = "pause";
}

function stopTimer() {
  if (ui.timer) clearTimeout(ui.timer);
  ui.timer = null;
  $("playpause").textContent = "play";
}

// One open request per record and game index: Enter in the index field, its change and
// the Open button may all ask for the same one.
let opening = "";
async function openRecord(body) {
  const key = JSON.stringify([body.folder, body.path, body.name, body.text && body.text.length, body.index]);
  if (key === opening) return;
  opening = key;
  try {
    await openSession(await call("POST", "/api/replay", body));
  } finally {
    opening = "";
  }
}

function openServerFile() {
  const f = ui.recordFiles[Number($("record-file").value)];
  if (!f) return Promise.resolve();
  ui.uploaded = null;
  return openRecord({ folder: f.folder, path: f.path, index: Number($("file-index").value) || 0 });
}

// The game index changed: the same file again (the uploaded one, else the listed one).
function reopenAtIndex() {
  const index = Number($("file-index").value) || 0;
  if (ui.uploaded) return openRecord({ ...ui.uploaded, index });
  if (ui.recordFiles.length) return openServerFile();
  return Promise.resolve();
}

// ---- wiring ----------------------------------------------------------------------

function wire() {
  for (const b of $("tabs").querySelectorAll("button")) b.addEventListener("click", () => selectTab(b.dataset.tab));
  $("game").addEventListener("change", () => {
    $("num-players").value = "";
    buildTableForm();
    showHowTo($("game").value);
  });
  $("num-players").addEventListener("change", buildTableForm);
  $("seat").addEventListener("change", buildTableForm);
  $("table-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    guard(async () => openSession(await call("POST", ui.tab === "play" ? "/api/play" : "/api/live", tableRequest())));
  });
  $("again").addEventListener("click", () => $("start").click());
  // The record form never goes to the server as a form (the page's CSP forbids it): Open
  // and Enter in its fields open the record here.
  $("record-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    guard(() => (ev.submitter === $("open-file") ? openServerFile() : reopenAtIndex()));
  });
  $("upload").addEventListener("change", () =>
    guard(async () => {
      const file = $("upload").files[0];
      if (!file) return;
      // Busy from the file's reading on, not only from the request: the page is not idle
      // while the browser still reads the file.
      busy(1);
      try {
        ui.uploaded = { text: await file.text(), name: file.name };
        await openRecord({ ...ui.uploaded, index: Number($("file-index").value) || 0 });
      } finally {
        busy(-1);
      }
    })
  );
  $("file-index").addEventListener("change", () => guard(reopenAtIndex));
  $("first").addEventListener("click", () => navigate(0));
  $("prev").addEventListener("click", () => navigateBy(-1));
  $("next").addEventListener("click", () => navigateBy(1));
  $("last").addEventListener("click", () => navigate(ui.last));
  $("slider").addEventListener("input", () => navigate(Number($("slider").value)));
  $("playpause").addEventListener("click", () => (ui.timer ? stopTimer() : startTimer()));
  $("view-seat").addEventListener("change", () => guard(() => goto(ui.step)));
  $("choice-cancel").addEventListener("click", closeChoice);
  $("choice").addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") closeChoice();
  });
  $("zoom").addEventListener("click", () => {
    const on = $("pictures").classList.toggle("zoomed");
    $("zoom").setAttribute("aria-pressed", String(on));
  });
  document.addEventListener("keydown", (ev) => {
    if (!ui.info || ui.info.kind === "play" || ev.target.closest("input, select, textarea")) return;
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (ev.key in keys) navigateBy(keys[ev.key]);
    else if (ev.key === "Home") navigate(0);
    else if (ev.key === "End") navigate(ui.last);
    else if (ev.key === " " && !ev.target.closest("button, a, summary")) ui.timer ? stopTimer() : startTimer();
    else return;
    ev.preventDefault();
  });
}

async function init() {
  wire();
  await guard(async () => {
    const data = await call("GET", "/api/games");
    ui.games = data.games;
    ui.recordFiles = data.record_files;
    fillSelect($("game"), ui.games.map((g) => [g.name, g.title]), ui.games[0].name);
    buildRecordForm(countNotListed(data));
    selectTab("play");
  });
  busy(0);
}

document.addEventListener("DOMContentLoaded", init);

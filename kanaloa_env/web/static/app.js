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
};

// ---- requests --------------------------------------------------------------------

let pending = 0;
function busy(delta) {
  pending += delta;
  document.body.dataset.busy = pending > 0 ? "1" : "0";
}

async function call(method, url, body) {
  busy(1);
  try {
    const opts = { method, headers: {} };
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

function buildRecordForm() {
  const items = ui.recordFiles.map((f, k) => [k, `${f.path} (${Math.ceil(f.bytes / 1024)} KB)`]);
  fillSelect($("record-file"), items.length ? items : [["", "no record folders (--records)"]], 0);
  $("open-file").disabled = items.length === 0;
}

function selectTab(tab) {
  stopTimer();
  ui.tab = tab;
  for (const b of $("tabs").querySelectorAll("button")) {
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
  }
  $("table-form").hidden = tab === "replay";
  $("record-form").hidden = tab !== "replay";
  for (const node of document.querySelectorAll(".play-only")) node.hidden = tab !== "play";
  buildTableForm();
}

// ---- a session -------------------------------------------------------------------

function openSession(data) {
  stopTimer();
  ui.info = data.info;
  ui.log = [];
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
  $("controls").hidden = ui.info.kind === "play";
  $("again").hidden = ui.info.kind !== "play";
  $("heading").textContent = heading();
  $("text-details").open = !ui.info.pictures; // a game without pictures shows its text view
  render();
  if (ui.info.kind === "live") startTimer();
}

function heading() {
  const i = ui.info;
  const start = i.seed !== null ? `seed ${i.seed}` : "from a position";
  const file = i.file_games > 1 ? `, game ${i.file_index} of ${i.file_games} in the file` : "";
  const what = { play: "you play", live: "bots play", replay: "a record" }[i.kind];
  return `${i.title}, ${i.players.length} players, ${start}${file}: ${what}.`;
}

function addLog(entries) {
  const list = $("log");
  for (const e of entries) {
    ui.log.push(e);
    const li = el("li", { "data-step": e.step, "data-player": e.player, "data-action": e.action });
    for (const line of e.lines) li.append(el("div", { class: "line" }, line));
    li.addEventListener("click", () => {
      if (ui.info.kind !== "play") guard(() => goto(e.step + 1));
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
  box.classList.toggle("grid", seats.length > 1);
  box.replaceChildren();
  const loads = [];
  for (const s of seats) {
    const frame = el("div", { class: "board" });
    const img = el("img", { alt: `${ui.info.title}, position ${step}` });
    frame.append(img);
    if (seats.length > 1) frame.append(el("div", { class: "caption" }, `player_${s}'s view`));
    box.append(frame);
    loads.push(loadImage(img, pictureURL(step, s)));
  }
  await Promise.all(loads);
  if (seats.length === 1) addRegions(box.querySelector(".board"));
}

function addRegions(frame) {
  const v = ui.view;
  if (!v || !v.regions.length || ui.step !== ui.last) return;
  const img = frame.querySelector("img");
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
  svg.setAttribute("class", "regions");
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
    node.setAttribute("class", `hit ${r.shape}`);
    node.setAttribute("data-actions", actions.join(" "));
    const title = document.createElementNS(SVG, "title");
    title.textContent = actions.map((a) => byAction.get(a) || a).join(" / ");
    node.append(title);
    node.addEventListener("click", () => pick(actions));
    svg.append(node);
  }
  frame.append(svg);
}

function pick(actions) {
  if (actions.length === 1) {
    guard(() => play(actions[0]));
    return;
  }
  const box = $("choice-moves");
  box.replaceChildren();
  for (const m of ui.view.moves.filter((m) => actions.includes(m.action))) {
    const b = el("button", { type: "button", "data-action": m.action }, m.label);
    b.addEventListener("click", () => {
      $("choice").hidden = true;
      guard(() => play(m.action));
    });
    box.append(b);
  }
  $("choice").hidden = false;
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
  const current = $("log").querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of v.moves) {
    const b = el("button", { type: "button", "data-action": m.action }, m.label);
    b.addEventListener("click", () => guard(() => play(m.action)));
    moves.append(b);
  }
  showResult(v.result && ui.step === ui.last ? v.result : null);
  await drawPictures(ui.step);
}

function showResult(result) {
  $("result").hidden = !result;
  const body = $("ranking").querySelector("tbody");
  body.replaceChildren();
  if (!result) return;
  const order = result.ranks.map((r, p) => [r, p]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [rank, p] of order) {
    const tr = el("tr", { "data-seat": p, "data-rank": rank });
    tr.append(el("td", {}, String(rank)), el("td", {}, ui.info.players[p].name), el("td", {}, ui.info.players[p].who));
    body.append(tr);
  }
  $("final-lines").textContent = result.lines.join("\n");
}

// ---- play ------------------------------------------------------------------------

async function play(action) {
  if (document.body.dataset.busy === "1") return;
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

async function tick() {
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

async function openRecord(body) {
  const data = await call("POST", "/api/replay", body);
  openSession(data);
}

// ---- wiring ----------------------------------------------------------------------

function wire() {
  for (const b of $("tabs").querySelectorAll("button")) b.addEventListener("click", () => selectTab(b.dataset.tab));
  $("game").addEventListener("change", () => {
    $("num-players").value = "";
    buildTableForm();
  });
  $("num-players").addEventListener("change", buildTableForm);
  $("seat").addEventListener("change", buildTableForm);
  $("table-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    guard(async () => openSession(await call("POST", ui.tab === "play" ? "/api/play" : "/api/live", tableRequest())));
  });
  $("again").addEventListener("click", () => $("start").click());
  $("open-file").addEventListener("click", () =>
    guard(() => {
      const f = ui.recordFiles[Number($("record-file").value)];
      ui.uploaded = null;
      return openRecord({ folder: f.folder, path: f.path, index: Number($("file-index").value) || 0 });
    })
  );
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
  $("file-index").addEventListener("change", () =>
    guard(async () => {
      const index = Number($("file-index").value) || 0;
      if (ui.uploaded) await openRecord({ ...ui.uploaded, index });
      else if (ui.recordFiles.length) $("open-file").click();
    })
  );
  $("first").addEventListener("click", () => guard(() => goto(0)));
  $("prev").addEventListener("click", () => guard(() => goto(ui.step - 1)));
  $("next").addEventListener("click", () => guard(() => goto(ui.step + 1)));
  $("last").addEventListener("click", () => guard(() => goto(ui.last)));
  $("slider").addEventListener("input", () => guard(() => goto(Number($("slider").value))));
  $("playpause").addEventListener("click", () => (ui.timer ? stopTimer() : startTimer()));
  $("view-seat").addEventListener("change", () => guard(() => goto(ui.step)));
  $("choice-cancel").addEventListener("click", () => ($("choice").hidden = true));
  document.addEventListener("keydown", (ev) => {
    if (!ui.info || ui.info.kind === "play" || ev.target.closest("input, select, textarea")) return;
    const keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (ev.key in keys) guard(() => goto(ui.step + keys[ev.key]));
    else if (ev.key === "Home") guard(() => goto(0));
    else if (ev.key === "End") guard(() => goto(ui.last));
    else if (ev.key === " ") ui.timer ? stopTimer() : startTimer();
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
    buildRecordForm();
    selectTab("play");
  });
  busy(0);
}

document.addEventListener("DOMContentLoaded", init);

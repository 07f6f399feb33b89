// The live table: the board, the open decision (verbs, then a token or a place), proposals, dice, undo, the log.

import {api, change, clearToast, count, el, socketUrl, toast} from "./api.js";
import {drawBoard, notYetIn} from "./board.js";
import {openEditor, refreshEditor} from "./edit.js";
import {renderStats} from "./stats.js";

const SHOWN_CHOICES = 40;  // candidate actions listed at once (a filter box narrows longer lists)

const view = {sid: null, board: null, state: null, verb: null, picked: null, place: null, filter: "", lastSeq: -1, socket: null,
              busy: false, running: false, agents: []};

export async function openTable(sid, agents) {
  closeTable();
  Object.assign(view, {sid, board: null, state: null, verb: null, picked: null, place: null, filter: "", lastSeq: -1,
                       agents});
  document.getElementById("log").replaceChildren();
  document.getElementById("stats").hidden = true;
  view.board = await api("GET", `/api/sessions/${sid}/board`);
  await reloadLog();
  render(await api("GET", `/api/sessions/${sid}`));
  connect();
  document.getElementById("replay-link").href = `#/r/${sid}`;
  keepRunning();
}

export function closeTable() {
  if (view.socket) { view.socket.onclose = null; view.socket.close(); }
  view.socket = null;
  view.sid = null;
}

function connect() {
  const sid = view.sid;
  const socket = new WebSocket(socketUrl(`/api/sessions/${sid}/events`));
  const dot = document.getElementById("connection");
  view.socket = socket;
  socket.onopen = () => { dot.className = "live"; dot.textContent = "● live"; };
  socket.onclose = () => {
    dot.className = "off"; dot.textContent = "○ offline";
    if (view.sid === sid) setTimeout(() => { if (view.sid === sid) connect(); }, 1500);
  };
  socket.onmessage = (msg) => onEvent(JSON.parse(msg.data));
}

let refreshTimer = null;
function onEvent(message) {
  if (message.type === "decision") appendEvents(message.events);
  if (message.type === "undo") { reloadLog(); }
  if (message.type === "deleted") { toast("this session was deleted"); location.hash = "#/"; return; }
  if (message.type === "hello") return;
  // another page (or a bot) changed the session: show it; our own answers render as they arrive, so a
  // state equal to the one shown is not drawn again (that would empty a half-typed die or filter)
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    if (view.busy || view.sid !== message.session) return;
    const fresh = await api("GET", `/api/sessions/${view.sid}`);
    if (!view.busy && view.sid === message.session && JSON.stringify(fresh) !== JSON.stringify(view.state)) {
      render(fresh);
    }
  }, 120);
}

async function reloadLog() {
  const data = await api("GET", `/api/sessions/${view.sid}/log?since=0&limit=5000`);
  document.getElementById("log").replaceChildren();
  view.lastSeq = -1;
  appendEvents(data.events);
}

function appendEvents(events) {
  const log = document.getElementById("log");
  for (const e of events) {
    if (e.seq <= view.lastSeq) continue;
    view.lastSeq = e.seq;
    if (e.kind === "auto_decision" && e.text.endsWith("(only option)")) continue;
    log.append(el("li", {class: `ev ev-${e.kind}`, title: e.rule || ""},
                  el("span", {class: "round", text: `r${e.round}`}), ` ${e.text}`));
  }
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
}

// --- requests -----------------------------------------------------------------------------------------
async function act(method, path, body) {
  if (view.busy) return;
  view.busy = true;
  document.body.classList.add("busy");
  let out = null;
  try {
    // the revision shown: if the session moved on meanwhile (another page, a bot, the terminal), nothing is done
    out = await change(method, `/api/sessions/${view.sid}${path}`, body, view.state ? view.state.revision : null);
    clearToast();
  } catch (e) {
    if (e.status === 409 && e.body && e.body.state) {
      out = {state: e.body.state};
      if (path !== "/run") toast("the session changed meanwhile: nothing was done; here it is as it is now");
    } else {
      toast(e.message);
    }
  } finally {
    view.busy = false;  // before the new controls appear: they must answer the first click
    document.body.classList.remove("busy");
  }
  // refused: the seats and switches show the session as it is, not what was asked (the toast says why)
  if (!out) { if (view.state) renderControls(); return; }
  if (out.events) appendEvents(out.events);
  view.verb = null; view.picked = null; view.place = null; view.filter = "";
  render(out.state);
  keepRunning();
}

function keepRunning() {
  // an agent seat is deciding (more than one request's worth of decisions): ask it to go on
  const p = view.state && view.state.pending;
  const agentsGoOn = p && !p.dice && (!p.needs_person || (view.state.autorun && p.seat.kind === "review"));
  if (agentsGoOn && !view.running) {
    view.running = true;
    setTimeout(async () => { view.running = false; await act("POST", "/run", {}); }, 30);
  }
}

const choose = (index) => act("POST", "/actions", {index});

// --- rendering ----------------------------------------------------------------------------------------
function byId(state) { return new Map(state.combatants.map((c) => [c.id, c])); }

function candidates() {
  const p = view.state.pending;
  if (!p || !view.verb) return [];
  const group = p.groups.find((g) => g.verb === view.verb);
  if (!group) return [];
  let list = group.actions;
  if (view.picked) list = list.filter((a) => a.target === view.picked || a.dest === view.picked);
  if (view.place) list = list.filter((a) => a.dest === view.place);  // then where it ends (a charge's square)
  if (view.filter) {
    const words = filterWords(view.filter).split(/\s+/).filter(Boolean);
    list = list.filter((a) => {
      const said = filterWords(`${a.text} ${a.dest ?? ""}`);  // the place too, where the text does not say it
      return words.every((w) => said.includes(w));
    });
  }
  return list;
}

// A square reads the same in the filter and in every system's action text: "7,3", "7, 3", "[7, 3]" and "(7,3)"
// all become "@7,3@", which "17,3" or "7,30" never contain.
const SQUARE = /[[(]?\s*(-?\d+)\s*,\s*(-?\d+)(?:\s*,\s*(-?\d+))?\s*[\])]?/g;
function filterWords(text) {
  const square = (_, x, y, z) => ` @${[x, y, z].filter((v) => v !== undefined).join(",")}@ `;
  return text.toLowerCase().replace(SQUARE, square);
}

function render(state) {
  view.state = state;
  const name = state.name === state.encounter ? "" : ` · ${state.name}`;
  document.getElementById("title").textContent = `${state.title} · ${state.encounter}${name}`;
  renderBoard();
  renderStatus();
  renderDecision();
  renderControls();
  renderOrder();
  if (state.over) showStats();
  else document.getElementById("stats").hidden = true;  // an undo reopened the fight
  refreshEditor(view.sid, state.revision);
}

function renderBoard() {
  const s = view.state, p = s.pending;
  const marks = {actor: p ? p.decision.actor : null};
  if (p && view.verb) {
    const list = candidates();
    const group = p.groups.find((g) => g.verb === view.verb);
    const all = group ? group.actions : [];
    marks.targets = new Set(all.map((a) => a.target).filter((t) => t !== null));
    marks.dests = new Set(all.map((a) => a.dest).filter((d) => d !== null));
    for (const a of all) if (a.target !== null && !byId(s).has(a.target)) marks.dests.add(a.target);  // a zone target
    if (view.picked) {  // a target picked: only its tokens and the squares its actions end on stay marked
      marks.targets = new Set(list.map((a) => a.target).filter(Boolean));
      marks.dests = new Set(list.map((a) => a.dest).filter((d) => d !== null));
    }
  }
  if (p && p.proposal) {
    const proposed = p.groups.flatMap((g) => g.actions).find((a) => a.index === p.proposal.index);
    marks.proposed = proposed ? proposed.target : null;
    marks.proposedPlace = proposed ? proposed.dest : null;
  }
  drawBoard(document.getElementById("board"), view.board, s.combatants, marks, onToken, onPlace);
}

function onToken(id, place) {
  const p = view.state.pending;
  if (!p || !view.verb) return;
  const group = p.groups.find((g) => g.verb === view.verb);
  if (group.actions.some((a) => a.target === id)) return pick(id);
  if (place !== null && group.actions.some((a) => a.dest === place || a.target === place)) return pick(place);
  toast(`${id} is not a target of ${group.label}`);
}

function onPlace(key) {
  const p = view.state.pending;
  if (!p || !view.verb) return;
  const group = p.groups.find((g) => g.verb === view.verb);
  if (group.actions.some((a) => a.dest === key || a.target === key)) return pick(key);
  toast(`${group.label}: not to ${key}`);
}

function pick(key) {
  if (view.picked && key !== view.picked && candidates().some((a) => a.dest === key)) view.place = key;
  else { view.picked = key; view.place = null; }
  view.filter = "";
  const list = candidates();
  if (list.length === 1) return choose(list[0].index);
  renderBoard();
  renderDecision();
}

function renderStatus() {
  const s = view.state;
  const status = document.getElementById("status");
  const result = s.over ? el("p", {class: "result", text: `Over: ${s.result} (${s.outcome.termination}) after ` +
                                                           count(s.outcome.rounds, "round")}) : null;
  status.replaceChildren(...[el("h2", {text: `Round ${s.round}`}),
    el("p", {class: "note", text: `phase ${s.phase} · ${count(s.decisions, "decision")} · seed ${s.seed}`}), result]
    .filter(Boolean));
}

function renderDecision() {
  const box = document.getElementById("decision");
  const s = view.state, p = s.pending;
  if (!p) { box.replaceChildren(el("h3", {text: "No decision open"}), el("p", {text: "The combat is over."})); return; }
  const actor = byId(s).get(p.decision.actor);
  const parts = [el("h3", {}, el("span", {class: `kind kind-${p.decision.kind}`, text: p.decision.kind}),
                   ` ${actor ? actor.label : p.decision.actor}`),
                 el("p", {class: "prompt", text: p.decision.prompt}),
                 el("p", {class: "note", text: `seat: ${p.seat.text}`})];
  if (p.dice) parts.push(diceBox(p.dice));
  else {
    if (p.proposal) parts.push(proposalBox(p));
    // the agent's proposal is computed on the server: the socket says when it is ready, and it is shown then
    if (p.thinking) parts.push(el("p", {class: "note thinking", id: "thinking", text: `${p.seat.agent} is thinking…`}));
    else if (!p.needs_person) parts.push(el("p", {class: "note", text: `${p.seat.agent} is deciding…`}));
    else parts.push(...verbChooser(p));
  }
  box.replaceChildren(...parts);
}

function diceBox(dice) {
  const input = el("input", {id: "dice-faces", placeholder: `e.g. ${dice.example}`, autocomplete: "off",
                             "aria-label": "faces"});
  const form = el("form", {class: "dice", id: "dice-form", onsubmit: (ev) => {
    ev.preventDefault();
    act("POST", "/dice", {faces: input.value});
  }}, el("p", {class: "dice-text", text: `🎲 ${dice.text}`}),
      dice.roller ? el("p", {class: "dice-roller", text: `hand the dice to ${dice.roller}`}) : null,
      el("p", {class: "note", text: `one die shows ${dice.faces}`}), input,
      el("button", {type: "submit", id: "dice-submit", text: "Enter"}),
      el("button", {type: "button", id: "dice-cancel", text: "Cancel", onclick: () => act("DELETE", "/dice")}));
  setTimeout(() => input.focus(), 0);
  return form;
}

// an agent's value as the terminal shows it: two decimals (the API keeps four)
const value = (v) => Number(v).toFixed(2);

function proposalBox(p) {
  const prop = p.proposal;
  // an action's odds, unless the agent's own words already give them (scripted reasons cite them)
  const said = prop.reasons.join(" ");
  const unsaid = (odds, reason = "") => odds && !said.includes(odds) && !reason.includes(odds) ? ` · ${odds}` : "";
  const alts = prop.alternatives.map((a) => el("li", {},
    el("button", {type: "button", class: "link", "data-alternative": a.index, text: a.text || JSON.stringify(a.action),
                  onclick: () => act("POST", "/override", {index: a.index})}),
    el("span", {class: "note", text: ` ${value(a.value)}${a.reason ? " · " + a.reason : ""}${unsaid(a.odds, a.reason)}`})));
  return el("div", {class: "proposal", id: "proposal"},
    el("p", {}, el("strong", {text: "Proposes: "}), el("span", {id: "proposal-text", text: prop.text}),
       el("span", {class: "note", id: "proposal-odds", text: ` (value ${value(prop.value)})${unsaid(prop.odds)}`})),
    el("ul", {class: "reasons"}, prop.reasons.map((r) => el("li", {text: r}))),
    alts.length ? el("details", {open: true}, el("summary", {text: "alternatives"}), el("ol", {}, alts)) : null,
    p.seat.kind === "review" ? el("div", {class: "buttons"},
      el("button", {type: "button", id: "confirm", class: "primary", text: "Confirm",
                    onclick: () => act("POST", "/confirm", {})}),
      el("button", {type: "button", id: "autorun-now", text: "Auto-run",
                    title: "apply every review seat's proposal from now on without asking (PCs' review seats too)",
                    onclick: () => act("PUT", "/autorun", {on: true})})) : null,
    p.seat.kind === "review" ? el("p", {class: "note", text: "or override: pick another action below"}) : null);
}

function verbChooser(p) {
  const verbs = el("div", {class: "verbs"}, p.groups.map((g) => el("button", {
    type: "button", class: g.verb === view.verb ? "verb chosen" : "verb", "data-verb": g.verb,
    text: `${g.label} (${g.count})`, onclick: () => {
      if (g.count === 1) return choose(g.actions[0].index);
      view.verb = g.verb; view.picked = null; view.place = null; view.filter = "";
      renderBoard(); renderDecision();
    }})));
  const out = [verbs];
  if (!view.verb) return out;
  const group = p.groups.find((g) => g.verb === view.verb);
  const hint = group.targets.length || group.dests.length
    ? `click ${[group.targets.length && "a highlighted token", group.dests.length && "a highlighted place"]
        .filter(Boolean).join(" or ")}, or choose below` : "choose below";
  const list = candidates();
  const filter = el("input", {id: "choice-filter", placeholder: "filter, e.g. a target or 7,3", value: view.filter,
                              oninput: (ev) => { view.filter = ev.target.value; renderChoices(box, list.length); }});
  const box = el("ol", {class: "choices", id: "choices"});
  out.push(el("p", {class: "note",
                    text: view.picked ? `${group.label} → ${view.picked}: ${count(list.length, "way")}` : hint}));
  if (group.count > SHOWN_CHOICES) out.push(filter);
  out.push(box);
  renderChoices(box);
  return out;
}

function renderChoices(box) {
  const list = candidates();
  box.replaceChildren(...list.slice(0, SHOWN_CHOICES).map((a) => el("li", {},
    el("button", {type: "button", class: "choice", "data-index": a.index, text: a.text,
                  onclick: () => choose(a.index)},
       a.odds ? el("span", {class: "odds", text: ` · ${a.odds}`}) : null,
       a.notes && a.notes.length ? el("span", {class: "notes", text: ` · ${a.notes.join("; ")}`}) : null))));
  if (list.length > SHOWN_CHOICES) box.append(el("li", {class: "note", text: `… ${list.length - SHOWN_CHOICES} more`}));
}

function renderControls() {
  const s = view.state;
  document.getElementById("undo").disabled = s.decisions === 0;
  document.getElementById("autorun").checked = s.autorun;
  document.getElementById("table-dice-live").checked = s.table_dice;
  const routine = Object.keys(s.routine || {});  // e.g. moonlit's "escape": asked of PCs only when ticked
  document.getElementById("ask-routine-box").hidden = routine.length === 0;
  document.getElementById("ask-routine").checked = s.ask_routine;
  document.getElementById("ask-routine-label").textContent =
    `ask PCs each round: ${routine.join(", ")} (else: ${Object.values(s.routine || {}).join(", ")})`;
  const seats = document.getElementById("seats");
  const keys = ["pc", "npc", ...s.sides, ...Object.keys(s.seats).filter((k) => !s.sides.includes(k))];
  seats.replaceChildren(...keys.map((key) => {
    const current = key in s.seats ? s.seats[key] : (s.defaults[key] ?? "");
    const input = el("input", {value: current, list: "seat-options", "data-seat": key,
                               placeholder: key === "pc" || key === "npc" ? current : fallbackSeat(s, key),
                               title: key === "pc" || key === "npc" ? null : "empty: back to its default"});
    return el("form", {class: "seat", onsubmit: (ev) => {
      ev.preventDefault();
      const path = `/seats/${encodeURIComponent(key)}`;
      // emptied: the side or combatant gives up its own seat and falls back on its default again
      if (input.value.trim()) act("PUT", path, {seat: input.value});
      else act("DELETE", path, {});
    }}, el("label", {text: key === "pc" ? "PCs" : key === "npc" ? "NPCs" : key}), input,
       el("button", {type: "submit", text: "Set"}));
  }), seatOptions());
}

// What a side or combatant without a seat of its own falls back on, as its empty field says.
function fallbackSeat(s, key) {
  const mine = s.combatants.filter((c) => c.side === key);
  if (!mine.length) return "(as its side)";
  const groups = [...new Set(mine.map((c) => (c.kind === "pc" ? "pc" : "npc")))];
  const each = groups.map((g) => (groups.length > 1 ? `${g.toUpperCase()}s ` : "") + s.defaults[g]);
  return `(default: ${each.join(", ")})`;
}

function seatOptions() {
  const options = ["human", "human+dice"];
  for (const a of view.agents) options.push(a, `review:${a}`);
  return el("datalist", {id: "seat-options"}, options.map((o) => el("option", {value: o})));
}

function renderOrder() {
  const s = view.state, p = s.pending;
  const c = byId(s);
  document.getElementById("order").replaceChildren(...s.turn_order.map((id) => {
    const x = c.get(id);
    const waiting = x && notYetIn(x);  // a reinforcement in reserve: not out of the fight, not in it yet
    return el("li", {class: [p && p.decision.actor === id ? "now" : "", waiting ? "arriving" : x && !x.able ? "down" : ""]
                       .join(" "), "data-order": id},
      el("span", {class: `dot side-${Math.max(0, s.sides.indexOf(x ? x.side : ""))}`}),
      ` ${x ? x.label : id} `, el("span", {class: "note", text: waiting ? "not in the fight yet" : x ? x.health : ""}),
      id in (s.order_values || {}) ? el("span", {class: "init", text: ` · ${s.order_values[id]}`}) : null,
      x && x.conditions.length ? el("span", {class: "conds", text: ` ${(x.condition_texts || x.conditions).join(", ")}`}) : null,
      (s.tactics || {})[id] ? el("span", {class: "temper", "data-tactics": id, text: s.tactics[id].summary,
                                          title: `temperament of ${id}: its agent plays it this way`}) : null,
      editButton(id));
  }));
  renderArriving();
}

function editButton(id) {
  if (view.state.over) return null;
  return el("button", {type: "button", class: "link edit-open", "data-edit": id, title: `GM edit: ${id}`,
                       "aria-label": `edit ${id}`, text: "✎", onclick: () => editCombatant(id)});
}

// Those yet to join the fight and in no turn order (a moonlit arrival, a summon not yet called): listed under the
// order, so the GM can reach them (take one out to cancel its arrival).
function renderArriving() {
  const s = view.state;
  const listed = new Set(s.turn_order);
  const waiting = s.over ? [] : s.combatants.filter((x) => notYetIn(x) && !listed.has(x.id));
  document.getElementById("arriving-box").hidden = waiting.length === 0;
  document.getElementById("arriving").replaceChildren(...waiting.map((x) => el("li", {"data-arriving": x.id},
    el("span", {class: `dot side-${Math.max(0, s.sides.indexOf(x.side))}`}), ` ${x.label} `,
    el("span", {class: "note", text: x.status}), editButton(x.id))));
}

// the GM's edit of a combatant (see edit.js): its answer is rendered as any change's
function editCombatant(id) {
  if (view.busy) return;
  openEditor(view.sid, id, (out) => {
    if (out.events) appendEvents(out.events);
    view.verb = null; view.picked = null; view.place = null; view.filter = "";
    render(out.state);
    keepRunning();
  }).catch((e) => toast(e.message));
}

async function showStats() {
  const sid = view.sid;
  const stats = await api("GET", `/api/sessions/${sid}/statistics`);
  if (view.sid !== sid || !view.state.over) return;  // undone (or left) while they were fetched
  const box = document.getElementById("stats");
  renderStats(box, view.board, stats);
  box.hidden = false;
}

export function wireControls() {
  document.getElementById("undo").addEventListener("click", () => act("POST", "/undo", {}));
  document.getElementById("autorun").addEventListener("change", (ev) =>
    act("PUT", "/autorun", {on: ev.target.checked}));
  document.getElementById("ask-routine").addEventListener("change", (ev) =>
    act("PUT", "/ask-routine", {on: ev.target.checked}));
  document.getElementById("table-dice-live").addEventListener("change", (ev) =>
    act("PUT", "/table-dice", {on: ev.target.checked}));
}

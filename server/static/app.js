// The page: routes (#/ home, #/s/<id> a live table, #/r/<id> a session's replay, #/r/log an uploaded log's replay),
// the new-session form, saved sessions and log uploads.

import {api, change, el, toast} from "./api.js";
import {stop as stopReplay, openReplay, wireReplay} from "./replay.js";
import {closeTable, openTable, wireControls} from "./table.js";

let catalogue = [];
let uploadedLog = null;

function showSection(id) {
  for (const s of ["home", "table", "replay"]) document.getElementById(s).hidden = s !== id;
}

async function route() {
  const hash = location.hash || "#/";
  stopReplay();
  try {
    if (hash.startsWith("#/s/")) {
      showSection("table");
      const sid = hash.slice(4);
      const ruleset = (await api("GET", `/api/sessions/${sid}`)).ruleset;
      await openTable(sid, agentsOf(ruleset));
    } else if (hash.startsWith("#/r/log")) {
      closeTable();
      if (!uploadedLog) { location.hash = "#/"; return; }
      showSection("replay");
      openReplay(uploadedLog, `replay of ${uploadedLog.ruleset}/${uploadedLog.encounter} (seed ${uploadedLog.seed})`);
    } else if (hash.startsWith("#/r/")) {
      closeTable();
      showSection("replay");
      const data = await api("GET", `/api/sessions/${hash.slice(4)}/replay`);
      openReplay(data, `replay of ${data.name} (${data.board.title})`);
    } else {
      closeTable();
      showSection("home");
      document.getElementById("title").textContent = "";
      await listSessions();
    }
  } catch (e) {
    toast(e.message);
    if (hash !== "#/") location.hash = "#/";
  }
}

function agentsOf(ruleset) {
  const entry = catalogue.find((r) => r.id === ruleset);
  return entry ? entry.agents : [];
}

// --- home ----------------------------------------------------------------------------------------
function fillRulesets() {
  const rules = document.getElementById("ruleset");
  rules.replaceChildren(...catalogue.map((r) => el("option", {value: r.id, text: `${r.title} (${r.board})`})));
  const logEncounter = document.getElementById("log-encounter");
  for (const r of catalogue) for (const e of r.encounters) logEncounter.append(el("option", {value: e, text: e}));
  rules.addEventListener("change", () => { fillEncounters(); dropUpload(); });
  document.getElementById("encounter").addEventListener("change", dropUpload);
  fillEncounters();
}

function fillEncounters() {
  const rid = document.getElementById("ruleset").value;
  const entry = catalogue.find((r) => r.id === rid);
  document.getElementById("encounter").replaceChildren(...entry.encounters.map((e) =>
    el("option", {value: e, text: e.split("/")[1], selected: e.endsWith("/duel")})));
  const seatOptions = ["human", "human+dice", ...entry.agents.flatMap((a) => [`review:${a}`, a])];
  for (const select of document.querySelectorAll(".seat-choice")) {
    const keep = select.value || select.dataset.default;
    select.replaceChildren(...seatOptions.map((o) => el("option", {value: o, text: o, selected: o === keep})));
  }
}

// A new seed for every new session (typed over to replay a fight): seed 0 each time made every session one fight.
function drawSeed() {
  document.getElementById("seed").value = String(Math.floor(Math.random() * 1000000));
}

async function createSession(ev) {
  ev.preventDefault();
  const file = document.getElementById("encounter-file").files[0];
  const body = {seed: Number(document.getElementById("seed").value || 0), pc: document.getElementById("pc-seat").value,
                npc: document.getElementById("npc-seat").value,
                table_dice: document.getElementById("table-dice").checked};
  if (file) { body.encounter_text = await file.text(); body.filename = file.name; }
  else body.encounter = document.getElementById("encounter").value;
  if (creating) return;  // a double click starts one session
  creating = true;
  try {
    const out = await change("POST", "/api/sessions", body);  // a retry after a lost answer starts no second one
    location.hash = `#/s/${out.state.id}`;
    drawSeed();
  } catch (e) {
    note(e.message, "bad");  // an error, even under an upload that was fine
    toast(e.message);
  } finally {
    creating = false;
  }
}
let creating = false;

// The note under the form: `kind` "ok", "bad" or "" (plain), so an error never reads as the green "ok" of an upload.
function note(text, kind = "") {
  const box = document.getElementById("encounter-note");
  box.textContent = text;
  box.className = kind ? `note ${kind}` : "note";
}

async function checkUpload() {
  const file = document.getElementById("encounter-file").files[0];
  setAside = null;
  if (!file) { note(""); return; }
  try {
    const out = await api("POST", "/api/encounters/validate", {encounter_text: await file.text(), filename: file.name});
    note(`ok: ${out.ruleset} encounter '${out.encounter}', ${out.combatants} combatants, sides ${out.sides.join(", ")}`,
         "ok");
  } catch (e) {
    note(e.message, "bad");
  }
}

// A built-in encounter chosen after an upload: Start begins that one, so the file is set aside (and the note says so,
// naming the encounter Start begins as it is chosen again).
let setAside = null;
function dropUpload() {
  const file = document.getElementById("encounter-file");
  if (file.files.length) {
    setAside = file.files[0].name;
    file.value = "";
  }
  if (setAside) note(`${setAside} set aside: Start begins ${document.getElementById("encounter").value}`);
}

async function listSessions() {
  const data = await api("GET", "/api/sessions");
  const body = document.querySelector("#sessions tbody");
  body.replaceChildren(...data.sessions.map((s) => el("tr", {"data-session": s.id},
    el("td", {}, el("a", {href: `#/s/${s.id}`, text: s.name})), el("td", {text: s.ruleset}),
    el("td", {text: s.status === "over" ? `over: ${s.result}` : s.status}),
    el("td", {text: String(s.decisions), "data-label": "decisions"}),
    el("td", {text: new Date(s.updated * 1000).toLocaleString(), "data-label": "updated"}),
    el("td", {}, el("div", {class: "row-actions"}, el("a", {href: `#/s/${s.id}`, class: "button", text: "Open"}),
       el("a", {href: `#/r/${s.id}`, class: "button", text: "Replay"}),
       el("button", {type: "button", class: "danger", text: "Delete", onclick: async () => {
         if (!confirm(`Delete session ${s.name}?`)) return;
         try { await api("DELETE", `/api/sessions/${s.id}`); await listSessions(); } catch (e) { toast(e.message); }
       }}))))));
  if (!data.sessions.length) body.append(el("tr", {}, el("td", {colspan: 6, class: "note", text: "none yet"})));
}

async function replayLog(ev) {
  ev.preventDefault();
  const file = document.getElementById("log-file").files[0];
  const encounter = document.getElementById("log-encounter").value || null;
  try {
    uploadedLog = await api("POST", "/api/replays", {log: await file.text(), encounter,
                                                     seed: Number(document.getElementById("log-seed").value || 0)});
    location.hash = `#/r/log-${Date.now()}`;
  } catch (e) {
    toast(e.message);
  }
}

async function start() {
  catalogue = (await api("GET", "/api/rulesets")).rulesets;
  fillRulesets();
  document.getElementById("new-session").addEventListener("submit", createSession);
  document.getElementById("encounter-file").addEventListener("change", checkUpload);
  document.getElementById("replay-log").addEventListener("submit", replayLog);
  wireControls();
  wireReplay();
  drawSeed();
  window.addEventListener("hashchange", route);
  await route();
  document.body.dataset.ready = "true";
}

start().catch((e) => toast(e.message));

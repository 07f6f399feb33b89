// The GM's edit dialog: a combatant's HP (or wounds), pools, conditions and place, as its rule system allows them;
// Save sends only what changed, "Take out" removes it from the fight. A value the rules refuse is shown at its field.

import {api, change, clearToast, el, toast} from "./api.js";
import {YET_TO_JOIN} from "./board.js";

let dialog = null;

function ensureDialog() {
  if (dialog) return dialog;
  dialog = el("dialog", {id: "edit-dialog", "aria-labelledby": "edit-title"});
  document.body.append(dialog);
  return dialog;
}

function shown(value) {
  return Array.isArray(value) ? value.join(",") : String(value);
}

function input(field) {
  const id = `edit-${field.name}`;
  if (field.kind === "bool") return el("input", {id, type: "checkbox", name: field.name, checked: field.value});
  if (field.kind === "int") {
    return el("input", {id, type: "number", name: field.name, value: field.value, min: field.low,
                        max: field.high ?? undefined, step: 1});
  }
  if (field.kind === "choice") {
    return el("select", {id, name: field.name}, field.choices.map((c) =>
      el("option", {value: c, text: c, selected: c === field.value})));
  }
  // a place: "x,y", with the free squares the rules allow offered as suggestions
  return el("input", {id, name: field.name, value: shown(field.value), list: `${id}-list`, size: 7,
                      placeholder: "x,y"});
}

function read(field, box) {
  const node = box.querySelector(`[name="${field.name}"]`);
  if (field.kind === "bool") return node.checked;
  if (field.kind === "int") return node.value === "" ? node.value : Number(node.value);
  if (field.kind === "place" && /^\s*-?\d+\s*,\s*-?\d+\s*$/.test(node.value)) {
    return node.value.split(",").map((p) => Number(p.trim()));
  }
  return node.value;
}

// "Add another like this one": a new id and where it stands (a zone, or a square "x,y"); it joins from the next round
function addSection(row, placeKey, send) {
  const place = row.fields.find((f) => f.kind === "place" || f.kind === "choice");
  const id = el("input", {id: "add-id", placeholder: `${row.id}_2`, size: 12, "aria-label": "new combatant's id"});
  const where = place && place.kind === "choice"
    ? el("select", {id: "add-place", "aria-label": placeKey}, place.choices.map((c) =>
      el("option", {value: c, text: c, selected: c === place.value})))
    : el("input", {id: "add-place", placeholder: "x,y", size: 7, list: place ? `edit-${place.name}-list` : undefined,
                   "aria-label": placeKey});
  const add = () => {
    const spec = {like: row.id};
    const at = where.value.trim();
    if (at) spec[placeKey] = /^-?\d+\s*,\s*-?\d+$/.test(at) ? at.split(",").map((p) => Number(p.trim())) : at;
    send({add: spec}, id.value.trim() || `${row.id}_2`);
  };
  return el("details", {class: "add-like", id: "add-like"},
    el("summary", {text: `Add another like ${row.id}`}),
    el("div", {class: "edit-row"}, el("label", {for: "add-id", text: "new id"}), id, el("span")),
    el("div", {class: "edit-row"}, el("label", {for: "add-place", text: placeKey}), where, el("span")),
    el("p", {class: "note", text: "the same stat block; it takes its turns from the next round"}),
    el("button", {type: "button", id: "add-submit", text: "Add", onclick: add}));
}

// Why a combatant has no field to edit: out of the fight, or not in it yet (Take out then cancels its arrival).
function nothing(row) {
  if (row && YET_TO_JOIN.has(row.status)) {
    return `Nothing to edit: not in the fight yet (${row.status})${row.can_remove ? "; Take out keeps it out" : ""}.`;
  }
  return "Nothing to edit: out of the fight.";
}

// The dialog open now: its session, combatant, the revision its values were read at, and where a saved edit goes.
let editing = null;
let refreshes = 0;  // the latest refresh of the dialog wins (the table renders a change more than once)

const CHANGED = "the session changed meanwhile: nothing was done; here it is as it is now";

// Open the dialog for combatant `cid` of session `sid`; `done(answer)` renders what a saved edit brought.
export async function openEditor(sid, cid, done) {
  const data = await api("GET", `/api/sessions/${sid}/edits`);
  editing = {sid, cid, done, revision: data.revision, fields: []};
  build(data, {}, "");
  const box = ensureDialog();
  box.showModal();
  const first = box.querySelector("input, select");
  if (first) first.focus();
}

// The table shows revision `revision` of session `sid`: an open dialog read at another one shows the values now
// and says so (what the GM typed over them stays, to be saved on the session as it is now); `why`: say that instead,
// whatever the revision.
export async function refreshEditor(sid, revision, why = "") {
  if (!editing || !dialog.open || editing.sid !== sid || (editing.revision === revision && !why)) return;
  const asked = editing;
  const ticket = ++refreshes;
  asked.revision = revision;  // the table renders one change more than once: one refresh for it
  const typed = typedValues();
  let data;
  try {
    data = await api("GET", `/api/sessions/${sid}/edits`);
  } catch (e) {
    return;  // the session went away: the table says so
  }
  if (ticket !== refreshes || editing !== asked || !dialog.open) return;  // a later refresh, or closed meanwhile
  asked.revision = data.revision;
  build(data, typed, why || "changed meanwhile (another page or an agent): the values are as they are now" +
                            (Object.keys(typed).length ? "; what you typed is kept, Save to apply it" : ""));
}

// The fields the GM changed in the dialog: name -> what the field holds.
function typedValues() {
  const out = {};
  for (const f of editing.fields) {
    const node = dialog.querySelector(`[name="${f.name}"]`);
    if (node && shown(read(f, dialog)) !== shown(f.value)) out[f.name] = f.kind === "bool" ? node.checked : node.value;
  }
  return out;
}

function build(data, typed, notice) {
  const {sid, cid} = editing;
  const row = data.combatants.find((c) => c.id === cid);
  const box = ensureDialog();
  const error = el("p", {class: "note bad", id: "edit-error", role: "alert", text: notice});
  const fields = row ? row.fields : [];
  editing.fields = fields;
  const rows = fields.map((f) => el("div", {class: `edit-row edit-${f.kind}`, "data-field": f.name},
    el("label", {for: `edit-${f.name}`, text: f.label}), input(f),
    f.kind === "place" ? el("datalist", {id: `edit-${f.name}-list`}, (f.choices || []).map((c) =>
      el("option", {value: c}))) : null,
    el("span", {class: "note", text: f.kind === "int" ? `${f.low}–${f.high}` : ""})));
  const send = async (body, who = cid) => {
    error.textContent = "";
    for (const r of box.querySelectorAll(".edit-row")) r.classList.remove("invalid");
    try {
      const out = await change("POST", `/api/sessions/${sid}/edits`, {combatant: who, ...body}, editing.revision);
      clearToast();
      box.close();
      editing.done(out);
    } catch (e) {
      if (e.status === 409 && e.body && e.body.state) {
        // decided on values another page or an agent has changed since: nothing was saved; the dialog stays
        // with the values now (what was typed kept), the table shows the session now
        toast(CHANGED);
        editing.done({state: e.body.state});
        await refreshEditor(sid, e.body.state.revision, `${CHANGED}: check the values and Save again`);
        return;
      }
      const where = e.body && e.body.where ? e.body.where.replace(/^changes\./, "") : "";
      const bad = box.querySelector(`.edit-row[data-field="${where}"]`);
      const field = fields.find((f) => f.name === where);
      // said at the field as the dialog names it ("HP: a whole number is needed"), not as the request does
      error.textContent = field && e.body.error === "invalid_request"
        ? `${field.label}: ${e.message.replace(/^[^:]*: /, "")}` : e.message;
      if (bad) { bad.classList.add("invalid"); bad.querySelector("input, select").focus(); }
    }
  };
  // novalidate: the rules judge the values (the browser's own check would refuse silently, naming no rule)
  const form = el("form", {method: "dialog", novalidate: true, onsubmit: (ev) => {
    ev.preventDefault();
    const changes = {};
    for (const f of fields) {
      const value = read(f, box);
      if (shown(value) !== shown(f.value)) changes[f.name] = value;
    }
    if (!Object.keys(changes).length) { error.textContent = "nothing changed"; return; }
    send({changes});
  }},
    el("h3", {id: "edit-title", text: `GM edit: ${row && row.name !== cid ? `${row.name} (${cid})` : cid}`}),
    el("p", {class: "note", text: row ? `side ${row.side} · ${row.status}. Values as this system's rules allow ` +
                                        "them; the edit is logged as the GM's and Undo takes it back." : ""}),
    rows.length ? el("div", {class: "edit-fields"}, rows) : el("p", {id: "edit-nothing", text: nothing(row)}),
    error,
    // a summon has no entry of the encounter to copy (it comes with its summoner's skill): nothing to offer
    row && row.can_copy ? addSection(row, data.place_key, send) : null,
    el("div", {class: "buttons"},
      rows.length ? el("button", {type: "submit", id: "edit-save", class: "primary", text: "Save"}) : null,
      row && row.can_remove ? el("button", {type: "button", id: "edit-remove", class: "danger", text: "Take out",
                                            title: "remove from the fight (it counts as having left)",
                                            onclick: () => send({remove: true})}) : null,
      el("button", {type: "button", id: "edit-cancel", text: "Cancel", onclick: () => box.close()})));
  box.replaceChildren(form);
  for (const [name, value] of Object.entries(typed)) {
    const node = box.querySelector(`[name="${name}"]`);
    if (!node) continue;
    if (node.type === "checkbox") node.checked = value;
    else node.value = value;
  }
}

// Replay: a finished (or running) session, or a `play --log` file, stepped through on the map frame by frame.

import {count, el} from "./api.js";
import {drawBoard, notYetIn} from "./board.js";
import {renderStats} from "./stats.js";

const view = {data: null, at: 0, timer: null};

export function openReplay(data, titleText) {
  stop();
  view.data = data;
  view.at = 0;
  document.getElementById("title").textContent = titleText;
  document.getElementById("replay-title").textContent = `Replay · ${count(data.frames.length - 1, "decision")}`;
  const scrub = document.getElementById("scrub");
  scrub.max = String(data.frames.length - 1);
  scrub.value = "0";
  const stats = document.getElementById("replay-stats");
  if (data.statistics) renderStats(stats, data.board, data.statistics);
  stats.hidden = !data.statistics;
  show(0);
}

function show(i) {
  const frames = view.data.frames;
  view.at = Math.max(0, Math.min(frames.length - 1, i));
  const f = frames[view.at];
  document.getElementById("scrub").value = String(view.at);
  drawBoard(document.getElementById("replay-board"), view.data.board, f.combatants, {actor: f.actor});
  // a decision's text already names its decider ("kei: stays", "GM: ghoul_1 HP 26 -> 12"): not twice
  const said = f.text.startsWith(`${f.actor}: `) ? f.text : `${f.actor}: ${f.text}`;
  const what = f.n === 0 ? "the start" : `${said}${f.source ? ` (${f.source})` : ""}`;
  const end = f.over ? ` · over: ${f.result}` : "";
  document.getElementById("frame-info").textContent = `decision ${f.n}/${frames.length - 1} · round ${f.round} · ` +
    `${what}${end}`;
  document.getElementById("frame-events").replaceChildren(...f.events.map((e) =>
    el("li", {class: `ev ev-${e.kind}`, title: e.rule || ""}, el("span", {class: "round", text: `r${e.round}`}),
       ` ${e.text}`)));
  document.getElementById("replay-order").replaceChildren(...f.combatants.map((c) =>
    el("li", {class: [f.actor === c.id ? "now" : "", notYetIn(c) ? "arriving" : c.able ? "" : "down"].join(" ")},
       `${c.label} `, el("span", {class: "note", text: notYetIn(c) ? `not in the fight yet (${c.status})`
                                                                   : `${c.health} ${c.status}`}),
       c.conditions.length ? el("span", {class: "conds", text: ` ${(c.condition_texts || c.conditions).join(", ")}`}) : null)));
}

export function stop() {
  clearInterval(view.timer);
  view.timer = null;
  playButton("play");
}

// The play button says what it does now, in words (read aloud too): play, or pause while playing.
function playButton(word) {
  const button = document.getElementById("play");
  if (!button) return;
  button.textContent = word;
  button.title = word;
  button.setAttribute("aria-label", word);
}

function play() {
  if (view.timer) return stop();
  if (view.at >= view.data.frames.length - 1) show(0);
  playButton("pause");
  view.timer = setInterval(() => {
    if (view.at >= view.data.frames.length - 1) return stop();
    show(view.at + 1);
  }, 400);
}

export function wireReplay() {
  const go = (f) => () => { stop(); show(f()); };
  document.getElementById("first").addEventListener("click", go(() => 0));
  document.getElementById("back").addEventListener("click", go(() => view.at - 1));
  document.getElementById("forward").addEventListener("click", go(() => view.at + 1));
  document.getElementById("last").addEventListener("click", go(() => view.data.frames.length - 1));
  document.getElementById("play").addEventListener("click", play);
  document.getElementById("scrub").addEventListener("input", (ev) => { stop(); show(Number(ev.target.value)); });
  document.addEventListener("keydown", (ev) => {
    // a focused field keeps its own keys: the scrub bar steps one decision on an arrow itself (its input event)
    if (document.getElementById("replay").hidden || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    if (ev.key === "ArrowRight") { stop(); show(view.at + 1); }
    if (ev.key === "ArrowLeft") { stop(); show(view.at - 1); }
  });
}

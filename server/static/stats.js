// Post-combat statistics: each side's HP over the decisions as an SVG line chart, then tables per side and combatant.

import {count, el} from "./api.js";
import {sideColour} from "./board.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function hpChart(board, timeline) {
  const W = 640, H = 220, L = 40, R = 12, T = 12, B = 30;
  const chart = svg("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
                            "aria-label": "hit points of each side after every decision"});
  const n = Math.max(1, timeline.length - 1);
  const x = (i) => L + ((W - L - R) * i) / n;
  const y = (share) => T + (H - T - B) * (1 - share);
  for (const share of [0, 0.25, 0.5, 0.75, 1]) {
    chart.append(svg("line", {x1: L, x2: W - R, y1: y(share), y2: y(share), class: "grid"}));
    chart.append(svg("text", {x: L - 6, y: y(share) + 4, class: "axis", "text-anchor": "end"},
                     `${Math.round(share * 100)}%`));
  }
  let lastRound = null;
  timeline.forEach((p, i) => {
    if (p.round !== lastRound) {
      chart.append(svg("line", {x1: x(i), x2: x(i), y1: T, y2: H - B, class: "round-mark"}));
      chart.append(svg("text", {x: x(i) + 2, y: H - B + 14, class: "axis"}, `r${p.round}`));
      lastRound = p.round;
    }
  });
  board.sides.forEach((side) => {
    const points = timeline.map((p, i) => `${x(i).toFixed(1)},${y(p.share[side] ?? 0).toFixed(1)}`).join(" ");
    chart.append(svg("polyline", {points, fill: "none", stroke: sideColour(board, side), "stroke-width": 2.5,
                                  class: "series", "data-side": side}));
  });
  chart.append(svg("text", {x: W - R, y: H - 4, class: "axis", "text-anchor": "end"}, "decisions →"));
  return chart;
}

// a table scrolls in its own box: on a phone the page itself never scrolls sideways
function table(headers, rows) {
  return el("div", {class: "table-scroll"}, el("table", {class: "stats-table"},
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {text: h})))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((v) => el("td", {text: String(v)})))))));
}

export function renderStats(root, board, stats) {
  const names = Object.fromEntries(stats.combatants.map((c) => [c.id, c.label]));
  const name = (id) => (id == null ? "nobody" : names[id] ?? id);
  const legend = el("p", {class: "legend"}, board.sides.map((side) =>
    el("span", {style: `color:${sideColour(board, side)}`, text: `■ ${side} `})));
  const decisions = count(stats.decisions, "decision");
  const result = stats.over ? `Result: ${stats.result} after ${count(stats.rounds, "round")}, ${decisions}`
    : `So far: round ${stats.rounds}, ${decisions}`;
  root.replaceChildren(...[
    el("h2", {text: "Statistics"}), el("p", {class: "result", text: result}),
    el("h3", {text: "Hit points of each side"}), legend, hpChart(board, stats.timeline),
    el("h3", {text: "Sides"}),
    table(["side", "standing", "damage dealt", "damage taken", "taken out", "decisions"],
          stats.sides.map((s) => [s.side, `${s.standing}/${s.combatants}`, s.damage_dealt, s.damage_taken,
                                  s.taken_out, s.decisions])),
    el("h3", {text: "Combatants"}),
    table(["combatant", "side", "HP", "status", "damage dealt", "hits / misses", "took out", "damage taken",
           "healed", "decisions"],
          stats.combatants.map((c) => [c.label, c.side, c.health || `${c.hp}/${c.max_hp}`, c.status, c.damage_dealt,
                                       `${c.hits} / ${c.misses}`, c.taken_out, c.damage_taken, c.healed,
                                       c.decisions])),
    stats.by_source_and_target.length ? el("h3", {text: "Damage by source and target"}) : null,
    stats.by_source_and_target.length ? table(["source", "target", "damage", "hits", "misses"],
      stats.by_source_and_target.map((p) => [name(p.source), name(p.target),
        p.beyond ? `${p.damage} (${p.damage + p.beyond} rolled, capped at the HP left)` : p.damage,
        p.hits, p.misses])) : null,
    stats.falls.length ? el("h3", {text: "Who fell"}) : null,
    stats.falls.length ? table(["round", "decision", "combatant", "status", "last struck by"],
      stats.falls.map((f) => [f.round, f.decision, name(f.combatant), f.status, name(f.by)])) : null,
    stats.edits ? el("p", {class: "note", id: "stats-edits", text: `GM edits: ${stats.edits} (` +
      stats.combatants.filter((c) => c.edits).map((c) => `${c.label} ${c.edits}`).join(", ") +
      "); the hit points they changed count as nobody's damage or healing"}) : null,
    stats.sources.length ? el("h3", {text: "How decisions were made"}) : null,
    stats.sources.length ? table(["side", "by", "decisions"], stats.sources.map((s) => [s.side, s.source, s.count]))
      : null,
    el("p", {class: "note", text: "Each loss of hit points is put down to the combatant who struck for it " +
                                   "(\"nobody\" for bleeding, falls and costs); a side's damage dealt is all " +
                                   "the other sides lost."})].filter(Boolean));
}

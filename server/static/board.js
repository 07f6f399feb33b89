// The battlefield as SVG: zones (moonlit), squares (reincarnator, investigator) or hexes (kiai), and tokens.
//
// Places come from /board (key, x, y, terrain...); combatants name their place by the same key. Options mark
// the actor, the places and tokens one can click for the chosen verb, and the agent's proposal.

const NS = "http://www.w3.org/2000/svg";
const CELL = 44;
const ZONE_W = 230, ZONE_H = 270, ZONE_GAP = 14;
const SIDE_COLOURS = ["#2f6fde", "#d8453a", "#2e9d5b", "#c98a17"];
const TERRAIN = {open: "#efeadc", difficult: "#d3bf8d", wall: "#4a4a4a", blocked: "#4a4a4a", obstacle: "#7b7064",
                 water: "#92b9de", climbable: "#b49d76"};

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function title(text) { return svg("title", {}, text); }

// The statuses of a combatant that has yet to join the fight (the rules' `Editor.arriving`: a moonlit arrival or
// summon not yet called, a reincarnator reinforcement in reserve): not out of it, and the GM may still take it out.
export const YET_TO_JOIN = new Set(["absent", "reserve"]);
export const notYetIn = (c) => !c.able && YET_TO_JOIN.has(c.status);

// The first part of an id (`letters` of it), then each other part's initial, a number whole: "guard_spear_1" is
// "Gus1", "guard_1" "Gu1", "ghoul_1_2" "Gh12", "aoi.puppet" "Aop".
function labelOf(id, letters) {
  const parts = id.split(/[_.\-]/).filter(Boolean);
  if (!parts.length) return id;
  const head = parts[0].slice(0, letters);
  const tail = parts.slice(1).map((p) => (/^\d+$/.test(p) ? p : p.charAt(0))).join("");
  return head.charAt(0).toUpperCase() + head.slice(1) + tail;
}

// Short token labels ("Gh1", "Ka"), as long as needed to tell every combatant on the board apart, and never shared:
// ids alike even so ("ghoul_1_2" and "ghoul_12") are told apart by a number after the label.
export function tokenLabels(ids) {
  const first = new Map();
  for (const id of ids) {
    let letters = 2;
    const taken = (label) => ids.some((other) => other !== id && labelOf(other, letters) === label);
    while (letters < 4 && taken(labelOf(id, letters))) letters += 1;
    first.set(id, labelOf(id, letters));
  }
  const all = new Set(first.values());
  const out = new Map();
  const given = new Set();
  for (const id of ids) {
    let label = first.get(id);
    for (let n = 2; given.has(label); n++) {
      const numbered = `${first.get(id)}#${n}`;
      if (!all.has(numbered)) label = numbered;
    }
    given.add(label);
    out.set(id, label);
  }
  return out;
}

function placeCentre(board, place) {
  if (board.kind === "zones") return {x: place.x * (ZONE_W + ZONE_GAP) + ZONE_W / 2, y: ZONE_H / 2};
  return {x: place.x * CELL + CELL / 2, y: place.y * CELL + CELL / 2};
}

function hexPoints(cx, cy) {
  const r = CELL / Math.sqrt(3);
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = (Math.PI / 180) * (60 * k - 30);
    pts.push(`${(cx + r * Math.cos(a)).toFixed(2)},${(cy + r * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

function placeShape(board, place) {
  const fill = place.impassable || place.blocked === true ? TERRAIN.wall : (TERRAIN[place.terrain] || TERRAIN.open);
  const info = [place.key, place.terrain, place.object, place.door && `door ${place.door}`,
                place.cover && `cover ${place.cover}`, place.exit && "exit", place.cost > 1 && `cost ${place.cost}`]
    .filter(Boolean).join(" · ");
  const attrs = {class: "place", "data-place": place.key, fill};
  let shape;
  if (board.kind === "zones") {
    const x = place.x * (ZONE_W + ZONE_GAP);
    shape = svg("rect", {...attrs, x, y: 0, width: ZONE_W, height: ZONE_H, rx: 10,
                         fill: place.side === board.sides[0] ? "#e4ecfa" : "#f8e5e2"});
  } else if (board.kind === "hex") {
    const c = placeCentre(board, place);
    shape = svg("polygon", {...attrs, points: hexPoints(c.x, c.y)});
  } else {
    shape = svg("rect", {...attrs, x: place.x * CELL, y: place.y * CELL, width: CELL, height: CELL});
  }
  shape.append(title(info));
  return shape;
}

function placeMarks(board, place) {
  const c = placeCentre(board, place);
  const marks = [];
  if (board.kind === "zones") {
    marks.push(svg("text", {x: c.x, y: 26, class: "zone-label"}, place.key.replace("_", " ")));
  }
  if (place.object) marks.push(svg("rect", {x: c.x - 9, y: c.y - 9, width: 18, height: 18, rx: 3, class: "object"},
                                       title(place.object)));
  if (place.door) marks.push(svg("rect", {x: c.x - CELL / 2 + 3, y: c.y - 4, width: CELL - 6, height: 8,
                                          class: `door door-${place.door}`}, title(`door (${place.door})`)));
  if (place.exit) marks.push(svg("text", {x: c.x, y: c.y + 4, class: "exit"}, "exit"));
  return marks;
}

function extent(board) {
  if (board.kind === "zones") {
    const n = board.places.length;
    return {w: n * ZONE_W + (n - 1) * ZONE_GAP, h: ZONE_H};
  }
  const xs = board.places.map((p) => p.x), ys = board.places.map((p) => p.y);
  return {w: (Math.max(...xs) + 1) * CELL + (board.kind === "hex" ? CELL / 2 : 0), h: (Math.max(...ys) + 1) * CELL};
}

// Where the tokens of a zone go: below its name, in the grid of equal cells (three columns or more) that leaves
// room for the largest tokens, each with its HP bar and name; a crowd gets smaller tokens, never one outside.
const ZONE_TOP = 38, ZONE_MARGIN = 4;
function zoneGrid(n) {
  const width = ZONE_W - 2 * ZONE_MARGIN, height = ZONE_H - ZONE_TOP - ZONE_MARGIN;
  let best = null;
  for (let cols = 3; cols <= Math.max(3, n); cols++) {
    const rows = Math.ceil(n / cols);
    const w = width / cols, h = height / rows;
    const r = Math.min(22, w / 2 - 5, (h - 28) / 2);  // ring above, HP bar and name below
    if (!best || r > best.r) best = {cols, w, h, r};
  }
  return best;
}

function tokenPositions(board, combatants) {
  // Tokens sharing a place are spread out: in a grid inside a zone, in a small ring on a cell.
  const byPlace = new Map();
  for (const c of combatants) {
    if (c.place === null) continue;
    if (!byPlace.has(c.place)) byPlace.set(c.place, []);
    byPlace.get(c.place).push(c);
  }
  const places = new Map(board.places.map((p) => [p.key, p]));
  const out = new Map();
  for (const [key, group] of byPlace) {
    const place = places.get(key);
    if (!place) continue;
    const c = placeCentre(board, place);
    const grid = board.kind === "zones" ? zoneGrid(group.length) : null;
    group.forEach((combatant, i) => {
      if (grid) {
        const col = i % grid.cols, row = Math.floor(i / grid.cols);
        out.set(combatant.id, {x: c.x - ZONE_W / 2 + ZONE_MARGIN + (col + 0.5) * grid.w,
                               y: ZONE_TOP + row * grid.h + grid.r + 5, r: grid.r, room: grid.w - 4});
      } else if (group.length === 1) {
        out.set(combatant.id, {x: c.x, y: c.y, r: CELL * 0.36});
      } else {
        const a = (2 * Math.PI * i) / group.length;
        out.set(combatant.id, {x: c.x + Math.cos(a) * CELL * 0.2, y: c.y + Math.sin(a) * CELL * 0.2, r: CELL * 0.26});
      }
    });
  }
  return out;
}

function token(board, combatant, at, marks, label) {
  const side = Math.max(0, board.sides.indexOf(combatant.side));
  const classes = ["token", `side-${side}`];
  const waiting = notYetIn(combatant);
  if (waiting) classes.push("arriving");
  else if (!combatant.able) classes.push("down");
  if (marks.actor === combatant.id) classes.push("actor");
  if (marks.targets && marks.targets.has(combatant.id)) classes.push("target");
  if (marks.proposed === combatant.id) classes.push("proposed");
  const frac = combatant.max_hp > 0 ? Math.max(0, Math.min(1, combatant.hp / combatant.max_hp)) : 0;
  const barColour = frac > 0.5 ? "#37a852" : frac > 0.25 ? "#e0a526" : "#d8453a";
  const w = at.r * 2;
  const g = svg("g", {class: classes.join(" "), "data-token": combatant.id, transform: `translate(${at.x},${at.y})`},
    title(`${combatant.label} · ${combatant.side} · ${combatant.health} · ` +
          `${waiting ? `not in the fight yet (${combatant.status})` : combatant.status}${combatant.conditions.length ?
            " · " + (combatant.condition_texts || combatant.conditions).join(", ") : ""}`),
    svg("circle", {r: at.r + 4, class: "ring"}),
    svg("circle", {r: at.r, fill: combatant.able || waiting ? SIDE_COLOURS[side % 4] : "#8a8a8a", class: "disc"}),
    svg("text", {y: at.r * 0.3, class: "token-label",
                 "font-size": Math.max(7, at.r * (label.length > 3 ? 0.6 : 0.75))},
        label),
    svg("rect", {x: -at.r, y: at.r + 3, width: w, height: 5, class: "hp-back"}),
    svg("rect", {x: -at.r, y: at.r + 3, width: (w * frac).toFixed(1), height: 5, fill: barColour,
                 class: "hp-bar"}));
  if (!combatant.able && !waiting) {
    g.append(svg("path", {d: `M${-at.r * 0.6},${-at.r * 0.6} L${at.r * 0.6},${at.r * 0.6} M${at.r * 0.6},` +
                             `${-at.r * 0.6} L${-at.r * 0.6},${at.r * 0.6}`, class: "cross"}));
  }
  combatant.conditions.slice(0, 4).forEach((cond, i) => {
    g.append(svg("g", {class: "badge", transform: `translate(${at.r - 2 - i * 11},${-at.r - 2})`},
      title((combatant.condition_texts || [])[i] || cond), svg("circle", {r: 6}), svg("text", {y: 3}, cond.charAt(0).toUpperCase())));
  });
  if (at.room !== undefined) {
    const size = at.room >= 60 ? 11 : 9;
    const name = svg("text", {y: at.r + 9 + size, class: "token-name", "font-size": size, "data-room": at.room},
                     title(combatant.label === combatant.id ? combatant.id : `${combatant.label} (${combatant.id})`),
                     svg("tspan", {}, shortName(combatant.id, at.room / (size * NAME_EM))));
    g.append(name);
  }
  return g;
}

const NAME_EM = 0.62;  // a name's character, wide ones included, in em: the cut before the browser measures

// A name that fits its token's cell in a zone: a summon's own part ("dragon_tooth_soldier", not its summoner's
// prefix), cut to `letters` characters (its tooltip has it whole).
function shortName(id, letters) {
  const own = id.split(".").pop();
  const most = Math.max(1, Math.floor(letters));
  return own.length > most ? `${own.slice(0, most - 1)}…` : own;
}

// Shorten each name under a token until the browser's measure of it fits its cell, so neighbours never overlap
// (a board not on screen measures nothing: the cut by character count stands).
function fitNames(root) {
  for (const name of root.querySelectorAll(".token-name")) {
    const room = Number(name.dataset.room);
    const text = name.querySelector("tspan");
    let shown = text.textContent;
    while (shown.length > 1 && name.getComputedTextLength() > room) {
      shown = `${shown.replace(/…$/, "").slice(0, -1)}…`;
      text.textContent = shown;
    }
  }
}

const AXIS = 16;

// The column numbers above a grid and the row numbers left of it: a square's key "x,y" (what the choices
// read, "end 0,7") found by eye.
function axisLabels(board) {
  const g = svg("g", {class: "axis"});
  const cols = new Map(), rows = new Map();  // column number -> its top place, row number -> its leftmost place
  for (const place of board.places) {
    const [col, row] = String(place.key).split(",").map(Number);
    if (Number.isNaN(col) || Number.isNaN(row)) continue;
    if (!cols.has(col) || place.y < cols.get(col).y) cols.set(col, place);
    if (!rows.has(row) || place.x < rows.get(row).x) rows.set(row, place);
  }
  for (const [col, place] of cols) {
    g.append(svg("text", {x: placeCentre(board, place).x, y: -6, class: "axis-label", "data-axis": `x${col}`},
                 String(col)));
  }
  for (const [row, place] of rows) {
    g.append(svg("text", {x: -6, y: placeCentre(board, place).y + 4, class: "axis-label row",
                          "data-axis": `y${row}`}, String(row)));
  }
  return g;
}

// Draw `board` with `combatants` into the <svg> `root`; `marks` = {actor, targets: Set, dests: Set, proposed,
// proposedPlace}, `onToken(id)` / `onPlace(key)` are called on clicks.
export function drawBoard(root, board, combatants, marks = {}, onToken = null, onPlace = null) {
  const {w, h} = extent(board);
  const pad = 8;
  const axis = board.kind === "zones" ? 0 : AXIS;  // room for the column and row numbers of a grid
  root.setAttribute("viewBox", `${-pad - axis} ${-pad - axis} ${w + 2 * pad + axis} ${h + 2 * pad + axis}`);
  root.dataset.kind = board.kind;
  root.replaceChildren();
  if (axis) root.append(axisLabels(board));
  const places = svg("g", {class: "places"});
  const overlay = svg("g", {class: "marks"});
  for (const place of board.places) {
    const shape = placeShape(board, place);
    if (marks.dests && marks.dests.has(place.key)) shape.classList.add("dest");
    if (marks.proposedPlace === place.key) shape.classList.add("proposed-place");
    if (onPlace) shape.addEventListener("click", () => onPlace(place.key));
    places.append(shape);
    overlay.append(...placeMarks(board, place));
  }
  root.append(places, overlay);
  const at = tokenPositions(board, combatants);
  const tokens = svg("g", {class: "tokens"});
  // the able on top of the fallen, so a living token sharing a place stays clickable
  const ordered = [...combatants].sort((a, b) => Number(a.able) - Number(b.able));
  const labels = tokenLabels(combatants.map((c) => c.id));
  for (const c of ordered) {
    if (!at.has(c.id)) continue;
    const g = token(board, c, at.get(c.id), marks, labels.get(c.id));
    if (onToken) g.addEventListener("click", (ev) => { ev.stopPropagation(); onToken(c.id, c.place); });
    tokens.append(g);
  }
  root.append(tokens);
  fitNames(tokens);
}

export function sideColour(board, side) {
  return SIDE_COLOURS[Math.max(0, board.sides.indexOf(side)) % 4];
}

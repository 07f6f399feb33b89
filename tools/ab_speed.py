"""Decisions per CPU second of two checkouts on the same seeded games, alternating game by game.

Separate runs of `tools/agent_speed.py` from two checkouts drift with the machine's load between runs; on a busy
machine they move by more than a change of a few per cent. This tool starts one worker process per checkout
(this one and `--base`, each importing its own package) and hands them the same games in turn, one game at a
time, the order swapped every game, so both sides meet the same load. Per round it sums each side's CPU seconds
over the games; it prints the medians over the rounds, each round's ratio, and whether both sides played the
very same games (a SHA-256 of every game's events):

    taskset -c 1 .venv/bin/python tools/ab_speed.py --base ../other --targets investigator/skirmish --rounds 7

Every round plays the same seeds unless `--fresh` is given. The rules keep per-encounter memos for the life of the
process (reach layers, lines of sight, action lists, the policy's attack values), so from the second round on a
replayed game meets states those memos already hold, and a change that keeps more of them reads faster than it
plays on new games. `--fresh` gives each round its own seeds (round r: `--first-seed` + r x `--games` onward), as
training and evaluation meet them:

    taskset -c 1 .venv/bin/python tools/ab_speed.py --base ../other --targets reincarnator/skirmish --rounds 5 --fresh

`--base` is a checkout's root (its top-level folders `rules/`, `agents/` ...); the tool links them into a
`trpg_arena/` folder of its own and puts it first on the worker's `PYTHONPATH`. Each worker plays one untimed
game per encounter first (caches and imports), then moves the objects of imports and setup to the permanent
generation, as `tools/agent_speed.py` and `trpg-arena bench` do.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = ("rules", "agents", "table", "envs", "experiments", "server")


def _play():
    """`play` from wherever the worker's checkout keeps it."""
    try:
        from trpg_arena.table.session import play
    except ImportError:  # older layouts kept the session with the agents
        from trpg_arena.agents.session import play  # type: ignore[no-redef]  # an older checkout's layout
    return play


def worker() -> None:
    """Play the games asked for on stdin (``ENCOUNTER SEED AGENT``), one line each on stdout: decisions, CPU s, hash."""
    import gc

    from trpg_arena.agents import make_agent
    from trpg_arena.rules import Combat, load_encounter

    play = _play()
    encounters = {}
    for line in sys.stdin:
        name, seed_text, agent = line.split()
        seed = int(seed_text)
        enc = encounters.get(name)
        if enc is None:
            enc = encounters[name] = load_encounter(name)
            warm = Combat(enc, seed=10**6)  # untimed: the encounter's caches and the imports of its first game
            play(warm, [make_agent(agent, enc.ruleset, seed=10**6 + i) for i in range(len(warm.sides))])
            gc.collect()
            gc.freeze()
        start = time.process_time()
        c = Combat(enc, seed=seed)
        play(c, [make_agent(agent, enc.ruleset, seed=seed + i) for i in range(len(c.sides))])
        seconds = time.process_time() - start
        digest = hashlib.sha256()
        for e in c.log:
            digest.update(f"{e.kind}|{e.text}\n".encode())
        print(c.decision_count, repr(seconds), digest.hexdigest(), flush=True)


def _view(base: Path, into: Path) -> Path:
    """A folder holding `trpg_arena/` whose subfolders link to the base checkout's top-level packages."""
    pkg = into / "trpg_arena"
    pkg.mkdir()
    found = [name for name in PACKAGES if (base / name / "__init__.py").is_file()]
    if "rules" not in found:
        raise SystemExit(f"{base} is not a checkout: no rules/__init__.py")
    for name in found:
        (pkg / name).symlink_to((base / name).resolve(), target_is_directory=True)
    return into


def _start(pythonpath: str | None, cwd: Path) -> subprocess.Popen[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker"], cwd=cwd, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _ask(proc: subprocess.Popen[str], request: str) -> tuple[int, float, str]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(request + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"a worker stopped (exit status {proc.wait()})")
    decisions, seconds, digest = line.split()
    return int(decisions), float(seconds), digest


def main() -> None:
    """Alternate the two checkouts game by game and print one line per encounter."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--base", help="the root of the checkout to compare this one with")
    ap.add_argument("--targets", default="investigator/skirmish")
    ap.add_argument("--games", type=int, default=30, help="games per round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--agent", default="scripted", help="the agent on every side")
    ap.add_argument("--fresh", action="store_true",
                    help="new seeds every round (round r plays seeds first + r * games onward), so no round replays a "
                         "game whose states the memos of an earlier round already hold")
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    if not args.base:
        ap.error("--base is required")
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        view = _view(Path(args.base), Path(tmp))
        sides = {"base": _start(str(view), Path(args.base).resolve()), "this": _start(None, here)}
        try:
            for target in args.targets.split(","):
                rates: dict[str, list[float]] = {"base": [], "this": []}
                digests: dict[str, hashlib._Hash] = {"base": hashlib.sha256(), "this": hashlib.sha256()}
                played: set[int] = set()  # the seeds the rounds played
                for r in range(args.rounds):
                    totals = {"base": [0, 0.0], "this": [0, 0.0]}
                    first = args.first_seed + (r * args.games if args.fresh else 0)
                    for g, seed in enumerate(range(first, first + args.games)):
                        played.add(seed)
                        for name in (("base", "this") if g % 2 == 0 else ("this", "base")):
                            decisions, seconds, digest = _ask(sides[name], f"{target} {seed} {args.agent}")
                            totals[name][0] += decisions
                            totals[name][1] += seconds
                            digests[name].update(digest.encode())
                    for name, (decisions, seconds) in totals.items():
                        rates[name].append(decisions / seconds)
                base, this = statistics.median(rates["base"]), statistics.median(rates["this"])
                same = digests["base"].hexdigest() == digests["this"].hexdigest()
                ratios = " ".join(f"{t / b:.2f}" for b, t in zip(rates["base"], rates["this"]))
                seeds = f"seeds {min(played)}-{max(played)}{' every round' if len(played) == args.games else ''}"
                print(f"{target:24} base {base:8.1f}/s  this {this:8.1f}/s  x {this / base:.3f}  "
                      f"rounds {ratios}  {'same games' if same else 'DIFFERENT GAMES'}  {seeds}", flush=True)
        finally:
            for proc in sides.values():
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait()


if __name__ == "__main__":
    main()

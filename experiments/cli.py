"""The ``trpg-arena`` command: play, autopilot, demo, validate, evaluate, ladder, train, bench, list."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import sys
import time
import typing
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from trpg_arena.experiments.consoles import command_console
from trpg_arena.experiments.out_files import check_folder, check_replaceable
from trpg_arena.rules import RULESETS, EncounterBase, TrpgArenaError, builtin_encounters, load_encounter
from trpg_arena.rules.core.dice import SEED_MAX
from trpg_arena.table.seats import check_controllers

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Tabletop-RPG combat engines, environments and agents.")
console = command_console()
err = command_console(stderr=True)

EVENT_STYLE = {"decision": "bold", "auto_decision": "dim", "roll": "cyan", "damage_applied": "red",
               "combat_end": "bold green", "round_start": "bold magenta"}


def _with_options(encounter: str, options: list[str] | None) -> EncounterBase:
    """Load an encounter and apply ``--option flag=value`` overrides (true/false, numbers, else text)."""
    enc = load_encounter(encounter)
    if not options:
        return enc
    changes = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"--option needs flag=value, got '{item}'")
        changes[key.strip()] = _scalar(value.strip())
    return enc.with_options(**changes)


def _scalar(text: str) -> object:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _agents_option(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _print_events(events: list, quiet_rolls: bool = False) -> None:
    for ev in events:
        if quiet_rolls and ev.kind == "roll":
            continue
        style = EVENT_STYLE.get(ev.kind, "")
        rule = f" [dim]({ev.rule})[/dim]" if ev.rule else ""
        text = ev.text.replace("[", "\\[")
        console.print(f"[{style}]r{ev.round} {text}[/{style}]{rule}" if style else f"r{ev.round} {text}{rule}")


@app.command("list")
def list_cmd() -> None:
    """List rule systems (board, dice, Gymnasium id, built-in encounters) and the agents with their options."""
    from rich.text import Text

    from trpg_arena.agents import agent_infos

    systems = Table.grid(padding=(0, 2))
    systems.add_column(no_wrap=True, style="bold")
    systems.add_column(overflow="fold")
    agents: dict[str, tuple[list[str], Any]] = {}
    for rid in RULESETS:
        info = RULESETS[rid].info
        names = ", ".join(e.split("/", 1)[1] for e in builtin_encounters(RULESETS[rid]))
        systems.add_row(rid, Text.assemble((info.title, "italic"), f"\nboard {info.board} · dice {info.dice} · "
                                           f"{info.env_id}\nencounters: {names}"))
        for agent in agent_infos(rid):
            agents.setdefault(agent.name, ([], agent))[0].append(rid)
    console.print(Text("rule systems (encounters are named <system>/<encounter>)", style="bold underline"))
    console.print(systems)
    table = Table(title="agents: NAME[:PRESET][:KEY=VALUE...]", title_justify="left",
                  caption="each system's agents in full: trpg-arena agents SYSTEM", caption_justify="left")
    table.add_column("agent", no_wrap=True)
    table.add_column("systems", overflow="fold", max_width=16)
    table.add_column("presets", overflow="fold")
    table.add_column("parameters (defaults)", overflow="fold")
    for name, (rids, agent) in sorted(agents.items()):
        where = "all" if len(rids) == len(RULESETS) else ", ".join(rids)
        params = ", ".join(f"{p.name}={p.default!r}" for p in agent.params.values()) or "-"
        table.add_row(name, where, ", ".join(agent.presets) or "-", params)
    console.print(table)


@app.command("agents")
def agents_cmd(ruleset: Annotated[str | None, typer.Argument(help="rule system (default: every one)")] = None) -> None:
    """List the agents of each rule system with their presets and parameters (what an agent spec may name)."""
    from trpg_arena.agents import UnknownAgentError, agent_infos

    rids = [ruleset] if ruleset else list(RULESETS)
    for rid in rids:
        if rid not in RULESETS:
            raise UnknownAgentError(f"unknown rule system '{rid}' (known: {', '.join(RULESETS)})")
    for rid in rids:
        console.rule(f"[bold]agents for {rid}[/bold]  (spec: NAME[:PRESET][:KEY=VALUE...])")
        for info in agent_infos(rid):
            name = f"{info.name}:{info.positional.upper()}" if info.positional else info.name
            console.print(f"[bold]{name}[/bold]  {info.summary}")
            if info.presets:
                console.print("  presets:    " + "; ".join(
                    f"{p} ({', '.join(f'{k}={v}' for k, v in vals.items())})" for p, vals in info.presets.items()))
            if info.default_preset:
                console.print(f"  no preset:  {info.default_preset} ({info.name} is {info.name}:{info.default_preset})")
            params = [p for p in info.params.values() if p.name != info.positional]
            if params:
                # each with its type and the values it allows, as the docs promise (a spec outside them is refused)
                console.print("  parameters: " + ", ".join(p.describe() for p in params), markup=False)


@app.command()
def play(encounter: Annotated[str, typer.Argument(help="encounter file or built-in name, e.g. moonlit/skirmish")],
         agents: Annotated[str, typer.Option(help="agent names, one per side in side order")] = "scripted,random",
         seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="seed of the combat's dice")] = 0,
         quiet: Annotated[bool, typer.Option(help="print only the result")] = False,
         log: Annotated[Path | None, typer.Option(help="write the event log as JSON lines")] = None,
         force: Annotated[bool, typer.Option(help="replace the --log file if it exists")] = False,
         option: Annotated[list[str] | None, typer.Option(help="option flag override flag=value (repeatable)")]
         = None) -> None:
    """Run a whole combat headless and print the narrated event log and the result."""
    from trpg_arena.experiments.runner import play_game

    if log:
        check_replaceable(log, force, "--log")
    combat, res = play_game(_with_options(encounter, option), _agents_option(agents), seed)
    if not quiet:
        _print_events(combat.log)
    if log:
        log.write_text("".join(e.json_line() + "\n" for e in combat.log), encoding="utf-8")
    console.print("[bold]result:[/bold] " + escape(f"{res.result} ({res.termination}) after {res.rounds} rounds, "
                                                   f"{res.decisions} decisions; agents {res.agents}"))


@app.command()
def demo(ruleset: Annotated[str, typer.Option(help="rule system to demonstrate")] = "moonlit",
         seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="seed of the dice and the agents")] = 1) -> None:
    """One NPC turn of a built-in skirmish as the GM sees it: proposed, explained, confirmed, carried out."""
    if ruleset not in RULESETS:
        raise typer.BadParameter(f"unknown rule system '{ruleset}' (known: {', '.join(RULESETS)})")
    from trpg_arena.experiments.table.demo import run_demo

    run_demo(ruleset, seed, console)


@app.command()
def validate(files: Annotated[list[str], typer.Argument(help="encounter files (or built-in names)")]) -> None:
    """Check encounter files; exit 1 with a located message for the first bad one."""
    bad = 0
    for f in files:
        try:
            enc = load_encounter(f)
            check_controllers(enc)  # the agents its controllers name, as a table checks them
        except TrpgArenaError as e:
            err.print(f"[red]invalid[/red] {escape(str(e))}")
            bad += 1
            continue
        console.print("[green]ok[/green] " + escape(f"{f}: {enc.ruleset} encounter '{enc.encounter}', "
                      f"{len(enc.combatants)} combatants, sides {', '.join(enc.sides())}"))
    if bad:
        raise typer.Exit(1)


WORKERS_HELP = "game processes (default: all cores)"
BACKEND_HELP = "where games run: local (a process pool) or ray (RAY_ADDRESS, else a local Ray)"


@app.command()
def evaluate(encounter: Annotated[str, typer.Argument(help="encounter file or built-in name")],
             agents: Annotated[str, typer.Option(help="two agent specs: A,B")] = "scripted,random",
             games: Annotated[int, typer.Option(help="number of games")] = 200,
             seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="first seed")] = 0,
             swap: Annotated[bool | None, typer.Option(help="play each seed twice, sides swapped (default: when "
                                                           "the agents differ; a mirror line-up such as "
                                                           "scripted,scripted plays a fresh seed per game)")] = None,
             workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
             backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "local",
             resume: Annotated[Path | None, typer.Option(help="a stopped evaluation's run folder: play only its "
                                                              "missing games (same command otherwise)")] = None,
             out: Annotated[Path, typer.Option(help="parent of the run folder (results, plot, report)")] = Path(
                 "runs/evaluate")) -> None:
    """Win rate of agent A against agent B over a series of seeded games: a fresh run folder with a report.

    Each game is kept as it ends; after a stop (Ctrl-C, SIGTERM) the same command with ``--resume
    FOLDER`` plays only the missing games.
    """
    from trpg_arena.experiments.evaluate import head_to_head, run_evaluation, side_lines

    try:
        summary = run_evaluation(encounter, _agents_option(agents), games, seed, swap, out, err, workers, backend,
                                 resume)
    except KeyboardInterrupt:  # the run said what it kept and how to resume
        raise typer.Exit(130) from None
    for line in side_lines(summary):  # per side, not only per agent: a model played on its wrong side shows
        err.print(line)
    err.print(head_to_head(summary), highlight=False, soft_wrap=True)
    console.print_json(json.dumps(summary))


@app.command()
def pool(folders: Annotated[list[Path], typer.Argument(help="evaluation run folders (or a ladder's pair files, "
                                                            "games/A--B.jsonl) of one pairing: the same encounter "
                                                            "and agents A,B, different seeds")],
         markdown: Annotated[bool, typer.Option(help="print a Markdown table of the runs and their pool instead of "
                                                     "the JSON summary")] = False,
         plot: Annotated[Path | None, typer.Option(help="write a forest plot of the runs and their pool to this PNG "
                                                        "file (not a folder); a file there is kept, -2, -3... "
                                                        "added")] = None) -> None:
    """Pool several `evaluate` runs of one pairing: one head to head over all their games, and whether they agree.

    Prints each run's line and the pooled line. Refuses runs of other encounters, rules versions or line-ups,
    and runs that hold the same game (a seed played from the same side twice). The folders are only read.
    """
    from trpg_arena.experiments.evaluate import head_to_head
    from trpg_arena.experiments.pooled import agreement_line, markdown_table, plot_runs, pool_runs, run_line
    from trpg_arena.experiments.table.report import fresh_path

    if plot is not None:  # checked before the runs are read: a refusal costs nothing
        if plot.is_dir():  # its name with .png added would land beside it, where nobody looks
            raise typer.BadParameter(f"{plot} is a folder: name the PNG file to write", param_hint="--plot")
        if not plot.parent.is_dir():
            raise typer.BadParameter(f"{plot.parent} is not a folder", param_hint="--plot")
    summary = pool_runs(folders)
    if plot is not None:
        target = fresh_path(plot.parent, plot.stem, plot.suffix or ".png")
        plot_runs(summary, target)
        summary["plot"] = str(target)
    for part in summary["runs"]:
        err.print(run_line(part), soft_wrap=True)
    err.print(f"pooled, {summary['games']} games: {head_to_head(summary)}", soft_wrap=True)
    if line := agreement_line(summary["agreement"]):
        err.print(line)
    if markdown:
        console.print(markdown_table(summary), end="", markup=False)
    else:
        console.print_json(json.dumps(summary))


@app.command()
def tournament(encounter: Annotated[str, typer.Argument(help="encounter file or built-in name")],
               agents: Annotated[str, typer.Option(help="agent specs, comma-separated")] = "random,scripted",
               games: Annotated[int, typer.Option(help="games per pair")] = 40,
               seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="first seed")] = 0,
               workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
               backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "local",
               resume: Annotated[Path | None, typer.Option(help="a stopped tournament's run folder: play only its "
                                                                "missing games (same command otherwise)")] = None,
               out: Annotated[Path, typer.Option(help="parent of the run folder (matrix.csv, ratings.json, "
                                                      "matrix.png, games/)")] = Path("runs/tournament")) -> None:
    """Round-robin between agents: win-rate matrix and Elo-scale ratings, as files plus a heat map.

    Each game is kept as it ends; after a stop the same command with ``--resume FOLDER`` plays only the
    missing games.
    """
    from trpg_arena.experiments.tournament import run_tournament

    names = _agents_option(agents)
    if len(names) < 2:
        raise typer.BadParameter("a tournament needs at least two agents")
    if len(set(names)) != len(names):
        raise typer.BadParameter("name each agent once")
    try:
        result = run_tournament(encounter, names, games, seed, out, err, workers, backend, resume)
    except KeyboardInterrupt:  # the run said what it kept and how to resume
        raise typer.Exit(130) from None
    console.print_json(json.dumps(result))


@app.command()
def ladder(encounters: Annotated[list[str], typer.Argument(help="encounter files or built-in names (several: one "
                                                                  "ladder each, every table in ladders.md)")],
           agents: Annotated[str | None, typer.Option(help="agents from weakest to strongest, comma-separated "
                                                           "(default: random, scripted, then per level easy.."
                                                           "deadly the system's trained and mcts presets)")] = None,
           games: Annotated[int, typer.Option(help="games per pair (sides swapped every other game)")] = 20,
           search_games: Annotated[int | None, typer.Option(help="games per pair where an mcts agent plays (its "
                                                                 "decisions cost most; default --games)")] = None,
           cost_seconds: Annotated[float, typer.Option(help="CPU seconds per agent measuring its cost per decision "
                                                            "after the games (0: not measured; at most 3,600)")] = 2.0,
           seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="first seed")] = 0,
           neighbours: Annotated[int, typer.Option(help="pairs at most this far apart in the order play (0: all; "
                                                        "1: each agent and the next)")] = 2,
           reference: Annotated[str | None, typer.Option(help="an agent of the line-up that also plays every other "
                                                              "one, the yardstick the ratings are read against "
                                                              "(default: scripted in the default line-up, none "
                                                              "with --agents; 'none': none)")] = None,
           bootstrap: Annotated[int, typer.Option(help="resamples for the rating intervals (1 to 100,000; each "
                                                       "is a refit)")] = 200,
           workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
           backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "local",
           resume: Annotated[Path | None, typer.Option(help="a stopped ladder's run folder: play only its missing "
                                                            "games (same command otherwise)")] = None,
           out: Annotated[Path, typer.Option(help="parent of the run folder (ladder.csv/.json/.md, pairs.csv, "
                                                  "ladder.png, games/)")] = Path("runs/ladder")) -> None:
    """Difficulty ladder: Bradley-Terry ratings with 95 % intervals, pair scores with Wilson intervals, a plot."""
    from trpg_arena.experiments.ladder import check_ladder_options, default_ladder, run_ladder
    from trpg_arena.experiments.ladders import run_ladders

    # the numbers first: a bad one is refused before any encounter is loaded, let alone a game played
    check_ladder_options(games, search_games, neighbours, bootstrap, cost_seconds)
    rulesets = {e: load_encounter(e).ruleset for e in encounters}  # a bad name is refused before any game

    def lineup(encounter: str) -> list[str]:
        return _agents_option(agents) if agents is not None else default_ladder(rulesets[encounter])

    if any(len(lineup(e)) < 2 or len(set(lineup(e))) != len(lineup(e)) for e in encounters):
        raise typer.BadParameter("a ladder needs at least two different agents")
    if reference is None:
        reference = "scripted" if agents is None else "none"
    yardstick = None if reference == "none" else reference
    for e in encounters:
        if yardstick is not None and yardstick not in lineup(e):
            raise typer.BadParameter(f"--reference {yardstick} is not in the line-up of {e} "
                                     f"({', '.join(lineup(e))})")
    if len(encounters) > 1:
        if len(set(encounters)) != len(encounters):
            raise typer.BadParameter("name each encounter once")
        try:
            several = run_ladders(encounters, lineup, games, seed, neighbours, bootstrap, out, err, workers, backend,
                                  resume, search_games, cost_seconds, reference=yardstick)
        except KeyboardInterrupt:  # the ladder said what it kept and how to resume
            raise typer.Exit(130) from None
        console.print((Path(several["folder"]) / "ladders.md").read_text(encoding="utf-8"))
        console.print(f"run folder {several['folder']}", markup=False)
        for one in several["ladders"]:
            if not one["monotone"]:
                console.print(f"[yellow]the ladder on {escape(str(one['encounter']))} is not monotone in the order "
                              "given[/yellow]")
        return
    (encounter,) = encounters
    try:
        result = run_ladder(encounter, lineup(encounter), games, seed, neighbours, bootstrap, out, err, workers,
                            backend, resume, search_games, cost_seconds, reference=yardstick)
    except KeyboardInterrupt:  # the ladder said what it kept and how to resume
        raise typer.Exit(130) from None
    console.print((Path(result["folder"]) / "ladder.md").read_text(encoding="utf-8"))
    console.print(f"run folder {result['folder']}", markup=False)
    if not result["monotone"]:
        console.print("[yellow]the ladder is not monotone in the order given[/yellow]")


@app.command()
def regress(target: Annotated[str, typer.Argument(help="a suite YAML file, or one encounter (file or built-in "
                                                      "name) with --baseline")],
            agents: Annotated[str, typer.Option(help="one encounter: agent specs per side")] = "scripted,scripted",
            baseline: Annotated[Path | None, typer.Option(help="one encounter: the baseline file to compare with "
                                                                "(or to write with --record)")] = None,
            record: Annotated[bool, typer.Option(help="play and write the baselines instead of comparing")] = False,
            games: Annotated[int | None, typer.Option(help="games (fixed test, --record) or the cap (sprt)")] = None,
            seed: Annotated[int | None, typer.Option(
                min=0, max=SEED_MAX, help="first seed (default the entry's: paired with its "
                                          "baseline); other seeds compare unpaired")] = None,
            test: Annotated[str | None, typer.Option(help="sprt (sequential, stops early) or fixed")] = None,
            delta: Annotated[float | None, typer.Option(help="sprt: smallest shift worth flagging, e.g. 0.05 = 5 "
                                                             "points")] = None,
            alpha: Annotated[float | None, typer.Option(help="false alarm rate (default 0.05)")] = None,
            beta: Annotated[float | None, typer.Option(help="sprt: rate of missing a shift of delta "
                                                            "(default 0.05)")] = None,
            allow: Annotated[list[str] | None, typer.Option(help="accept a baseline differing in: content, "
                                                                 "env_version, lineup or swap (repeatable)")] = None,
            workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
            backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "local",
            junit: Annotated[Path | None, typer.Option(help="also write the JUnit XML here")] = None,
            out: Annotated[Path, typer.Option(help="parent of the run folder")] = Path("runs/regress")) -> None:
    """Balance regression: exit 0 unchanged (or recorded), 1 shifted, 2 bad input, 3 stale baseline, 4 crash."""
    import traceback

    from trpg_arena.experiments.regress_cli import RegressArgs, run_regress

    args = RegressArgs(target, _agents_option(agents), baseline, record, games, seed, test, delta, alpha, beta,
                       frozenset(allow or ()), workers, backend, junit, out)
    try:
        code = run_regress(args, console, err)
    except (TrpgArenaError, ValueError):
        raise
    except Exception:  # a crash must not look like a regression (1) to CI
        err.print(traceback.format_exc())
        err.print("[red]internal error[/red] (exit 4)")
        raise typer.Exit(4) from None
    raise typer.Exit(code)


@app.command()
def balance(encounter: Annotated[str, typer.Argument(help="encounter file or built-in name")],
            target: Annotated[float, typer.Option(help="wanted win rate of --side, e.g. 0.6")],
            knob: Annotated[list[str], typer.Option(help="ID.FIELD=LO..HI: a combatant's whole-number field and "
                                                         "its range, e.g. ghoul.max_hp=20..60 (repeatable)")],
            agents: Annotated[str, typer.Option(help="agent specs per side")] = "scripted,scripted",
            side: Annotated[str | None, typer.Option(help="side whose win rate is tuned (default: the PCs')")]
            = None,
            tolerance: Annotated[float, typer.Option(help="the 95 % interval must lie within target +/- this")]
            = 0.05,
            screen: Annotated[int, typer.Option(help="games per setting while searching")] = 100,
            confirm: Annotated[int, typer.Option(help="games to confirm a setting, and again to verify it")] = 600,
            budget: Annotated[int, typer.Option(help="most games in all")] = 5000,
            workers: Annotated[int | None, typer.Option(help=WORKERS_HELP)] = None,
            backend: Annotated[str, typer.Option(help=BACKEND_HELP)] = "local",
            out: Annotated[Path, typer.Option(help="parent of the run folder (tuned.yaml, report, summary)")]
            = Path("runs/balance")) -> None:
    """Tune stat-block knobs until --side wins --target of the games (Wilson 95 % interval inside the tolerance)."""
    from trpg_arena.experiments.balance import Knob, short_line, tried_line, write_balance
    from trpg_arena.experiments.balance import balance as run_balance
    from trpg_arena.experiments.series.words import rate

    def started(tuned: str) -> None:
        err.print(f"balancing {escape(str(encounter))}: the {escape(tuned)} side's win rate to {target:.0%} +/- "
                  f"{tolerance:.0%}, a line per series")

    check_folder(out)  # before the search: a file in the way was found only when its results were written
    summary = run_balance(encounter, [Knob.parse(k) for k in knob], target, tuple(_agents_option(agents)),
                          side=side, tolerance=tolerance, screen=screen, confirm=confirm, budget=budget,
                          workers=workers, backend=backend, on_try=lambda t, s: err.print("  " + tried_line(t, s)),
                          on_start=started)
    folder = write_balance(summary, out)
    if not summary["found"]:
        err.print(f"[red]no setting found[/red] within {target:.0%} +/- {tolerance:.0%} in {summary['games']} games "
                  f"({summary['seconds']} s); see {escape(str(folder))}")
        if short_line(summary) is not None:  # a setting looked right, but the budget could not verify it
            err.print(escape(str(short_line(summary))))
        raise typer.Exit(1)
    lo, hi = summary["verified_interval95"]
    console.print("[bold green]found[/bold green] " + escape(
        f"{summary['setting']}: side {summary['side']} wins {rate(summary['verified_win_rate'], lo, hi, digits=1)} "
        f"on fresh seeds; {summary['games']} games, {summary['seconds']} s; tuned encounter {folder / 'tuned.yaml'}"))


@app.command()
def autopilot(encounter: Annotated[str | None, typer.Argument(
                  help="encounter file or built-in name; with --resume, a session id (or its start) or encounter")]
              = None,
              pc: Annotated[str, typer.Option(help="seat of the PCs: 'human', or an agent spec")] = "human",
              npc: Annotated[str, typer.Option(help="agent spec that plays the NPCs, e.g. scripted, mcts:hard")]
              = "scripted",
              seat: Annotated[list[str] | None, typer.Option(
                  help="KEY=SEAT for a side or combatant: human, an agent spec, review:<agent>; +dice rolls its "
                       "dice by hand (repeatable)")] = None,
              review: Annotated[bool, typer.Option(help="agents propose and wait for the GM to confirm")] = True,
              dice: Annotated[bool, typer.Option(help="the players roll every die at the table")] = False,
              autorun: Annotated[bool, typer.Option(help="start with NPCs running unattended")] = False,
              ask_routine: Annotated[bool, typer.Option(help="ask PCs the routine decisions too (moonlit: try to "
                                                             "escape, or stay? every round); off: they stay")]
              = False,
              seed: Annotated[int | None, typer.Option(min=0, max=SEED_MAX,
                  help="seed of the dice and the agents (default: a new one, printed)")] = None,
              option: Annotated[list[str] | None, typer.Option(help="option flag override flag=value (repeatable)")]
              = None,
              tactics: Annotated[list[str] | None, typer.Option(
                  help="a temperament for a combatant or a whole side, ID=KEY:VALUE,...: aggression (reckless, "
                       "bold, steady, cautious), morale (flees below this share of HP: 25%), focus (weakest, "
                       "strongest, nearest, healers, casters, an id), protect (an ally's id), e.g. "
                       "ghoul=morale:25%,focus:casters (repeatable)")] = None,
              db: Annotated[Path | None, typer.Option(
                  help="session database (default $TRPG_ARENA_DB or ~/.local/share/trpg-arena/sessions.db)")] = None,
              out: Annotated[Path, typer.Option(help="folder for the statistics JSON and the Markdown log")] = Path(
                  "runs/autopilot"),
              resume: Annotated[bool, typer.Option(help="continue a stored session (the only unfinished one, or "
                                                        "the one named)")] = False,
              list_: Annotated[bool, typer.Option("--list", help="list the stored sessions")] = False) -> None:
    """GM autopilot: NPC agents propose and explain, you confirm or override; PCs are chosen in steps."""
    from trpg_arena.experiments.autopilot import AutopilotArgs, run_autopilot
    from trpg_arena.experiments.table.sessions import default_db, sessions_table
    from trpg_arena.table.store import SessionStore

    path = db or default_db()
    if list_:
        if not path.exists():  # listing creates nothing: a mistyped --db is not a new, empty database
            console.print(f"no session database at {path} yet: no sessions stored there", markup=False)
            return
        store = SessionStore(path)
        console.print(f"sessions in {store.path}", markup=False)
        console.print(sessions_table(store))
        store.close()
        return
    enc = None if resume or encounter is None else _with_options(encounter, option)
    run_autopilot(AutopilotArgs(encounter=enc, wanted=encounter if resume else None, db=path, out=out, pc=pc,
                                npc=npc, seats=tuple(seat or ()), review=review, dice=dice, autorun=autorun,
                                ask_routine=ask_routine, seed=seed, resume=resume, tactics=tuple(tactics or ()),
                                options=dict.fromkeys(option or ()) if resume else {}),  # resume: refused
                  console)


@app.command()
def serve(host: Annotated[str, typer.Option(help="address to listen on (beyond 127.0.0.1 a token is required)")]
          = "127.0.0.1",
          port: Annotated[int, typer.Option(help="port to listen on")] = 8765,
          db: Annotated[Path | None, typer.Option(
              help="session database, shared with the autopilot (default $TRPG_ARENA_DB or "
                   "~/.local/share/trpg-arena/sessions.db)")] = None,
          token: Annotated[str | None, typer.Option(help="token every request must carry (generated and printed "
                                                         "when listening beyond 127.0.0.1); it shows in `ps`: "
                                                         "prefer --token-file or $TRPG_ARENA_TOKEN")] = None,
          token_file: Annotated[Path | None, typer.Option(help="read the token from this file (its first line)")]
          = None,
          allow_origin: Annotated[list[str] | None, typer.Option(help="web origin whose pages may call the API, "
                                                                      "e.g. https://vtt.example (repeatable)")]
          = None,
          max_body: Annotated[int, typer.Option(help="largest request body in bytes")] = 2 * 1024 * 1024,
          agent_seconds: Annotated[float, typer.Option(
              help="seconds of agent work one request may take: a search answers its best so far, a run "
                   "hands back")] = 8.0) -> None:
    """Serve the table page and the HTTP + WebSocket API (docs at /docs, schema at /openapi.json)."""
    try:
        from trpg_arena.server import ServerConfig, create_app
        from trpg_arena.server.run import check_listen, serve_app
    except ImportError as e:
        raise typer.BadParameter(f"the server needs its extra: pip install 'trpg-arena[server]' ({e.name} is "
                                 "missing)") from None
    from trpg_arena.server.config import read_token
    from trpg_arena.table.dbpath import default_db

    if not 0 <= port <= 65535:
        raise typer.BadParameter(f"--port must be 0-65535, got {port}")
    for origin in allow_origin or []:
        if not origin.startswith(("http://", "https://")) or origin.rstrip("/") != origin:
            raise typer.BadParameter(f"--allow-origin takes an origin like https://vtt.example, got '{origin}'")
    if not 0.1 <= agent_seconds <= 600:
        raise typer.BadParameter(f"--agent-seconds must be 0.1-600, got {agent_seconds:g}")
    path = db or default_db()
    config = ServerConfig.for_host(host, token=read_token(token, token_file), port=port, db=path,
                                   allow_origins=tuple(allow_origin or ()), max_body=max_body,
                                   agent_seconds=agent_seconds)
    check_listen(host, port)  # a port in use: one line, before the database is created
    application = create_app(config)
    if config.token_generated:
        console.print(f"[bold]token:[/bold] {config.token}  (send 'Authorization: Bearer <token>')")
    console.print(f"table page: {config.page_url()}   API docs: {config.base_url()}/docs   sessions: {path}",
                  markup=False)
    sys.stdout.flush()  # a piped stdout is block-buffered: the address must be readable while serving
    serve_app(application, host, port)


@app.command("mcp")
def mcp_cmd(http: Annotated[bool, typer.Option("--http", help="serve streamable HTTP instead of stdio")] = False,
            host: Annotated[str, typer.Option(help="with --http: address to listen on (beyond 127.0.0.1 a token is "
                                                   "required, generated and printed if not given)")] = "127.0.0.1",
            port: Annotated[int, typer.Option(help="with --http: port to listen on")] = 8766,
            db: Annotated[Path | None, typer.Option(
                help="session database, shared with autopilot and serve (default $TRPG_ARENA_DB or "
                     "~/.local/share/trpg-arena/sessions.db)")] = None,
            token: Annotated[str | None, typer.Option(help="with --http: token every request must carry; prefer "
                                                           "--token-file or $TRPG_ARENA_TOKEN")] = None,
            token_file: Annotated[Path | None, typer.Option(help="read the token from this file (its first line)")]
            = None,
            agent_seconds: Annotated[float, typer.Option(
                help="seconds of agent work one tool call may take: a search answers its best so far, a run "
                     "hands back")] = 8.0) -> None:
    """Serve the sessions as an MCP server (stdio for desktop hosts, --http for streamable HTTP); see docs/mcp.md."""
    try:
        from trpg_arena.server.mcp_server.run import MCP_PATH, serve_http, serve_stdio
    except ImportError as e:
        raise typer.BadParameter(f"the MCP server needs its extra: pip install 'trpg-arena[mcp]' ({e.name} is "
                                 "missing)") from None
    from trpg_arena.server.config import ServerConfig, read_token
    from trpg_arena.table.dbpath import default_db

    path = db or default_db()
    if not 0.1 <= agent_seconds <= 600:
        raise typer.BadParameter(f"--agent-seconds must be 0.1-600, got {agent_seconds:g}")
    if not http:
        serve_stdio(path, agent_seconds)
        return
    if not 0 <= port <= 65535:
        raise typer.BadParameter(f"--port must be 0-65535, got {port}")
    config = ServerConfig.for_host(host, token=read_token(token, token_file), port=port, db=path,
                                   agent_seconds=agent_seconds)

    def ready() -> None:  # the port and the database checked: the address is printed, then it serves
        if config.token_generated:  # beyond loopback every request carries a token, as with `serve`
            console.print(f"[bold]token:[/bold] {config.token}  (send 'Authorization: Bearer <token>')")
        console.print(f"MCP (streamable HTTP): {config.base_url()}{MCP_PATH}   sessions: {path}", markup=False)
        sys.stdout.flush()  # a piped stdout is block-buffered: the address must be readable while serving

    serve_http(config, ready)


def _train(**options: Any) -> None:
    """Train MaskablePPO (sb3-contrib) on an encounter in N envs; a run folder with the model, its card, curves.

    A rule system's id instead of an encounter (``trpg-arena train kiai``) trains the system's `ppo` policy
    for every encounter and both sides (`experiments.policy_train`; --games, --epochs, --rounds, --teacher, --data-on,
    --ppo-steps, --init, --seed, --eval-games, --threads, --out).
    """
    from trpg_arena.experiments.train import TrainArgs
    from trpg_arena.rules import RULESETS

    if options["encounter"] in RULESETS:
        from trpg_arena.experiments.policy_ppo import PPOStageArgs
        from trpg_arena.experiments.policy_train import PolicyTrainArgs, policy_run_folder, train_policy
        from trpg_arena.experiments.train import _specs

        TrainArgs(**options).check_system()  # an option of `train ENCOUNTER` is refused, not ignored
        ruleset = options["encounter"]
        ppo = None
        if options["ppo_steps"]:
            ppo = PPOStageArgs(options["ppo_steps"], anchors=_specs(options["anchors"]), latest=options["latest"],
                               snapshot_every=options["snapshot_every"], value_warmup=options["value_warmup"],
                               lr=options["ppo_lr"], shaping=options["shaping"], seed=options["seed"],
                               n_steps=options["n_steps"], batch_size=options["batch_size"],
                               threads=options["threads"], side=options["side"] or "both",
                               draw_penalty=options["draw_penalty"],
                               checkpoint_every=options["checkpoint_every"])
        elif options["init"] is not None and not options["rounds"]:
            raise ValueError("--init continues a model with DAgger rounds or the PPO stage: give --rounds or "
                             "--ppo-steps too")
        elif options["ppo_on"]:
            raise ValueError("--ppo-on chooses the PPO stage's encounters: give --ppo-steps too")
        elif options["side"]:
            raise ValueError("--side with a rule system's id is the PPO stage's side: give --ppo-steps too")
        elif options["draw_penalty"]:
            raise ValueError("--draw-penalty is the PPO stage's: give --ppo-steps too")
        elif options["checkpoint_every"]:
            raise ValueError("--checkpoint-every with a rule system's id keeps the PPO stage's policies: give "
                             "--ppo-steps too")
        args = PolicyTrainArgs(ruleset, games=options["games"], epochs=options["epochs"], rounds=options["rounds"],
                               seed=options["seed"], teacher=options["teacher"], init=options["init"], ppo=ppo,
                               eval_games=options["eval_games"], threads=options["threads"],
                               ppo_on=_specs(options["ppo_on"]), data_on=_specs(options["data_on"]))
        args.check()
        args.out = policy_run_folder(Path(options["out"]), ruleset, args.seed) / f"ppo-{ruleset}.npz"
        card = train_policy(args, log=lambda line: console.print(line, highlight=False))
        console.print(f"model: {args.out}  (play it with --agents ppo:model={args.out})", highlight=False)
        return
    from trpg_arena.experiments.train import run_training

    card = run_training(TrainArgs(**options), console)
    console.print_json(json.dumps({k: card[k] for k in ("run", "model", "steps", "seconds", "fps", "evaluations")}))


def _options_of(args_class: type) -> inspect.Signature:
    """A typer signature generated from a dataclass: each field an option (or argument) with its ``help``."""
    from trpg_arena.experiments.train import field_default

    hints = typing.get_type_hints(args_class)
    params = []
    for f in dataclasses.fields(args_class):
        default = field_default(f)
        kind = typer.Argument if f.metadata.get("argument") else typer.Option
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=Annotated[hints[f.name], kind(help=f.metadata["help"])]))
    return inspect.Signature(params)


def _register_train() -> None:
    from trpg_arena.experiments.train import TrainArgs

    _train.__signature__ = _options_of(TrainArgs)  # type: ignore[attr-defined]  # typer reads the signature set here
    app.command("train")(_train)


_register_train()


@app.command("train-value")
def train_value_cmd(ruleset: Annotated[str, typer.Argument(help="rule system whose learned value is rebuilt")],
                    games: Annotated[int, typer.Option(help="generation 0: scripted self-play games")] = 3000,
                    generated: Annotated[int, typer.Option(help="generation 0: more games on generated encounters "
                                                                "(later generations: the same share)")] = 0,
                    generations: Annotated[int, typer.Option(help="later generations: the trained agent's games "
                                                                  "against scripted, refitted on all")] = 0,
                    generation_games: Annotated[int, typer.Option(help="games per later generation")] = 400,
                    noise: Annotated[float, typer.Option(help="share of random moves in generation 0")] = 0.1,
                    draw: Annotated[float, typer.Option(help="target of a drawn game's positions: 0 learns the "
                                                             "chance of winning, 0.5 the expected score")] = 0.0,
                    seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="first seed")] = 0,
                    workers: Annotated[int, typer.Option(help="game processes")] = 2,
                    encounters: Annotated[str, typer.Option(help="comma-separated encounters (default: the "
                                                                 "system's built-ins)")] = "",
                    epochs: Annotated[int, typer.Option(help="training epochs at most (early stopping)")] = 30,
                    keep: Annotated[float, typer.Option(help="share of the decisions recorded")] = 0.25,
                    extra: Annotated[list[Path] | None, typer.Option(help="more data files (earlier generations, "
                                                                          "`trpg-arena selfplay` output) pooled in")]
                    = None,
                    data: Annotated[Path, typer.Option(help="folder for the self-play data")] = Path("runs/selfplay"),
                    out: Annotated[Path | None, typer.Option(help="folder for model, card and plot (default: the "
                                                                  "package's shipped models)")] = None,
                    force: Annotated[bool, typer.Option(help="replace the model already in --out")] = False) -> None:
    """Rebuild a system's learned value from nothing: self-play data, fit, model card and calibration plot.

    Without --out it rebuilds the shipped model in place (what the command is for); a model already in a
    folder named by --out is replaced only with --force. Each run's self-play data goes to a new folder.
    """
    from trpg_arena.experiments.selfplay.value_fit import FitConfig, load_positions
    from trpg_arena.experiments.selfplay.value_train import ValueTrainArgs, train_value
    from trpg_arena.rules import get_ruleset

    get_ruleset(ruleset)  # an unknown system is one line, before anything runs
    if out is not None:
        check_folder(out)  # before the self-play: a file in the way was found when the model was written
        check_replaceable(out / f"{ruleset}.npz", force, "--out: the model")
    check_folder(data, "--data")
    if games < 10 or generated < 0 or generations < 0 or generation_games < 10 or not 0 <= noise <= 1 \
            or workers < 1 or epochs < 1 or not 0 < keep <= 1 or not 0 <= draw <= 1:
        raise typer.BadParameter("--games and --generation-games need at least 10, --generations and --generated "
                                 ">= 0, --noise and --draw in [0, 1], --keep in (0, 1], --workers and --epochs >= 1")
    for path in extra or []:
        if not path.is_file():
            raise typer.BadParameter(f"--extra: no data file at '{path}'")
    if extra:  # a damaged file or one of another system is named now, not after the self-play games
        pooled = load_positions(extra)
        if pooled.ruleset and pooled.ruleset != ruleset:
            raise typer.BadParameter(f"--extra: {pooled.files[0]} holds {pooled.ruleset} positions, not {ruleset}")
    names = _agents_option(encounters)
    for name in names:
        if load_encounter(name).ruleset != ruleset:
            raise typer.BadParameter(f"{name} is not a {ruleset} encounter")
    args = ValueTrainArgs(ruleset, games, generated, generations, generation_games, noise, keep, seed, workers,
                          encounters=names, extra=tuple(extra or ()), data=data, fit=FitConfig(epochs=epochs),
                          draw=draw)
    if out is not None:
        args.out = out
    card = train_value(args, log=console.print)
    console.print_json(json.dumps({k: card[k] for k in ("ruleset", "held_out", "seconds", "bytes")}))


@app.command("train-fps")
def train_fps(encounters: Annotated[list[str] | None, typer.Argument(help="encounters (default: every duel)")] = None,
              envs: Annotated[str, typer.Option(help="env counts to measure, comma-separated")] = "1,2,4,8",
              steps: Annotated[int, typer.Option(help="training steps per measurement, rounded up to whole "
                                                      "rollouts (about 512 steps; 64 per env beyond 8 envs)")]
              = 4096,
              vec: Annotated[str, typer.Option(help="dummy or subproc")] = "dummy",
              out: Annotated[Path | None, typer.Option(help="also write the rows as JSON here")] = None,
              force: Annotated[bool, typer.Option(help="replace the --out file if it exists")] = False,
              head: Annotated[str, typer.Option(help="legal: the action head scores the legal actions only (what "
                                                     "training uses); full: sb3-contrib's MlpPolicy, every index")]
              = "legal",
              clock: Annotated[str, typer.Option(help="wall, or cpu: this process's CPU seconds (steadier on a busy "
                                                      "machine; with --vec dummy)")] = "wall",
              sections: Annotated[bool, typer.Option("--sections", help="time each section of a step instead (env "
                                                     "step, features, mask, policy forward, buffer, update; CPU "
                                                     "clock, legal head, dummy envs)")] = False) -> None:
    """MaskablePPO training fps per encounter and env count, beside sb3-contrib's InvalidActionEnvDiscrete."""
    from trpg_arena.experiments.train import MAX_ENVS
    from trpg_arena.experiments.train_fps import CLOCKS, HEADS, measure

    try:
        counts = [int(n) for n in envs.split(",") if n.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1 or steps < 1 or vec not in ("dummy", "subproc"):
        raise typer.BadParameter("--envs needs counts >= 1, --steps >= 1, --vec dummy or subproc")
    if max(counts) > MAX_ENVS:  # a million envs grow in memory until the process is killed
        raise typer.BadParameter(f"--envs counts must lie between 1 and {MAX_ENVS}, got {max(counts)}")
    if head not in HEADS or clock not in CLOCKS or (clock == "cpu" and vec == "subproc"):
        raise typer.BadParameter(f"--head is one of {', '.join(HEADS)}; --clock one of {', '.join(CLOCKS)} "
                                 "(cpu with --vec dummy only)")
    names = encounters or [f"{rid}/duel" for rid in RULESETS]
    if out is not None:
        check_replaceable(out, force)  # before minutes of training, not after
        if not out.absolute().parent.is_dir():
            raise typer.BadParameter(f"--out {out}: {out.parent} is not a folder")
    if sections:
        if vec != "dummy" or head != "legal":
            raise typer.BadParameter("--sections times the legal head with --vec dummy only")
        _train_sections(names, counts, steps, out)
        return
    with console.status("training..."):
        rows = measure(names, counts, steps, vec, head=head, clock=clock)
    yardstick = {r.envs: r.fps for r in rows if r.target == "InvalidActionEnvDiscrete"}
    table = Table("target", "envs", "fps", "x yardstick", title=f"MaskablePPO steps/s ({head} head, {clock} clock)")
    for r in rows:
        table.add_row(r.target, str(r.envs), f"{r.fps:,.0f}", f"{r.fps / yardstick[r.envs]:.2f}")
    console.print(table)
    _say_whole_rollouts(steps, {r.envs: r.steps for r in rows})
    if out is not None:
        out.write_text(json.dumps([{**r.__dict__, "fps": r.fps} for r in rows], indent=2), encoding="utf-8")


def _say_whole_rollouts(requested: int, trained: dict[int, int]) -> None:
    """A line when the steps trained per env count (``trained``) are not the ``--steps`` asked for.

    MaskablePPO trains whole rollouts, so a measurement runs to the end of the rollout under way; the fps are
    of the steps trained, and the line says how many those were.
    """
    if all(steps == requested for steps in trained.values()):
        return
    counts = ", ".join(f"{steps:,} steps with {n} env{'s' if n > 1 else ''}" for n, steps in trained.items())
    console.print(f"--steps {requested:,} is not a whole number of rollouts, and MaskablePPO trains whole ones: "
                  f"each measurement trained (and its fps count) {counts}", highlight=False)


def _train_sections(names: list[str], counts: list[int], steps: int, out: Path | None) -> None:
    """`train-fps --sections`: CPU milliseconds per training step in each section, per target and env count."""
    from trpg_arena.experiments.train import whole_rollouts
    from trpg_arena.experiments.train_fps import rollout_size
    from trpg_arena.experiments.train_profile import SECTIONS, profile

    # asked for whole rollouts (of train-fps's size, which the profile trains too): the rows then count what ran
    trained = {n: whole_rollouts(steps, rollout_size(n)) for n in counts}
    with console.status("training..."):
        rows = [row for n in counts for row in profile(names, [n], trained[n])]
    yardstick = {r.envs: r.steps / r.total for r in rows if r.target == "InvalidActionEnvDiscrete"}
    table = Table("target", "envs", "fps", "x yardstick", *SECTIONS,
                  title="MaskablePPO CPU ms per step by section (legal head, cpu clock)")
    for r in rows:
        fps = r.steps / r.total
        table.add_row(r.target, str(r.envs), f"{fps:,.0f}", f"{fps / yardstick[r.envs]:.2f}",
                      *(f"{r.per_step_ms(s):.3f}" for s in SECTIONS))
    console.print(table)
    _say_whole_rollouts(steps, trained)
    if out is not None:
        out.write_text(json.dumps([{"target": r.target, "envs": r.envs, "steps": r.steps, "requested_steps": steps,
                                    "fps": r.steps / r.total,
                                    "ms_per_step": {s: r.per_step_ms(s) for s in SECTIONS}} for r in rows],
                                  indent=2), encoding="utf-8")


@app.command()
def bench(seconds: Annotated[float, typer.Option(help="seconds per measurement")] = 2.0,
          systems: Annotated[str | None, typer.Option(help="comma-separated rule systems (default all)")] = None,
          search: Annotated[str, typer.Option(help="mcts presets (or whole agent specs such as trained:normal) "
                                                   "whose propose latency (p50/p95) is measured; '' for none")]
          = "normal",
          out: Annotated[Path | None, typer.Option(help="JSON results file (default: a new "
                                                        "runs/bench/<UTC time>.json)")] = None,
          force: Annotated[bool, typer.Option(help="replace the --out file if it exists")] = False,
          clock: Annotated[str, typer.Option(help="wall, or cpu: the process's CPU seconds (steadier on a busy "
                                                  "machine)")] = "wall") -> None:
    """Decisions per second of random and scripted play per system (engine and env); search latency per preset."""
    if clock not in ("wall", "cpu"):
        raise typer.BadParameter(f"--clock must be wall or cpu, got {clock!r}")
    if not (math.isfinite(seconds) and seconds > 0):
        raise typer.BadParameter(f"--seconds must be a positive number, got {seconds}")
    from rich.progress import Progress

    from trpg_arena.agents import agent_names
    from trpg_arena.agents.spec import check_agent
    from trpg_arena.experiments.bench import (
        bench_aec,
        bench_clone,
        bench_connect_four,
        bench_engine,
        bench_env,
        bench_targets,
    )

    if out is not None:
        check_replaceable(out, force)
    chosen = _agents_option(systems) if systems else None
    for rid in chosen or []:
        if rid not in RULESETS:
            raise typer.BadParameter(f"no rule system {rid!r} (expected one of {', '.join(RULESETS)})",
                                     param_hint="--systems")
    targets = bench_targets(chosen)
    searched = _search_specs(_agents_option(search))
    for spec in searched:  # a bad spec is named before the measurements, not after them
        for rid in dict.fromkeys(t.split("/")[0] for t in targets):
            check_agent(spec, rid)
    jobs: list[tuple[str, str | None, str | None]] = [("baseline", None, None)]
    for t in targets:
        for a in ("random", "scripted"):
            if a in agent_names(t.split("/")[0]):
                jobs.append((t, "engine", a))
        jobs += [(t, "env", "random"), (t, "aec", "random"), (t, "clone", None)]
    rows = []
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("benchmarking", total=len(jobs))
        for target, mode, agent in jobs:
            progress.update(task, description=f"{target} {mode or ''} {agent or ''}")
            if mode is None:
                rows.append(bench_connect_four(seconds, clock=clock))
            elif mode == "engine":
                rows.append(bench_engine(target, agent or "random", seconds, clock=clock))
            elif mode == "env":
                rows.append(bench_env(target, seconds, clock=clock))
            elif mode == "clone":
                rows.append(bench_clone(target, seconds, clock=clock))
            else:
                rows.append(bench_aec(target, seconds, clock=clock))
            progress.advance(task)
    from rich import box

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("target", "mode", "agent", "decisions/s", "steps/s", "x c4 (steps)"):
        table.add_column(col, justify="left" if col in ("target", "mode", "agent") else "right", no_wrap=True)
    for r in rows:
        table.add_row(r.target, r.mode, r.agent, f"{r.per_second:,.0f}", f"{r.steps_per_second:,.0f}",
                      f"{r.ratio(rows[0]):.2f}")
    unit = "CPU s" if clock == "cpu" else "s"
    console.print(f"{seconds:.1f} {unit} each; decisions/s counts every engine decision (the opponent's and forced "
                  "ones too), steps/s the agent-facing steps (env.step calls; equal at engine level); x c4 (steps): "
                  "steps/s over connect_four_v3's moves/s, the speed a learner sees; clone rows: clone() calls "
                  "per second", soft_wrap=False)
    console.print(table)
    latency = _bench_search(targets, searched, seconds, clock)
    if out is None:  # a new file each run: the last run's figures stay to compare with
        from trpg_arena.experiments.table.report import fresh_path

        Path("runs/bench").mkdir(parents=True, exist_ok=True)
        out = fresh_path(Path("runs/bench"), time.strftime("%Y%m%d-%H%M%S", time.gmtime()), ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"seconds": seconds, "clock": clock, "rows": [r.to_json() for r in rows],
                               "latency": [r.to_json() for r in latency]}, indent=2), encoding="utf-8")
    console.print(f"written {out}", markup=False)


def _search_specs(presets: list[str]) -> list[str]:
    """`bench --search` items as agent specs: a bare name is an mcts preset (``normal`` -> ``mcts:normal``)."""
    return [p if ":" in p or p == "trained" else f"mcts:{p}" for p in presets]


def _bench_search(targets: list[str], specs: list[str], seconds: float, clock: str = "wall") -> list[Any]:
    """p50/p95 propose latency of each agent spec on each target (one table), on `clock`."""
    from rich import box

    from trpg_arena.experiments.bench import bench_propose

    rows = [bench_propose(t, spec, seconds, clock=clock) for spec in specs for t in targets]
    if rows:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("target", "agent", "decisions", "p50 ms", "p95 ms"):
            table.add_column(col, justify="left" if col in ("target", "agent") else "right", no_wrap=True)
        for r in rows:
            table.add_row(r.target, r.agent, str(r.decisions), f"{r.p50 * 1000:,.0f}", f"{r.p95 * 1000:,.0f}")
        console.print(f"search latency per decision (propose), on states of scripted self-play ({clock} clock: "
                      + ("CPU time of this process" if clock == "cpu" else "wall time") + ")", soft_wrap=False)
        console.print(table)
    return rows


# Commands kept in their own modules (registered on this module's `app`, also when run with -m).
from trpg_arena.experiments.selfplay.commands import register as _register_selfplay  # noqa: E402

_register_selfplay(app)


def usage_errors() -> Any:
    """The click exceptions module typer raises from (typer 0.29 on carries its own copy of click)."""
    try:
        from typer._click import exceptions
    except ImportError:  # an older typer, on click itself
        from click import exceptions  # type: ignore[no-redef]  # the same names in click's own module
    return exceptions


def main() -> None:
    """Entry point: user errors become one red line and exit status 2, never a traceback.

    Typer's own way with a bad option (usage, a hint and a box around the message) is replaced by the same
    single line the commands' errors give, naming the command's ``--help``.
    """
    usage = usage_errors()
    try:
        code = app(standalone_mode=False)
    except usage.NoArgsIsHelpError as e:  # a bare command: its help, as typer shows it
        e.show()
        sys.exit(e.exit_code)
    except usage.UsageError as e:  # a bad option value, an unknown option, a missing argument
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
        err.print(f"[red]error:[/red] {escape(e.format_message())}{hint}", highlight=False)
        sys.exit(2)
    except typer.Abort:  # end of input at a prompt
        err.print("aborted")
        sys.exit(1)
    except TrpgArenaError as e:  # escaped: messages quote ids, names and paths, which are never markup
        err.print(f"[red]error:[/red] {escape(str(e))}")
        sys.exit(2)
    except ValueError as e:
        err.print(f"[red]error:[/red] {escape(str(e))}")
        sys.exit(2)
    if isinstance(code, int) and code:  # typer.Exit(code) and Ctrl-C (130) come back as the exit status
        sys.exit(code)


if __name__ == "__main__":
    main()

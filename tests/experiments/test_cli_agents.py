"""`trpg-arena agents` and agent specs on the command line."""

from __future__ import annotations

from tests.experiments.test_cli import run


def test_agents_lists_parameters_of_every_agent() -> None:
    r = run("agents", "moonlit")
    assert r.returncode == 0, r.stderr
    for name in ("random", "first", "scripted", "mcts", "policy:PATH"):
        assert name in r.stdout
    out = " ".join(r.stdout.split())
    assert "simulations=200 (int, 1..100000)" in out and "alpha=0.5 (float, 0..1)" in out  # the values allowed
    # an agent that declares its default preset says so: a bare `trained` is the full-strength `hard`
    assert "no preset:  hard (trained is trained:hard)" in " ".join(r.stdout.split("\n"))


def test_unknown_agent_system_and_parameters_are_one_line_errors() -> None:
    r = run("agents", "nosuch")
    assert r.returncode != 0 and "known: investigator, kiai, moonlit, reincarnator" in r.stderr
    for spec, expected in (("nosuch,random", "no agent 'nosuch'"), ("mcts:wings=2,random", "no parameter 'wings'"),
                           ("policy:nonexistent.zip,random", "no model file at 'nonexistent.zip'")):
        r = run("play", "moonlit/duel", "--agents", spec, "--quiet")
        assert r.returncode == 2, r.stderr
        assert expected in r.stderr and "Traceback" not in r.stderr


def test_one_agent_for_two_sides_is_refused_with_a_hint() -> None:
    r = run("play", "moonlit/duel", "--agents", "scripted", "--quiet")
    assert r.returncode == 2 and "one agent per side" in r.stderr and "scripted,scripted" in r.stderr

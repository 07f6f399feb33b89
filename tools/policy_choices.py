"""What a policy chooses on one side of an encounter against an opponent, beside a reference agent's choice.

Plays seeded games of ``--agent`` (default `ppo`) on ``SIDE`` against ``--opponent`` (default `random`) on the
other side(s); at each of the policy's decisions it also asks ``--reference`` (default `scripted`) what it would
play in the same state (the policy's choice is the one played). Prints the results and termination per game
count, how often the two agree, and the most frequent choices of each: where a policy loses, this shows what it
does differently from an agent that loses less (passive turns, one square again and again, a weaker weapon):

    .venv/bin/python tools/policy_choices.py investigator/duel cult --games 40 --seed 900000
    .venv/bin/python tools/policy_choices.py tests/unseen/moonlit_bridge.yaml A --opponent scripted
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any


def _verb(action: object) -> str:
    """An action's printed form, cut short (the verb with its target, option or square)."""
    return str(action)[:48]


class Recorded:
    """A policy that also asks a reference agent what it would play in the same state, and counts both."""

    def __init__(self, policy: Any, reference: Any, counts: dict[str, Counter[Any]]) -> None:
        self.policy, self.reference, self.counts = policy, reference, counts

    def act(self, combat: Any) -> Any:
        """The policy's action (the reference's choice only counted)."""
        mine, theirs = self.policy.act(combat), self.reference.act(combat)
        self.counts["chosen"][_verb(mine)] += 1
        self.counts["reference"][_verb(theirs)] += 1
        self.counts["agree"][mine == theirs] += 1
        return mine


def main() -> None:
    """Play the games and print the counts (see the module)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("encounter")
    parser.add_argument("side", help="the side the policy plays")
    parser.add_argument("--agent", default="ppo")
    parser.add_argument("--reference", default="scripted")
    parser.add_argument("--opponent", default="random", help="the agent on the other side(s)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=900_000)
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()

    from trpg_arena.agents import make_agent
    from trpg_arena.rules import Combat, load_encounter
    from trpg_arena.table.session import play

    enc = load_encounter(args.encounter)
    if args.side not in enc.sides():
        parser.error(f"side must be one of {', '.join(enc.sides())}, not {args.side!r}")
    counts: dict[str, Counter[Any]] = {"chosen": Counter(), "reference": Counter(), "agree": Counter()}
    results: Counter[str] = Counter()

    for seed in range(args.seed, args.seed + args.games):
        recorded = Recorded(make_agent(args.agent, enc.ruleset, seed=seed),
                            make_agent(args.reference, enc.ruleset, seed=seed), counts)
        agents = {side: recorded if side == args.side else make_agent(args.opponent, enc.ruleset, seed=seed + 1 + i)
                  for i, side in enumerate(enc.sides())}
        combat = Combat(enc, seed=seed)
        play(combat, agents)  # type: ignore[arg-type]  # `Recorded` has the one method play calls
        outcome = combat.outcome
        assert outcome is not None
        verdict = "won" if outcome.result == args.side else "drawn" if outcome.result == "draw" else "lost"
        results[f"{verdict} ({outcome.termination.value})"] += 1

    agree, chosen, reference = counts["agree"], counts["chosen"], counts["reference"]
    decisions = sum(agree.values())
    print(f"{args.agent} as {args.side} against {args.opponent}, {args.games} games from seed {args.seed}: "
          + ", ".join(f"{k} {v}" for k, v in sorted(results.items())))
    print(f"{decisions} decisions; {args.reference} would have chosen the same in {agree[True]} "
          f"({100 * agree[True] / max(decisions, 1):.0f} %)")
    for name, counts in ((args.agent, chosen), (args.reference, reference)):
        print(f"{name}: " + "; ".join(f"{verb} {n}" for verb, n in counts.most_common(args.top)))


if __name__ == "__main__":
    main()

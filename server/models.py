"""Request bodies of the API, validated by pydantic: unknown fields, wrong types and out-of-range numbers are 422.

Validation is strict: a number is a JSON number, a switch is ``true`` or ``false``. Lax coercion would
read ``{"index": true}``, ``"3"`` or ``0.0`` as an action index and play a move nobody chose.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from trpg_arena.server.encounters import shape_problem

Seat = Annotated[str, StringConstraints(min_length=1, max_length=200, strip_whitespace=True)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Key = Annotated[str, StringConstraints(min_length=1, max_length=100)]
Scalar = bool | int | float | Annotated[str, StringConstraints(max_length=200)]
Text = Annotated[str, StringConstraints(max_length=8 * 1024 * 1024)]  # the body limit refuses far less first
Seed = Annotated[int, Field(ge=0, le=2**32 - 1, description="seed of the combat's dice")]
RUN_FIELD = Field(True, description="then let agent seats decide until a person must act (or the run limit)")


#: A temperament as sent: checked by the session (`table.session.parse_tactics`) for located messages.
TacticsBlock = Annotated[dict[Annotated[str, StringConstraints(max_length=20)],
                              bool | float | int | Annotated[str, StringConstraints(max_length=100)] | None],
                         Field(max_length=8)]


class Strict(BaseModel):
    """A request body: every field declared, nothing else accepted, no value coerced into another type."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Answering(Strict):
    """A request that changes a session: it may name the state's revision it was decided on."""

    revision: Annotated[int, Field(ge=0, le=2**62)] | None = Field(
        None, description="the state's revision this request answers (or send If-Match): if the session has "
                          "moved on, nothing is done and the answer is 409 with the state now")


def _exactly_one(model: BaseModel, fields: tuple[str, ...]) -> None:
    given = [f for f in fields if getattr(model, f) is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of {', '.join(fields)} (got {', '.join(given) or 'none'})")


class EncounterUpload(Strict):
    """An encounter by built-in name, as YAML/JSON text, or as a JSON object."""

    encounter: Annotated[str, StringConstraints(max_length=100)] | None = Field(
        None, description="a built-in encounter, e.g. 'moonlit/duel'", examples=["moonlit/duel"])
    encounter_text: Text | None = Field(None, description="an encounter file's YAML or JSON text")
    encounter_data: dict[str, Any] | None = Field(None, description="an encounter as a JSON object")
    filename: Name | None = Field(None, description="the uploaded file's name, used in error messages")

    @model_validator(mode="after")
    def _one_encounter(self) -> EncounterUpload:
        _exactly_one(self, ("encounter", "encounter_text", "encounter_data"))
        return self


class CreateSession(EncounterUpload):
    """A new session: the encounter, the dice seed and who plays whom."""

    seed: Seed = 0
    pc: Seat = Field("human", description="default seat of PCs: human, an agent spec, review:<agent>, +dice")
    npc: Seat = Field("review:scripted", description="default seat of NPCs")
    seats: dict[Key, Seat] = Field(default_factory=dict, max_length=64,
                                   description="seats by side or combatant id, overriding pc / npc")
    table_dice: bool = Field(False, description="every seat rolls physical dice, entered by hand")
    autorun: bool = Field(False, description="apply review seats' proposals without waiting for a confirmation")
    ask_routine: bool = Field(False, description="ask people the decisions a table rarely wants asked (moonlit: "
                                                 "escape or stay? every round); off: they get the usual answer")
    name: Name | None = None
    options: dict[Key, Scalar] | None = Field(None, max_length=64, description="option flag overrides")
    tactics: dict[Key, TacticsBlock | None] = Field(
        default_factory=dict, max_length=128,
        description="NPC temperaments by combatant id or side, over the encounter's: aggression (reckless, bold, "
                    "steady, cautious), morale (a share of HP such as 0.25 or '25%'), focus (weakest, strongest, "
                    "nearest, healers, casters or a combatant id), protect (an ally's id); null: no temperament")
    run: bool = RUN_FIELD


class ActionIn(Strict):
    """A legal action in its JSON form, as the state's ``pending.groups[].actions[].action`` gives it."""

    verb: Key
    target: Annotated[str, StringConstraints(max_length=100)] | None = None
    dest: Any = None
    option: Any = None

    @field_validator("dest", "option")
    @classmethod
    def _small(cls, value: Any) -> Any:
        problem = shape_problem(value, max_nodes=1000, max_depth=8)  # a place or option is a few values
        if problem is not None:
            raise ValueError(problem)
        return value


class ActionChoice(Answering):
    """An action for the open decision: its index in the legal list, or the action itself."""

    index: Annotated[int, Field(ge=0, le=1_000_000)] | None = None
    action: ActionIn | None = None
    run: bool = RUN_FIELD

    @model_validator(mode="after")
    def _one_choice(self) -> ActionChoice:
        _exactly_one(self, ("index", "action"))
        return self


class Proceed(Answering):
    """Options of a request that applies the open proposal."""

    run: bool = RUN_FIELD


class StepRequest(Answering):
    """Apply the agent's proposal of the open decision, exactly one decision."""

    run: bool = Field(False, description="then let agent seats go on (default: stop after this decision)")


class RunRequest(Answering):
    """Let agent seats decide."""

    max_decisions: Annotated[int, Field(ge=1, le=100_000)] | None = Field(
        None, description="at most this many (default: the server's run limit)")


class DiceEntry(Answering):
    """Faces rolled at the table for the dice asked for."""

    faces: Annotated[str, StringConstraints(min_length=1, max_length=400)] | Annotated[
        list[Annotated[int, Field(ge=0, le=1000)]], Field(min_length=1, max_length=200)] = Field(
        description="'4 6 10', or a list of numbers", examples=["42"])
    run: bool = RUN_FIELD


class UndoRequest(Answering):
    """Take decisions back."""

    decisions: Annotated[int, Field(ge=1, le=1_000_000)] | None = Field(
        None, description="how many (default: back to before the last decision a person made or confirmed)")


class RewindRequest(Answering):
    """Go back to the first decision of a round."""

    round: Annotated[int, Field(ge=0, le=1_000_000)]


class TacticsChange(Answering):
    """A combatant's new temperament (replacing the encounter's), or none at all (null)."""

    tactics: TacticsBlock | None = Field(description="aggression, morale, focus, protect (see POST /sessions)")
    run: bool = RUN_FIELD


class SeatChange(Answering):
    """A new seat for a side, a combatant, or the pc / npc default."""

    seat: Seat
    run: bool = RUN_FIELD


EditValue = bool | Annotated[int, Field(ge=-10**9, le=10**9)] | Annotated[str, StringConstraints(max_length=100)] | \
    Annotated[list[Annotated[int, Field(ge=-10**6, le=10**6)]], Field(min_length=2, max_length=3)]


class EditRequest(Answering):
    """A GM's edit of one combatant: set some of its fields, or take it out of the fight."""

    combatant: Key = Field(description="the combatant's id", examples=["ghoul_1"])
    changes: Annotated[dict[Key, EditValue], Field(max_length=20)] = Field(
        default_factory=dict, description="field name -> new value (see GET .../edits for each combatant's "
                                          "fields and what the rules allow)", examples=[{"hp": 12}])
    remove: bool = Field(False, description="take the combatant out of the fight (it counts as having left)")
    add: Annotated[dict[Key, Any], Field(max_length=100)] | None = Field(
        None, description="add a combatant (its id is `combatant`): its entry as an encounter lists it, checked as "
                          "an encounter's; 'like': an existing combatant's id copies its entry (its own fields win)",
        examples=[{"like": "ghoul_1", "zone": "B_front"}])
    run: bool = RUN_FIELD

    @model_validator(mode="after")
    def _something(self) -> EditRequest:
        if sum((bool(self.changes), self.remove, self.add is not None)) != 1:
            raise ValueError("give one of changes, remove: true, or add")
        return self


class Switch(Answering):
    """Turn a setting on or off."""

    on: bool
    run: bool = RUN_FIELD


class ProposalRequest(Strict):
    """Ask an agent what it would do now."""

    agent: Seat | None = Field(None, description="an agent spec (default: the seat's agent, else scripted)")


class LogReplay(Strict):
    """A ``trpg-arena play --log`` file to replay, with the encounter, seed and option flags it was played with."""

    log: Text = Field(description="the JSON-lines log")
    encounter: Annotated[str, StringConstraints(max_length=100)] | None = Field(
        None, description="its built-in encounter (default: the one of the log's rule system that fits)")
    encounter_text: Text | None = None
    filename: Name | None = None
    seed: Seed = 0
    options: dict[Annotated[str, StringConstraints(max_length=100)], bool | int | float | str] | None = Field(
        None, max_length=50, description="the option flags it was played with (`play --option flag=value`)")

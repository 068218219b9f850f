"""English material for the chat-shaped dev set (``recalllib.chat``): chatter and facts.

Written for this project from scratch. A fact is a few ``Step`` lines one person says in
different sessions, and ``Ask`` questions about it, each naming the steps that answer it.
``{after}`` / ``{before}`` in a question are filled from the real gap between the sessions
("the week after", "in the two weeks after", "after"), so a temporal question is true to
the dates the generator drew.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """One planted line; ``gap`` is the sessions after the fact's previous step (-1: before)."""

    text: str
    gap: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Ask:
    """A question about a fact, the kind it is, and the steps whose turns answer it."""

    text: str
    kind: str
    steps: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Planted:
    """A fact: who says it (0 or 1 of the conversation's people), its steps, its questions."""

    owner: int
    steps: tuple[Step, ...]
    asks: tuple[Ask, ...]
    slots: dict[str, str]


Template = Callable[[random.Random, int], Planted]


def _pick(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


def _pet(rng: random.Random, owner: int) -> Planted:
    slots = {"pet": _pick(rng, "Pickle", "Marzipan", "Tofu", "Nutmeg", "Bramble")}
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="We finally adopted a cat from the shelter, she's called {pet}."),),
        asks=(Ask(text="What is the name of {owner}'s cat?", kind="single", steps=(0,)),),
    )


def _job(rng: random.Random, owner: int) -> Planted:
    slots = {
        "role": _pick(rng, "sound engineer", "dental hygienist", "surveyor", "florist"),
        "firm": _pick(rng, "Carrow Acoustics", "Blythe Dental", "Marlow Survey", "Petal Row"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="Signed the contract today, I start as a {role} at {firm} on Monday."),),
        asks=(
            Ask(text="Where does {owner} work these days?", kind="single", steps=(0,)),
            Ask(text="What is {owner}'s new job?", kind="single", steps=(0,)),
        ),
    )


def _allergy(rng: random.Random, owner: int) -> Planted:
    slots = {"allergen": _pick(rng, "sesame", "kiwi fruit", "walnuts", "mustard seed")}
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="Turns out I'm allergic to {allergen}, the clinic ran the tests."),),
        asks=(Ask(text="What food allergy does {owner} have?", kind="single", steps=(0,)),),
    )


def _club(rng: random.Random, owner: int) -> Planted:
    slots = {
        "club": _pick(rng, "pottery class", "climbing club", "choir", "chess circle"),
        "weekday": _pick(rng, "Tuesday", "Wednesday", "Thursday"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="I joined a {club}, it meets every {weekday} evening."),),
        asks=(Ask(text="Which evening does {owner}'s {club} meet?", kind="single", steps=(0,)),),
    )


def _sibling(rng: random.Random, owner: int) -> Planted:
    slots = {
        "rel": _pick(rng, "brother", "cousin"),
        "sib": _pick(rng, "Ezra", "Tobias", "Lucan", "Milo"),
        "shop": _pick(rng, "bike shop", "bookbinder", "fishmonger"),
        "street": _pick(rng, "Gorse Lane", "Quarry Road", "Tannery Street"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(
                text="My {rel} {sib} is staying with us for a few weeks while he sorts himself out."
            ),
            Step(text="Good news, {sib} got hired at the {shop} on {street}!", gap=2),
        ),
        asks=(
            Ask(text="Where did {owner}'s {rel} find work?", kind="multi", steps=(0, 1)),
            Ask(text="Who is staying with {owner} for a few weeks?", kind="single", steps=(0,)),
        ),
    )


def _boat(rng: random.Random, owner: int) -> Planted:
    slots = {
        "boat": _pick(rng, "Albatross", "Kittiwake", "Dunlin", "Petrel"),
        "lake": _pick(rng, "Loch Varran", "Ferrow Water", "Lake Ossian"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(text="I bought a wreck of an old sailing dinghy, I've named her the {boat}."),
            Step(text="Sanded the whole hull of the {boat} this weekend, my arms are dead.", gap=2),
            Step(text="Took the {boat} out on {lake} and she didn't sink!", gap=3),
        ),
        asks=(
            Ask(
                text="What has {owner} done with the old dinghy so far?",
                kind="multi",
                steps=(0, 1, 2),
            ),
            Ask(text="Where did {owner} first sail the dinghy?", kind="multi", steps=(0, 2)),
        ),
    )


def _tour(rng: random.Random, owner: int) -> Planted:
    country, first, second = _pick(
        rng, "Portugal|Braga|Faro", "Slovenia|Piran|Bled", "Norway|Bergen|Tromso"
    ).split("|")
    slots = {"country": country, "first": first, "second": second}
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(text="We're planning {country} for the summer, starting in {first}."),
            Step(text="Added {second} to the plan, three nights by the water.", gap=3),
        ),
        asks=(
            Ask(text="Which towns will {owner} visit in {country}?", kind="multi", steps=(0, 1)),
        ),
    )


def _trip_after(rng: random.Random, owner: int) -> Planted:
    slots = {
        "place": _pick(rng, "Ghent", "Trieste", "Aarhus", "Cork"),
        "event": _pick(rng, "jazz festival", "food fair", "book festival"),
        "did": _pick(
            rng,
            "Spent both days repainting the hallway a deep green colour.",
            "Built raised beds in the back garden, finally.",
            "Cleared out the garage and gave half of it away.",
        ),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(text="Off to {place} tomorrow for the {event}, can't wait!"),
            Step(text="{did}", gap=1),
        ),
        asks=(
            Ask(
                text="What did {owner} get done {after} the {event} in {place}?",
                kind="temporal",
                steps=(0, 1),
            ),
        ),
    )


def _sold_before(rng: random.Random, owner: int) -> Planted:
    slots = {
        "street": _pick(rng, "Heron Close", "Millbank Row", "Copper Street"),
        "item": _pick(
            rng,
            "Sold my old drum kit to a teenager down the road.",
            "Got rid of the rowing machine nobody ever used.",
            "Finally sold the piano, it took four people to lift.",
        ),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(text="Moving day is Saturday, the new flat on {street} is really ours!"),
            Step(text="{item}", gap=-1),
        ),
        asks=(
            Ask(
                text="What did {owner} get rid of {before} moving to {street}?",
                kind="temporal",
                steps=(0, 1),
            ),
        ),
    )


def _race(rng: random.Random, owner: int) -> Planted:
    slots = {"race": _pick(rng, "Canal 10K", "Beacon Hill Run", "Moonlight Half")}
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="Ran the {race} yesterday, my legs are jelly but I beat my time."),),
        asks=(Ask(text="When did {owner} run the {race}?", kind="temporal", steps=(0,)),),
    )


def _neighbour(rng: random.Random, owner: int) -> Planted:
    slots = {
        "neigh": _pick(rng, "Odile", "Henrike", "Perpetua", "Ysolde"),
        "jam": _pick(rng, "quince", "damson", "gooseberry"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="Our neighbour {neigh} left a jar of {jam} jam on the doorstep."),),
        asks=(
            Ask(text="What did {neigh} give {owner}?", kind="entity", steps=(0,)),
            Ask(text="Who is {neigh}?", kind="entity", steps=(0,)),
        ),
    )


def _cafe(rng: random.Random, owner: int) -> Planted:
    slots = {
        "cafe": _pick(rng, "Vesper", "Little Otter", "Saltbox", "Kiln"),
        "drink": _pick(rng, "cardamom latte", "hojicha", "cortado"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(text="Found a tiny place called {cafe} near the station, the {drink} is perfect."),
        ),
        asks=(Ask(text="What does {owner} order at {cafe}?", kind="entity", steps=(0,)),),
    )


def _physio(rng: random.Random, owner: int) -> Planted:
    slots = {
        "doc": _pick(rng, "Okafor", "Lindqvist", "Bellamy"),
        "weeks": _pick(rng, "six", "eight", "ten"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="Dr {doc} says my shoulder needs {weeks} weeks of physio, no tennis."),),
        asks=(Ask(text="What did Dr {doc} tell {owner}?", kind="entity", steps=(0,)),),
    )


def _diet(rng: random.Random, owner: int) -> Planted:
    slots = {"month": _pick(rng, "March", "April", "May")}
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="I haven't eaten meat or fish since {month}, and I feel great."),),
        asks=(
            Ask(
                text="Would {owner} enjoy a steakhouse for a birthday dinner?",
                kind="inference",
                steps=(0,),
            ),
        ),
    )


def _visit(rng: random.Random, owner: int) -> Planted:
    slots = {
        "aunt": _pick(rng, "Rosalind", "Imelda", "Constance"),
        "town": _pick(rng, "Whitby", "Tenby", "St Ives", "Oban"),
    }
    return Planted(
        owner=owner,
        slots=slots,
        steps=(
            Step(text="My aunt {aunt} lives in {town}, right by the harbour."),
            Step(text="Booked the train to go and see {aunt} next month.", gap=2),
        ),
        asks=(
            Ask(
                text="Which town is {owner} travelling to by train next month?",
                kind="inference",
                steps=(1, 0),
            ),
        ),
    )


def _early(rng: random.Random, owner: int) -> Planted:
    slots = {"hour": _pick(rng, "5", "half past 5", "6")}
    return Planted(
        owner=owner,
        slots=slots,
        steps=(Step(text="Alarm goes off at {hour} every day so I can swim before work."),),
        asks=(Ask(text="Is {owner} an early riser?", kind="inference", steps=(0,)),),
    )


FACTS: tuple[Template, ...] = (
    _pet,
    _job,
    _allergy,
    _club,
    _sibling,
    _boat,
    _tour,
    _trip_after,
    _sold_before,
    _race,
    _neighbour,
    _cafe,
    _physio,
    _diet,
    _visit,
    _early,
)

GREETINGS = (
    "Hey {other}, how's it going?",
    "Hi {other}! Long time no chat.",
    "Morning {other}!",
    "Evening {other}, got a sec?",
    "{other}!! Guess what.",
)
CHATTER = (
    "Cool, thanks {other}.",
    "Congrats, {other}!",
    "Wow {other}, that's stunning.",
    "Haha {other}, you're the worst.",
    "Keep it up!",
    "Is up for the challenge.",
    "You've got this.",
    "lol",
    "Same honestly.",
    "Ha, classic.",
    "Oh nice!",
    "Aww.",
    "No way!",
    "Sounds good to me.",
    "Talk later?",
    "Night night!",
    "Fair enough.",
    "[shares a photo of a sunset over the rooftops]",
    "[shares a photo of a very fluffy pancake stack]",
    "[shares a photo of the view from a train window]",
    "[shares a photo of a muddy pair of boots]",
    "[shares a photo of a handwritten shopping list]",
    "Can you remind me to call the bank tomorrow?",
    "Remind me to send you that recipe please.",
    "Could you nudge me about the dentist on Friday?",
    "Send me the link when you get a chance.",
    "Don't forget to text me when you're home.",
)
SMALL_TALK = (
    "The weather has been so grey all week.",
    "Work is busy but fine, the usual.",
    "I made soup again, I'm in a soup phase.",
    "Did you see the match on Sunday?",
    "I really should go to bed earlier.",
    "We watched a whole series in one weekend.",
    "My phone battery dies by lunchtime now.",
    "The traffic this morning was something else.",
    "Tried the new bakery, decent bread.",
    "I'm so behind on emails it's not funny.",
    "Thinking about getting a plant for the kitchen.",
    "Someone at work keeps microwaving fish.",
    "The train was late again, naturally.",
    "I need a holiday from my holiday.",
    "My mum keeps sending me articles about sleep.",
    "Cats are funny, they just stare at walls.",
    "Festivals are fun but the queues are awful.",
    "I keep meaning to learn to sail one day.",
    "Moving house is the most stressful thing ever.",
    "Everyone at the office has some allergy now.",
    "Trains are nicer than driving, you can read.",
    "I'd love a little cafe near my flat.",
    "A friend of mine just started a new job too.",
    "My shoulder clicks when I lift things, weird.",
    "We keep talking about a summer trip but never book.",
    "Steak or fish, I can never decide at restaurants.",
    "The neighbours are having a party again.",
    "Running in the rain is weirdly nice.",
)
PEOPLE = (
    ("Maya", "Leo"),
    ("Priya", "Sam"),
    ("Nora", "Felix"),
    ("Ava", "Ben", "Chloe", "Dev"),
)

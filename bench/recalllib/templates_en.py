"""English material for the dev set: speakers, chat, distractors and fact templates."""

from __future__ import annotations

import random

from recalllib.templates import Fact, Language, Said


def _pet(rng: random.Random, owner: int) -> Fact:
    slots = {"pet": rng.choice(["Biscuit", "Pepper", "Mochi", "Juniper", "Waffles", "Ziggy"])}
    return Fact(
        kind="static",
        owner=owner,
        slots=slots,
        steps=(
            Said(
                text="We brought home a beagle puppy this weekend, we're calling him {pet}.",
                lead_in="Anything new at home?",
            ),
        ),
        questions=("What is the name of {owner}'s dog?", "What did {owner} call the new puppy?"),
    )


def _job(rng: random.Random, owner: int) -> Fact:
    slots = {
        "role": rng.choice(["data analyst", "pastry chef", "nurse", "UX designer", "paralegal"]),
        "firm": rng.choice(
            ["Halden Labs", "Brightwater Clinic", "Orchard & Vine", "Kestrel Studio"]
        ),
    }
    return Fact(
        kind="static",
        owner=owner,
        slots=slots,
        steps=(
            Said(
                text="I signed the offer, I'm starting as a {role} at {firm} next month!",
                lead_in="How did the interviews go?",
            ),
        ),
        questions=("Which company made {owner} an offer?", "What job is {owner} starting?"),
    )


def _city(rng: random.Random, owner: int) -> Fact:
    first, second = rng.sample(["Porto", "Leeds", "Tucson", "Gdansk", "Halifax", "Utrecht"], 2)
    return Fact(
        kind="update",
        owner=owner,
        slots={"first": first, "second": second},
        steps=(
            Said(text="Our flat in {first} is tiny but I love the neighbourhood."),
            Said(
                text="Big news: the movers came Tuesday, we now officially live in {second}.",
                lead_in="How was your week?",
            ),
        ),
        questions=("Where does {owner} live now?",),
    )


def _race(rng: random.Random, owner: int) -> Fact:
    race = rng.choice(
        ["Riverside 10K", "Harbour Half Marathon", "Oakfield Trail Run", "Lantern Night Run"]
    )
    return Fact(
        kind="date",
        owner=owner,
        slots={"race": race},
        steps=(Said(text="I ran the {race} last Saturday and finished under my goal time!"),),
        questions=("When did {owner} run the {race}?", "What did {owner} tell me on {when}?"),
    )


def _wedding(rng: random.Random, owner: int) -> Fact:
    slots = {
        "sib": rng.choice(["sister", "brother", "cousin"]),
        "venue": rng.choice(["a vineyard", "the old boathouse", "a lighthouse"]),
    }
    return Fact(
        kind="date",
        owner=owner,
        slots=slots,
        steps=(Said(text="My {sib} is getting hitched at {venue}, the date is set for {day}."),),
        questions=("Where is {owner}'s {sib} having the ceremony?", "When is the {sib}'s wedding?"),
    )


def _rent(rng: random.Random, owner: int) -> Fact:
    old, new = rng.choice([("1,250", "1,480"), ("980", "1,140"), ("2,100", "2,350")])
    return Fact(
        kind="update",
        owner=owner,
        slots={"old": old, "new": new},
        steps=(
            Said(text="Rent is {old} a month, which is fine for now."),
            Said(text="The landlord raised it again, we pay {new} monthly from now on. Ugh."),
        ),
        questions=("How much rent does {owner} pay now?",),
    )


def _hobby(rng: random.Random, owner: int) -> Fact:
    hobby = rng.choice(
        ["pottery", "bouldering", "watercolour painting", "salsa dancing", "woodworking"]
    )
    return Fact(
        kind="static",
        owner=owner,
        slots={"hobby": hobby},
        steps=(
            Said(
                text="I signed up for a {hobby} class on Thursdays, first session was so fun.",
                lead_in="Doing anything for yourself lately?",
            ),
        ),
        questions=("What new pastime did {owner} pick up?", "Which class did {owner} sign up for?"),
    )


def _allergy(rng: random.Random, owner: int) -> Fact:
    food = rng.choice(["peanuts", "shellfish", "sesame", "kiwi"])
    return Fact(
        kind="static",
        owner=owner,
        slots={"food": food},
        steps=(
            Said(
                text="The doctor confirmed it, I'm allergic to {food}, so no more of that for me."
            ),
        ),
        questions=("What food can {owner} not eat?", "What is {owner} allergic to?"),
    )


def _car(rng: random.Random, owner: int) -> Fact:
    car = rng.choice(
        ["a blue Skoda Octavia", "an old Volvo estate", "a red Mazda 3", "a used Prius"]
    )
    return Fact(
        kind="static",
        owner=owner,
        slots={"car": car},
        steps=(
            Said(
                text="Traded in the scooter, I drive {car} now.",
                lead_in="Still taking the bus to work?",
            ),
        ),
        questions=("What car does {owner} drive?",),
    )


def _book(rng: random.Random, owner: int) -> Fact:
    book = rng.choice(
        [
            "The Salt Road",
            "Northern Lights Over Kiev",
            "A Field Guide to Clouds",
            "The Quiet Orchard",
        ]
    )
    return Fact(
        kind="static",
        owner=owner,
        slots={"book": book},
        steps=(Said(text='Just finished "{book}", couldn\'t put it down, the ending wrecked me.'),),
        questions=("Which book had an ending that wrecked {owner}?",),
    )


def _trip(rng: random.Random, owner: int) -> Fact:
    place = rng.choice(["Kyoto", "Lisbon", "Reykjavik", "Oaxaca", "Tbilisi"])
    return Fact(
        kind="date",
        owner=owner,
        slots={"place": place},
        steps=(Said(text="Flights are booked! We leave for {place} on {day}, two whole weeks."),),
        questions=(
            "Where is {owner} going for two weeks?",
            "When does {owner} fly out for the big trip?",
        ),
    )


def _pets_two(rng: random.Random, owner: int) -> Fact:
    return Fact(
        kind="multi",
        owner=owner,
        slots={
            "cat": rng.choice(["Noodle", "Saffron", "Pixel"]),
            "fish": rng.choice(["two goldfish", "a betta fish"]),
        },
        steps=(
            Said(text="{cat} knocked a glass off the table again, cats are chaos."),
            Said(text="Also we got {fish} for the kids' room, very calming to watch."),
        ),
        questions=("Which animals live in {owner}'s home?",),
        gold=(0, 1),
    )


def _injury(rng: random.Random, owner: int) -> Fact:
    part = rng.choice(["ankle", "wrist", "knee"])
    return Fact(
        kind="update",
        owner=owner,
        slots={"part": part},
        steps=(
            Said(text="I twisted my {part} badly playing football, on crutches for a bit."),
            Said(text="Physio cleared me today, the {part} is fully healed!"),
        ),
        questions=("Has {owner} recovered from the football injury?",),
    )


def _birthday(rng: random.Random, owner: int) -> Fact:
    gift = rng.choice(["a vintage record player", "a sourdough starter kit", "a telescope"])
    return Fact(
        kind="date",
        owner=owner,
        slots={"gift": gift},
        steps=(Said(text="For my birthday yesterday my partner surprised me with {gift}!"),),
        questions=(
            "What present did {owner} get for their birthday?",
            "What was {owner} excited about on {when}?",
        ),
    )


EN = Language(
    code="en",
    pairs=(("Mia", "Tom"), ("Lena", "Raj"), ("Grace", "Omar"), ("Nora", "Felix")),
    greetings=(
        "Hey {other}! How's it going?",
        "Hi {other}, long time no talk!",
        "Morning {other}!",
        "{other}! Got a minute?",
    ),
    filler=(
        "Haha, that sounds about right.",
        "Honestly the weather has been so grey all week.",
        "I made pasta again, I'm in a rut.",
        "Did you watch the match on Sunday?",
        "Work has been hectic but fine.",
        "Same here, just tired.",
        "That's amazing, I'm really happy for you.",
        "Ugh, Mondays.",
        "I should really sleep earlier.",
        "We binged a whole series this weekend.",
        "Tell me more!",
        "Oh no, that's annoying.",
        "I'm thinking about repainting the living room.",
        "Coffee first, then conversation.",
        "My phone screen cracked, of course.",
        "Let's catch up properly soon.",
        "That reminds me, I need to call my mum.",
        "The traffic this morning was unreal.",
        "I tried that new bakery, decent croissants.",
        "Sounds like a plan.",
        "I'm so behind on emails.",
        "Yeah, totally agree with you there.",
    ),
    distractors=(
        "My neighbour's dog barks all night, it's driving me mad.",
        "My cousin keeps saying she wants to move to another city.",
        "I watched a documentary about marathon runners, wild stuff.",
        "A friend of mine works at a clinic, she says it's exhausting.",
        "Housing prices around here are ridiculous.",
        "I've been meaning to try a new hobby but never find time.",
        "Someone at work got engaged, everyone's talking about weddings.",
        "Do you think cats or dogs are easier?",
        "I read half a novel on the train and fell asleep.",
        "Cars are so expensive to insure these days.",
        "My brother hurt his back lifting boxes.",
        "We're thinking about a trip somewhere warm, no idea where.",
        "Birthdays stress me out, I never know what gift to get.",
        "Food allergies seem so common now.",
        "My colleague's rent went up too, it's everywhere.",
    ),
    facts=(
        _pet,
        _job,
        _city,
        _race,
        _wedding,
        _rent,
        _hobby,
        _allergy,
        _car,
        _book,
        _trip,
        _pets_two,
        _injury,
        _birthday,
    ),
)

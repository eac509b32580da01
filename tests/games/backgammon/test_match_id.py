"""gnubg's Match ID (`rlgames.games.backgammon.notation.match_id`, `parse_match_id`): the published examples
to the character and to the field, the bit layout, round trips over random match states, and one-line
errors for bad input."""

from __future__ import annotations

import base64
import dataclasses

import numpy as np
import pytest

from rlgames.games.backgammon.notation import MatchId, match_id, parse_match_id

# gnubg's manual, "A technical description of the Match ID": the score is 2-4 in a 9-point match, player 0
# holds a 2-cube and player 1 has just rolled 52.
MANUAL = MatchId(
    cube_value=2,
    cube_owner=0,
    on_roll=1,
    crawford=False,
    game_state=1,
    turn=1,
    double_offered=False,
    resigned=0,
    dice=(5, 2),
    match_length=9,
    score=(2, 4),
)
# gnubg's manual, "Introduction": a money session's first game, gnubg (player 0) on roll with the opening 31.
INTRODUCTION = MatchId(
    cube_value=1,
    cube_owner=None,
    on_roll=0,
    crawford=False,
    game_state=1,
    turn=0,
    double_offered=False,
    resigned=0,
    dice=(3, 1),
    match_length=0,
    score=(0, 0),
)
PUBLISHED = [("QYkqASAAIAAA", MANUAL), ("MIEFAAAAAAAA", INTRODUCTION)]


def id_of_key(key: int) -> str:
    """The Match ID of the raw 72-bit key ``key`` (stream bit k is bit k of the integer)."""
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def random_match(rng: np.random.Generator) -> MatchId:
    """A valid match state drawn from ``rng``: money games and matches, any field in its range."""
    length = int(rng.choice([0, int(rng.integers(1, 26)), int(rng.integers(1, 1 << 15))]))
    top = length or (1 << 15) - 1
    rolled = bool(rng.integers(2))
    return MatchId(
        cube_value=1 << int(rng.integers(16)),
        cube_owner=[None, 0, 1][int(rng.integers(3))],
        on_roll=int(rng.integers(2)),
        crawford=bool(length) and bool(rng.integers(2)),
        game_state=int(rng.integers(5)),
        turn=int(rng.integers(2)),
        double_offered=bool(rng.integers(2)),
        resigned=int(rng.integers(4)),
        dice=(int(rng.integers(1, 7)), int(rng.integers(1, 7))) if rolled else (0, 0),
        match_length=length,
        score=(int(rng.integers(top + 1)), int(rng.integers(top + 1))),
        jacoby=bool(rng.integers(2)),
    )


@pytest.mark.parametrize(("text", "fields"), PUBLISHED)
def test_published_examples(text, fields):
    assert match_id(fields) == text
    assert parse_match_id(text) == fields


def test_the_manual_example_bytes():
    """The manual writes the example's key out as bytes, least significant bit of each first."""
    key = base64.b64decode(match_id(MANUAL))
    assert key == bytes([0b01000001, 0b10001001, 0b00101010, 0b00000001, 0b00100000, 0, 0b00100000, 0, 0])


def test_field_positions():
    """Each field lands on the manual's bits (numbered from 1 there, from 0 here)."""
    base = dataclasses.replace(MANUAL, cube_value=1, cube_owner=0, on_roll=0, turn=0, dice=(0, 0), match_length=0)
    base = dataclasses.replace(base, game_state=0, score=(0, 0))
    assert match_id(base) == id_of_key(0)
    cases = [
        ({"cube_value": 8}, 3 << 0),  # the manual's 8-cube: log2 3
        ({"cube_owner": 1}, 1 << 4),
        ({"cube_owner": None}, 3 << 4),
        ({"on_roll": 1}, 1 << 6),
        ({"crawford": True, "match_length": 1}, 1 << 7 | 1 << 21),
        ({"game_state": 4}, 4 << 8),
        ({"turn": 1}, 1 << 11),
        ({"double_offered": True}, 1 << 12),
        ({"resigned": 2}, 2 << 13),
        ({"dice": (6, 1)}, 6 << 15 | 1 << 18),
        ({"match_length": 32767}, 32767 << 21),
        ({"score": (5, 0)}, 5 << 36),
        ({"score": (0, 32767)}, 32767 << 51),
        ({"jacoby": False}, 1 << 66),
    ]
    for change, key in cases:
        changed = dataclasses.replace(base, **change)
        assert match_id(changed) == id_of_key(key), change
        assert parse_match_id(id_of_key(key)) == changed, change


def test_jacoby_bit_of_newer_gnubg():
    """Newer gnubg sets a 67th bit when the Jacoby rule is off: the ID's last character becomes E."""
    off = dataclasses.replace(MANUAL, jacoby=False)
    assert match_id(off) == "QYkqASAAIAAE"
    assert parse_match_id("QYkqASAAIAAE") == off


def test_round_trips():
    rng = np.random.default_rng(20240607)
    for _ in range(3000):
        m = random_match(rng)
        text = match_id(m)
        assert len(text) == 12 and parse_match_id(text) == m
        assert match_id(parse_match_id(text)) == text


def test_parse_ignores_surrounding_space():
    assert parse_match_id("  QYkqASAAIAAA\n") == MANUAL


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "QYkqASAAIAA",
        "QYkqASAAIAAAA",
        "QYkqASAAIA==",
        "QYkqASAA IAA",
        "QYkqASAAIAA!",
        42,
        None,
        id_of_key(1 << 67),  # past the 67 bits
        id_of_key(1 << 71),
        id_of_key(2 << 4),  # cube owner bits 10
        id_of_key(5 << 8),  # game state 5
        id_of_key(7 << 15 | 1 << 18),  # a 7
        id_of_key(3 << 18 | 3 << 4),  # one die of (0, 3)
        id_of_key(9 << 21 | 10 << 36),  # 10 points in a 9-point match
        id_of_key(9 << 21 | 10 << 51),
        id_of_key(1 << 7),  # a Crawford money game
    ],
)
def test_bad_ids_raise_one_line(bad):
    with pytest.raises(ValueError) as error:
        parse_match_id(bad)
    message = str(error.value)
    assert "\n" not in message and message.startswith("backgammon: ")


@pytest.mark.parametrize(
    "change",
    [
        {"cube_value": 0},
        {"cube_value": 3},
        {"cube_value": 1 << 16},
        {"cube_value": 2.0},
        {"cube_owner": 2},
        {"cube_owner": -1},
        {"on_roll": 2},
        {"turn": -1},
        {"crawford": 1},
        {"game_state": 5},
        {"resigned": 4},
        {"dice": (7, 1)},
        {"dice": (0, 3)},
        {"dice": (5, 2, 1)},
        {"dice": [5, 2]},
        {"match_length": -1},
        {"match_length": 1 << 15},
        {"score": (10, 0)},
        {"score": (0, -1)},
        {"match_length": 0, "score": (1 << 15, 0)},
        {"match_length": 0, "crawford": True},
    ],
)
def test_bad_states_raise_one_line(change):
    with pytest.raises(ValueError) as error:
        match_id(dataclasses.replace(MANUAL, **change))
    message = str(error.value)
    assert "\n" not in message and message.startswith("backgammon: ")

"""Backgammon's hand-crafted baselines: the heuristic's features on hand-built boards, its race formula
and symmetries, Tesauro's pubeval (encoding, exact scores, the race/contact switch), and both
evaluators' kernels on game states (points of view, decision and chance nodes, scoring types)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlgames
from rlgames.game import CHANCE, TERMINAL
from rlgames.games.backgammon import evaluator_terms as bf
from rlgames.games.backgammon import rules, slots
from rlgames.games.backgammon.evaluator import (
    PUBEVAL_SCALE,
    BackgammonEvaluator,
    PubevalEvaluator,
    heuristic_kernel,
    make_heuristic_kernel,
    max_points,
    pubeval_kernel,
)

START = {6: 5, 8: 3, 13: 5, 24: 2}
"""A player's checkers at the start, by own point."""


def row(points: dict[int, int], bar: int = 0) -> np.ndarray:
    """int64[26]: a player's checkers by own point (1..24), on the bar, and borne off (the rest)."""
    out = np.zeros(26, dtype=np.int64)
    for point, n in points.items():
        out[point - 1] = n
    out[bf.BAR] = bar
    out[bf.OFF] = bf.CHECKERS - out.sum()
    assert out[bf.OFF] >= 0
    return out


def random_board(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two random rows of 15 checkers each (points, bar, off), never both colours on one point: the
    opponent's index j is the own point 24 - j."""
    own = np.bincount(rng.choice(26, bf.CHECKERS, p=rng.dirichlet(np.full(26, 0.3))), minlength=26)
    free = np.array([j for j in range(26) if j >= bf.BAR or own[23 - j] == 0])
    opp = np.bincount(rng.choice(free, bf.CHECKERS, p=rng.dirichlet(np.full(len(free), 0.3))), minlength=26)
    return own.astype(np.int64), opp.astype(np.int64)


def feature_dict(own: np.ndarray, opp: np.ndarray) -> dict[str, float]:
    out = np.zeros(bf.NUM_FEATURES)
    bf.features(own, opp, out)
    return dict(zip(bf.FEATURE_NAMES, out.tolist()))


def swapped(values: np.ndarray) -> np.ndarray:
    """The features seen from the other player: each pair swapped, the leads negated."""
    out = values.copy()
    for mover in range(bf.BLOTS_MOVER, bf.NUM_FEATURES, 2):
        out[mover], out[mover + 1] = values[mover + 1], values[mover]
    out[[bf.PIP_LEAD, bf.KEITH_LEAD]] *= -1
    return out


# --- the heuristic --------------------------------------------------------------------------------


def test_features_of_the_start() -> None:
    start = row(START)
    f = feature_dict(start, start)
    points = {
        "home_points": bf.HOME_VALUE[5],
        "outer_points": bf.OUTER_VALUE[1] + bf.OUTER_VALUE[6],
        "anchors": 1,
    }  # the 6-point; the 8- and 13-points; the 24-point
    assert f == {
        **dict.fromkeys(bf.FEATURE_NAMES, 0.0),
        "tempo": 1.0,
        "keith_total": 2 * (167 + 2),
        **{f"{name}_{side}": value for name, value in points.items() for side in ("mover", "opponent")},
    }
    assert bf.pip_count(start) == 167
    assert bf.heuristic(start, start) == pytest.approx(math.tanh(4.0 / bf.SCALE))  # the tempo alone


def test_features_feature_by_feature() -> None:
    # Own: a 4-prime on points 4..7 and a point on 13, blots on 9 and 20, two on the bar.
    own = row({4: 2, 5: 2, 6: 3, 7: 2, 9: 1, 13: 2, 20: 1}, bar=2)
    # The opponent, by its own points: 1 and 2 made (own 24 and 23), blots on its 11 and 22 (own 14
    # and 3), five on its 15 (own 10), one on the bar, 3 borne off.
    opp = row({1: 2, 2: 2, 11: 1, 15: 5, 22: 1}, bar=1)
    f = feature_dict(own, opp)
    assert f["race"] == 0.0
    pips_own = 4 * 2 + 5 * 2 + 6 * 3 + 7 * 2 + 9 + 13 * 2 + 20 + 25 * 2
    pips_opp = 1 * 2 + 2 * 2 + 11 + 15 * 5 + 22 + 25
    assert f["pip_lead"] == pips_opp - pips_own == -16
    # Keith: no wastage for own; the opponent's 1-point holds one checker beyond one (+2), its
    # 2-point too (+1), and its 4, 5 and 6 are empty (+3).
    assert (f["keith_lead"], f["keith_total"]) == (pips_opp + 6 - pips_own, pips_opp + 6 + pips_own)
    assert (f["blots_mover"], f["blots_opponent"]) == (2, 2)
    # Own blot on 9: the opponent's checker on own 3 hits it with a 6 (11 rolls of 36; 16 pips
    # lost); own blot on 20: its checker on own 14 hits it with a 6 (5 pips lost).
    assert f["shot_risk_mover"] == pytest.approx(11 / 36 * (16 + 5))
    # Its blot on own 14 (its 11): own 20 hits it with a 6 (14 pips lost for it); its blot on own 3
    # (its 22): own 4, 5, 6, 7 and 9 hit it with a 1, 2, 3, 4 or 6 (35 rolls; 3 pips lost).
    assert f["shot_risk_opponent"] == pytest.approx(11 / 36 * 14 + 35 / 36 * 3)
    home, outer = bf.HOME_VALUE, bf.OUTER_VALUE  # by point - 1 and point - 7
    assert f["home_points_mover"] == pytest.approx(home[3] + home[4] + home[5])
    assert f["home_points_opponent"] == pytest.approx(home[0] + home[1])
    assert f["outer_points_mover"] == pytest.approx(outer[0] + outer[6])  # points 7 and 13
    assert f["outer_points_opponent"] == pytest.approx(outer[8])  # its 15
    assert (f["anchors_mover"], f["anchors_opponent"]) == (0, 0)
    assert (f["prime_mover"], f["prime_opponent"]) == ((4 - 1) ** 2, (2 - 1) ** 2)
    assert (f["bar_mover"], f["bar_opponent"]) == (2, 1)
    assert (f["off_mover"], f["off_opponent"]) == (0, 3)
    score = np.array(bf.DEFAULT_WEIGHTS) @ np.array(list(f.values()))
    assert bf.heuristic(own, opp) == pytest.approx(math.tanh(score / bf.SCALE))


def test_anchors_and_long_primes() -> None:
    own = row({19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 18: 3})  # a 7-prime ending on 24
    opp = row({1: 15})
    f = feature_dict(own, opp)
    assert f["anchors_mover"] == 6
    assert f["outer_points_mover"] == bf.OUTER_VALUE[18 - 7]
    assert f["prime_mover"] == (6 - 1) ** 2  # capped at a full prime


def test_hit_chance() -> None:
    by_distances = [bf.HIT_CHANCE[(1 << k) - 1] * 36 for k in range(7)]  # the nearest k distances
    assert by_distances == pytest.approx([0, 11, 20, 27, 32, 35, 36])
    assert bf.HIT_CHANCE[0b100001] == bf.HIT_CHANCE[0b000011]  # any two numbers: 20 rolls


def test_contact_and_race() -> None:
    assert not bf.is_race(row(START), row(START))
    own = row({13: 15})
    assert bf.is_race(own, row({11: 15}))  # its 11 is own 14: the two have passed
    assert not bf.is_race(own, row({13: 15}))  # its 13 is own 12: ahead of own 13
    assert not bf.is_race(own, row({1: 14}, bar=1))  # a checker on the bar is behind everything
    assert not bf.is_race(row({2: 1}), row({24: 1}))  # its 24 is own 1, ahead of own 2
    assert bf.is_race(row({1: 1}), row({23: 1}))  # its 23 is own 2, behind own 1


def test_race_formula() -> None:
    own, opp = row({6: 5, 5: 5, 4: 5}), row({6: 6, 5: 5, 4: 4})
    f = feature_dict(own, opp)
    assert f["race"] == 1.0
    lead, total = f["keith_lead"], f["keith_total"]
    assert (lead, total) == (77.0 - 75.0, 77.0 + 75.0)
    z = (lead + 49 / 12) / math.sqrt(bf.ROLL_VARIANCE * total / (49 / 6))
    assert bf.heuristic(own, opp) == pytest.approx(math.erf(z / math.sqrt(2)))  # 2 Phi(z) - 1
    assert bf.ROLL_VARIANCE == pytest.approx(18.4722, abs=1e-4)
    # A race is worth more on roll than off it, and an even race favours the player on roll.
    assert bf.heuristic(own, opp) > -bf.heuristic(opp, own)
    assert bf.heuristic(own, own) > 0.0


def test_one_checker_left_is_almost_a_sure_win() -> None:
    last = row({3: 1})
    assert bf.finishes_this_roll(last) and bf.finishes_this_roll(row({1: 1, 2: 1}))
    assert not bf.finishes_this_roll(row({2: 2})) and not bf.finishes_this_roll(row({7: 1}))
    assert bf.heuristic(last, row({6: 5, 12: 10})) == 1.0  # race: it bears off with any roll
    assert bf.heuristic(last, row({24: 2, 12: 13})) > 0.99  # contact: the opponent holds its 1-point
    assert bf.heuristic(row({24: 2, 12: 13}), last) < -0.95


def test_mirrored_boards_swap_the_features() -> None:
    rng = np.random.default_rng(0)
    antisymmetric = np.array(bf.DEFAULT_WEIGHTS)
    antisymmetric[[bf.TEMPO, bf.SHOT_RISK_MOVER, bf.SHOT_RISK_OPPONENT]] = 0.0
    for mover in range(bf.BLOTS_MOVER, bf.NUM_FEATURES, 2):  # the pairs of weights are opposite
        assert antisymmetric[mover] == -antisymmetric[mover + 1]
    for _ in range(200):
        own, opp = random_board(rng)
        a, b = np.zeros(bf.NUM_FEATURES), np.zeros(bf.NUM_FEATURES)
        bf.features(own, opp, a)
        bf.features(opp, own, b)
        np.testing.assert_array_equal(b, swapped(a))
        assert a[bf.RACE] == bf.is_race(own, opp)
        assert antisymmetric @ a == pytest.approx(-(antisymmetric @ b))
        assert -1.0 <= bf.heuristic(own, opp) <= 1.0
        if a[bf.RACE]:  # both on roll: each side's chances are better on roll than off it
            assert bf.heuristic(own, opp) >= -bf.heuristic(opp, own)


def test_random_boards_are_legal() -> None:
    rng = np.random.default_rng(1)
    for _ in range(100):
        own, opp = random_board(rng)
        assert own.sum() == opp.sum() == bf.CHECKERS
        assert not np.any((own[:24] > 0) & (opp[:24][::-1] > 0))


# --- gammons ---------------------------------------------------------------------------------------


def test_the_pips_that_save_a_gammon_and_a_backgammon() -> None:
    start = row(START)
    assert bf.gammon_pips(start) == 3 * 2 + 5 * 7 + 2 * 18 + 6  # home, then one off the 6-point
    assert bf.backgammon_pips(start) == 2 * 6  # the two on the 24-point, out to the 18-point
    assert bf.gammon_pips(row({3: 2, 9: 1}, bar=1)) == 19 + 3 + 3  # the bar, the 9-point, off from 3
    assert bf.backgammon_pips(row({3: 2, 19: 1}, bar=1)) == 7 + 1
    assert bf.gammon_pips(row({1: 1, 5: 3})) == 1 and bf.backgammon_pips(row({18: 15})) == 0


def test_gammon_chances() -> None:
    start = row(START)
    winner = row({1: 2, 2: 2})
    assert bf.gammon_chances(row({13: 14}), winner, False, True) == (0.0, 0.0)  # one checker off
    assert bf.gammon_chances(row({13: 15}), row({3: 1}), False, True) == (1.0, 0.0)  # it finishes now
    assert bf.gammon_chances(row({12: 14, 20: 1}), row({3: 1}), False, True) == (1.0, 1.0)
    # A race: the normal model of the winner's Keith count against the loser's need plus half a roll.
    loser = row({8: 4, 5: 11})
    count = bf.keith_count(winner, bf.pip_count(winner))
    for on_roll in (False, True):
        need = bf.gammon_pips(loser) + bf.ROLL_PIPS
        z = (need - count + (-1 if on_roll else 1) * bf.ROLL_PIPS) / math.sqrt(
            bf.ROLL_VARIANCE * (need + count) / bf.ROLL_MEAN
        )
        gammon, backgammon = bf.gammon_chances(loser, winner, on_roll, True)
        assert gammon == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2))) and backgammon == 0.0
    assert bf.gammon_chances(loser, winner, True, True)[0] < bf.gammon_chances(loser, winner, False, True)[0]
    # Contact: a quarter of the losses at the start, more with a checker on the bar; a backgammon
    # only where the loser's checkers stay back while the winner bears off.
    gammon, backgammon = bf.gammon_chances(start, start, True, False)
    assert 0.2 < gammon < 0.3 and backgammon < 1e-6
    assert bf.gammon_chances(row({6: 5, 8: 3, 13: 5, 24: 1}, bar=1), start, True, False)[0] > gammon
    bearing_off = row({7: 1, 6: 1, 5: 2, 4: 3})  # 8 off; its 7-point keeps the contact below
    back = bf.gammon_chances(row({24: 2, 12: 13}), bearing_off, False, False)
    out = bf.gammon_chances(row({18: 2, 12: 13}), bearing_off, False, False)
    assert back[1] > 0.05 and out[1] == 0.0 and back[0] > out[0] > 0.5


def test_a_gammon_counts_only_where_the_loser_has_borne_off_nothing() -> None:
    weights = np.array(bf.DEFAULT_WEIGHTS)
    own = row({1: 2, 2: 2, 3: 2})  # far ahead in a race, 9 checkers off
    far, one_off = row({13: 15}), row({13: 14})
    for opp in (far, one_off):
        assert bf.equity(own, opp, weights, bf.SCALE, 1) == bf.heuristic(own, opp)
    assert abs(bf.heuristic(own, far) - bf.heuristic(own, one_off)) < 0.01  # the same win
    for points in (2, 3):
        assert bf.equity(own, far, weights, bf.SCALE, points) > 1.95  # a sure gammon
        assert bf.equity(own, one_off, weights, bf.SCALE, points) == bf.heuristic(own, one_off)
    # Sure wins: a single game, a gammon, a backgammon (a checker of the loser in the winner's home
    # board), worth 2 where a backgammon counts only as a gammon.
    last = row({3: 1})
    back = row({12: 14, 20: 1})  # its 20-point is own 5
    assert [bf.equity(last, one_off, weights, bf.SCALE, p) for p in (1, 2, 3)] == [1.0, 1.0, 1.0]
    assert [bf.equity(last, far, weights, bf.SCALE, p) for p in (1, 2, 3)] == [1.0, 2.0, 2.0]
    assert [bf.equity(last, back, weights, bf.SCALE, p) for p in (1, 2, 3)] == [1.0, 2.0, 3.0]
    # The loser's side: a gammon lost weighs as much as one won.
    assert bf.equity(far, own, weights, bf.SCALE, 3) < bf.heuristic(far, own) - 0.9


def test_equity_is_bounded_and_the_heuristic_at_one_point() -> None:
    rng = np.random.default_rng(5)
    weights = np.array(bf.DEFAULT_WEIGHTS)
    for _ in range(300):
        own, opp = random_board(rng)
        if own[bf.OFF] == bf.CHECKERS or opp[bf.OFF] == bf.CHECKERS:
            continue
        assert bf.equity(own, opp, weights, bf.SCALE, 1) == bf.heuristic(own, opp)  # bit for bit
        for points in (2, 3):
            value = bf.equity(own, opp, weights, bf.SCALE, points)
            assert -points <= value <= points
            if own[bf.OFF] and opp[bf.OFF]:  # no gammon either way
                assert value == bf.heuristic(own, opp)


# --- pubeval --------------------------------------------------------------------------------------


def test_pubeval_weights() -> None:
    assert bf.PUBEVAL_RACE.shape == bf.PUBEVAL_CONTACT.shape == (122,)
    # Spot checks against pubeval.c's wr and wc (first, middle and last entries).
    assert (bf.PUBEVAL_RACE[1], bf.PUBEVAL_RACE[97], bf.PUBEVAL_RACE[119], bf.PUBEVAL_RACE[121]) == (
        -0.17160,
        3.85390,
        -12.32252,
        3.42040,
    )
    assert (bf.PUBEVAL_CONTACT[0], bf.PUBEVAL_CONTACT[57], bf.PUBEVAL_CONTACT[120], bf.PUBEVAL_CONTACT[121]) == (
        0.25696,
        1.78389,
        5.62596,
        -2.75800,
    )
    assert not bf.PUBEVAL_RACE[:120:5].any()  # the race weights ignore the opponent's blots


def test_pubeval_inputs() -> None:
    mover = row({6: 5, 8: 3, 13: 4, 20: 1, 21: 1}, bar=1)
    opp = row({1: 1, 11: 2, 3: 3}, bar=2)  # its 1, 11 and 3 are the mover's 24, 14 and 22
    x = np.full(122, -1.0)
    bf.pubeval_inputs(mover, opp, x)
    expected = np.zeros(122)
    expected[0] = 1  # block 0, the mover's 24: the opponent's blot
    expected[5 * 3 + 1] = 1  # block 3, the mover's 21: a blot
    expected[5 * 4 + 1] = 1  # block 4, the mover's 20: a blot
    expected[[5 * 11 + 2, 5 * 11 + 4]] = 1, 0.5  # block 11, the mover's 13: four checkers
    expected[[5 * 16 + 2, 5 * 16 + 3]] = 1  # block 16, the mover's 8: three
    expected[[5 * 18 + 2, 5 * 18 + 4]] = 1, 1.0  # block 18, the mover's 6: five
    expected[120], expected[121] = 2 / 2, 0 / 15  # the opponent's bar, the mover's checkers off
    # Not inputs: the opponent's made points (its 11 and 3) and the mover's checker on the bar.
    np.testing.assert_array_equal(x, expected)


def test_pubeval_exact_scores() -> None:
    start = row(START)
    w = bf.PUBEVAL_CONTACT
    by_hand = w[2] + w[57] + w[59] + w[82] + w[83] + w[92] + w[94]  # blocks 0, 11, 16, 18
    assert bf.pubeval(start, start) == pytest.approx(by_hand) == pytest.approx(6.84055)
    mover, opp = row({2: 3}), row({3: 1})  # a race: three on the 2-point, 12 off
    w = bf.PUBEVAL_RACE
    assert bf.pubeval(mover, opp) == pytest.approx(w[112] + w[113] + 12 / 15 * w[121])
    assert bf.pubeval(mover, opp) == pytest.approx(-3.66465 - 2.56906 + 0.8 * 3.42040)
    assert bf.pubeval(row({}), opp) == bf.PUBEVAL_WIN


def test_pubeval_switches_weights_on_contact() -> None:
    mover = row({2: 3, 9: 2})
    race, contact = row({3: 1}), row({24: 1})  # its 24 is the mover's 1, ahead of the mover's 2
    x = np.zeros(122)
    for opp, weights in ((race, bf.PUBEVAL_RACE), (contact, bf.PUBEVAL_CONTACT)):
        bf.pubeval_inputs(mover, opp, x)
        assert bf.pubeval(mover, opp) == pytest.approx(weights @ x)
        assert bf.pubeval(mover, opp) == bf.pubeval_score(mover, opp, weights is bf.PUBEVAL_RACE)
    assert bf.pubeval_score(mover, contact, True) != bf.pubeval(mover, contact)


def test_pubeval_is_its_encoding_on_random_boards() -> None:
    rng = np.random.default_rng(2)
    x = np.zeros(122)
    for _ in range(200):
        mover, opp = random_board(rng)
        if mover[bf.OFF] == bf.CHECKERS:
            continue
        bf.pubeval_inputs(mover, opp, x)
        weights = bf.PUBEVAL_RACE if bf.is_race(mover, opp) else bf.PUBEVAL_CONTACT
        assert bf.pubeval(mover, opp) == pytest.approx(weights @ x)


# --- the evaluators on game states ----------------------------------------------------------------


def start_state(scoring: int = slots.WINLOSS) -> tuple:
    return slots.pack_state(CHANCE, 0, slots.initial_counts(), (0, 0), slots.start_meta(scoring, 1000))


def playout(seed: int, scoring: int = slots.WINLOSS) -> list[tuple]:
    """The non-terminal compact states of one random game."""
    rng = np.random.default_rng(seed)
    actions, probs = np.empty(rules.MAX_ACTIONS, dtype=np.int64), np.empty(64)
    s, states = start_state(scoring), []
    while s[0] != TERMINAL:
        states.append(s)
        if s[0] == CHANCE:
            n = rules.chance_outcomes(s, actions, probs)
        else:
            n = rules.legal_actions(s, actions)
        s = rules.apply(s, int(actions[rng.integers(n)]))
    return states


def rows_of(s, player: int) -> tuple[np.ndarray, np.ndarray]:
    """``player``'s row and its opponent's."""
    rows = np.zeros((2, 26), dtype=np.int64)
    rules.view(s, rows)
    return (rows[0], rows[1]) if rules.perspective(s) == player else (rows[1], rows[0])


def test_kernels_take_the_observer_point_of_view() -> None:
    for s in playout(0)[1:]:  # past the opening roll
        observer = rules.observer(s)
        if s[0] == CHANCE:  # the observer just moved; the other player is on roll
            roller = rows_of(s, 1 - observer)
            assert heuristic_kernel(s) == -bf.heuristic(*roller)
            mover = rows_of(s, observer)
        else:
            assert heuristic_kernel(s) == bf.heuristic(*rows_of(s, observer))
            mover = rows_of(s, 1 - observer)
        score = math.tanh(bf.pubeval(*mover) / PUBEVAL_SCALE)
        assert pubeval_kernel(s) == pytest.approx(score if s[0] == CHANCE else -score)


@pytest.mark.parametrize("scoring", [slots.WINLOSS, slots.GAMMONS, slots.FULL])
def test_a_roll_leaves_the_value_for_the_other_player(scoring: int) -> None:
    states = playout(1, scoring)
    pairs = [(states[i], states[i + 1]) for i in range(1, len(states) - 1) if states[i][0] == CHANCE]
    assert len(pairs) > 10
    for chance, decision in pairs:  # the same board: the roller's value is the mover's, negated
        assert heuristic_kernel(decision) == -heuristic_kernel(chance)
        assert pubeval_kernel(decision) == pytest.approx(-pubeval_kernel(chance))


def test_the_opening_roll() -> None:
    s = start_state()
    start = row(START)
    assert heuristic_kernel(s) == bf.heuristic(start, start)  # player 0, as if on roll
    assert pubeval_kernel(s) == pytest.approx(math.tanh(6.84055 / PUBEVAL_SCALE))  # as if it had moved


def test_values_are_scaled_by_the_largest_return() -> None:
    winloss = playout(2, slots.WINLOSS)
    weights = np.array(bf.DEFAULT_WEIGHTS)
    for scoring in (slots.GAMMONS, slots.FULL):
        states = playout(2, scoring)  # the same game: the scoring type changes only the returns
        assert len(states) == len(winloss)
        points = scoring + 1
        for a, b in zip(winloss[1:], states[1:]):
            assert pubeval_kernel(b) == pytest.approx(pubeval_kernel(a) / points)
            observer = rules.observer(b)
            if b[0] == CHANCE:  # the heuristic's expected points for the player on roll
                expected = -bf.equity(*rows_of(b, 1 - observer), weights, bf.SCALE, points)
            else:
                expected = bf.equity(*rows_of(b, observer), weights, bf.SCALE, points)
            assert heuristic_kernel(b) == pytest.approx(expected / points)
            assert -1.0 <= heuristic_kernel(b) <= 1.0


WINLOSS_VALUES = {
    1: 0.07982976911113136,
    10: -0.15973145812192754,
    19: -0.2516435165521945,
    82: 0.3505854687891237,
    163: -0.8263976284083356,
    172: 0.8895989244341314,
    181: 0.999855371689055,
    190: 0.9999252285152355,
}
"""`heuristic_kernel` of states of ``playout(5)`` (decision and chance nodes of both players, contact
and race, checkers borne off) by index, as the heuristic gave them before it valued gammons."""


def test_win_loss_values_are_those_of_the_win_loss_heuristic() -> None:
    states = playout(5)
    for index, value in WINLOSS_VALUES.items():
        assert heuristic_kernel(states[index]) == pytest.approx(value, rel=1e-12, abs=1e-15)
    for s in states[1:]:  # bit for bit the win/loss formula, from the observer
        own = rules.observer(s) if s[0] != CHANCE else 1 - rules.observer(s)
        value = bf.heuristic(*rows_of(s, own))
        assert heuristic_kernel(s) == (value if s[0] != CHANCE else -value)


@pytest.mark.parametrize("scoring_type", slots.SCORING_TYPES)
def test_the_loser_runs_from_a_backgammon_where_it_counts(scoring_type: str) -> None:
    """o (0 off, 77 pips, a checker on the bar) against x bearing off (6 off, 27 pips), 6-5 to play:
    running the checker out of x's home board (bar/19/14) and leaving it there (bar/19 13/8) move
    the same pips and bring the same checkers home; only the backgammon tells them apart."""
    game = rlgames.load_game("backgammon", scoring_type=scoring_type)
    state = game.state_from_position_id("WxsAAHyzDQgAAQ", dice=(5, 6), player=1)
    values = {
        state.action_to_string(a).split(" - ")[1]: heuristic_kernel(state.apply(a).compact)
        for a in state.legal_actions()
    }
    assert set(values) == {"Bar/19 6/1", "Bar/19 13/8", "Bar/19/14"}
    if scoring_type == "full_scoring":
        assert values["Bar/19/14"] > values["Bar/19 13/8"]
        assert max(values, key=values.__getitem__) == "Bar/19/14"
    else:
        assert values["Bar/19/14"] == values["Bar/19 13/8"]


@pytest.mark.parametrize("scoring_type", slots.SCORING_TYPES)
def test_max_points_is_the_largest_return(scoring_type: str) -> None:
    game = rlgames.load_game("backgammon", scoring_type=scoring_type)
    state = game.new_initial_state()
    assert max_points(state.compact) == game.info.utility[1] == game.kernels.max_return


def test_evaluators_on_states() -> None:
    evaluator, pubeval = BackgammonEvaluator(), PubevalEvaluator()
    assert evaluator.kernel is heuristic_kernel and pubeval.kernel is pubeval_kernel
    doubled = BackgammonEvaluator(weights=np.array(bf.DEFAULT_WEIGHTS) * 2)
    assert doubled.kernel is make_heuristic_kernel(tuple(doubled.weights.tolist()), bf.SCALE)
    rng = np.random.default_rng(4)
    state = rlgames.load_game("backgammon").new_initial_state()
    while not state.is_terminal():
        assert evaluator.value(state) == heuristic_kernel(state.compact)
        assert pubeval.value(state) == pubeval_kernel(state.compact)
        values = doubled.feature_values(state)
        assert doubled.score(state) == pytest.approx(2 * np.array(bf.DEFAULT_WEIGHTS) @ values)
        assert -1.0 <= doubled.value(state) <= 1.0
        state = state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("scoring", ["winloss_scoring", "enable_gammons", "full_scoring"])
def test_the_heuristics_outcomes_are_what_its_value_expects(scoring: str):
    """The outcome probabilities the cube reads from the hand-crafted evaluator have its value as their
    expected return, at decision and chance nodes, from either seat."""
    from evaluator_checks import random_states

    from rlgames.evaluators import load_evaluator
    from rlgames.evaluators.outcomes import consistent, outcome_value

    game = rlgames.load_game("backgammon", scoring_type=scoring)
    evaluator = load_evaluator("heuristic", game)
    states = random_states(game, 200, seed=5, max_plies=80)
    outcomes = evaluator.outcomes(states)
    points = (outcomes.shape[1] + 1) // 2
    assert points == 1 + ["winloss_scoring", "enable_gammons", "full_scoring"].index(scoring)
    assert {s.current_player() for s in states} >= {0, 1, CHANCE}
    for row, state in zip(outcomes, states):
        assert outcome_value(row, points) == pytest.approx(evaluator.value(state), abs=1e-12)
        named = consistent(row, points)
        assert all(0.0 <= p <= 1.0 for p in named.values()) and named.get("win_2", 0.0) <= named["win"]


def test_pubevals_chance_of_winning_is_its_fitted_logistic_in_contact_and_the_race_formula_in_a_race():
    from evaluator_checks import random_states

    from rlgames.evaluators import load_evaluator
    from rlgames.games.backgammon.evaluator import PUBEVAL_WIN_OFFSET, PUBEVAL_WIN_SLOPE

    game = rlgames.load_game("backgammon")
    evaluator = load_evaluator("pubeval", game)
    rows = np.zeros((2, 26), dtype=np.int64)
    seen = set()
    for state in random_states(game, 400, seed=6, max_plies=200):
        if not state.is_chance_node() or state.is_opening():
            continue
        (win,) = evaluator.outcomes([state])[0]
        rules.view(state.compact, rows)  # row 0 the roller, row 1 the mover
        race = bf.is_race(rows[1], rows[0])
        if race:
            expected = (1.0 - bf.heuristic(rows[0], rows[1])) / 2.0  # the race formula, for the roller
        else:
            expected = 1.0 / (1.0 + math.exp(-(PUBEVAL_WIN_SLOPE * bf.pubeval(rows[1], rows[0]) + PUBEVAL_WIN_OFFSET)))
        assert win == pytest.approx(expected, abs=1e-12)
        seen.add(race)
    assert seen == {False, True}
    with pytest.raises(ValueError, match="before a roll, after the opening"):
        evaluator.outcomes([game.new_initial_state()])

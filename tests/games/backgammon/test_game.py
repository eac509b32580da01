"""Backgammon: random games against OpenSpiel's ``backgammon`` (every scoring type, the turn limit),
the kernels against the facade, legality, `view`, the Position ID, wins of every kind from both seats,
and the notation.

Every test that compares with OpenSpiel has both ``backgammon`` and ``openspiel`` in its name:
``pytest -k "backgammon and openspiel"`` runs them (``-m slow`` adds the 10,000-game one).
"""

from collections import Counter

import numpy as np
import pyspiel
import pytest

import rlgames
from rlgames import CHANCE, TERMINAL, IllegalActionError
from rlgames.game import ILLEGAL
from rlgames.games.backgammon import Backgammon, BackgammonState
from rlgames.games.backgammon.generate import MAX_ACTIONS
from rlgames.games.backgammon.moves import MAX_LEGAL, PASS
from rlgames.games.backgammon.notation import point_of, position_id
from rlgames.games.backgammon.rules import KERNELS, dice, perspective, view
from rlgames.registry import describe_game, game_parameters

SCORING = ("winloss_scoring", "enable_gammons", "full_scoring")
START_ID = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def game() -> Backgammon:
    return rlgames.load_game("backgammon")


def spiel_game(**params) -> pyspiel.Game:
    return pyspiel.load_game("backgammon", params)


def random_states(game: Backgammon, games: int, seed: int) -> list[BackgammonState]:
    """Every state of ``games`` random games."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            states.append(state)
            state = state.apply(
                state.sample_chance_outcome(rng) if state.is_chance_node() else int(rng.choice(state.legal_actions()))
            )
        states.append(state)
    return states


def play_both(params: dict, games: int, seed: int, strings_for_every_action: int = 0) -> Counter:
    """Plays ``games`` random games in rlgames and in OpenSpiel side by side (chance drawn from a seeded
    generator, the same outcome applied to both), checking at every step the current player, the legal
    actions, the chance outcomes and their probabilities, the chosen action's string (every legal
    action's in the first ``strings_for_every_action`` games), and at the end the returns. Returns how
    often each return of player 0 came."""
    ours, theirs = rlgames.load_game("backgammon", **params), spiel_game(**params)
    rng = np.random.default_rng(seed)
    returns: Counter = Counter()
    for index in range(games):
        state, spiel = ours.new_initial_state(), theirs.new_initial_state()
        while not spiel.is_terminal():
            assert state.current_player() == spiel.current_player() and not state.is_terminal()
            legal = state.legal_actions()
            assert legal == spiel.legal_actions()
            if spiel.is_chance_node():
                outcomes = spiel.chance_outcomes()
                assert state.chance_outcomes() == outcomes
                action = outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0]
            else:
                action = legal[rng.integers(len(legal))]
            for a in legal if index < strings_for_every_action else [action]:
                assert state.action_to_string(a) == spiel.action_to_string(a)
            state = state.apply(action)
            spiel.apply_action(action)
        assert state.current_player() == TERMINAL and state.returns() == spiel.returns()
        returns[state.returns()[0]] += 1
    return returns


# --- against OpenSpiel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("scoring_type", SCORING)
def test_backgammon_random_games_match_openspiel(scoring_type):
    returns = play_both(
        {"scoring_type": scoring_type}, games=200, seed=SCORING.index(scoring_type), strings_for_every_action=10
    )
    points = 1 + SCORING.index(scoring_type)
    assert set(returns) <= {float(r) for r in range(-points, points + 1) if r}
    assert returns[1.0] and returns[-1.0]  # both seats win
    if points > 1:
        assert returns[2.0] + returns[-2.0]  # a gammon, scored


def test_backgammon_turn_limit_matches_openspiel():
    returns = play_both({"max_player_turns": 12}, games=60, seed=3)
    assert returns[0.0]  # some games reach the limit, drawn


def test_backgammon_game_info_matches_openspiel():
    for scoring_type in SCORING:
        info = describe_game("backgammon", scoring_type=scoring_type)
        spiel = spiel_game(scoring_type=scoring_type)
        assert info.num_actions == spiel.num_distinct_actions() == 1352
        assert info.utility == (spiel.min_utility(), spiel.max_utility())
        assert info.has_chance and spiel.max_chance_outcomes() <= info.num_actions
        assert info.max_game_length == spiel.max_game_length() + 1  # OpenSpiel's is one short: see below
    defaults = game_parameters("backgammon")
    spiel_defaults = spiel_game().get_parameters()
    assert defaults.pop("cube") is False  # rlgames' own parameter: OpenSpiel's backgammon has no cube
    assert all(defaults[key] == spiel_defaults[key] for key in defaults)
    assert KERNELS.max_actions == MAX_ACTIONS >= max(MAX_LEGAL, 36)


def test_backgammon_openspiel_max_game_length_is_one_short():
    """With a double on every later roll a game lasts 3 * max_player_turns + 1 actions (the opening roll
    is never a double): OpenSpiel's bound is 3 * max_player_turns, ours one more."""
    ours, spiel = rlgames.load_game("backgammon", max_player_turns=2), spiel_game(max_player_turns=2)
    state, theirs, length = ours.new_initial_state(), spiel.new_initial_state(), 0
    while not state.is_terminal():
        action = 31 if state.is_chance_node() and not state.is_opening() else state.legal_actions()[0]
        state, length = state.apply(action), length + 1
        theirs.apply_action(action)
    assert theirs.is_terminal() and length == 7 == ours.max_game_length == spiel.max_game_length() + 1
    assert state.termination() == "turn_limit" and state.returns() == [0.0, 0.0]


def test_backgammon_view_matches_openspiel_board():
    ours, theirs = rlgames.load_game("backgammon"), spiel_game()
    rng = np.random.default_rng(11)
    for _ in range(10):
        state, spiel = ours.new_initial_state(), theirs.new_initial_state()
        while not spiel.is_terminal():
            board = state.board()
            for player in (0, 1):
                tensor = np.array(spiel.observation_tensor(player))
                units = tensor[:96].reshape(24, 4)  # the observing player's points, by position
                counts = units[:, 0] + 2 * units[:, 1] + 3 * units[:, 2] + (units[:, 3] + 3) * (units[:, 3] > 0)
                for position in range(24):
                    assert board[player, point_of(position, player) - 1] == counts[position]
                assert board[player, 24] == tensor[192] and board[player, 25] == tensor[193]  # bar, borne off
            rows = state.view()
            me = state.perspective()
            assert np.array_equal(rows, board[[me, 1 - me]]) and (rows.sum(axis=1) == 15).all()
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
            state = state.apply(action)
            spiel.apply_action(action)


@pytest.mark.slow
def test_backgammon_matches_openspiel_over_ten_thousand_games():
    """10,002 games, the kernels against OpenSpiel at every step (legal actions, outcomes, player,
    returns), the three scoring types in turn; every 50th game also compares every action's string."""
    buffer = np.empty(MAX_ACTIONS, dtype=np.int64)
    probs = np.empty(MAX_ACTIONS, dtype=np.float64)
    rng = np.random.default_rng(2024)
    games = {s: (rlgames.load_game("backgammon", scoring_type=s), spiel_game(scoring_type=s)) for s in SCORING}
    for index in range(10_002):
        ours, theirs = games[SCORING[index % 3]]
        compact, spiel = ours.initial_compact_state(), theirs.new_initial_state()
        while not spiel.is_terminal():
            assert compact[0] == spiel.current_player()
            n = KERNELS.legal_actions(compact, buffer)
            legal = buffer[:n].tolist()
            assert legal == spiel.legal_actions()
            if index % 50 == 0 and compact[0] >= 0:
                state = BackgammonState(ours, compact)
                assert [state.action_to_string(a) for a in legal] == [spiel.action_to_string(a) for a in legal]
            if compact[0] == CHANCE:
                assert KERNELS.chance_outcomes(compact, buffer, probs) == n
                assert list(zip(legal, probs[:n].tolist())) == spiel.chance_outcomes()
            action = legal[int(rng.random() * n)]
            compact = KERNELS.apply(compact, action)
            spiel.apply_action(action)
        assert compact[0] == TERMINAL and [compact[1], -compact[1]] == spiel.returns()


# --- the kernels and the facade -------------------------------------------------------------------------
def test_kernels_match_the_facade_and_judge_legality(game):
    buffer = np.empty(MAX_ACTIONS, dtype=np.int64)
    for state in random_states(game, 6, seed=5):
        n = KERNELS.legal_actions(state.compact, buffer)
        legal = buffer[:n].tolist()
        assert legal == state.legal_actions()
        for action in legal:
            assert state.apply(action).compact == KERNELS.apply(state.compact, action)
        listed = set(legal)
        assert all((KERNELS.apply(state.compact, a)[0] != ILLEGAL) == (a in listed) for a in range(-2, 1354))


def test_illegal_actions_are_rejected(game):
    start = game.new_initial_state()
    for action in (30, 35, 1351, -1, 2**40):
        with pytest.raises(IllegalActionError):
            start.apply(action)  # the opening roll has 30 outcomes only
    state = start.apply(14)  # player 0 to move 2-5
    assert not state.is_legal(PASS) and not state.is_legal(11 + 676) and not state.is_legal(675)
    with pytest.raises(IllegalActionError, match="legal: 11 - 24/22 13/8"):
        state.apply(PASS)
    doubles = start.apply(14).apply(11).apply(31)  # player 1 to move 2-2
    assert doubles.current_player() == 1 and all(a < 676 for a in doubles.legal_actions())
    with pytest.raises(IllegalActionError):
        doubles.apply(doubles.legal_actions()[0] + 676)  # a double has no low-die-first actions


def test_doubles_give_a_second_half_to_the_same_player(game):
    state = game.new_initial_state().apply(14).apply(11).apply(33)  # player 1 rolls 4-4
    assert state.dice() == (4, 4, 4) and state.current_player() == 1
    second = state.apply(state.legal_actions()[0])
    assert second.current_player() == 1 and second.dice() == (4, 4, 2) and second.compact != state.compact
    after = second.apply(second.legal_actions()[0])
    assert after.is_chance_node() and after.perspective() == 0 and after.observer() == 1


def test_perspective_observer_and_dice(game):
    start = game.new_initial_state()
    assert perspective(start.compact) == 0 and start.observer() == 0 and dice(start.compact) == (0, 0, 0)
    state = start.apply(15)  # player 1 starts with 5-2
    assert state.current_player() == 1 and perspective(state.compact) == 1 and state.dice() == (2, 5, 2)
    roll = state.apply(state.legal_actions()[0])
    assert roll.is_chance_node() and roll.perspective() == 0 and roll.observer() == 1
    out = np.zeros((2, 26), dtype=np.int64)
    view(roll.compact, out)
    assert out[0].tolist() == roll.board()[0].tolist()


def test_observations_are_planes_from_the_players_view(game):
    for state in random_states(game, 2, seed=8)[:200]:
        for player in (0, 1):
            obs = state.observation(player)
            assert obs.shape == game.observation_shape == (9, 26) and obs.min() >= 0 and obs.max() <= 1
            board = state.board()
            assert obs[0, 25] == (board[player, 25] >= 1) and obs[4, 24] == (board[1 - player, 24] >= 1)
    start = game.new_initial_state().apply(14)
    obs = start.observation(0)
    assert obs[0:3, 5].tolist() == [1, 1, 1] and obs[3, 5] == pytest.approx(2 / 12)  # five on the 6-point
    assert obs[8, 1] == 1 and obs[8, 10] == 1 and obs[8, 13] == 1  # dice 2 and 5, player 0 on roll
    assert np.array_equal(game.new_initial_state().apply(15).observation(1)[:8], obs[:8])


def test_hash_keys_tell_states_apart(game):
    keys = {}
    for state in random_states(game, 3, seed=9):
        assert keys.setdefault(state.hash_key(), state.compact) == state.compact


# --- the Position ID -----------------------------------------------------------------------------------
def test_position_id_of_the_start_and_round_trips(game):
    assert game.new_initial_state().position_id() == START_ID
    for state in random_states(game, 3, seed=4):
        if state.is_terminal():
            continue
        low, high, _ = state.dice()
        copy = game.state_from_position_id(
            state.position_id(), player=state.perspective(), dice=(high, low) if low else None
        )
        assert np.array_equal(copy.board(), state.board()) and copy.position_id() == state.position_id()
        if low and (low != high or state.dice()[2] == 4):  # not the second half of a double
            assert copy.legal_actions() == state.legal_actions() and copy.current_player() == state.current_player()


def test_position_id_from_gnubg(game):
    """gnubg's example: the player on roll (here player 1) plays 21/17*(2) 11/7(2) with 4-4."""
    state = game.state_from_position_id("sG/BgCGMM+YAIw", dice=(4, 4), player=1)
    board = state.board()
    assert board[1, :24].tolist() == [0, 0, 2, 0, 0, 3, 0, 2, 0, 0, 2, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1]
    assert board[0, 7] == 1 and state.current_player() == 1 and state.position_id() == "sG/BgCGMM+YAIw"
    half = state.apply(state.string_to_action("21/17*(2)"))
    assert half.current_player() == 1 and half.board()[0, 24] == 1
    assert half.apply(half.string_to_action("11/7(2)")).is_chance_node()


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "4HPwATDgc/ABM",
        "4HPwATDgc/ABMA=",
        "4HPw ATDgc/ABM",
        "//////////////",
        "AAAAAAAAAAAAAA",
        "4HPwATDgc/AB//",
        42,
    ],
)
def test_bad_position_ids_raise_one_line(game, bad):
    with pytest.raises(ValueError) as error:
        game.state_from_position_id(bad)
    assert "\n" not in str(error.value) and "backgammon" in str(error.value)


def test_bad_setup_arguments_raise(game):
    for kwargs in ({"player": 2}, {"dice": (0, 3)}, {"dice": (1, 2, 3)}, {"dice": "12"}):
        with pytest.raises(ValueError):
            game.state_from_position_id(START_ID, **kwargs)
    for params in ({"scoring_type": "gammons"}, {"max_player_turns": 0}, {"max_player_turns": 1.5}):
        with pytest.raises(ValueError):
            rlgames.load_game("backgammon", **params)


# --- the end of the game -------------------------------------------------------------------------------
def last_checker_position(winner: int, loser_points: dict[int, int], bar: int = 0) -> np.ndarray:
    """A board where ``winner`` has one checker left on its 1-point and the loser has ``loser_points``
    (its own point: checkers) and ``bar`` checkers on the bar, the rest borne off."""
    board = np.zeros((2, 26), dtype=np.int64)
    board[winner, 0], board[winner, 25] = 1, 14
    for point, n in loser_points.items():
        board[1 - winner, point - 1] = n
    board[1 - winner, 24] = bar
    board[1 - winner, 25] = 15 - board[1 - winner].sum()
    return board


ENDINGS = {  # loser's checkers -> (termination, points under each scoring type)
    "single": (({6: 14}, 0), "normal", (1, 1, 1)),
    "gammon": (({6: 15}, 0), "gammon", (1, 2, 2)),
    "backgammon": (({6: 14, 20: 1}, 0), "backgammon", (1, 2, 3)),
    "backgammon_bar": (({6: 14}, 1), "backgammon", (1, 2, 3)),
}


@pytest.mark.parametrize("winner", [0, 1])
@pytest.mark.parametrize("ending", sorted(ENDINGS))
@pytest.mark.parametrize("scoring_type", SCORING)
def test_wins_of_every_kind_from_both_seats(winner, ending, scoring_type):
    (points, bar), termination, values = ENDINGS[ending]
    game = rlgames.load_game("backgammon", scoring_type=scoring_type)
    board = last_checker_position(winner, points, bar)
    state = game.state_from_position_id(position_id(board, winner), dice=(6, 5), player=winner)
    assert state.legal_actions() == [650 + (23 if winner == 0 else 0)]  # 1/off with the 6, a single move
    final = state.apply(state.string_to_action("1/off"))
    value = values[SCORING.index(scoring_type)]
    assert final.is_terminal() and final.returns() == ([value, -value] if winner == 0 else [-value, value])
    outcome = final.outcome()
    assert outcome.winner == winner and outcome.termination == termination == final.termination()
    assert "game over" in str(final)


# --- notation -------------------------------------------------------------------------------------------
def test_string_to_action_round_trips_and_reads_plain_moves(game):
    for state in random_states(game, 3, seed=6):
        if state.is_terminal():
            continue
        for action in state.legal_actions():
            assert state.string_to_action(state.action_to_string(action)) == action
    state = game.new_initial_state().apply(14)  # player 0 to move 2-5
    assert state.action_to_string(11) == "11 - 24/22 13/8"
    assert state.string_to_action("24/22 13/8") == state.string_to_action("13/8 24/22") == 11
    assert state.string_to_action("13/6") == state.string_to_action("13/11/6") == 427
    chance = game.new_initial_state()
    assert chance.string_to_action("25") == 14 and chance.string_to_action("5-2") == 15
    assert chance.string_to_action("chance outcome 3 O starts, (roll: 31)") == 3


@pytest.mark.parametrize(
    "text", ["not a move", "24/17", "pass", "25/20", "11 - 24/22 13/9", "9999 - x", "1/3", "", None]
)
def test_bad_moves_raise_one_line(game, text):
    state = game.new_initial_state().apply(14)
    with pytest.raises(ValueError) as error:
        state.string_to_action(text)
    assert "\n" not in str(error.value)


def test_bad_rolls_raise(game):
    for text in ("33", "roll 7", "chance outcome 30 X starts, (roll: 11)", "chance outcome x"):
        with pytest.raises(ValueError):
            game.new_initial_state().string_to_action(text)


def test_the_board_text_shows_points_dice_and_turn(game):
    start = game.new_initial_state()
    text = str(start.apply(15))
    assert "13 14 15 16 17 18" in text and "12 11 10  9  8  7" in text and "BAR" in text
    assert "o (player 1) to move, dice 2-5" in text and "pip count 167" in text and START_ID in text
    moved = start.apply(15)
    assert str(moved.apply(moved.string_to_action("24/22 13/8"))).count("x (player 0) to roll") == 1
    grid = start.board_grid()
    assert grid.shape == (11, 13) and (grid == 1).sum() == (grid == 2).sum() == 15


def test_lines_of_moves_are_separated_by_semicolons(game):
    state = game.state_from_moves("25; 24/22 13/8; 66")
    assert state.current_player() == 1 and state.dice() == (6, 6, 4)
    actions, label = game.parse_position_line("chance outcome 14 X starts, (roll: 25); 11 - 24/22 13/8")
    assert actions == (14, 11) and label is None

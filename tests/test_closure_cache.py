"""The on-disk cache of compiled closures (`rlgames.jit.cache`): keys equal across processes
exactly when the code is, a second process loads what the first compiled, and what cannot be
reloaded safely is not cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit

import rlgames
from rlgames.evaluators.rollout import RolloutEvaluator
from rlgames.jit.cache import Uncacheable, cache_closure, fingerprint
from rlgames.search.alphabeta.negamax import make_alphabeta


def _adder(k, table):
    @njit
    def add(x):
        return x + k + table[0]

    return add


def test_the_fingerprint_follows_closure_values_arrays_and_called_code():
    base = fingerprint(_adder(1, np.zeros(2)))
    assert fingerprint(_adder(1, np.zeros(2))) == base  # a new closure over equal values
    assert fingerprint(_adder(2, np.zeros(2))) != base
    assert fingerprint(_adder(1, np.ones(2))) != base
    assert fingerprint(_adder(1, np.zeros(2, dtype=np.float32))) != base
    assert fingerprint(_adder(1.0, np.zeros(2))) != base  # 1 and 1.0 compile differently

    @njit
    def one():
        return 1

    @njit
    def two():
        return 2

    def calling(f):
        @njit
        def g():
            return f()

        return g

    assert fingerprint(calling(one)) != fingerprint(calling(two))


_FINGERPRINTS = textwrap.dedent("""
    import rlgames
    from rlgames.agents import load_agent
    from rlgames.jit.cache import fingerprint

    game = rlgames.load_game("connect_four")
    agent = load_agent("alphabeta(depth=2, model=checkpoints/connect_four.nnue.pt)", game)
    print(fingerprint(agent.evaluator.kernel))
""")


def test_the_fingerprint_is_the_same_whatever_the_string_hash_seed():
    """An NNUE kernel's options hold a set (fastmath's flags), whose order follows the process's string
    hash seed: keyed by that order, every process missed the cache, compiled the search again (13 s for
    chess) and wrote one more file of up to 23 MB."""
    root = Path(__file__).resolve().parents[1]

    def key(seed: str) -> str:
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", _FINGERPRINTS], env=env, cwd=root, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.split()[-1]

    keys = {key(seed) for seed in ("0", "1", "2")}
    assert len(keys) == 1, keys


def test_a_search_around_a_process_specific_kernel_is_not_cached():
    """The rollout evaluator's kernel reaches its PRNG state by address: a search compiled around it
    would get a new key in every process."""
    game = rlgames.load_game("tic_tac_toe")
    kernel = RolloutEvaluator(game, rollouts=2, seed=0).kernel
    with pytest.raises(Uncacheable):
        fingerprint(kernel)
    assert type(make_alphabeta(game.kernels, kernel).search._cache).__name__ == "NullCache"


def test_a_closure_that_calls_the_interpreter_is_not_cached():
    @njit
    def now():
        with numba.objmode(t="float64"):
            t = 1.0
        return t

    def make():
        @njit
        def f():
            return now()

        return f

    f = cache_closure(make())
    assert type(f._cache).__name__ == "NullCache"
    assert f() == 1.0


_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from numba import njit
    from rlgames.jit.cache import cache_closure
    import rlgames
    from rlgames.evaluators import load_evaluator
    from rlgames.search.alphabeta.driver import AlphaBeta, AlphaBetaConfig
    from rlgames.search.alphabeta.negamax import make_alphabeta

    game = rlgames.load_game("tic_tac_toe")
    searcher = AlphaBeta(load_evaluator("heuristic", game), AlphaBetaConfig(depth=9))
    result = searcher.search(game.new_initial_state())
    compiled = make_alphabeta(game.kernels, searcher.evaluator.kernel, searcher.is_quiet, None).search

    def recursions(k):  # a recursion that the caller enters with a literal: compiled in two versions
        @njit(_nrt=False)
        def q(n, ws):
            return ws[0] if n <= 0 else q(n - 1, ws) + 1.0

        @njit(_nrt=False)
        def a(n, ws):
            return q(3, ws) if n <= 0 else a(n - 1, ws) + k

        @njit
        def entry(n, ws):
            return a(n, ws)

        return cache_closure(entry)

    entry = recursions(2)
    print(json.dumps({"value": result.value, "action": result.action, "nodes": result.stats.nodes,
                      "hits": sum(compiled.stats.cache_hits.values()),
                      "misses": sum(compiled.stats.cache_misses.values()),
                      "recursion": entry(5, np.ones(1)), "recursion_hits": sum(entry.stats.cache_hits.values())}))
""")


def _run(directory) -> dict:
    script = directory / "search_twice.py"  # its own closures are cached beside it
    script.write_text(_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_compiled_search_and_finds_the_same_result(tmp_path):
    first, second = _run(tmp_path), _run(tmp_path)  # the first may find the search cached already
    assert first["hits"] + first["misses"] >= 1
    assert second["hits"] >= 1 and second["misses"] == 0
    assert (second["value"], second["action"], second["nodes"]) == (first["value"], first["action"], first["nodes"])
    assert first["value"] == 0.0  # tic-tac-toe is a draw
    # The two-version recursion is left uncached (a new process would call an unfilled pointer).
    assert first["recursion"] == second["recursion"] == 1.0 + 3 + 2 * 5
    assert second["recursion_hits"] == 0


_ADDERS = textwrap.dedent("""
    import sys
    from numba import njit
    from rlgames.jit.cache import cache_closure

    def adder(k):
        @njit
        def add(x, n):  # recursive: called by its symbol, not inlined
            return x if n == 0 else add(x + k, n - 1)

        @njit
        def twice(x, n):
            return add(x, n)

        return cache_closure(twice)

    if __name__ == "__main__":
        print(*(adder(int(k))(0, 2) for k in sys.argv[1:]))
""")


def test_closures_cached_by_different_processes_run_their_own_code_in_one(tmp_path):
    """Closures of one factory compiled in two processes, then both loaded in a third: each runs its
    own code (numba names functions by a per-process counter, and a process's loaded libraries share
    one symbol table), and each entry has its own file."""
    script = tmp_path / "adders.py"
    script.write_text(_ADDERS)

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))  # the script imports nothing else to compile

    def run(*ks: int) -> list[int]:
        out = subprocess.run([sys.executable, str(script), *map(str, ks)], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        return [int(v) for v in out.stdout.split()]

    assert run(1) == [2] and run(2) == [4]  # each compiled and cached by its own process
    assert run(1, 2) == [2, 4] and run(2, 1) == [4, 2]  # both loaded from the cache into one process
    files = sorted(p.name for p in (tmp_path / "cache").rglob("adders.adder.locals.twice-*.nbc"))
    assert len(files) == 2 and all(len(name.split(".")[-2]) == 24 for name in files)  # named by key

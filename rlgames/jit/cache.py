"""On-disk caching for compiled closures: the searches that a factory specialises for one game.

``numba.njit(cache=True)`` caches a module-level function, but not a closure over other compiled
functions: numba keys a closure's cache entry on a pickle of its closure cells, and a pickled
dispatcher carries a random per-process id, so every process misses and compiles again (seconds to
tens of seconds per search, for every ``rlgames uci``, arena worker or test process).

`cache_closure` gives such a dispatcher numba's own file cache with a key that is stable across
processes: a fingerprint of everything its compiled code depends on, followed through the call graph:

- every reachable function's bytecode, constants, defaults and compile options;
- the values of its closure cells and of the globals it names, as they are when `cache_closure` is
  called (numba freezes both into the code): numbers and strings by value, arrays by dtype, shape
  and a hash of their bytes, tuples item by item, sets and dicts (a dispatcher's options: fastmath's flags)
  sorted, since their order follows the string hash seed, which differs between processes;
- the modules it names, by name and, for a module read from a file, that file's size and mtime.

An object of any other kind, or a function marked by `never_cache` (the rollout evaluator's kernel,
which reaches its PRNG state by address), makes the closure uncacheable: it compiles in each
process, as before.
Entries live in numba's cache directory beside the factory's source (``__pycache__``), and numba
discards them when that file, numba or the CPU changes.
"""

from __future__ import annotations

import builtins
import hashlib
import itertools
import os
import secrets
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numba.core import bytecode
from numba.core import types as nbtypes
from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile
from numba.core.codegen import RuntimeLinker
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher

__all__ = ["cache_closure", "fingerprint", "never_cache"]


# numba names each compiled function after its qualified name and a per-process counter, and two
# cached libraries loaded into one process share one symbol table: closures of one factory (one
# qualified name) compiled in two processes can come with the same names for different code, and
# the second library's calls then run the first's code. Counting from a random point in each process
# keeps names from different processes apart; entries named the old way are not reused (below).
bytecode.FunctionIdentity._unique_ids = itertools.count(secrets.randbits(48) << 8)
_KEY_VERSION = "per-process unique function names"


_DispatcherT = TypeVar("_DispatcherT", bound=Dispatcher)


class Uncacheable(TypeError):
    """A closure reaches an object whose value the fingerprint cannot describe."""


def cache_closure(dispatcher: _DispatcherT) -> _DispatcherT:
    """Enables the on-disk cache of ``dispatcher`` (an ``njit`` closure made by a factory), keyed by
    `fingerprint`; returns it. Left uncached where the fingerprint is impossible or the cache
    directory is not writable."""
    try:
        key = fingerprint(dispatcher)
        cache = _FingerprintCache(dispatcher.py_func, key)
    except (Uncacheable, RuntimeError):  # RuntimeError: numba found no usable cache directory
        return dispatcher
    dispatcher._cache = cache  # type: ignore[attr-defined]  # numba's stubs omit its private attributes
    return dispatcher


def never_cache(dispatcher: _DispatcherT) -> _DispatcherT:
    """Marks ``dispatcher`` as specific to this process (compiled code holding addresses of this
    process's memory): no closure that reaches it is cached, as its key would be new in every
    process and each would add an entry that none reuses. Returns it."""
    dispatcher._rlgames_process_specific = True  # type: ignore[attr-defined]  # a mark of our own, read by _Walker
    return dispatcher


class _CheckedImpl(CompileResultCacheImpl):
    """Refuses compiled code that calls a function it does not contain through a pointer that is
    filled in at run time (numba's ``.numba.unresolved$`` references, from a recursion compiled in
    two versions): a new process would call through the unfilled pointer."""

    def check_cachable(self, cres: Any) -> bool:
        return super().check_cachable(cres) and not unresolved_calls(cres.library)


def unresolved_calls(library: Any) -> list[str]:
    """The functions that ``library``'s final code calls through run-time pointers and lacks."""
    module = library._final_module
    defined = {f.name for f in module.functions if not f.is_declaration}
    prefix = RuntimeLinker.PREFIX
    return [
        g.name[len(prefix) :]
        for g in module.global_variables
        if g.name.startswith(prefix) and g.name[len(prefix) :] not in defined
    ]


class _KeyNamedFile(IndexDataCacheFile):
    """numba's index and data files, each data file named by a hash of its key. numba numbers them
    (the first number its index does not list), so two processes adding different entries at once
    (test workers, arena workers) could pick one number, and the index keep one key beside the
    other's code; named by key, a file only ever holds its own key's code. Stale files (of an edited
    source) are left behind instead of being overwritten."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        super().__init__(cache_path, filename_base, source_stamp)
        self._filename_base = filename_base

    def save(self, key: Any, data: Any) -> None:
        name = f"{self._filename_base}.{hashlib.sha256(repr(key).encode()).hexdigest()[:24]}.nbc"
        self._save_data(name, data)  # the code first: an index entry never names a missing file
        overloads = self._load_index()
        overloads[key] = name
        self._save_index(overloads)


class _FingerprintCache(FunctionCache):
    """numba's function cache, with the closure part of the index key replaced by a fingerprint and
    data files named by key."""

    _impl_class = _CheckedImpl

    def __init__(self, py_func: Callable[..., object], key: str) -> None:
        super().__init__(py_func)
        self._fingerprint = key
        old = self._cache_file
        self._cache_file = _KeyNamedFile(old._cache_path, old._index_name[: -len(".nbi")], old._source_stamp)

    def _index_key(self, sig: Any, codegen: Any) -> tuple:
        return (sig, codegen.magic_tuple(), self._fingerprint)


def fingerprint(obj: Any) -> str:
    """A hex digest of ``obj`` (a compiled function and all it reaches) that is equal across
    processes exactly when the compiled code would be; raises `Uncacheable`."""
    digest = hashlib.sha256(_KEY_VERSION.encode())
    _Walker(digest).visit(obj)
    return digest.hexdigest()


class _Walker:
    """Feeds a description of each object reached into a hash, visiting each object once."""

    def __init__(self, digest: Any) -> None:
        self.digest = digest
        self.seen: dict[int, int] = {}  # id -> order of first visit (back-references hash as that)
        self.keep: list[Any] = []  # keeps the visited objects alive so that their ids stay unique

    def feed(self, *parts: Any) -> None:
        for part in parts:
            self.digest.update(part if isinstance(part, bytes) else repr(part).encode())
            self.digest.update(b"\x00")

    def visit(self, obj: Any) -> None:
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            self.feed(type(obj).__name__, obj)
            return
        if id(obj) in self.seen:
            self.feed("ref", self.seen[id(obj)])
            return
        self.seen[id(obj)] = len(self.seen)
        self.keep.append(obj)
        self._visit_new(obj)

    def _visit_new(self, obj: Any) -> None:
        if isinstance(obj, (tuple, list)):
            self.feed(type(obj).__name__, len(obj))
            for item in obj:
                self.visit(item)
        elif isinstance(obj, (set, frozenset, dict)):  # in an order that is not the string hash seed's
            self.feed(type(obj).__name__, len(obj))
            for key in sorted(obj, key=repr):
                self.visit(key)
                if isinstance(obj, dict):
                    self.visit(obj[key])
        elif isinstance(obj, np.ndarray):
            self.feed("ndarray", obj.dtype.str, obj.shape, hashlib.sha256(np.ascontiguousarray(obj).data).digest())
        elif isinstance(obj, nbtypes.Type):
            self.feed("numba type", str(obj))
        elif isinstance(obj, np.generic):
            self.feed("npscalar", obj.dtype.str, obj.item())
        elif isinstance(obj, CPUDispatcher):
            if getattr(obj, "_rlgames_process_specific", False):
                raise Uncacheable(f"{obj.py_func.__qualname__} is specific to this process")
            self.feed("dispatcher")
            self.visit(obj.targetoptions)  # e.g. fastmath, a set of flags
            self.visit(obj.py_func)
        elif isinstance(obj, types.FunctionType):
            self._function(obj)
        elif isinstance(obj, types.ModuleType):
            self._module(obj)
        elif isinstance(obj, type):
            self.feed("type", obj.__module__, obj.__qualname__)
            module = sys.modules.get(obj.__module__)
            if module is not None:
                self.visit(module)
        elif hasattr(obj, "_defn") and hasattr(obj, "__module__"):  # a numba intrinsic or overload
            self.feed("template", type(obj).__name__, getattr(obj, "__qualname__", ""))
            self.visit(obj._defn)
        elif type(obj).__module__.split(".")[0] in ("numba", "llvmlite") and "0x" not in str(obj):
            self.feed("compiler object", type(obj).__qualname__, str(obj))  # e.g. an LLVM type
        else:
            raise Uncacheable(f"cannot fingerprint {type(obj).__qualname__}")

    def _function(self, func: types.FunctionType) -> None:
        self.feed("function", func.__module__, func.__qualname__)
        self.visit(func.__defaults__)
        self.visit(sorted((func.__kwdefaults__ or {}).items()))
        self._code(func.__code__, func.__globals__)
        for cell in func.__closure__ or ():
            self.visit(cell.cell_contents)

    def _code(self, code: types.CodeType, globals_: dict[str, Any]) -> None:
        if "objmode" in code.co_names:  # its compiled code holds this process's interpreter objects
            raise Uncacheable(f"{code.co_name} calls the interpreter (numba.objmode)")
        self.feed(code.co_code, code.co_names, code.co_varnames)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self._code(const, globals_)
            elif isinstance(const, frozenset):
                self.visit(const)
            else:
                self.feed(const)
        for name in code.co_names:
            if name in globals_:
                self.visit(globals_[name])
            elif not hasattr(builtins, name):
                self.feed("attribute", name)

    def _module(self, module: types.ModuleType) -> None:
        path = getattr(module, "__file__", None)
        stamp = None
        if path is not None:
            stat = os.stat(path)
            stamp = (stat.st_size, stat.st_mtime_ns)
        self.feed("module", module.__name__, path, stamp, getattr(module, "__version__", None))

"""The console-script entry point.

Agents start `gitstrata mcp` once per session, run `gitstrata query` / `gitstrata preflight`
once per question and `gitstrata index` after each commit, so these four are parsed here without Typer and Rich (a quarter of a second
of imports). Their parser is built from the same option specs as the Typer commands
(`options.py`). Anything it does not understand (`--help`, a usage error, every other command)
goes to the Typer CLI, which owns the help text and the error messages.

Whatever goes wrong ends here as one line on stderr and a non-zero exit, never a traceback:
`GitstrataError` (exit 1, with its hint), an argument that is not UTF-8 (exit 2), an operating
system error such as a path that is a file or a folder that is not writable (exit 1), Ctrl-C and
SIGTERM (exit 130 and 143: `finally` blocks still run, so an interrupted index publishes
nothing), a closed stdout (exit 141, as `head` expects). An unexpected exception is one line too,
naming its type; `GITSTRATA_DEBUG=1` shows its traceback.
"""

from __future__ import annotations

# nothing heavier than builtins here: until `run_guarded` owns Ctrl-C, the handler below does,
# and it is installed before anything else is imported. `_signal` is the C module behind
# `signal`, which imports `enum` (ten milliseconds in which Ctrl-C would be a traceback)
import functools
import os
import sys

TYPE_CHECKING = False  # `typing` costs milliseconds of the window before `main`
if TYPE_CHECKING:
    import signal as _signal
    from collections.abc import Callable
else:
    import _signal


def _interrupted_early(signum: int, frame: object) -> None:
    """Ctrl-C before a command started: nothing to clean up, so leave at once, quietly."""
    try:
        os.write(2, b"interrupted\n")
    finally:
        os._exit(130)


def _is_program() -> bool:
    """This process is the command line (the console script or `python -m gitstrata`), not a
    host that imported the module and owns its own Ctrl-C."""
    first = sys.argv[0] if sys.argv else ""
    name = os.path.basename(first).removesuffix(".exe")
    return name in ("gitstrata", "git-strata") or (
        name == "__main__.py" and os.path.basename(os.path.dirname(first)) == "gitstrata"
    )


# decided at import, before a host that imported this module rewrites `sys.argv` to call `main`
_PROGRAM = _is_program()

if _PROGRAM:
    try:
        _signal.signal(_signal.SIGINT, _interrupted_early)
    except ValueError:  # not the main thread
        pass


def _fast(argv: list[str]) -> Callable[[], None] | None:
    """A call for the fast path, or None to let Typer handle `argv`."""
    from pathlib import Path

    from .options import FAST_COMMANDS, parse_fast

    rest = list(argv)
    directory = Path(".")
    if rest[:1] == ["-C"] and len(rest) >= 2:
        directory, rest = Path(rest[1]), rest[2:]
    if not rest or rest[0] not in FAST_COMMANDS or any(a in ("-h", "--help") for a in rest):
        return None
    command = rest[0]
    ns = parse_fast(command, rest[1:])
    if ns is None:
        return None
    if command == "mcp":

        def run_mcp() -> None:
            _import_quietly(_server_modules)
            from .facade import serve_mcp

            serve_mcp(
                directory,
                ns.out or [],
                transport=ns.transport,
                host=ns.host,
                port=ns.port,
                allow_remote=ns.allow_remote,
            )

        return run_mcp
    if command == "query":

        def run_query() -> None:
            _one_shot()
            from .oneshot import run_query as q

            q(
                directory,
                ns.out,
                ns.text,
                file=ns.file,
                mode=ns.mode,
                top_k=ns.top_k,
                raw=ns.raw,
                as_json=ns.as_json,
            )
            _leave(0)

        return run_query

    if command == "index":

        def run_index() -> None:
            from .oneshot import run_index as i

            i(
                directory,
                ns.path,
                ns.out,
                rebuild=ns.rebuild,
                jobs=ns.jobs,
                executor=ns.executor,
                address=ns.address,
                start_from=ns.start_from,
                quiet=ns.quiet,
                progress_style=ns.progress_style,
                as_json=ns.as_json,
                preload=functools.partial(_import_quietly, _index_modules, batch=True),
            )
            _leave_written(0)

        return run_index

    def run_preflight() -> None:
        _one_shot()
        from .oneshot import run_preflight as p

        code = p(directory, ns.out, ns.file, symbol=ns.symbol, intent=ns.intent, as_json=ns.as_json)
        _leave(code)

    return run_preflight


def _import_quietly(load: Callable[[], None], batch: bool = False) -> None:
    """Run `load` (imports) with Python's cycle collector paused, then freeze what it made out
    of the collector's later passes and resume it: a long-running command (`mcp`, `index`)
    keeps collecting, but not over its modules, and its start-up does not scan them again and
    again; `batch` (`index`) then sets it for batch work (`collector.batch_collection`). Only
    the command line does this; a host that imported the package keeps its own."""
    if not _PROGRAM:
        load()
        return
    import gc

    from .store.collector import batch_collection, freeze_start_up

    gc.disable()
    try:
        load()
    finally:
        freeze_start_up()
        if batch:
            batch_collection()
        gc.enable()


def _server_modules() -> None:
    from .facade import preload

    preload("mcp")


def _index_modules() -> None:
    from .facade import preload

    preload("index")


def _one_shot() -> None:
    """A read-only answer that ends the process: Python's cycle collector is switched off. Its
    passes over the objects that imports and the first table reads create were 7 % of a
    one-shot `query`'s instructions; the cycles it would free (about 12 MB in a `query` on a
    2,000-commit repository) go with the process moments later."""
    if _PROGRAM:
        import gc

        gc.disable()


def _environment(argv: list[str]) -> None:
    """Settings the command line makes before anything imports Arrow or numpy, each unless the
    user's environment names it (the variables also reach child processes):

    - `OPENBLAS_THREAD_TIMEOUT=4`, every command: numpy's OpenBLAS helper threads go to sleep as
      soon as a product is done instead of spinning for about a tenth of a second waiting for
      the next one. Loading numpy alone starts them spinning: a one-shot `query` spent 0.1 s of
      its 0.6 s of CPU there, on the core the rest of the machine (the agent, the MCP client)
      needed; beside the other stages an incremental index spent 0.2-0.3 s. Large products
      still run on every core.
    - `ARROW_DEFAULT_MEMORY_POOL=system`, `gitstrata index` only: Arrow allocates through the C
      library's allocator. Arrow reads the variable once, when it first needs its default
      pool, which importing it can already do. An index builds, converts and frees many
      short-lived tables on several threads; Arrow's bundled mimalloc takes fresh 2 MB pages
      from the system for them, and the kernel zeroing those pages was a fifth of an
      incremental index's CPU on a 2-core machine.

    Measured in `benchmarks/RESULTS.md`. A host that calls the API keeps its own settings."""
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    rest = argv[2:] if argv[:1] == ["-C"] else argv
    if rest[:1] == ["index"]:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")


def _no_pydantic_plugins() -> None:
    """Pydantic looks for plugins among the entry points of every installed distribution when
    it builds its first validator, and importing `importlib.metadata` to do so alone cost 25-40
    ms of a one-shot command; the command line's models have none. Unless the user names
    plugins, they are off (`PYDANTIC_DISABLE_PLUGINS=__all__`), and pydantic's plugin loader is
    what that setting makes of it, one that finds none, without the import. Anything else a
    pydantic release may ask of its loader comes from the real one, loaded on that demand."""
    if "PYDANTIC_DISABLE_PLUGINS" in os.environ:
        return
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    if _LOADER not in sys.modules:
        import types

        loader = types.ModuleType(_LOADER)
        loader.get_plugins = tuple  # type: ignore[attr-defined]
        loader.__getattr__ = _real_loader_attribute  # type: ignore[method-assign]
        sys.modules[_LOADER] = loader


_LOADER = "pydantic.plugin._loader"


def _real_loader_attribute(name: str) -> object:
    """`name` of pydantic's own plugin loader (not for the import system's probes of a module's
    dunder names)."""
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return getattr(_real_loader(), name)


@functools.cache
def _real_loader() -> object:
    """Pydantic's plugin loader, run once from its file under another module name."""
    import importlib.util

    package = importlib.util.find_spec("pydantic.plugin")
    folders = package.submodule_search_locations if package is not None else None
    if not folders:
        raise AttributeError(_LOADER)
    spec = importlib.util.spec_from_file_location(
        "gitstrata._pydantic_plugin_loader", os.path.join(next(iter(folders)), "_loader.py")
    )
    if spec is None or spec.loader is None:
        raise AttributeError(_LOADER)
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)
    return real


def _kept_code() -> None:
    """The methods `@dataclass` writes and the annotations `typing` reads as text are compiled
    once, then read from the user's cache folder by later processes: compiling them was about
    60 ms of a one-shot command's half second (`store/codecache.py`)."""
    from .store.codecache import install

    install()


def _leave_written(code: int) -> None:
    """End an `index` whose generation is published and whose lock is released: the exit
    handlers run (the process pool's helpers are stopped, logs flushed), then the process
    exits without tearing down the interpreter, which took 0.13-0.16 s of a 1.6 s incremental
    index (freeing every table, frame and module)."""
    if not _PROGRAM or sys.gettrace() is not None or sys.getprofile() is not None:
        return
    import atexit

    atexit._run_exitfuncs()
    _leave(code)


def _leave(code: int) -> None:
    """End a read-only answer: its output flushed, the process exits at once. Tearing down the
    interpreter (every module, Arrow's and Tantivy's memory maps and thread pools) costs tens of
    milliseconds of a one-shot `query` or `preflight`, and they leave nothing to save. A host
    that imported the module, a debugger, a profiler or a coverage tracer gets a normal exit."""
    if not _PROGRAM or sys.gettrace() is not None or sys.getprofile() is not None:
        if code:
            sys.exit(code)
        return
    caches = sys.modules.get("gitstrata.store.usercache")
    if caches is not None:
        caches.save_all()  # the patterns compiled, the texts the firewall passed: for the next
    sys.stdout.flush()  # a closed pipe raises here, inside `run_guarded`: exit 141 as before
    sys.stderr.flush()
    os._exit(code)


def report_error(exc: BaseException) -> None:
    """One line plus the hint, on stderr: how every `GitstrataError` ends. A message holding a
    line break (a file named with a newline) is shown escaped on its one line."""
    from .store.errors import AmbiguousSymbol
    from .store.oneline import escape_breaks

    msg = escape_breaks(str(exc)) if str(exc) else type(exc).__name__

    if isinstance(exc, AmbiguousSymbol):  # one line per candidate, with the option picking it
        print(f"error: {exc.headline}", file=sys.stderr)
        for c in exc.candidates:
            print(f"  {c[0]}  lines {c[1]}-{c[2]}  (-s {exc.pick(c)})", file=sys.stderr)
    else:
        print(f"error: {msg}", file=sys.stderr)
    hint = getattr(exc, "hint", None)
    if hint:
        print(f"hint: {hint}", file=sys.stderr)


class Terminated(BaseException):
    """SIGTERM, raised where the main thread is so that cleanup runs as for Ctrl-C."""


# the line each signal the command received ends it with, in the order received: a library
# running Python callbacks from compiled code (pydantic building a validator) can turn the
# exception a handler raised into one of its own ("SchemaError: Error building ... validator")
_RECEIVED: list[str] = []


def _terminate(signum: int, frame: object) -> None:
    _RECEIVED.append("terminated")
    raise Terminated()


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C once the command runs: `KeyboardInterrupt`, as Python's own handler raises it."""
    _RECEIVED.append("interrupted")
    raise KeyboardInterrupt


def bad_argument(argv: list[str]) -> str | None:
    """The one-line complaint about the first argument that is not valid UTF-8 (the OS hands
    Python undecodable bytes as lone surrogates, which no output can print), else None."""
    for number, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            return f"argument {number} is not valid UTF-8: {shown[:60]!r}"
    return None


def _os_error(exc: OSError) -> str:
    what = exc.strerror or type(exc).__name__
    where = exc.filename if exc.filename is not None else None
    if where is None:
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else what
        return text
    return f"{where}: {what}"


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """A Ctrl-C that lands in a finaliser or a weakref callback cannot be raised there; Python
    would print it as a traceback and carry on. Deliver it again, where the command is: raised
    from here it would land in this hook, so a moment later, from another thread."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        import threading

        timer = threading.Timer(0.02, _signal.raise_signal, (_signal.SIGINT,))
        timer.daemon = True
        timer.start()
        return
    sys.__unraisablehook__(unraisable)


def run_guarded(call: Callable[[], None]) -> None:
    """Run one command; every way it can fail ends as one line and an exit status."""
    try:
        # from here Ctrl-C is a KeyboardInterrupt, so the command's `finally` blocks run
        if _signal.getsignal(_signal.SIGINT) is _interrupted_early:
            _signal.signal(_signal.SIGINT, _interrupt)
            sys.unraisablehook = _unraisable
        call()
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - the process edge: each kind reported below
        code = _report(exc)
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            _quiet_stdout()
        if code in (130, 143):
            # an interrupted run has nothing left to save (its `finally` blocks ran): leave
            # before exit handlers join worker pools, where a second Ctrl-C would land
            os._exit(code)
        sys.exit(code)


def _report(exc: BaseException) -> int:
    """Print the one line (and hint) for `exc`; the exit status."""
    if isinstance(exc, KeyboardInterrupt):
        said = "interrupted"
    elif isinstance(exc, Terminated):
        said = "terminated"
    else:  # a signal's exception that a library turned into another: the signal ends the run
        said = _RECEIVED[0] if _RECEIVED else ""
    if said:
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
        print(said, file=sys.stderr)
        return 130 if said == "interrupted" else 143
    from .store.errors import GitstrataError

    if isinstance(exc, GitstrataError):
        report_error(exc)
        return 1
    if isinstance(exc, BrokenPipeError):
        _quiet_stdout()
        return 141
    if isinstance(exc, RecursionError):
        message = "input nested too deeply to process"
    elif isinstance(exc, OSError):
        message = _os_error(exc)
    elif isinstance(exc, UnicodeError):
        message = f"text that is not valid UTF-8 ({getattr(exc, 'reason', exc)})"
    elif isinstance(exc, MemoryError):
        message = "out of memory"
    elif os.environ.get("GITSTRATA_DEBUG"):
        raise exc
    else:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"error: internal error: {type(exc).__name__}: {first}"[:500], file=sys.stderr)
        print(
            "hint: rerun with GITSTRATA_DEBUG=1 for the traceback, and report it", file=sys.stderr
        )
        return 1
    print(f"error: {message}", file=sys.stderr)
    return 1


def main() -> None:
    try:
        _signal.signal(_signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread (an embedding host): keep its handler
        pass
    argv = sys.argv[1:]
    if _PROGRAM:
        _no_pydantic_plugins()
        _kept_code()
        _environment(argv)
    problem = bad_argument(argv)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        print("hint: pass text and paths as UTF-8", file=sys.stderr)
        sys.exit(2)

    def dispatch() -> None:
        call = _fast(argv)
        if call is None:
            from .cli import main as cli_main

            cli_main()
        else:
            call()

    run_guarded(dispatch)

# TinyElf's host for Python user tools. TinyElf writes this file into its
# cache folder and runs it with python3; editing the copy has no lasting
# effect. Three modes:
#
#   host.py schemas   stdin {"modules": [{"name", "path"}], "timeout": s}
#                     stdout: one JSON line per module, {"event": "start"}
#                     then {"event": "done", ...what the module declares}
#   host.py call      stdin {"path", "tool", "schema", "args", "anima_dir"}
#                     stdout: one envelope, {"ok": true, "result": ...} or
#                     {"ok": false, "error": ..., "type": ..., "traceback": ...}
#   host.py cli PATH TOOL ARG...   runs the module's cli_main(argv)
#   host.py zygote    a fork server on the socket at fd 3: each request
#                     {"id", "env", "dir"} comes with three file
#                     descriptors (stdin, stdout, stderr); it forks a child
#                     that becomes exactly a "call" host on them, and
#                     answers {"id", "pid"}, later {"exit": pid, "code",
#                     "signal"}. A call then costs a fork, not a start.
#
# Whatever a tool prints goes to stderr: stdout carries only the protocol.
import json
import os
import sys


def _protocol_stdout():
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(fd, "w", encoding="utf-8")


def _install_helpers():
    """Puts TinyElf's Python library — tinyelf_tool and the seed's
    compatibility package core.tools._base — on the path, after the tool's
    own folder (which _load puts first, so a tool's own module of the same
    name wins)."""
    lib = os.path.splitext(os.path.abspath(__file__))[0] + ".lib"
    if os.path.isdir(lib) and lib not in sys.path:
        sys.path.insert(0, lib)


def _credential_calls(path):
    """The credentials a module's code asks for with arguments written out:
    get_credential(name, tool, key_name=..., env_var=...),
    resolve_env_style_credential(KEY) and get_env_or_fail(KEY, tool), so
    TinyElf can resolve them before a call. Returns (found, dynamic): the
    calls it could read, and how many name a credential only at run time."""
    import ast

    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return [], 0

    def literal(node, default=None):
        if node is None:
            return default
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
            return node.value
        raise ValueError("not a literal")

    found, dynamic = [], 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        if name == "get_credential":
            params = ["credential_name", "tool_name", "key_name", "env_var"]
        elif name in ("resolve_env_style_credential", "get_env_or_fail"):
            params = ["key", "tool_name"]
        else:
            continue
        args = dict(zip(params, node.args))
        args.update({k.arg: k.value for k in node.keywords if k.arg in params})
        try:
            if name == "get_credential":
                cred = literal(args.get("credential_name"))
                key = literal(args.get("key_name"), "api_key") or "api_key"
                env = literal(args.get("env_var")) or ""
                if not cred:
                    raise ValueError("no name")
                rec = {"credential": cred, "key": key, "env": env}
            else:
                env = literal(args.get("key"))
                if not env:
                    raise ValueError("no name")
                rec = {"env": env}
        except ValueError:
            dynamic += 1
            continue
        if rec not in found:
            found.append(rec)
    return found, dynamic


def _load(path, tool):
    import importlib.util

    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("tinyelf_usertool_" + tool, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %s as a Python module" % path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _describe(exc):
    if isinstance(exc, SyntaxError):
        where = "line %s" % exc.lineno if exc.lineno else "unknown line"
        return "syntax error at %s: %s" % (where, exc.msg)
    text = str(exc)
    return "%s: %s" % (type(exc).__name__, text) if text else type(exc).__name__


def _tail(limit=12):
    import traceback

    lines = traceback.format_exc().rstrip().splitlines()
    return "\n".join(lines[-limit:])


class _Hung(BaseException):
    pass


def _schemas(out):
    import signal

    req = json.load(sys.stdin)
    timeout = float(req.get("timeout") or 10)
    alarm = hasattr(signal, "setitimer")
    if alarm:

        def _on_alarm(signum, frame):
            raise _Hung()

        signal.signal(signal.SIGALRM, _on_alarm)
    for m in req["modules"]:
        name = m["name"]
        out.write(json.dumps({"event": "start", "name": name}) + "\n")
        out.flush()
        rec = {"event": "done", "name": name}
        try:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                mod = _load(m["path"], name)
                get = getattr(mod, "get_tool_schemas", None)
                schemas = get() if callable(get) else None
            finally:
                if alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            rec["schemas"] = schemas
            rec["has_schemas"] = callable(get)
            rec["profile"] = getattr(mod, "EXECUTION_PROFILE", None)
            rec["credentials"] = getattr(mod, "CREDENTIALS", None)
            rec["credential_calls"], rec["dynamic_credentials"] = _credential_calls(m["path"])
            rec["dispatch"] = callable(getattr(mod, "dispatch", None))
            rec["cli"] = callable(getattr(mod, "cli_main", None))
            names = [s.get("name") for s in schemas or [] if isinstance(s, dict)]
            rec["functions"] = [n for n in names if isinstance(n, str) and callable(getattr(mod, n, None))]
            doc = (mod.__doc__ or "").strip()
            rec["doc"] = doc.splitlines()[0] if doc else ""
            line = json.dumps(rec, default=str, ensure_ascii=False)
        except _Hung:
            line = json.dumps({"event": "done", "name": name, "error": "importing it did not finish within %gs (does it wait for something at import time?)" % timeout})
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: one module must not stop the scan
            line = json.dumps({"event": "done", "name": name, "error": _describe(exc), "traceback": _tail()}, default=str)
        out.write(line + "\n")
        out.flush()


def _call(out):
    req = json.load(sys.stdin)
    try:
        mod = _load(req["path"], req["tool"])
        name, args = req["schema"], req.get("args") or {}
        dispatch = getattr(mod, "dispatch", None)
        if callable(dispatch):
            args["anima_dir"] = req.get("anima_dir", "")
            result = dispatch(name, args)
        else:
            fn = getattr(mod, name, None)
            if not callable(fn):
                raise LookupError("the module has neither dispatch(name, args) nor a function named %s" % name)
            import inspect

            params = inspect.signature(fn).parameters
            if "anima_dir" in params or any(p.kind == p.VAR_KEYWORD for p in params.values()):
                args["anima_dir"] = req.get("anima_dir", "")
            result = fn(**args)
        if inspect_awaitable(result):
            import asyncio

            result = asyncio.run(result)
        text = json.dumps({"ok": True, "result": result}, default=str, ensure_ascii=False)
    except BaseException as exc:
        text = json.dumps({"ok": False, "error": _describe(exc), "type": type(exc).__name__, "traceback": _tail()}, default=str, ensure_ascii=False)
    out.write(text)
    out.flush()


def inspect_awaitable(value):
    return hasattr(value, "__await__") and callable(getattr(value, "__await__"))


def _cli(argv):
    path, tool, rest = argv[0], argv[1], argv[2:]
    mod = _load(path, tool)
    main = getattr(mod, "cli_main", None)
    if not callable(main):
        sys.stderr.write("%s has no cli_main(argv): add one to run it from the command line\n" % tool)
        return 2
    code = main(rest)
    return code if isinstance(code, int) else 0


def _zygote():
    import selectors
    import signal
    import socket

    # Warm what every call needs, once.
    import importlib.util  # noqa: F401
    import inspect  # noqa: F401
    import traceback  # noqa: F401

    import tinyelf_tool  # noqa: F401  (it reads its environment per call)

    # On Linux a child dies with the fork server (which dies with TinyElf),
    # as every other child process TinyElf starts does.
    prctl = None
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (ImportError, OSError, AttributeError):
            prctl = None
    me = os.getpid()

    sock = socket.socket(fileno=3)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    buf, fds = b"", []

    def send(msg):
        sock.sendall(json.dumps(msg).encode() + b"\n")

    def reap():
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if os.WIFSIGNALED(status):
                send({"exit": pid, "code": -1, "signal": os.WTERMSIG(status)})
            else:
                send({"exit": pid, "code": os.WEXITSTATUS(status), "signal": 0})

    def spawn(req, mine):
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                if prctl is not None:
                    prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
                if os.getppid() != me:
                    os._exit(70)
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for i, fd in enumerate(mine):
                    os.dup2(fd, i)
                os.closerange(3, 1 << 16)
                os.environ.clear()
                os.environ.update(req["env"])
                os.chdir(req["dir"])
                _call(_protocol_stdout())
                sys.stdout.flush()
            except BaseException:
                os._exit(70)
            os._exit(0)
        for fd in mine:
            os.close(fd)
        return pid

    while True:
        for key, _ in sel.select():
            if key.fileobj is sock:
                data, new, _, _ = socket.recv_fds(sock, 1 << 16, 192)
                if not data:
                    return
                buf += data
                fds += new
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    req = json.loads(line)
                    mine, fds = fds[:3], fds[3:]
                    if len(mine) != 3:
                        for fd in mine:
                            os.close(fd)
                        send({"id": req["id"], "error": "the request came without its three file descriptors"})
                        continue
                    try:
                        pid = spawn(req, mine)
                    except OSError as exc:
                        for fd in mine:
                            try:
                                os.close(fd)
                            except OSError:
                                pass
                        send({"id": req["id"], "error": str(exc)})
                    else:
                        send({"id": req["id"], "pid": pid})
            else:
                try:
                    os.read(wake_r, 512)
                except BlockingIOError:
                    pass
        reap()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    _install_helpers()
    if mode == "zygote":
        _zygote()
        return
    if mode == "cli":
        sys.exit(_cli(sys.argv[2:]))
    out = _protocol_stdout()
    if mode == "schemas":
        _schemas(out)
    elif mode == "call":
        _call(out)
    else:
        sys.stderr.write("unknown mode %r\n" % mode)
        sys.exit(2)


main()

"""The review web app: FastAPI serving one self-contained page and a small JSON API.

``GET /``                      the page (inline CSS and JS, nothing fetched from elsewhere)
``POST /api/next``             ``{"annotator"}`` → the annotator's task (reserved for them), or ``{"done": true}``
``POST /api/judgments``        ``{"annotator", "task", "scores": {"c0": 0-100, ...}, "notes": {"c0": "..."}}``
                               → 201 and progress (``notes`` optional, at most 300 characters each; in
                               output mode ``KIND: free text``, KIND one of frame, meaning, span,
                               label, grammar, correct)
``GET /api/progress``          ``?annotator=NAME`` → progress counts
``GET /api/config``            ``{"mode", "note_kinds", "max_note"}``: what the page needs to know
``GET /api/health``            ``{"ok": true}``

The app serves one review mode (:attr:`ReviewSettings.mode`): ``trigger`` tasks (Culkin et al.'s
question, with gold controls) or ``output`` tasks (is the whole output right?).

Every request is checked before it reaches an endpoint: a body over :data:`MAX_BODY` bytes is
refused with 413 (unread, never echoed), a Host header that is not the address the app serves on
with 400 (a page on another site cannot reach a loopback server through DNS rebinding), and a body
that does not validate with 422 naming the fields (its values, NaN or a 5 MB string, are not sent
back). Strings must be text (no lone surrogates) and task ids SQLite integers.

Each request opens the run store on its own connection (SQLite in WAL mode with a busy timeout),
so any number of annotators, server threads or even several server processes can share a store;
assignments and submissions are single ``BEGIN IMMEDIATE`` transactions.

FastAPI is imported here, at the top: this module is imported only by ``paraspan review`` and the
tests (FastAPI resolves the endpoints' annotations in this module's namespace).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import AfterValidator, BaseModel, Field

from paraspan.errors import format_code
from paraspan.pipeline.store import RunStore
from paraspan.review.tasks import (
    MAX_NOTE,
    NOTE_KINDS,
    ReviewError,
    ReviewSettings,
    ensure_tables,
    next_task,
    progress,
    submit,
)

#: The largest request body the app reads (a submission with 8 notes of MAX_NOTE characters is ~5 kB).
MAX_BODY = 64 * 1024
#: The largest integer SQLite stores: a task id beyond it cannot name a task.
MAX_ID = 2**63 - 1
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _text(value: str) -> str:
    """A string that UTF-8 (and so SQLite) can hold: lone surrogates are refused."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("holds a lone surrogate, which is not text") from None
    return value


Text = AfterValidator(_text)
Score = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)]
Note = Annotated[str, Field(max_length=MAX_NOTE), Text]
Slot = Annotated[str, Field(max_length=32), Text]
Annotator = Annotated[str, Field(min_length=1, max_length=64), Text]


class NextRequest(BaseModel):
    annotator: Annotator


class Submission(BaseModel):
    annotator: Annotator
    task: int = Field(ge=0, le=MAX_ID)
    scores: dict[Slot, Score] = Field(max_length=8)
    notes: dict[Slot, Note] | None = Field(default=None, max_length=8)


def allowed_hosts(host: str) -> frozenset[str]:
    """The Host header names a server bound to ``host`` answers to (a loopback address: all of loopback's)."""
    names = set(_LOOPBACK) if host in _LOOPBACK else {host}
    return frozenset(names | {f"[{name}]" for name in names if ":" in name})


def _host_name(header: str) -> str:
    """The host of a Host header, without its port (``[::1]:8000`` → ``[::1]``)."""
    if header.startswith("["):
        return header[: header.find("]") + 1] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class _Guard:
    """ASGI middleware: refuse a Host the app does not serve on (400) and a body over ``max_body`` (413)."""

    def __init__(self, app: Any, hosts: frozenset[str] | None, max_body: int) -> None:
        self.app, self.hosts, self.max_body = app, hosts, max_body

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = _host_name(headers.get("host", ""))
        if self.hosts is not None and host not in self.hosts:
            await _refuse(send, 400, "E141", host=host[:100], allowed=", ".join(sorted(self.hosts)))
            return
        length = headers.get("content-length", "")
        if length and (not length.isdigit() or int(length) > self.max_body):
            await _refuse(send, 413, "E140", limit=self.max_body, max_note=MAX_NOTE)
            return
        # read the body first (it is small): a chunked one without Content-Length is refused as it passes
        # the limit, before the app (whose body parser would call any error a 400) sees any of it
        messages: list[dict[str, Any]] = []
        seen = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                await _refuse(send, 413, "E140", limit=self.max_body, max_note=MAX_NOTE)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> dict[str, Any]:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


async def _refuse(send: Any, status: int, code: str, **fields: Any) -> None:
    import json

    message, hint = format_code(code, **fields)
    body = json.dumps({"detail": message, "hint": hint, "code": code}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def create_app(store_path: str | Path, settings: ReviewSettings | None = None, *, host: str | None = None,
               max_body: int = MAX_BODY) -> Any:
    """The ASGI app for ``store_path`` (tasks must have been prepared: :func:`prepare_tasks`).

    ``host``: the address it is served on (``paraspan review`` passes its ``--host``); requests whose
    Host header names another are refused (None, or a wildcard address: any Host, for an app mounted
    elsewhere or behind a proxy that checks it). ``max_body``: the largest body read.
    """
    settings = settings or ReviewSettings()
    store_path = Path(store_path)
    with RunStore.open(store_path) as store:  # fail now, not on the first request, when the path is wrong
        ensure_tables(store.conn)

    @contextmanager
    def opened() -> Iterator[RunStore]:
        store = RunStore.open(store_path)
        try:
            yield store
        finally:
            store.close()

    app = FastAPI(title="paraspan review", docs_url=None, redoc_url=None, openapi_url=None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # the fields and what is wrong with them, never their values (NaN does not serialize; a 5 MB
        # string would be sent back whole)
        details = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: "
                            f"{e.get('msg', 'invalid')}"[:200] for e in exc.errors()[:5])
        message, hint = format_code("E142", details=details)
        return JSONResponse({"detail": message, "hint": hint, "code": "E142"}, status_code=422)

    @app.exception_handler(ReviewError)
    async def _review_error(request: Request, exc: ReviewError) -> JSONResponse:
        return JSONResponse({"detail": exc.message, "hint": exc.problem.hint, "code": exc.code},
                            status_code=exc.status)

    page = (files("paraspan.review") / "data" / "review.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.get("/api/config")
    def config() -> dict[str, Any]:
        return {"mode": settings.mode, "note_kinds": list(NOTE_KINDS), "max_note": MAX_NOTE}

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {"ok": True}

    @app.post("/api/next")
    def next_(request: NextRequest) -> dict[str, Any]:
        with opened() as store:
            task = next_task(store.conn, request.annotator, settings)
            if task is None:
                return {"done": True, "progress": progress(store.conn, request.annotator.strip(), settings)}
            return task

    @app.post("/api/judgments", status_code=201)
    def judgments(submission: Submission) -> dict[str, Any]:
        with opened() as store:
            done = submit(store, submission.annotator, submission.task, dict(submission.scores), settings,
                          notes=dict(submission.notes or {}))
        return {"saved": len(submission.scores), "progress": done}

    @app.get("/api/progress")
    def progress_(annotator: Annotated[str | None, Query(max_length=64), Text] = None) -> dict[str, Any]:
        with opened() as store:
            return progress(store.conn, annotator.strip() if annotator else None, settings)

    hosts = allowed_hosts(host) if host is not None and host not in ("0.0.0.0", "::", "") else None
    app.add_middleware(_Guard, hosts=hosts, max_body=max_body)
    return app

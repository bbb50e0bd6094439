"""The review web app: FastAPI serving one self-contained page and a small JSON API.

``GET /``                      the page (inline CSS and JS, nothing fetched from elsewhere)
``POST /api/next``             ``{"annotator"}`` → the annotator's task (reserved for them), or ``{"done": true}``
``POST /api/judgments``        ``{"annotator", "task", "scores": {"c0": 0-100, ...}, "notes": {"c0": "..."}}``
                               → 201 and progress (``notes`` optional, at most 300 characters each; in
                               output mode ``KIND: free text``, KIND one of frame, meaning, span,
                               grammar, correct)
``GET /api/progress``          ``?annotator=NAME`` → progress counts
``GET /api/config``            ``{"mode", "note_kinds", "max_note"}``: what the page needs to know
``GET /api/health``            ``{"ok": true}``

The app serves one review mode (:attr:`ReviewSettings.mode`): ``trigger`` tasks (Culkin et al.'s
question, with gold controls) or ``output`` tasks (is the whole output right?).

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
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

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

Score = Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)]
Note = Annotated[str, Field(max_length=MAX_NOTE)]


class NextRequest(BaseModel):
    annotator: str = Field(min_length=1, max_length=64)


class Submission(BaseModel):
    annotator: str = Field(min_length=1, max_length=64)
    task: int
    scores: dict[str, Score] = Field(max_length=8)
    notes: dict[str, Note] | None = Field(default=None, max_length=8)


def create_app(store_path: str | Path, settings: ReviewSettings | None = None) -> Any:
    """The ASGI app for ``store_path`` (tasks must have been prepared: :func:`prepare_tasks`)."""
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
    def progress_(annotator: Annotated[str | None, Query(max_length=64)] = None) -> dict[str, Any]:
        with opened() as store:
            return progress(store.conn, annotator.strip() if annotator else None, settings)

    return app

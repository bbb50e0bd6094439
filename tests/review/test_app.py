"""The review app over HTTP: the page, the API, validation, and concurrent annotators."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient

from paraspan.pipeline.store import RunStore
from paraspan.review.app import create_app
from paraspan.review.stats import export_judgments
from paraspan.review.tasks import ReviewSettings


@pytest.fixture
def client(review_store):
    return TestClient(create_app(review_store, ReviewSettings(redundancy=2)), base_url="http://127.0.0.1")


def _counts(path) -> tuple[int, int]:
    with RunStore.open(path, readonly=True) as store:
        return (len(store.judgments()),
                store.conn.execute("SELECT COUNT(*) FROM review_responses").fetchone()[0])


def test_page_is_self_contained(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', page.text)
    assert "<script src" not in page.text and "<link" not in page.text
    assert client.get("/api/health").json() == {"ok": True}


def test_task_is_blind(client, review_store):
    task = client.post("/api/next", json={"annotator": "ann"}).json()
    assert [c["slot"] for c in task["candidates"]] == ["c0", "c1", "c2"]
    text = str(task)
    # the page is not told which candidate is the output, nor any sentence or output id
    for hidden in ("system", "gold", "~s0i", "output_id", "ref"):
        assert hidden not in text
    assert 2 <= len(task["examples"]) <= 3
    with RunStore.open(review_store, readonly=True) as store:
        output_id = store.conn.execute("SELECT output_id FROM review_tasks WHERE id = ?", (task["task"],)).fetchone()[0]
        source = store.source(output_id.split("~")[0]).text
    assert all(c["text"] != source for c in task["candidates"])


def test_submit_and_validation(client, review_store):
    task = client.post("/api/next", json={"annotator": "ann"}).json()
    good = {c["slot"]: 60 + i for i, c in enumerate(task["candidates"])}
    bad_requests = [
        ({"annotator": "ann", "task": task["task"], "scores": dict(good, c0=100.5)}, 422),
        ({"annotator": "ann", "task": task["task"], "scores": dict(good, c1=-3)}, 422),
        ({"annotator": "ann", "task": task["task"], "scores": dict(good, c2="high")}, 422),
        ({"annotator": "ann", "task": task["task"], "scores": {"c0": 50, "c1": 50}}, 422),  # one missing
        ({"annotator": "ann", "task": task["task"], "scores": dict(good, c7=50)}, 404),  # unknown item
        ({"annotator": "ann", "task": 987654, "scores": good}, 404),  # unknown task
        ({"annotator": "", "task": task["task"], "scores": good}, 422),
        ({"annotator": "someone-else", "task": task["task"], "scores": good}, 409),  # not their task
        ({"task": task["task"], "scores": good}, 422),
    ]
    for body, status in bad_requests:
        response = client.post("/api/judgments", json=body)
        assert response.status_code == status, (body, response.text)
        assert response.json()["detail"]
    assert _counts(review_store) == (0, 0)  # nothing stored by a bad request
    response = client.post("/api/judgments", json={"annotator": "ann", "task": task["task"], "scores": good})
    assert response.status_code == 201
    assert response.json()["progress"]["done_by_you"] == 1
    again = client.post("/api/judgments", json={"annotator": "ann", "task": task["task"], "scores": good})
    assert again.status_code == 409 and "already rated" in again.json()["detail"]
    assert _counts(review_store) == (1, 3)  # one judgment of the output, three responses, once
    with RunStore.open(review_store, readonly=True) as store:
        [judgment] = store.judgments()
        kinds = dict(store.conn.execute("SELECT kind, score FROM review_responses"))
    assert judgment.annotator == "ann" and judgment.score == kinds["system"]
    assert set(kinds) == {"system", "gold-in", "gold-out"}
    progress = client.get("/api/progress", params={"annotator": "ann"}).json()
    assert progress["ratings"] == 1 and progress["tasks"] == 16 and progress["target"] == 32


def test_done_when_nothing_is_left(tmp_path):
    from tests.review.conftest import prepared_store

    path = prepared_store(tmp_path / "run.db", sample=2)
    client = TestClient(create_app(path, ReviewSettings(redundancy=1)), base_url="http://127.0.0.1")
    for _ in range(2):
        task = client.post("/api/next", json={"annotator": "solo"}).json()
        body = {"annotator": "solo", "task": task["task"], "scores": {c["slot"]: 10 for c in task["candidates"]}}
        assert client.post("/api/judgments", json=body).status_code == 201
    done = client.post("/api/next", json={"annotator": "solo"}).json()
    assert done["done"] is True and done["progress"]["tasks_complete"] == 2
    assert client.post("/api/next", json={"annotator": "late"}).json()["done"] is True


def test_concurrent_annotators_on_a_live_server(live_server, review_store):
    """Eight annotators ask at once (threads, one real server): eight different tasks; then each
    submits twice at once: one 201 and one 409 each, every judgment stored once."""
    names = [f"ann{i}" for i in range(8)]

    def ask(name: str) -> dict:
        with httpx.Client(base_url=live_server.url, timeout=30) as http:
            return http.post("/api/next", json={"annotator": name}).json()

    with ThreadPoolExecutor(max_workers=8) as pool:
        tasks = list(pool.map(ask, names))
    assert len({t["task"] for t in tasks}) == 8

    def send(args: tuple[str, dict]) -> int:
        name, task = args
        body = {"annotator": name, "task": task["task"], "scores": {c["slot"]: 55 for c in task["candidates"]}}
        with httpx.Client(base_url=live_server.url, timeout=30) as http:
            return http.post("/api/judgments", json=body).status_code

    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(send, [(n, t) for n, t in zip(names, tasks, strict=True)] * 2))
    assert sorted(statuses) == [201] * 8 + [409] * 8
    assert _counts(review_store) == (8, 24)


# ---------------------------------------------------------------------------------------- output mode


@pytest.fixture
def output_client(review_output_store):
    return TestClient(create_app(review_output_store, ReviewSettings(redundancy=2, mode="output")),
                      base_url="http://127.0.0.1")


def test_output_mode_task_shows_source_and_output_spans_with_labels(output_client, review_output_store):
    assert output_client.get("/api/config").json() == {
        "mode": "output", "note_kinds": ["frame", "meaning", "span", "label", "grammar", "correct"], "max_note": 300}
    task = output_client.post("/api/next", json={"annotator": "ann"}).json()
    assert task["mode"] == "output" and task["kind"] == "frame" and task["candidates"] == [{"slot": "c0"}]
    with RunStore.open(review_output_store, readonly=True) as store:
        output_id = store.conn.execute("SELECT output_id FROM review_output_tasks WHERE id = ?",
                                       (task["task"],)).fetchone()[0]
        [record] = [r for r in store.iter_outputs() if r.id == output_id]
        source = store.source(record.input_id)
    assert task["source"]["text"] == source.text and task["output"]["text"] == record.sentence.text
    assert task["label"] == source.structures[0].label
    for view, sentence in ((task["source"], source), (task["output"], record.sentence)):
        structure = sentence.structures[0]
        assert len(view["spans"]) == 1 + len(structure.args)
        for arg in structure.args:
            marked = sentence.text[arg.start:arg.end]
            assert f'{marked}</mark><span class="tag arg">{arg.label}</span>' in view["html"]
            assert {"role": "arg", "label": arg.label, "text": marked}.items() <= next(
                s for s in view["spans"] if s["start"] == arg.start).items()
        anchor = sentence.text[structure.anchor.start:structure.anchor.end]
        assert f'{anchor}</mark><span class="tag anchor">{structure.label} ({structure.anchor.label})</span>' in view["html"]
    assert "~s0i" not in str(task) and "ref" not in str(task) and "output_id" not in str(task)


def test_output_mode_submit_with_notes_and_validation(output_client, review_output_store, tmp_path):
    task = output_client.post("/api/next", json={"annotator": "ann"}).json()
    base = {"annotator": "ann", "task": task["task"], "scores": {"c0": 25}}
    bad_requests = [
        (dict(base, notes={"c0": "m" * 301}), 422),  # over 300 characters
        (dict(base, notes={"c0": "no kind given"}), 422),
        (dict(base, notes={"c0": 5}), 422),
        (dict(base, notes={"c1": "span: x"}), 404),
        (dict(base, scores={"c0": 101}, notes={"c0": "span: x"}), 422),
    ]
    for body, status in bad_requests:
        response = output_client.post("/api/judgments", json=body)
        assert response.status_code == status, (body, response.text)
        assert response.json()["detail"]
    assert "KIND: free text" in output_client.post("/api/judgments", json=bad_requests[1][0]).json()["hint"]
    with RunStore.open(review_output_store, readonly=True) as store:
        assert store.judgments() == []
    note = ("meaning: " + "the buyer became the seller; " * 11)[:300]  # the most there may be
    assert len(note) == 300 and note == note.strip()
    response = output_client.post("/api/judgments", json=dict(base, notes={"c0": note}))
    assert response.status_code == 201 and response.json()["progress"]["done_by_you"] == 1
    with RunStore.open(review_output_store, readonly=True) as store:
        [judgment] = store.judgments()
        written, _ = export_judgments(store, tmp_path / "j.jsonl")
    assert judgment.score == 25.0 and json.loads(judgment.note)["note"] == note
    [line] = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert line["note"] == note and line["mode"] == "output" and line["task"] == task["task"]
    progress = output_client.get("/api/progress", params={"annotator": "ann"}).json()
    assert progress["ratings"] == 1 and progress["tasks"] == 16


def test_trigger_mode_takes_notes_too(client, review_store):
    task = client.post("/api/next", json={"annotator": "ann"}).json()
    assert task["mode"] == "trigger"
    scores = {c["slot"]: 60 for c in task["candidates"]}
    too_long = {"annotator": "ann", "task": task["task"], "scores": scores, "notes": {"c0": "n" * 301}}
    assert client.post("/api/judgments", json=too_long).status_code == 422
    notes = {slot: "looks fine" for slot in scores}  # free text: trigger notes have no KIND
    body = {"annotator": "ann", "task": task["task"], "scores": scores, "notes": notes}
    assert client.post("/api/judgments", json=body).status_code == 201
    with RunStore.open(review_store, readonly=True) as store:
        [judgment] = store.judgments()
    assert json.loads(judgment.note)["note"] == "looks fine" and "mode" not in json.loads(judgment.note)
    assert client.get("/api/config").json()["mode"] == "trigger"


# -- hostile requests: 4xx with what is wrong, never a 500, never the body echoed -----------------------------------


def _raw(client, path: str, body: bytes) -> httpx.Response:
    return client.post(path, content=body, headers={"content-type": "application/json"})


def test_lone_surrogates_nan_and_huge_ids_are_422_not_500(client, review_store):
    task = client.post("/api/next", json={"annotator": "ann"}).json()
    slots = [c["slot"] for c in task["candidates"]]
    scores = "{" + ", ".join(f'"{s}": 50' for s in slots) + "}"

    def submission(annotator: str = '"ann"', task_id: object = task["task"], score: str = scores,
                   notes: str = "") -> bytes:
        # raw JSON: json.dumps writes neither a lone surrogate escape nor NaN the way a hostile client may
        return (f'{{"annotator": {annotator}, "task": {task_id}, "scores": {score}{notes}}}').encode()

    bodies = [
        b'{"annotator": "\\ud800"}',
        submission(score=f'{{"{slots[0]}": NaN}}'),
        submission(score=f'{{"{slots[0]}": Infinity}}'),
        submission(task_id=2**70),
        submission(task_id=-1),
        submission(notes=f', "notes": {{"{slots[0]}": "\\udfff"}}'),
        submission(annotator='"a\\ud800"'),
    ]
    for body in bodies:
        path = "/api/next" if body.count(b'"') == 4 else "/api/judgments"
        response = _raw(client, path, body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["code"] == "E142"
    for encoded in ("%ED%A0%80", "%5Cud800", "%FF"):  # a surrogate as UTF-8, escaped, a byte that is no UTF-8
        assert client.get(f"/api/progress?annotator={encoded}").status_code in (200, 400, 422)
    assert _counts(review_store) == (0, 0)


def test_a_body_over_the_limit_is_413_and_not_echoed(client):
    big = b'{"annotator": "' + b"x" * 5_000_000 + b'"}'
    response = _raw(client, "/api/next", big)
    assert response.status_code == 413 and response.json()["code"] == "E140"
    assert len(response.content) < 1000

    def chunks():  # no Content-Length: counted as it streams
        yield b'{"annotator": "'
        for _ in range(200):
            yield b"x" * 10_000
        yield b'"}'

    response = client.post("/api/next", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413 and len(response.content) < 1000


def test_a_long_field_is_422_without_its_value(client):
    response = client.post("/api/next", json={"annotator": "y" * 50_000})
    assert response.status_code == 422 and "yyyy" not in response.text


def test_the_host_header_is_checked_against_the_bound_address(review_store):
    app = create_app(review_store, ReviewSettings(redundancy=2), host="127.0.0.1")
    for host in ("127.0.0.1", "localhost:8000", "[::1]:8000", "127.0.0.1:1234"):
        assert TestClient(app, base_url=f"http://{host}").get("/api/health").status_code == 200, host
    evil = TestClient(app, base_url="http://evil.example")
    response = evil.get("/api/health")
    assert response.status_code == 400 and response.json()["code"] == "E141"
    assert evil.post("/api/next", json={"annotator": "ann"}).status_code == 400
    served = create_app(review_store, ReviewSettings(redundancy=2), host="10.1.2.3")
    assert TestClient(served, base_url="http://10.1.2.3:8000").get("/api/health").status_code == 200
    assert TestClient(served, base_url="http://127.0.0.1").get("/api/health").status_code == 400
    for anywhere in (create_app(review_store, ReviewSettings(redundancy=2), host="0.0.0.0"),
                     create_app(review_store, ReviewSettings(redundancy=2))):
        assert TestClient(anywhere, base_url="http://any.name").get("/api/health").status_code == 200

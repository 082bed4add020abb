"""The console's labels: the SQLite store, uploads, the review queue and the exports."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import tactful
from tactful.errors import ConfigError, DataError
from tactful.service import (
    EXPORT_COLUMNS,
    BackgroundServer,
    LabelStore,
    ServiceSettings,
    create_app,
    parse_texts_file,
)
from tactful.service._schemas import ExportRow

LEX = tactful.load("lexicon")


def analyzed(texts: list[str]) -> list[tactful.Analysis]:
    return LEX.analyze(texts)


def wait_job(url: str, job_id: int) -> dict[str, object]:
    for _ in range(1200):
        job = httpx.get(f"{url}/console/api/jobs/{job_id}").json()
        if job["status"] != "running":
            return job
        time.sleep(0.05)
    raise AssertionError("the job did not finish")


# ------------------------------------------------------------------ the store


def test_queue_is_least_sure_first_and_labels_keep_who_and_when(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.sqlite")
    texts = ["you idiot", "hello", "what an idiot and a moron you are", "nice"]
    got = analyzed(texts)
    ids = store.add_items(
        model="lexicon",
        source="paste",
        rows=[(None, t) for t in texts],
        analyses=got,
        head="toxicity",
        threshold=0.6,
    )
    doubt = {i: abs(a.scores["toxicity"] - 0.6) for i, a in zip(ids, got, strict=True)}
    queue = store.queue(model="lexicon")
    assert [q["id"] for q in queue] == sorted(ids, key=lambda i: (doubt[i], i))
    assert [q["uncertainty"] for q in queue] == sorted(doubt.values())
    first = queue[0]
    label = store.add_label(first["id"], "not_toxic", who="Ana María", key=None)
    assert label["decision"] == ("override" if first["analysis"]["flagged"] else "accept")
    assert label["at"].endswith("Z") and len(label["at"]) == 20
    assert first["id"] not in [q["id"] for q in store.queue(model="lexicon")]
    assert store.queue(model="other") == []
    with pytest.raises(KeyError):
        store.add_label(10_000, "toxic", who="x")


def test_labels_survive_a_new_store_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "labels.sqlite"
    store = LabelStore(path)
    [item] = store.add_items(
        model="lexicon",
        source="paste",
        rows=[("a1", "you idiot")],
        analyses=analyzed(["you idiot"]),
        head="toxicity",
        threshold=0.5,
    )
    store.add_label(item, "toxic", who="ann")
    store.add_label(item, "not_toxic", who="bob")  # a later label is a new row; the newest counts
    again = LabelStore(path)
    rows = again.export_rows()
    assert [(r["who"], r["label"], r["ext_id"]) for r in rows] == [
        ("ann", "toxic", "a1"),
        ("bob", "not_toxic", "a1"),
    ]
    assert again.items([item])[0]["label"] == "not_toxic"
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_exports_hold_every_column_and_any_text(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.sqlite")
    texts = ['a "quoted", comma\nnew line', "lone \ud800 surrogate", "emoji 😀 idiot"]
    ids = store.add_items(
        model="lexicon",
        source="x.csv",
        rows=[(str(i), t) for i, t in enumerate(texts)],
        analyses=analyzed(texts),
        head="toxicity",
        threshold=0.5,
    )
    for i in ids:
        store.add_label(i, "toxic", who="ann", key="team-a")
    assert list(ExportRow.model_fields) == list(EXPORT_COLUMNS)
    jsonl = [json.loads(line) for line in store.export_jsonl().splitlines()]
    assert [r["text"] for r in jsonl] == texts  # exact, lone surrogate included
    assert all(list(r) == list(EXPORT_COLUMNS) for r in jsonl)
    rows = list(csv.DictReader(io.StringIO(store.export_csv())))
    assert [r["text"] for r in rows] == [texts[0], "lone \ufffd surrogate", texts[2]]
    assert list(rows[0]) == list(EXPORT_COLUMNS)
    assert {r["key"] for r in rows} == {"team-a"}
    assert store.items(ids)[1]["text"] == texts[1]


def test_a_file_is_imported_once_per_moderator(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.sqlite")
    first = store.start_job(model="lexicon", source="f.csv", total=2, digest="abc")
    assert first[1] is True
    assert store.start_job(model="lexicon", source="f.csv", total=2, digest="abc") == (
        first[0],
        False,
    )
    assert store.start_job(model="builtin", source="f.csv", total=2, digest="abc")[1] is True
    # A job a stopped server left running is marked interrupted, and may be started afresh.
    assert store.interrupt_running_jobs() == 2
    assert store.job(first[0])["status"] == "interrupted"
    again = store.start_job(model="lexicon", source="f.csv", total=2, digest="abc")
    assert again[1] is True and again[0] != first[0]


def _start_same_job(path: Path, out: Any) -> None:
    out.put(LabelStore(path).start_job(model="m", source="f.csv", total=1, digest="same"))


def test_workers_importing_the_same_file_get_one_job(tmp_path: Path) -> None:
    path = tmp_path / "labels.sqlite"
    LabelStore(path)
    ctx = multiprocessing.get_context("fork")  # quick; the child opens its own connection
    out = ctx.Queue()
    procs = [ctx.Process(target=_start_same_job, args=(path, out)) for _ in range(4)]
    for p in procs:
        p.start()
    got = sorted(out.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    assert [new for _, new in got] == [False, False, False, True]
    assert len({job_id for job_id, _ in got}) == 1


def test_jobs_of_live_workers_are_not_interrupted(tmp_path: Path) -> None:
    store = LabelStore(tmp_path / "labels.sqlite")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    owners = {
        "live": f"{socket.gethostname()}:1",  # another worker still running (init never exits)
        "dead": f"{socket.gethostname()}:{gone.pid}",  # a worker that was stopped
    }
    ids = {}
    for name, owner in owners.items():
        ids[name], _ = store.start_job(model="m", source=name, total=1, digest=name)
        with sqlite3.connect(store.path) as db:
            db.execute("UPDATE jobs SET owner = ? WHERE id = ?", (owner, ids[name]))
    assert store.interrupt_running_jobs() == 1
    assert store.job(ids["live"])["status"] == "running"
    assert store.job(ids["dead"])["status"] == "interrupted"


def test_a_missing_folder_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(tactful.errors.ConfigError, match="does not exist"):
        LabelStore(tmp_path / "nope" / "labels.sqlite")


# ------------------------------------------------------------------ parsing uploads


def test_parse_csv_and_jsonl() -> None:
    csv_data = b'id,text,score\n7,"hello, you",0.4\n8,"multi\nline",0.5\n'
    assert parse_texts_file(csv_data, "needs_human.csv", max_chars=100) == [
        ("7", "hello, you"),
        ("8", "multi\nline"),
    ]
    jsonl = b'{"id": "a1", "text": "a"}\n\n{"id": 9, "text": "b", "extra": true}\n'
    assert parse_texts_file(jsonl, "needs_human.jsonl", max_chars=100) == [
        ("a1", "a"),
        ("9", "b"),
    ]
    # Without ids, the row number; a BOM is dropped.
    assert parse_texts_file("\ufefftext\nb\nc\n".encode(), "up.csv", max_chars=9) == [
        ("0", "b"),
        ("1", "c"),
    ]


@pytest.mark.parametrize(
    ("data", "name", "error", "message"),
    [
        (b"id,text\n1,caf\xe9\n", "f.csv", DataError, "f.csv:2: not UTF-8 text (byte 0xe9"),
        (b"id,body\n1,x\n", "f.csv", DataError, "f.csv: row 0 has no text in column 'text'"),
        (b'{"text": "a"}\n{"text": 3}\n', "f.jsonl", DataError, "f.jsonl: row 1 has no text"),
        (b'{"text": "a"}\n{oops\n', "f.jsonl", DataError, "f.jsonl:2: not JSON"),
        (b"id,text\n1,a\n1,b\n", "f.csv", DataError, "f.csv: the id '1' occurs more than once."),
        (b"text\n", "f.csv", DataError, "f.csv holds no texts."),
        (b"", "f.jsonl", DataError, "f.jsonl holds no texts."),
        (
            b"text\nshort\nmuch too long\n",
            "f.csv",
            DataError,
            "f.csv: row 1 has 13 characters (at most 10).",
        ),
        (b"text\na\n", "upload", ConfigError, "upload: unknown file type '(no suffix)'"),
    ],
    ids=[
        "non-utf8",
        "no-text-column",
        "text-not-str",
        "bad-json",
        "repeated-id",
        "empty-csv",
        "empty-jsonl",
        "too-long",
        "no-suffix",
    ],
)
def test_parse_errors_name_the_file_and_line(
    data: bytes, name: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        parse_texts_file(data, name, max_chars=10)
    text = str(info.value)
    assert text.removeprefix(f"[{info.value.code}] ").startswith(message)  # type: ignore[attr-defined]
    assert "tactful-upload-" not in text  # the temporary copy is not named


# ------------------------------------------------------------------ through the server


def test_upload_queue_label_export_over_http(tmp_path: Path) -> None:
    app = create_app(ServiceSettings(moderators=("lexicon",), labels=tmp_path / "l.sqlite"))
    rows = [
        {"id": f"r{i}", "text": t}
        for i, t in enumerate(
            ["you idiot", "hello", "you absolute moron", "a <b>bold</b> move", "thanks"] * 8
        )
    ]
    body = "".join(json.dumps(r) + "\n" for r in rows).encode()
    with BackgroundServer(app) as srv:
        srv.wait_ready()
        job = httpx.post(srv.url + "/console/api/jobs?name=needs_human.jsonl", content=body)
        assert job.status_code == 202
        done = wait_job(srv.url, job.json()["id"])
        assert (done["status"], done["done"], done["total"]) == ("done", 40, 40)
        items = httpx.get(f"{srv.url}/console/api/jobs/{done['id']}/items").json()["items"]
        assert [(i["ext_id"], i["text"]) for i in items] == [(r["id"], r["text"]) for r in rows]
        assert [i["analysis"] for i in items] == [
            a.to_dict() for a in analyzed([r["text"] for r in rows])
        ]
        # The same file again: the same job, no duplicates.
        again = httpx.post(srv.url + "/console/api/jobs?name=needs_human.jsonl", content=body)
        assert again.json()["id"] == done["id"]
        queue = httpx.get(srv.url + "/console/api/queue?limit=1000").json()["items"]
        assert len(queue) == 40
        assert [q["uncertainty"] for q in queue] == sorted(q["uncertainty"] for q in queue)
        label = httpx.post(
            srv.url + "/console/api/labels",
            json={"item_id": queue[0]["id"], "label": "toxic"},
            headers={"X-Moderator-Name": "Ann   Lee"},
        ).json()
        assert label["who"] == "Ann Lee"
        bad = httpx.post(srv.url + "/console/api/labels", json={"item_id": 1, "label": "maybe"})
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "label"
        missing = httpx.post(
            srv.url + "/console/api/labels", json={"item_id": 999, "label": "toxic"}
        )
        assert missing.status_code == 404
        broken = httpx.post(srv.url + "/console/api/jobs?name=x.jsonl", content=b'{"text": 1}\n')
        assert broken.status_code == 400
        assert broken.json()["error"]["message"].startswith("x.jsonl: row 0 has no text")
        exported = httpx.get(srv.url + "/console/api/labels.csv")
        assert exported.headers["content-type"].startswith("text/csv")
        [row] = list(csv.DictReader(io.StringIO(exported.text)))
        assert (row["ext_id"], row["who"], row["label"]) == (queue[0]["ext_id"], "Ann Lee", "toxic")
        jsonl = httpx.get(srv.url + "/console/api/labels.jsonl").text.splitlines()
        assert json.loads(jsonl[0])["item_id"] == queue[0]["id"]


def test_needs_human_file_is_queued_at_start_once(tmp_path: Path) -> None:
    needs = tmp_path / "needs_human.csv"
    needs.write_text("id,text,score\n1,you idiot,0.5\n2,hello,0.4\n", encoding="utf-8")
    settings = ServiceSettings(
        moderators=("lexicon",), labels=tmp_path / "l.sqlite", needs_human=needs
    )
    for _ in range(2):  # a restart does not queue the file twice
        with BackgroundServer(create_app(settings)) as srv:
            srv.wait_ready()
            for _ in range(200):
                queue = httpx.get(srv.url + "/console/api/queue").json()["items"]
                if len(queue) == 2:
                    break
                time.sleep(0.05)
            assert sorted(q["ext_id"] for q in queue) == ["1", "2"]

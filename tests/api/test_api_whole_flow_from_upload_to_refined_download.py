"""The whole job over HTTP with a token, as a script would do it: upload a BEIR zip, run
BM25, build a pool, launch a debate job (scripted test agents), follow it, refine, download
the refined qrels and the re-benchmark tables."""

import io
import zipfile

import pytest

from tests.fixtures.api import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

AGREE = {"backend": "test", "name": "agree"}


def _ok(answer, status=200):
    assert answer.status_code == status, answer.content.decode()[:2000]
    return answer.json()


def test_an_admin_scripts_upload_bm25_pool_job_refine_and_download(api_as, beir_zip, fake_llms):
    from debates.llm.scripted import RuleClient
    from tests.fixtures.jobs import reply

    fake_llms(agree=RuleClient(lambda messages: reply(1)))
    api = api_as("admin")

    started = _ok(
        api.post(
            "/api/v1/datasets",
            {"name": "Tiny BEIR", "archive": _upload("tiny.zip", beir_zip())},
        ),
        202,
    )
    done = wait_for(
        lambda: _ok(api.get(started["url"])), lambda op: op["status"] in ("done", "failed")
    )
    assert (done["status"], done["result"]) == (
        "done",
        {
            "dataset": "tiny-beir",
            "name": "Tiny BEIR",
            # No text of the tiny set is over the over-long bound (DREAM_LONG_TEXT_CHARS).
            "long_texts": {
                "chars": 100_000,
                "queries": 0,
                "documents": 0,
                "query_ids": [],
                "document_ids": [],
            },
        },
    )
    dataset = _ok(api.get("/api/v1/datasets/tiny-beir"))
    assert (dataset["documents"], dataset["queries"]) == (3, 2)
    assert [q["name"] for q in dataset["qrel_sets"]] == ["test"]

    run = _ok(
        api.post(
            "/api/v1/datasets/tiny-beir/retrieve",
            {"retriever": "bm25", "k": 3},
            content_type="application/json",
        ),
        202,
    )
    wait_for(lambda: _ok(api.get(run["url"])), lambda r: r["status"] == "done")

    pool_op = _ok(
        api.post(
            "/api/v1/datasets/tiny-beir/pools",
            {"qrels": "test", "runs": ["bm25"], "depth": 3, "name": "p3"},
            content_type="application/json",
        ),
        202,
    )
    pool_done = wait_for(
        lambda: _ok(api.get(pool_op["url"])),
        lambda op: op["status"] != "queued" and op["status"] != "running",
    )
    assert pool_done["status"] == "done", pool_done["error"]
    pool_id = pool_done["result"]["pool"]
    # BM25 ranks d1, d2 for "solar power" and d3 for "wind noise"; d1 and d3 are judged.
    assert pool_done["result"]["pairs"] == 1

    job = _ok(
        api.post(
            "/api/v1/jobs",
            {"pool": pool_id, "agent_a": AGREE, "rounds": 1, "audit_share": 0},
            content_type="application/json",
        ),
        202,
    )
    finished = wait_for(lambda: _ok(api.get(job["url"])), lambda j: j["status"] == "finished")
    assert finished["progress"]["agreed"] == 1

    refining = _ok(
        api.post(
            "/api/v1/datasets/tiny-beir/refined",
            {"pool": pool_id, "name": "test-dream"},
            content_type="application/json",
        ),
        202,
    )
    assert (refining["kind"], refining["url"]) == ("refine", f"/api/v1/operations/{refining['id']}")
    refine_done = wait_for(
        lambda: _ok(api.get(refining["url"])), lambda op: op["status"] in ("done", "failed")
    )
    assert refine_done["status"] == "done", refine_done["error"]
    assert (refine_done["result"]["name"], refine_done["result"]["new_labels"]) == (
        "test-dream",
        1,
    )
    (refined,) = _ok(api.get("/api/v1/datasets/tiny-beir/refined"))["items"]
    assert (refined["name"], refined["new_relevant"], refined["unresolved"]) == (
        "test-dream",
        1,
        0,
    )
    trec = api.get(refined["downloads"]["trec"])
    assert trec.status_code == 200
    lines = b"".join(trec.streaming_content).decode().splitlines()
    assert lines == ["q1 0 d1 1", "q1 0 d2 1", "q2 0 d3 1"]  # 2 original rows + 1 new label
    tables = _ok(api.get(refined["rebenchmark"]))["tables"]
    assert [row[1] for row in tables[0]["rows"]] == ["bm25"]

    # The benchmark link: a GET serves only a zip already built (a GET builds nothing).
    unbuilt = api.get(refined["downloads"]["benchmark"])
    assert (unbuilt.status_code, unbuilt.json()) == (
        404,
        {
            "detail": "no benchmark export of 'test-dream' built yet: POST this URL to build "
            "it, poll the answer's url until its status is done, then GET this URL again"
        },
    )
    export = _ok(api.post(refined["downloads"]["benchmark"]), 202)
    export = wait_for(lambda: _ok(api.get(export["url"])), lambda e: e["status"] == "done")
    download = api.get(export["download"])
    assert download["X-Checksum-SHA256"] == export["sha256"]
    linked = api.get(refined["downloads"]["benchmark"])
    assert (linked.status_code, linked["X-Checksum-SHA256"]) == (200, export["sha256"])
    assert linked["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as archive:
        names = archive.namelist()
        assert archive.read("tiny-beir/qrels/test.tsv").decode().splitlines()[1:] == [
            "q1\td1\t1",
            "q1\td2\t1",
            "q2\td3\t1",
        ]
    assert sorted(names) == [
        "tiny-beir/README.md",
        "tiny-beir/corpus.jsonl",
        "tiny-beir/qrels/test.tsv",
        "tiny-beir/queries.jsonl",
    ]


def _upload(name: str, data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data, content_type="application/zip")

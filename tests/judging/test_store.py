"""The judging store: assignments, append-only events, undo, concurrent writers, agreement."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.judging.agreement import agreement_report
from assay.judging.outcome import outcomes
from assay.judging.pool import PoolPair
from assay.judging.store import JudgingStore


def _pairs(n: int, queries: int = 2) -> list[PoolPair]:
    return [
        PoolPair(
            f"q{i % queries}",
            f"query {i % queries}",
            f"d{i}",
            {"run": i + 1},
            {"query_class": "fact" if i % 2 else "howto"},
        )
        for i in range(n)
    ]


@pytest.fixture
def store(tmp_path: Path) -> JudgingStore:
    s = JudgingStore(str(tmp_path / "j.db"))
    yield s
    s.close()


def test_every_pair_gets_overlap_distinct_assessors_balanced(store: JudgingStore) -> None:
    store.setup(_pairs(5), ["alice", "bob", "carol"], overlap=2)
    assigned = store.assigned()
    per_pair: dict[int, list[str]] = {}
    for who, ids in assigned.items():
        for pid in ids:
            per_pair.setdefault(pid, []).append(who)
    assert len(per_pair) == 5 and all(len(set(v)) == 2 for v in per_pair.values())
    assert sorted(len(v) for v in assigned.values()) == [3, 3, 4]
    store.setup(_pairs(5), ["alice", "bob", "carol"], overlap=2)  # idempotent
    assert store.assigned() == assigned
    store.setup(_pairs(7), ["alice", "bob", "carol"], overlap=2)  # a grown pool adds pairs
    assert sum(len(v) for v in store.assigned().values()) == 14
    with pytest.raises(UsageError, match="--overlap"):
        store.setup(_pairs(2), ["alice"], overlap=2)
    with pytest.raises(UsageError, match="assessor name"):
        store.setup(_pairs(2), ["a b"], overlap=1)


def test_events_are_appended_with_previous_values_and_undo(store: JudgingStore) -> None:
    store.setup(_pairs(3), ["alice"], overlap=1)
    p1, p2, p3 = store.assigned()["alice"]
    assert store.next_pair("alice") == p1
    store.act("alice", p1, "2")
    store.act("alice", p1, "3")  # a change of mind
    store.act("alice", p2, "later")
    assert store.next_pair("alice") == p3  # the one put off comes after the ungraded one
    undo = store.undo("alice")  # undoes "later" on p2
    assert (undo.pair_id, undo.value, undo.previous) == (p2, None, "later")
    undo = store.undo("alice")  # undoes 2 -> 3 on p1
    assert (undo.pair_id, undo.value, undo.previous) == (p1, "2", "3")
    assert store.state("alice")[p1] == "2"
    store.undo("alice")
    assert store.undo("alice") is None  # nothing left to undo
    assert store.state("alice") == {p1: None, p2: None, p3: None}
    kinds = [(e.kind, e.value, e.previous) for e in store.events()]
    assert kinds == [
        ("grade", "2", None),
        ("grade", "3", "2"),
        ("later", "later", None),
        ("undo", None, "later"),
        ("undo", "2", "3"),
        ("undo", None, "2"),
    ]
    with pytest.raises(UsageError, match="not assigned"):
        store.act("alice", 999, "1")
    with pytest.raises(UsageError, match="value must be"):
        store.act("alice", p1, "7")


def test_concurrent_assessors_never_overwrite_each_other(tmp_path: Path) -> None:
    path = str(tmp_path / "j.db")
    JudgingStore(path).setup(_pairs(40), ["alice", "bob"], overlap=2)
    errors: list[BaseException] = []

    def grade(name: str, value: str) -> None:
        s = JudgingStore(path)  # one engine per writer, as two server processes would have
        try:
            for pid in s.assigned(name)[name]:
                s.act(name, pid, value)
                s.act(name, pid, value)  # the same value twice: previous must say so
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            s.close()

    threads = [threading.Thread(target=grade, args=a) for a in (("alice", "1"), ("bob", "3"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    s = JudgingStore(path)
    assert len(s.events()) == 160
    assert set(s.state("alice").values()) == {"1"} and set(s.state("bob").values()) == {"3"}
    for who, value in (("alice", "1"), ("bob", "3")):
        mine = s.events(who)
        assert [e.previous for e in mine] == [None, value] * 40
    assert {o.final for o in outcomes(s)} == {(None, "tie")}


def test_agreement_per_pair_and_class_and_the_disputes(store: JudgingStore) -> None:
    from sklearn.metrics import cohen_kappa_score

    store.setup(_pairs(8), ["alice", "bob"], overlap=2, adjudicators=["carol"])
    ids = store.assigned()["alice"]
    alice = ["0", "1", "2", "3", "1", "2", "0", "3"]
    bob = ["0", "2", "2", "3", "1", "1", "u", "3"]
    for pid, a, b in zip(ids, alice, bob, strict=True):
        store.act("alice", pid, a)
        if pid != ids[-1]:
            store.act("bob", pid, b)  # bob has not graded the last pair yet
    report = agreement_report(store)
    (overall,) = report.overall
    kept = [i for i in range(7) if bob[i] != "u"]
    want = cohen_kappa_score([alice[i] for i in kept], [bob[i] for i in kept])
    assert overall.items == 6 and overall.kappa == pytest.approx(want)
    assert {r.group for r in report.by_class} == {"fact", "howto"}
    assert sum(r.items for r in report.by_class) == 6
    # disputes: complete pairs whose grades differ; the last pair (bob pending) is not shown
    assert [o.pair_id for o in report.disagreements] == [ids[1], ids[5]]
    store.adjudicate("carol", ids[1], "2", "the abstract answers it")
    finals = {o.pair_id: o.final for o in outcomes(store)}
    assert finals[ids[1]] == (2, "adjudicated")
    assert finals[ids[5]] == (None, "tie")
    assert finals[ids[6]] == (0, "single")  # bob: unrateable
    assert finals[ids[7]] == (3, "single")
    assert finals[ids[0]] == (0, "majority")
    with pytest.raises(UsageError, match="reason"):
        store.adjudicate("carol", ids[5], "1", " ")

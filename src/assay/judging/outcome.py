"""Where the grading stands per pair: every person's grade and the final grade.

The final grade of a pair, in order: the newest adjudication; else the
majority of the numeric grades (strictly more votes than any other grade);
else the single grade. ``u`` (unrateable) and ``later`` are not grades. A pair
whose grades tie with no adjudication has no final grade (``rule`` is
``tie``): it waits for an adjudicator and is not exported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from assay.judging.pool import PoolPair
from assay.judging.store import GRADES, Event, JudgingStore, replay

#: How a final grade was reached.
RULES = ("adjudicated", "majority", "single", "tie", "unrateable", "ungraded")


@dataclass(frozen=True)
class PairOutcome:
    """One pair: who was asked, what each person answered, the final grade and its rule."""

    pair_id: int
    position: int
    pair: PoolPair
    assigned: tuple[str, ...]
    answers: dict[str, Event] = field(default_factory=dict)
    adjudication: Event | None = None

    @property
    def grades(self) -> dict[str, int]:
        """``{assessor: grade}`` of the numeric grades (``u`` and ``later`` left out)."""
        return {a: int(e.value) for a, e in self.answers.items() if e.value in GRADES}

    @property
    def complete(self) -> bool:
        """True once every assigned assessor has graded or marked the pair unrateable."""
        return all(
            a in self.answers and self.answers[a].value not in (None, "later")
            for a in self.assigned
        )

    @property
    def final(self) -> tuple[int | None, str]:
        """``(final grade or None, rule)`` (see the module docstring)."""
        if self.adjudication is not None and self.adjudication.value in GRADES:
            return int(self.adjudication.value), "adjudicated"
        grades = list(self.grades.values())
        if not grades:
            unrateable = any(e.value == "u" for e in self.answers.values())
            return None, "unrateable" if unrateable else "ungraded"
        if len(grades) == 1:
            return grades[0], "single"
        counts = Counter(grades).most_common()
        if len(counts) > 1 and counts[0][1] == counts[1][1]:
            return None, "tie"
        return counts[0][0], "majority"

    @property
    def disputed(self) -> bool:
        """True when the pair is complete and its numeric grades differ."""
        return self.complete and len(set(self.grades.values())) > 1


def outcomes(store: JudgingStore) -> list[PairOutcome]:
    """Every pair of the store, in pool order, with everyone's current answer."""
    events = store.events()
    by_person: dict[str, list[Event]] = {}
    adjudications: dict[int, Event] = {}
    for e in events:
        if e.kind == "adjudicate":
            adjudications[e.pair_id] = e  # the newest wins
        else:
            by_person.setdefault(e.assessor, []).append(e)
    answers: dict[int, dict[str, Event]] = {}
    for person, log in by_person.items():
        current, _ = replay(log)
        for pid, event in current.items():
            if event.value is not None:
                answers.setdefault(pid, {})[person] = event
    assigned = store.assigned()
    who: dict[int, list[str]] = {}
    for person, ids in assigned.items():
        for pid in ids:
            who.setdefault(pid, []).append(person)
    return [
        PairOutcome(
            pid,
            stored.position,
            stored.pair,
            tuple(sorted(who.get(pid, []))),
            dict(sorted(answers.get(pid, {}).items())),
            adjudications.get(pid),
        )
        for pid, stored in store.pairs().items()
    ]

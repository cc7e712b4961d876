"""``assay report``'s procedure names every registered result kind it can return."""

from __future__ import annotations

import inspect

from assay.procedures.result_files import read_result
from assay.results.models import RESULT_MODELS


def test_read_result_is_annotated_with_every_result_kind() -> None:
    returned = str(inspect.signature(read_result).return_annotation)
    named = {n.strip(" ()\n") for n in returned.split("|")}
    assert named == {v.split(":")[1] for v in RESULT_MODELS.values()}

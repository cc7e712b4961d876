"""JUnit XML rendering of a :class:`~assay.procedures.gate_result.GateResult`.

One ``<testcase>`` per metric and slice: a regression is a ``<failure>``, a
slice too small to gate is ``<skipped>``. The layout follows the common JUnit
schema read by GitHub, GitLab and Jenkins (``testsuites > testsuite > testcase``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.policies import policy_lines

if TYPE_CHECKING:  # pragma: no cover
    from assay.procedures.gate_result import GateResult


def render_junit(result: GateResult) -> str:
    """The gate as a JUnit XML document (UTF-8 text with an XML declaration)."""
    import xml.etree.ElementTree as ET

    failures = len(result.failures) + (1 if result.failed_check else 0)
    skipped = sum(1 for c in result.checks if not c.gated)
    counts = {
        "tests": str(len(result.checks) + (1 if result.failed_check else 0)),
        "failures": str(failures),
        "errors": "0",
        "skipped": str(skipped),
        "time": "0",
    }
    root = ET.Element("testsuites", {"name": "assay gate", **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {"name": f"assay gate: {result.candidate} vs {result.baseline}", **counts},
    )
    props = ET.SubElement(suite, "properties")
    for key in ("judgments_name", "judgments_version", "mode", "margin", "alpha", "seed"):
        ET.SubElement(props, "property", {"name": key, "value": str(getattr(result, key))})
    ET.SubElement(props, "property", {"name": "rule", "value": result.rule})
    for line in policy_lines(result.policies):
        ET.SubElement(props, "property", {"name": "policy", "value": line})
    for c in result.checks:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": f"assay.gate.{c.metric}", "name": f"{c.metric} [{c.label}]", "time": "0"},
        )
        if not c.gated:
            ET.SubElement(case, "skipped", {"message": c.message})
        elif not c.passed:
            failure = ET.SubElement(case, "failure", {"message": c.message, "type": "regression"})
            failure.text = c.message
        else:
            out = ET.SubElement(case, "system-out")
            out.text = c.message
    if result.failed_check:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": "assay.gate.failed_queries", "name": "failed queries", "time": "0"},
        )
        failure = ET.SubElement(
            case, "failure", {"message": result.failed_check, "type": "failed queries"}
        )
        failure.text = result.failed_check
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

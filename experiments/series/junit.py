"""JUnit XML for CI: one test case per suite entry; a shift is a failure, a stale baseline an error."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any


def junit_xml(outcomes: list[Any], path: Path, name: str, seconds: float) -> None:
    """Write `outcomes` (regression.Outcome) as a JUnit ``testsuite`` file."""
    failures = sum(o.status == "shifted" for o in outcomes)
    errors = sum(o.status in ("stale", "error") for o in outcomes)
    suite = ET.Element("testsuite", name=name, tests=str(len(outcomes)), failures=str(failures),
                       errors=str(errors), skipped="0", time=f"{seconds:.3f}")
    for o in outcomes:
        case = ET.SubElement(suite, "testcase", classname="trpg-arena.regress", name=o.entry.label,
                             time=f"{o.summary.get('seconds', 0.0):.3f}")
        if o.status == "shifted":
            ET.SubElement(case, "failure", message="balance shifted", type="BalanceShift").text = o.message
        elif o.status in ("stale", "error"):
            ET.SubElement(case, "error", message=o.message, type="StaleBaseline" if o.status == "stale"
                          else "BadInput").text = o.message
        else:
            ET.SubElement(case, "system-out").text = o.message
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)

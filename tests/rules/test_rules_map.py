"""docs/rules.md and the rules tests agree (issue 2: "A test for every row of docs/rules.md,
naming the seed file and section it checks").

Not rules tests themselves: they check the map. Every test named in the map exists,
every code reference names something that exists, every table row names a test,
every rules test is named in the map and cites the seed (or decision) it checks.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from pathlib import Path

from .helpers import rotate

HERE = Path(__file__).parent
DOC = HERE.parent.parent / "docs" / "rules.md"
SEEDS = ("000_3053cf30db062627.txt", "001_e536ce776a04bae3.txt", "002_10d567ad275b8de6.txt",
         "003_d57eb88baa050f56.txt", "004_4a02ef295e7c1bfa.txt")
TEST_REF = re.compile(r"tests/rules/(test_\w+)\.py::(test_\w+)")
CODE_REF = re.compile(r"`(ledger/[\w/]+)\.py:([\w.]+)`|`(Rules|State)\.(\w+)`")
CLASS_HOME = {"Rules": "ledger.rules.base", "State": "ledger.engine.state"}
THIS = Path(__file__).stem


def rules_tests() -> dict[str, dict[str, str | None]]:
    """module -> test function -> docstring, for every rules test module but this one."""
    found: dict[str, dict[str, str | None]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        if path.stem == THIS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found[path.stem] = {node.name: ast.get_docstring(node) for node in tree.body
                            if isinstance(node, ast.FunctionDef)
                            and node.name.startswith("test_")}
    return found


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_test_named_in_the_map_exists() -> None:
    """docs/rules.md: each `tests/rules/test_x.py::test_name` is a real test."""
    tests = rules_tests()
    refs = TEST_REF.findall(doc_text())
    assert refs
    missing = [f"{m}::{t}" for m, t in refs if t not in tests.get(m, {})]
    assert missing == []


def test_every_rules_test_is_in_the_map() -> None:
    """docs/rules.md maps every rules test to the rule it checks."""
    named = set(TEST_REF.findall(doc_text()))
    unmapped = [f"{m}::{t}" for m, fns in rules_tests().items() for t in fns
                if (m, t) not in named]
    assert unmapped == []


def test_every_row_names_a_test() -> None:
    """docs/rules.md: "Every row must have a test" (header and separator rows aside)."""
    lines = doc_text().splitlines()
    rows = [line for i, line in enumerate(lines) if line.startswith("|")
            and not re.match(r"\|\s*-", line)
            and not (i + 1 < len(lines) and re.match(r"\|\s*-", lines[i + 1]))]
    assert len(rows) > 100
    assert [row for row in rows if not TEST_REF.search(row)] == []


def test_every_code_reference_exists() -> None:
    """docs/rules.md: each `ledger/x.py:name` (and `Rules.field`) names real code."""
    refs = CODE_REF.findall(doc_text())
    assert refs
    missing = []
    for path, dotted, cls, attr in refs:
        module_name, parts = (path.replace("/", "."), dotted.split(".")) if path \
            else (CLASS_HOME[cls], [cls, attr])
        obj: object = importlib.import_module(module_name)
        for part in parts:
            if hasattr(obj, part):
                obj = getattr(obj, part)
            elif dataclasses.is_dataclass(obj) and part in obj.__dataclass_fields__:
                break
            else:
                missing.append(f"{module_name}:{'.'.join(parts)}")
                break
    assert missing == []


def test_every_rules_test_cites_its_seed_or_decision() -> None:
    """Issue 2: each rules test names the seed file (or rules-decisions.md / match-format.md)
    it checks, in its docstring."""
    uncited = [f"{m}::{t}" for m, fns in rules_tests().items() for t, doc in fns.items()
               if not doc or not any(name in doc for name in
                                     (*SEEDS, "rules-decisions.md", "match-format.md"))]
    assert uncited == []


def test_rotate_helper_turns_every_seat() -> None:
    """The helper that turns a deal round the table moves every seat number."""
    assert rotate("0:66 1:63l 3:pass", 1) == "1:66 2:63l 0:pass"
    assert rotate("2:55 0:53r", 2, seats=3) == "1:55 2:53r"

"""vybe.jsonio writes and reads exactly what the json package does, without importing it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vybe import jsonio

VALUES = [
    None,
    True,
    0,
    -(2**70),
    1.5,
    1e300,
    'ünïcödé 🚀 "quoted" \\ \n\t\x00',
    "\ud800",
    [],
    {},
    {"b": [1, 2.25, {"c": None}], "a": "x", "é": ["ü", False]},
    [[[[]]], {"k": {"k": {"k": [1]}}}],
]
OPTIONS = [
    {},
    {"ensure_ascii": False},
    {"separators": (",", ":")},
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False},
    {"indent": 2, "ensure_ascii": False},
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("value", VALUES)
def test_dumps_writes_what_json_writes(value, options):
    assert jsonio.dumps(value, **options) == json.dumps(value, **options)


@given(json_values)
def test_dumps_and_loads_agree_with_json_on_any_document(value):
    text = json.dumps(value)
    assert jsonio.dumps(value) == text
    assert jsonio.loads(text) == json.loads(text)


@pytest.mark.parametrize("value", VALUES)
def test_loads_reads_what_json_reads(value):
    text = json.dumps(value, indent=1)
    assert jsonio.loads(f" \n{text}\t\r ") == json.loads(text)


def test_dumps_calls_default_for_other_types():
    assert jsonio.dumps({"at": b"x"}, default=str) == '{"at": "b\'x\'"}'


def test_dumps_refuses_other_types_without_default_as_json_does():
    with pytest.raises(TypeError, match="Object of type bytes is not JSON serializable"):
        jsonio.dumps({"at": b"x"})


def test_dumps_refuses_nan_when_told_to():
    with pytest.raises(ValueError, match="Out of range float"):
        jsonio.dumps([float("nan")], allow_nan=False)
    assert jsonio.dumps([float("nan")]) == "[NaN]"


@pytest.mark.parametrize("text", ["", " ", "[1,", '{"a" 1}', "[1] [2]", "\ufeff[]", "nul"])
def test_loads_raises_json_decode_errors_where_json_does(text):
    with pytest.raises(json.JSONDecodeError) as ours:
        jsonio.loads(text)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    assert (ours.value.msg, ours.value.pos) == (theirs.value.msg, theirs.value.pos)


def test_loads_passes_constants_to_parse_constant():
    def refuse(name):
        raise ValueError(f"no {name}")

    assert jsonio.loads("[NaN]", parse_constant=lambda name: name) == ["NaN"]
    with pytest.raises(ValueError, match="no Infinity"):
        jsonio.loads('{"a": Infinity}', parse_constant=refuse)


def test_loads_raises_json_decode_errors_in_a_process_without_json():
    code = (
        "import vybe.jsonio\n"
        "try:\n    vybe.jsonio.loads('{not json')\n"
        "except ValueError as exc:\n    print(type(exc).__name__, exc.pos)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "JSONDecodeError 1"


def test_importing_jsonio_imports_neither_json_nor_re():
    code = "import sys, vybe.jsonio; print(sorted({'json', 're'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

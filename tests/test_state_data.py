"""A checkpoint's contents as data (engine/run/state_data.py): what goes in comes back, objects of
the classes allowed only, and no tree, however made, builds anything else or raises but
StateDataError."""

from __future__ import annotations

import contextlib
import io
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui_decipher.engine.run.checkpoint import CHECKPOINT_NAME, CheckpointError, load_checkpoint
from tui_decipher.engine.run.state_data import KIND, StateDataError, class_table, from_data, to_data


@dataclass(frozen=True)
class _Frozen:
    a: int
    b: tuple[int, ...] = ()


@dataclass
class _Holder:
    items: list = field(default_factory=list)
    frozen: _Frozen | None = None


CLASSES = class_table(_Frozen, _Holder)


def test_what_goes_in_comes_back() -> None:
    array = np.arange(6, dtype=np.float64).reshape(2, 3)
    value = {
        "t": (1, 2.5, "x", None, True, b"\x00"), "s": {3, 4}, "f": frozenset({"a"}), "keys": {(1, 2): "pair", 3: "n"},
        "ordered": OrderedDict(b=1, a=2), "array": array, "scalar": np.float32(0.25), "tensor": torch.ones(2),
        "dtype": torch.float32, KIND: "a key that is the tag's own",
    }  # fmt: skip
    back = from_data(to_data(value))
    assert back.keys() == value.keys() and back["t"] == value["t"] and back["s"] == {3, 4}
    assert back["keys"] == {(1, 2): "pair", 3: "n"} and list(back["ordered"]) == ["b", "a"]
    assert back["array"].dtype == np.float64 and np.array_equal(back["array"], array)
    assert type(back["scalar"]) is np.float32 and back["scalar"] == np.float32(0.25)
    assert torch.equal(back["tensor"], torch.ones(2)) and back[KIND] == "a key that is the tag's own"


def test_objects_of_the_classes_allowed_come_back_and_share_what_they_shared() -> None:
    frozen = _Frozen(1, (2, 3))
    holder = _Holder([frozen, frozen], frozen)
    holder.items.append(holder)  # a cycle
    back = from_data(to_data({"h": holder, "again": frozen}, CLASSES), CLASSES)
    h = back["h"]
    assert type(h) is _Holder and h.frozen == _Frozen(1, (2, 3))
    assert h.items[0] is h.items[1] is h.frozen is back["again"] and h.items[2] is h


def test_a_module_comes_back_with_its_parameters() -> None:
    torch.manual_seed(0)
    module = torch.nn.Linear(3, 2)
    back = from_data(to_data(module, class_table(torch.nn.Linear)), class_table(torch.nn.Linear))
    x = torch.randn(4, 3)
    assert isinstance(back.weight, torch.nn.Parameter) and torch.equal(back(x), module(x))


def test_an_object_of_a_class_not_allowed_is_refused_both_ways() -> None:
    with pytest.raises(StateDataError, match="not in the stored classes"):
        to_data({"x": _Frozen(1)})
    data = to_data({"x": _Frozen(1)}, CLASSES)
    with pytest.raises(StateDataError, match="class not allowed"):
        from_data(data)
    for name in ("posix.system", "builtins.exec", "tui_decipher.store.database.Store"):
        with pytest.raises(StateDataError):
            from_data({KIND: "object", "class": name, "ref": 0, "attributes": {}}, CLASSES)


def test_an_array_of_python_objects_is_refused() -> None:
    with pytest.raises(StateDataError, match="Python objects"):
        to_data(np.array([object()]))


# Any JSON-like tree, tagged or not: from_data gives a value or StateDataError, nothing else.
# No subnormal floats: a run in this process flushes them to zero (engine/run/device.py).
_leaf = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_subnormal=False) | st.text(max_size=5)
)
_tags = st.sampled_from(["dict", "ordered_dict", "tuple", "set", "frozenset", "ndarray", "scalar", "ref", "object"])
_FIELDS = ("items", "ref", "class", "attributes", "dtype", "value", "tensor")


def _tagged(inner):
    fields = {name: inner for name in _FIELDS}
    fields["class"] = st.sampled_from([*CLASSES, "os.system"])
    fields["items"] = st.lists(inner, max_size=3)
    return st.fixed_dictionaries({KIND: _tags | st.text(max_size=3)}, optional=fields)


_trees = st.recursive(
    _leaf | st.binary(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3) | _tagged(inner)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_trees)
def test_any_tree_is_a_value_or_state_data_error(tree) -> None:
    with contextlib.suppress(StateDataError):
        from_data(tree, CLASSES)


@pytest.fixture(scope="module")
def checkpoint_bytes() -> bytes:
    import tempfile
    from pathlib import Path

    from tui_decipher.engine.run.checkpoint import Checkpoint, save_checkpoint

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / CHECKPOINT_NAME
        state = {"channel": {"w": torch.ones(3)}, "n_cognates": 4, "decisions": {"line": "x", "d": (1, 2)}}
        save_checkpoint(path, Checkpoint(method="channel", config={"seed": 1}, corpus="c", shape=(2, 3), restart=0,
                                         round=0, rounds=[], seconds=1.0, phases={}, state=state))  # fmt: skip
        return path.read_bytes()


@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_truncated_or_garbled_checkpoint_is_one_line(checkpoint_bytes, tmp_path, data) -> None:
    """Cut short, or with bytes changed anywhere: a CheckpointError of one line naming the file,
    or (a change that left it whole) a checkpoint."""
    blob = bytearray(checkpoint_bytes)
    if data.draw(st.booleans()):
        blob = blob[: data.draw(st.integers(0, len(blob) - 1))]
    else:
        for _ in range(data.draw(st.integers(1, 8))):
            blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    path = tmp_path / CHECKPOINT_NAME
    path.write_bytes(bytes(blob))
    try:
        load_checkpoint(path)
    except CheckpointError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)


def test_a_round_trip_through_torch_needs_no_class(tmp_path) -> None:
    """The data's own file reads with torch's weights-only reader and no class allowed."""
    buffer = io.BytesIO()
    torch.save(to_data({"h": _Holder([_Frozen(2)])}, CLASSES), buffer)
    buffer.seek(0)
    with torch.serialization.safe_globals([]):
        loaded = torch.load(buffer, weights_only=True)
    assert from_data(loaded, CLASSES)["h"].items == [_Frozen(2)]

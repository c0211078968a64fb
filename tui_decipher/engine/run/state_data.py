"""A checkpoint's contents as data: tensors in a tree of JSON's kinds, and the objects a run may
store named from an explicit list of classes.

A checkpoint file is shared (a colleague sends a run folder to be resumed or refined), so reading
one must never run code from it. `to_data` turns what a run saves into plain data: None, bools,
numbers, strings, bytes, lists and str-keyed dicts, with tensors (and torch's dtypes, devices and
sizes) as leaves, which `torch.load(weights_only=True)` reads without any class of its own. What
JSON lacks is a dict tagged with KIND: a tuple, a set, a dict with other keys, a NumPy array or
scalar, or an object of one of the classes the caller allows (`classes`, name -> class), stored as
its attributes. `from_data` rebuilds those and nothing else: an object is made with its class's
`__new__` and given its attributes (`__setstate__` where the class defines one, as torch's modules
do), so no constructor, and nothing the file names outside `classes`, ever runs.

An object met twice is stored once and referred to after (`ref`), so objects that shared a part
(a channel held by two stages) share it again when read back, as they did when they were pickled.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

KIND = "__kind__"  # the key of a tagged dict: what JSON cannot say itself
SCHEMA = 1  # the layout of the tags below; a checkpoint records it beside its own version

ClassTable = Mapping[str, type]  # the classes a tree may hold objects of, by the name stored
_LEAVES = (type(None), bool, int, float, str, bytes, torch.dtype, torch.device, torch.Size)


class StateDataError(ValueError):
    """Something that is not stored data: an object of a class not allowed, or a malformed tree."""


def class_name(cls: type) -> str:
    """The name a class is stored under: where it is defined (module and qualified name)."""
    return f"{cls.__module__}.{cls.__qualname__}"


def class_table(*classes: type) -> dict[str, type]:
    """The table of `classes` by their stored names."""
    return {class_name(cls): cls for cls in classes}


def to_data(value: Any, classes: ClassTable | None = None) -> Any:
    """`value` as data (see the module's docstring); StateDataError names what cannot be stored."""
    return _Encoder(classes or {}).encode(value)


def from_data(data: Any, classes: ClassTable | None = None) -> Any:
    """What `to_data` turned into `data`, rebuilt; StateDataError where the tree is not such data
    or names a class not in `classes`."""
    return _Decoder(classes or {}).decode(data)


class _Encoder:
    def __init__(self, classes: ClassTable) -> None:
        self.names = {cls: name for name, cls in classes.items()}
        self.refs: dict[int, int] = {}  # id(object) -> its number in the tree
        self.kept: list[Any] = []  # the objects numbered, alive while encoding (their ids stay theirs)

    def encode(self, value: Any) -> Any:
        kind = type(value)
        if kind in _LEAVES or isinstance(value, torch.Tensor):
            return value
        if kind is list:
            return [self.encode(v) for v in value]
        if kind is dict and all(type(k) is str for k in value) and KIND not in value:
            return {k: self.encode(v) for k, v in value.items()}
        if kind in (dict, OrderedDict):
            items = [[self.encode(k), self.encode(v)] for k, v in value.items()]
            return {KIND: "dict" if kind is dict else "ordered_dict", "items": items}
        if kind in (tuple, set, frozenset):
            return {KIND: kind.__name__, "items": [self.encode(v) for v in value]}
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise StateDataError("cannot store a NumPy array of Python objects")
            return {KIND: "ndarray", "tensor": torch.from_numpy(np.ascontiguousarray(value).copy())}
        if isinstance(value, np.generic):
            return {KIND: "scalar", "dtype": value.dtype.str, "value": value.item()}
        name = self.names.get(kind)
        if name is None:
            raise StateDataError(f"cannot store a {kind.__module__}.{kind.__qualname__} (not in the stored classes)")
        if id(value) in self.refs:
            return {KIND: "ref", "ref": self.refs[id(value)]}
        self.refs[id(value)] = number = len(self.kept)
        self.kept.append(value)
        return {KIND: "object", "class": name, "ref": number, "attributes": self.encode(dict(vars(value)))}


class _Decoder:
    def __init__(self, classes: ClassTable) -> None:
        self.classes = classes
        self.objects: dict[int, Any] = {}

    def decode(self, data: Any) -> Any:
        kind = type(data)
        if kind in _LEAVES or isinstance(data, torch.Tensor):
            return data
        if kind is list:
            return [self.decode(v) for v in data]
        if kind is not dict:
            raise StateDataError(f"a {kind.__name__} is not stored data")
        if KIND not in data:
            return {_key(k): self.decode(v) for k, v in data.items()}
        return self._tagged(data)

    def _tagged(self, data: dict[str, Any]) -> Any:
        tag = data[KIND]
        if tag in ("dict", "ordered_dict"):
            pairs = [tuple(self.decode(part) for part in _pair(item)) for item in _items(data)]
            try:
                return dict(pairs) if tag == "dict" else OrderedDict(pairs)
            except TypeError as exc:  # a key that cannot be one (a list)
                raise StateDataError(f"a stored dict has a key of another kind ({exc})") from None
        if tag in ("tuple", "set", "frozenset"):
            items = [self.decode(v) for v in _items(data)]
            try:
                return tuple(items) if tag == "tuple" else set(items) if tag == "set" else frozenset(items)
            except TypeError as exc:
                raise StateDataError(f"a stored set holds an item of another kind ({exc})") from None
        if tag == "ndarray":
            tensor = data.get("tensor")
            if not isinstance(tensor, torch.Tensor):
                raise StateDataError("a stored array without its tensor")
            try:
                return tensor.numpy()
            except (RuntimeError, TypeError) as exc:  # a tensor NumPy has no kind for
                raise StateDataError(f"a stored array NumPy cannot hold ({exc})") from None
        if tag == "scalar":
            try:
                return np.dtype(str(data["dtype"])).type(data["value"])
            except (KeyError, TypeError, ValueError, OverflowError) as exc:
                raise StateDataError(f"a stored NumPy scalar that is not one ({exc})") from None
        if tag == "ref":
            if type(data.get("ref")) is not int or data["ref"] not in self.objects:
                raise StateDataError(f"a reference to no stored object ({data.get('ref')!r})")
            return self.objects[data["ref"]]
        if tag == "object":
            return self._object(data)
        raise StateDataError(f"unknown stored kind {tag!r}")

    def _object(self, data: dict[str, Any]) -> Any:
        name = data.get("class")
        cls = self.classes.get(name) if type(name) is str else None
        if cls is None:
            raise StateDataError(f"a stored object of a class not allowed ({data.get('class')!r})")
        number = data.get("ref")
        if type(number) is not int or number in self.objects:
            raise StateDataError(f"a stored object numbered {number!r} twice or not at all")
        new: Any = cls.__new__  # the class's own, as pickle calls it (no constructor runs)
        obj = new(cls)
        self.objects[number] = obj  # before its attributes: an attribute may refer back to it
        attributes = self.decode(data.get("attributes"))
        if type(attributes) is not dict or not all(type(k) is str for k in attributes):
            raise StateDataError(f"a stored {data['class']} without its attributes")
        if hasattr(cls, "__setstate__"):  # torch's modules: their own, which sets the attributes
            obj.__setstate__(attributes)
        else:
            obj.__dict__.update(attributes)  # frozen dataclasses too, as pickle does
        return obj


def _key(key: Any) -> str:
    if type(key) is not str:
        raise StateDataError(f"a stored dict key {key!r} is not a string")
    return key


def _items(data: dict[str, Any]) -> list[Any]:
    items = data.get("items")
    if type(items) is not list:
        raise StateDataError(f"a stored {data[KIND]} without its items")
    return items


def _pair(item: Any) -> list[Any]:
    if type(item) is not list or len(item) != 2:
        raise StateDataError("a stored dict item that is not a key and a value")
    return item

"""Tests for run configuration: presets, TOML files, overrides and validation (engine.config)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tui_decipher.cli import app as cli_app
from tui_decipher.engine.run.config import (
    PRESET_DEFINITIONS,
    PRESETS,
    SECTIONS,
    ConfigError,
    DecipherConfig,
    apply_overrides,
    build_config,
    coerce_field,
    load_toml,
    preset,
    to_toml,
)


def write(tmp_path: Path, text: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_are_the_papers_settings() -> None:
    cfg = DecipherConfig()
    cfg.validate()
    assert (cfg.n_universal, cfg.embed_dim, cfg.hidden_dim) == (50, 250, 250)
    assert (cfg.norm_ratio, cfg.reg_weight, cfg.top_k, cfg.lr) == (0.2, 0.5, 5, 5e-3)
    assert (cfg.eed_samples, cfg.eed_sharpen, cfg.flow_decay) == (10, 10.0, 0.9)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_validate(name: str) -> None:
    cfg = preset(name)
    cfg.validate()
    for field_name, value in PRESETS[name].items():
        assert getattr(cfg, field_name) == value, field_name


def test_preset_specifics() -> None:
    assert preset("ugaritic").capacity == 3
    assert preset("ugaritic").flow_decay == 0.25
    assert preset("linear-b").regularizer == "syllabic"
    assert preset("linear-b").n_universal == 100
    assert (preset("romance").lost, preset("romance").known) == ("es", "it")


def test_unknown_preset() -> None:
    with pytest.raises(ConfigError, match="unknown preset 'nope'"):
        preset("nope")
    with pytest.raises(ConfigError, match="unknown preset"):
        build_config("nope")


def test_build_config_order_preset_then_toml_then_overrides(tmp_path: Path) -> None:
    toml = write(tmp_path, "embed_dim = 32\nepochs = 5\nlr = 0.01\n")
    cfg, sources = build_config("demo", toml, {"epochs": 7, "seed": "42"})
    assert cfg.embed_dim == 32  # TOML over preset (demo: 64)
    assert cfg.epochs == 7  # override over TOML
    assert cfg.lr == 0.01  # TOML over default
    assert cfg.rounds == PRESETS["demo"]["rounds"]  # preset over default
    assert cfg.hidden_dim == PRESETS["demo"]["hidden_dim"]
    assert cfg.seed == 42  # text from a CLI flag is coerced
    assert cfg.reg_weight == DecipherConfig().reg_weight  # untouched default
    assert sources.preset == "demo"
    assert sources.toml == str(toml)
    assert sources.overrides == {"epochs": 7, "seed": "42"}


def test_build_config_without_anything_is_the_default() -> None:
    cfg, sources = build_config()
    assert cfg == DecipherConfig()
    assert sources.preset is None and sources.toml is None and sources.overrides == {}


def test_toml_preset_key(tmp_path: Path) -> None:
    toml = write(tmp_path, 'preset = "linear-b"\nepochs = 3\n')
    cfg, sources = build_config(None, toml)
    assert sources.preset == "paper-linear-b"  # the preset's old name names its new one
    assert cfg.regularizer == "syllabic" and cfg.n_universal == 100
    assert cfg.epochs == 3
    # An explicit preset wins over the file's.
    cfg, sources = build_config("demo", toml)
    assert sources.preset == "demo"
    assert cfg.regularizer == "alphabetic" and cfg.embed_dim == PRESETS["demo"]["embed_dim"]
    assert cfg.epochs == 3


def test_toml_decipher_table(tmp_path: Path) -> None:
    toml = write(tmp_path, 'preset = "romance"\n[decipher]\nrounds = 2\nregularizer = "none"\n')
    cfg, _ = build_config(None, toml)
    assert (cfg.rounds, cfg.regularizer, cfg.lost) == (2, "none", "es")


def test_toml_sections_hold_their_own_fields(tmp_path: Path) -> None:
    text = 'preset = "ugaritic"\nmethod = "channel"\n[flow]\ncapacity = 2\n[channel]\nchannel_steps = 7\n'
    toml = write(tmp_path, text)
    cfg, _ = build_config(None, toml)
    assert (cfg.method, cfg.capacity, cfg.channel_steps, cfg.flow_decay) == ("channel", 2, 7, 0.25)
    for text, message in [
        ("[flow]\nepochs = 3\n", "[flow] has no field 'epochs'; it belongs in [neural]"),
        ("[flow]\nnot_a_field = 3\n", "[flow] has no field 'not_a_field'"),
        ("[optimiser]\nlr = 0.1\n", "unknown section [optimiser]"),
        ("capacity = 2\n[flow]\ncapacity = 3\n", "capacity is given twice"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(message)):
            build_config(None, write(tmp_path, text, "bad.toml"))


def test_every_field_is_in_one_section_and_to_toml_reads_back(tmp_path: Path) -> None:
    names = [f.name for f in dataclasses.fields(DecipherConfig)]
    in_sections = [name for names in SECTIONS.values() for name in names]
    assert sorted(in_sections) == sorted(names) and len(in_sections) == len(set(in_sections))
    cfg = preset("paper-linear-b-names").replace(seed=9, channel_kind="edit")
    back, sources = build_config(None, write(tmp_path, to_toml(cfg, "paper-linear-b-names")))
    assert back == cfg and sources.preset == "paper-linear-b-names"


def test_presets_build_on_their_bases_and_say_why() -> None:
    assert PRESETS["paper-linear-b-names"] == {
        **PRESETS["paper-linear-b"],
        "corpus": "linear-b-names",
        "cognate_fraction": 0.5,
    }
    assert PRESETS["paper-ugaritic"]["first_epochs"] == PRESETS["paper-em"]["first_epochs"] == 250
    assert all(PRESET_DEFINITIONS[name].why for name in PRESETS)
    # The paper's presets run the paper's method, and say so by name; no preset is needed for auto.
    assert all(PRESETS[n]["method"] == "neural" for n in PRESETS if n.startswith("paper-"))
    assert DecipherConfig().method == "auto"


def test_toml_values_are_validated_and_name_the_file(tmp_path: Path) -> None:
    toml = write(tmp_path, "flow_decay = 1.5\n")
    with pytest.raises(ConfigError) as info:
        build_config("demo", toml)
    assert str(toml) in str(info.value) and "flow_decay" in str(info.value)
    toml = write(tmp_path, "bogus = 1\n", name="unknown.toml")
    with pytest.raises(ConfigError) as info:
        build_config(None, toml)
    assert str(toml) in str(info.value) and "bogus" in str(info.value)


def test_malformed_toml_names_the_file(tmp_path: Path) -> None:
    toml = write(tmp_path, "epochs = = 3\n[unclosed\n")
    with pytest.raises(ConfigError) as info:
        build_config(None, toml)
    assert str(toml) in str(info.value)
    assert "TOML" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_toml(tmp_path / "missing.toml")
    assert str(tmp_path / "missing.toml") in str(info.value) and "not found" in str(info.value)
    bad_utf8 = tmp_path / "latin1.toml"
    bad_utf8.write_bytes(b'corpus = "caf\xe9"\n')
    with pytest.raises(ConfigError) as info:
        load_toml(bad_utf8)
    assert str(bad_utf8) in str(info.value)


# ----------------------------------------------------------------------------- validation


def range_pattern(lo: str, hi: str) -> str:
    """The allowed range as the message writes it, e.g. `0..1` or `0.0..1.0`."""
    return rf"{re.escape(lo)}(\.0)?\s*\.\.\s*{re.escape(hi)}(\.0)?"


@pytest.mark.parametrize(
    ("field", "value", "lo", "hi"),
    [
        ("flow_decay", 1.5, "0", "1"),
        ("flow_decay", -0.1, "0", "1"),
        ("epochs", 0, "1", "100000"),
        ("dropout", 0.99, "0", "0.95"),
        ("eed_samples", 1001, "1", "1000"),
        ("capacity", 0, "1", "1000"),
    ],
)
def test_out_of_range_names_field_and_range(field: str, value, lo: str, hi: str) -> None:
    for attempt in (
        lambda: apply_overrides(DecipherConfig(), {field: value}),
        lambda: DecipherConfig().replace(**{field: value}),
        lambda: build_config("demo", None, {field: value}),
    ):
        with pytest.raises(ConfigError) as info:
            attempt()
        message = str(info.value)
        assert field in message
        assert re.search(range_pattern(lo, hi), message), message
        assert "range" in message


def test_bounds_themselves_are_allowed() -> None:
    cfg = apply_overrides(DecipherConfig(), {"flow_decay": 0.0, "epochs": 1, "cognate_fraction": 1.0})
    assert (cfg.flow_decay, cfg.epochs, cfg.cognate_fraction) == (0.0, 1, 1.0)
    cfg = apply_overrides(cfg, {"flow_decay": 1, "dropout": 0})  # ints accepted for floats
    assert cfg.flow_decay == 1.0 and isinstance(cfg.flow_decay, float)


@pytest.mark.parametrize(
    ("field", "value", "type_name"),
    [
        ("epochs", "ten", "int"),
        ("epochs", 2.5, "int"),
        ("epochs", True, "int"),
        ("residual", "maybe", "bool"),
        ("residual", 1, "bool"),
        ("lr", "fast", "float"),
        ("lr", [0.1], "float"),
        ("corpus", 3, "str"),
    ],
)
def test_wrong_type_names_field_and_type(field: str, value, type_name: str) -> None:
    with pytest.raises(ConfigError) as info:
        apply_overrides(DecipherConfig(), {field: value})
    message = str(info.value)
    assert field in message and "type" in message and type_name in message, message
    with pytest.raises(ConfigError, match=field):
        DecipherConfig(**{field: value}).validate()


@pytest.mark.parametrize(
    ("field", "value", "choices"),
    [("regularizer", "cubic", "alphabetic"), ("sparsify", "all", "top-k"), ("device", "tpu", "cuda")],
)
def test_choice_fields(field: str, value: str, choices: str) -> None:
    with pytest.raises(ConfigError) as info:
        apply_overrides(DecipherConfig(), {field: value})
    assert field in str(info.value) and choices in str(info.value)


def test_device_accepts_indexed_cuda() -> None:
    assert apply_overrides(DecipherConfig(), {"device": "cuda:1"}).device == "cuda:1"


def test_unknown_field_refused() -> None:
    with pytest.raises(ConfigError, match=r"unknown config field 'epoch' \(did you mean 'epochs'\?\)"):
        apply_overrides(DecipherConfig(), {"epoch": 3})
    with pytest.raises(ConfigError, match="bogus") as refused:
        build_config("demo", None, {"bogus": 1})
    assert "did you mean" not in str(refused.value)  # nothing near it: no guess
    result = CliRunner().invoke(cli_app, ["run", "--set", "auto_demnd=40"])
    assert result.exit_code == 2 and "did you mean 'auto_demand'?" in result.output


def test_coercion_from_text() -> None:
    assert coerce_field("epochs", " 12 ") == 12
    assert coerce_field("lr", "0.002") == 0.002
    assert coerce_field("lr", 1) == 1.0 and isinstance(coerce_field("lr", 1), float)
    for text in ("true", "1", "yes"):
        assert coerce_field("residual", text) is True
    for text in ("False", "0", "no"):
        assert coerce_field("residual", text) is False
    assert coerce_field("regularizer", "syllabic") == "syllabic"
    with pytest.raises(ConfigError, match="epochs"):
        coerce_field("epochs", "1.5")


def test_replace_validates_and_keeps_original() -> None:
    cfg = DecipherConfig()
    new = cfg.replace(epochs=3)
    assert new.epochs == 3 and cfg.epochs == DecipherConfig().epochs
    with pytest.raises(ConfigError):
        cfg.replace(rounds=0)


def test_to_dict_round_trips() -> None:
    cfg = preset("ugaritic")
    again = apply_overrides(DecipherConfig(), cfg.to_dict())
    assert again == cfg

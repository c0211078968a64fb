"""`decipher bench --only dev-auto` and `dev-enciphered-auto`: auto on the real dev pairs, a job a
pair with their average, as they are and with the lost side enciphered (its gold kept)."""

from __future__ import annotations

import tempfile

from tui_decipher.bench.core import JobReporter
from tui_decipher.bench.experiments.dev_pairs import DEV_PAIRS, dev_path
from tui_decipher.bench.settings import SETTINGS
from tui_decipher.engine.corpora.corpus import read_cog


def test_the_dev_settings_run_auto_on_every_dev_pair_a_job_each(tmp_path, monkeypatch, single_thread,
                                                                 shared_corpora) -> None:  # fmt: skip
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the corpora the bench writes go under tmp_path
    assert sorted(DEV_PAIRS) == sorted(p.stem for p in (shared_corpora / "dev").glob("*.cog"))
    plain, secret = SETTINGS["dev-auto"], SETTINGS["dev-enciphered-auto"]
    for setting in (plain, secret):
        assert not setting.extra and setting.parts == DEV_PAIRS
        assert [r.key for r in setting.rows] == [*DEV_PAIRS, "average"]
        configs = setting.configs(1234, False)
        assert all(c.method == "auto" and c.seed == 1234 and c.corpus.startswith(str(tmp_path)) for c in configs)
    (row,) = plain.run(1234, True, JobReporter(), part="kitchen-akk-ary")
    (enciphered,) = secret.run(1234, True, JobReporter(), part="kitchen-akk-ary")
    source = read_cog(shared_corpora / "dev" / "kitchen-akk-ary.cog")
    written = read_cog(dev_path("kitchen-akk-ary-enciphered"))
    assert written.gold == source.gold and written.known_words == source.known_words
    assert not {s for w in written.lost_words for s in w} & {s for w in source.known_words for s in w}
    assert row.n_evaluated == enciphered.n_evaluated > 0  # the same lost words with a gold cognate
    assert row.extra["proposal_scores"] is not None and enciphered.extra["proposal_scores"] is not None

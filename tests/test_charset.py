"""A charset's batch encoding: each word's ids at the start of its row, padding after, the words' lengths."""

from __future__ import annotations

import torch

from tui_decipher.engine.corpora.charset import EOW_ID, PAD_ID, UNK_ID, Charset


def test_a_batch_is_each_words_ids_padded_to_the_longest():
    charset = Charset("abc")
    a, b, c = (charset.index[s] for s in "abc")
    ids, lengths = charset.encode_batch([("a", "b"), (), ("c", "z", "a")])
    assert ids.dtype == lengths.dtype == torch.long
    assert ids.tolist() == [[a, b, EOW_ID, PAD_ID], [EOW_ID, PAD_ID, PAD_ID, PAD_ID], [c, UNK_ID, a, EOW_ID]]
    assert lengths.tolist() == [3, 1, 4]
    ids, lengths = charset.encode_batch([("a", "b"), (), ("c",)], add_eow=False)
    assert ids.tolist() == [[a, b], [PAD_ID, PAD_ID], [c, PAD_ID]] and lengths.tolist() == [2, 0, 1]


def test_empty_batches_keep_their_shapes():
    charset = Charset("abc")
    assert charset.encode_batch([])[0].shape == (0, 1)
    assert charset.encode_batch([(), ()], add_eow=False)[0].shape == (2, 0)

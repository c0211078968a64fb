"""The paper's neural model (section 3.1): the seq2seq model P(known | lost) with a universal
character embedding and a norm-controlled residual, its monotonic alignment regularizers, all-pairs
scoring, and the expected edit distance the flow uses as its cost after warm-up."""

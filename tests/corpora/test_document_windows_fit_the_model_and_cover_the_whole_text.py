"""``document_windows`` cuts a text longer than the model reads into windows of at most 256
word pieces (with [CLS] and [SEP]) starting about 128 pieces apart, cut between words, that
together hold every word of the text; ``token_lengths`` counts pieces with the model's own
tokenizer."""

from corpora import retrieval

WORDS = [f"word{i}" for i in range(400)]
# 1,130 pieces: 8 windows, each at most 256 pieces once [CLS] and [SEP] are added.
EXPECTED = (8, [255, 256, 254, 256, 256, 254, 254, 242])


def test_a_long_text_becomes_overlapping_windows_that_fit_and_cover_it():
    tokenizer = retrieval.load_tokenizer()
    assert retrieval.max_seq_length() == retrieval.load_encoder().max_seq_length == 256
    text = " ".join(WORDS)
    [length] = retrieval.token_lengths(tokenizer, [text])
    assert length > 256

    [windows] = retrieval.document_windows(tokenizer, [text], max_length=256, stride=128)
    lengths = retrieval.token_lengths(tokenizer, windows)
    assert all(n <= 256 for n in lengths)
    # Every window is whole words of the text, in order, and every word is in some window.
    for window in windows:
        assert window in text and window.split()[0] in WORDS and window.split()[-1] in WORDS
    assert windows[0].split()[0] == "word0" and windows[-1].split()[-1] == "word399"
    covered = {w for window in windows for w in window.split()}
    assert covered == set(WORDS)
    # Consecutive windows overlap (stride 128 < 254 pieces of text per window).
    for a, b in zip(windows, windows[1:], strict=False):
        assert set(a.split()) & set(b.split())
    assert (len(windows), lengths) == EXPECTED


def test_a_text_that_fits_is_one_window_and_an_empty_text_one_empty_window():
    tokenizer = retrieval.load_tokenizer()
    assert retrieval.document_windows(tokenizer, ["  short text ", ""], max_length=256) == [
        ["short text"],
        [""],
    ]
    assert retrieval.token_lengths(tokenizer, ["short text", ""]) == [4, 2]

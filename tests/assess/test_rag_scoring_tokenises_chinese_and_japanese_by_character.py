"""Answer F1 and containment tokenise Han, Hiragana, Katakana (and Hangul) one character per
token: reference "東京", answer "東京都" → precision 2/3, recall 1, F1 0.80, correct."""

from assess.evaluation.rag import answer_correct, answer_tokens, exact_match, token_f1


def test_tokyo_in_tokyo_metropolis_is_f1_point_eight_and_correct():
    assert token_f1("東京都", ["東京"]) == 0.8
    assert answer_correct("東京都", ["東京"]) is True
    assert exact_match("東京都", ["東京"]) is False


def test_japanese_kana_and_mixed_scripts_split_by_character_only_for_cjk():
    assert answer_tokens("東京タワー abc東京 ok") == [
        "東",
        "京",
        "タ",
        "ワ",
        "ー",
        "abc",
        "東",
        "京",
        "ok",
    ]
    assert answer_tokens("すし") == ["す", "し"]
    assert answer_tokens("서울은") == ["서", "울", "은"]


def test_a_character_not_in_the_answer_is_not_contained():
    assert answer_correct("京都", ["東京"]) is False  # both characters present, not in a row
    # 京 is shared: precision 1/2, recall 1/2
    assert token_f1("京都", ["東京"]) == 0.5


def test_latin_words_keep_whole_word_matching():
    assert answer_correct("10 metres", ["1"]) is False
    assert token_f1("new york city", ["new york"]) == 0.8

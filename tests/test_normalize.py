"""Tests of tactful.normalize and tactful.align: exact outputs, exact offset maps, identity on
clean text, the word and span-edge rules, the pinned word lists, and property tests on arbitrary
text (emoji, combining marks, CRLF, zero-width, lone surrogates)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tactful import normalize as normalize_module
from tactful import wordlists
from tactful.align import (
    JOINERS,
    SENTENCE_END,
    WORD_SYMBOLS,
    Normalized,
    align_tokens,
    replace_surrogates,
    strip_format,
    trim_span,
    word_spans,
)
from tactful.errors import ConfigError, ModelError
from tactful.normalize import normalize, target_words

# --------------------------------------------------------------------------------------
# Exact outputs, one or more per kind of obfuscation
# --------------------------------------------------------------------------------------

DECODED = [
    # masking symbols inside a word
    ("f*ck", "fuck"),
    ("f**k", "fuck"),
    ("f#ck", "fuck"),
    ("f%ck", "fuck"),
    ("f?ck", "fuck"),
    ("f_ck", "fuck"),
    ("sh*t", "shit"),
    ("s**t", "shit"),  # several target words fit: the earliest of target_words() wins
    ("b*tch", "bitch"),
    ("c*nt", "cunt"),
    ("d*ck", "dick"),
    ("p*ssy", "pussy"),
    ("a**hole", "asshole"),
    ("n*gger", "nigger"),
    ("f***ing", "fucking"),
    ("motherf*cker", "motherfucker"),
    ("st*pid", "stupid"),
    # a run of k masks reads as k or k - 1 letters; bare words before inflections
    ("sh**t", "shit"),
    ("a***hole", "asshole"),
    ("b*****d", "bastard"),
    ("shut the f*** up", "shut the fuck up"),  # the mask run is never split at the edge
    ("p*** off", "piss off"),
    ("s***!!", "shit!!"),
    ("a**", "ass"),
    # leetspeak inside words that have letters
    ("sh1t", "shit"),
    ("sh!t", "shit"),
    ("@ss", "ass"),
    ("4ss", "ass"),
    ("a$$", "ass"),
    ("a$$hole", "asshole"),
    ("$hit", "shit"),
    ("b!tch", "bitch"),
    ("1d10t", "idiot"),
    ("r3tard", "retard"),
    ("k!ll", "kill"),
    ("!diot", "idiot"),
    # masks and leetspeak together, and the case of the input kept
    ("you f*ck!ng idiot", "you fucking idiot"),
    ("SH1T", "SHIT"),
    ("F*CK YOU", "FUCK YOU"),
    ("Sh1t", "Shit"),
    # spaced letters
    ("f u c k", "fuck"),
    ("f u c k off", "fuck off"),
    ("f.u.c.k", "fuck"),
    ("f-u-c-k", "fuck"),
    ("f_u_c_k", "fuck"),
    ("s.h.i.t", "shit"),
    ("i d i o t", "idiot"),
    ("s h 1 t", "shit"),
    ("a f u c k i n g idiot", "a fucking idiot"),
    # stretched letters: one or two, whichever gives a target word
    ("fuuuuuck", "fuck"),
    ("idiooooot", "idiot"),
    ("FUUUUCK", "FUCK"),
    # compatibility characters, per character
    ("𝐟𝐮𝐜𝐤", "fuck"),
    ("ｆｕｃｋ", "fuck"),
    ("ⓕⓤⓒⓚ", "fuck"),
    ("ﬁne", "fine"),
    # zero-width and invisible characters, strike-through and accents
    ("id\u200biot", "idiot"),
    ("f\u200du\u200cc\u2060k", "fuck"),
    ("sh\u00adit", "shit"),
    ("\ufeffidiot", "idiot"),
    ("ｆ̶ｕ̶ｃ̶ｋ̶", "fuck"),
    ("fu\u0308ck", "fuck"),
    ("fück", "fuck"),
    # look-alike Cyrillic and Greek letters
    ("fuсk", "fuck"),  # Cyrillic es
    ("ѕһіt", "shit"),  # all four Cyrillic, but a target word
    ("іdіοt", "idiot"),  # Cyrillic i, Greek omicron
    ("hеllo", "hello"),  # mostly Latin: folded without being a target word
    ("рауpal", "paypal"),  # half Latin: folded
]


@pytest.mark.parametrize(("raw", "expected"), DECODED)
def test_decodes_obfuscated_words(raw: str, expected: str) -> None:
    assert normalize(raw).text == expected


CLEAN = [
    "",
    "Hello, world! How are you today?",
    "What is 2+2? Tell me, please!",
    "I ate 2 apples in 2024 for $50 (3.14 each).",
    "Write to jane.doe+news@example.com or see https://example.com/a*b?q=f*ck&x=1",
    "www.sh1t.example.org is a domain",
    "def f(a, b):\r\n    return a*b + x**2  # C++ and C#, **kwargs\r\n",
    "The U.S.A. and e.g. a b c, I a m fine.",
    "mp3 4chan h4x0r x86 covid19 2nd l33t gr8",
    "soooo good, hmmm, zzz, www",
    "exp(5*x)+log(x), x*5, 2*a*s",  # a lone letter must lead: no "sex" in maths
    "a sick f__ like you",  # one real letter reads only as a bare profanity
    "idiot! idiot? *shit* #fuck fuck* hello!",
    "café naïve Zoë straße Ærøskøbing",
    "emoji ❤️ 👨\u200d👩\u200d👧 1️⃣ 👍🏽 🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "你好，世界！２０２４年，这是字母吗？",
    "مرحبا بالعالم، كيف حالك؟",
    "می\u200cخواهم بروم",
    "Привет, как дела? Всё хорошо.",
    "καλημέρα κόσμε",
    "Apple™ x² 1ª nº µm",
    "tab\tand\nnewline\r\nand CRLF\r\n",
]


@pytest.mark.parametrize("text", CLEAN)
def test_clean_text_is_unchanged_with_the_identity_map(text: str) -> None:
    n = normalize(text)
    assert n == Normalized(text, text, tuple(range(len(text))), tuple(range(1, len(text) + 1)))


# --------------------------------------------------------------------------------------
# Exact offset maps
# --------------------------------------------------------------------------------------


def test_word_range_maps_back_to_the_obfuscated_substring() -> None:
    raw = "you f*ck!ng idiot"
    n = normalize(raw)
    assert n.text == "you fucking idiot"
    assert n.to_original(4, 11) == (4, 11)
    assert raw[4:11] == "f*ck!ng"
    assert n.to_original(12, 17) == (12, 17)


@pytest.mark.parametrize(
    ("raw", "text", "starts", "ends"),
    [
        ("f.u.c.k", "fuck", (0, 2, 4, 6), (1, 3, 5, 7)),
        ("f u c k off", "fuck off", (0, 2, 4, 6, 7, 8, 9, 10), (1, 3, 5, 7, 8, 9, 10, 11)),
        ("id\u200biot", "idiot", (0, 1, 3, 4, 5), (1, 2, 4, 5, 6)),
        # a dropped combining mark belongs to the letter before it
        ("ｆ̶ｕ̶", "fu", (0, 2), (2, 4)),
        ("x\u0301y", "xy", (0, 2), (2, 3)),
        # a stretched run maps to the whole run
        ("fuuuuck", "fuck", (0, 1, 5, 6), (1, 5, 6, 7)),
        # a ligature gives two characters from one
        ("ﬁne", "fine", (0, 0, 1, 2), (1, 1, 2, 3)),
        # one astral character (one code point) per mathematical letter
        ("𝐟𝐮𝐜𝐤!", "fuck!", (0, 1, 2, 3, 4), (1, 2, 3, 4, 5)),
        ("a$$", "ass", (0, 1, 2), (1, 2, 3)),
        # masks: one letter per mask, or a squeezed run for the letter it stands for
        ("f**k", "fuck", (0, 1, 2, 3), (1, 2, 3, 4)),
        ("sh**t", "shit", (0, 1, 2, 4), (1, 2, 4, 5)),
    ],
)
def test_exact_maps(raw: str, text: str, starts: tuple[int, ...], ends: tuple[int, ...]) -> None:
    n = normalize(raw)
    assert (n.text, n.starts, n.ends) == (text, starts, ends)


@pytest.mark.parametrize(
    ("raw", "word_range", "original_range"),
    [
        ("so f u c k off", (3, 7), (3, 10)),
        ("so ｆ̶ｕ̶ｃ̶ｋ̶ off", (3, 7), (3, 11)),
        ("you id\u200biot!", (4, 9), (4, 10)),
        ("a fuuuuuck b", (2, 6), (2, 10)),
        ("ﬁne", (0, 1), (0, 1)),  # part of a ligature maps to the whole ligature
        ("ﬁne", (1, 2), (0, 1)),
        ("ﬁne", (2, 4), (1, 3)),
    ],
)
def test_to_original_of_a_range(
    raw: str, word_range: tuple[int, int], original_range: tuple[int, int]
) -> None:
    assert normalize(raw).to_original(*word_range) == original_range


def test_to_original_of_empty_ranges() -> None:
    n = normalize("\u200bab\u200b")
    assert n.text == "ab"
    assert n.to_original(0, 0) == (0, 0)
    assert n.to_original(1, 1) == (2, 2)  # the end of the source of text[0]
    assert n.to_original(2, 2) == (3, 3)
    assert n.to_original(0, 2) == (1, 3)
    assert normalize("").to_original(0, 0) == (0, 0)


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        (
            -1,
            2,
            "[T010] A normalized range must satisfy 0 <= start <= end <= 4. Got start=-1, end=2.",
        ),
        (
            3,
            2,
            "[T010] A normalized range must satisfy 0 <= start <= end <= 4. Got start=3, end=2.",
        ),
        (
            0,
            5,
            "[T010] A normalized range must satisfy 0 <= start <= end <= 4. Got start=0, end=5.",
        ),
        ("0", 2, "[T010] The 'start' of a normalized range must be an int. Got '0' instead."),
        (0, True, "[T010] The 'end' of a normalized range must be an int. Got True instead."),
    ],
)
def test_to_original_rejects_bad_ranges(start: object, end: object, message: str) -> None:
    n = normalize("sh1t")
    with pytest.raises(ConfigError) as exc:
        n.to_original(start, end)  # type: ignore[arg-type]
    assert str(exc.value) == message


def test_normalize_rejects_non_str() -> None:
    with pytest.raises(ConfigError) as exc:
        normalize(b"idiot")  # type: ignore[arg-type]
    assert str(exc.value) == "[T010] normalize() needs a str. Got bytes instead."


# --------------------------------------------------------------------------------------
# align_tokens
# --------------------------------------------------------------------------------------


def test_align_tokens_on_hand_made_offsets() -> None:
    n = normalize("so f u c k off")
    assert n.text == "so fuck off"
    # [CLS] so fu ##ck off [SEP]
    offsets = [(0, 0), (0, 2), (3, 5), (5, 7), (8, 11), (0, 0)]
    assert align_tokens(offsets, n) == [(0, 0), (0, 2), (3, 6), (7, 10), (11, 14), (0, 0)]


def test_align_tokens_identity_and_errors() -> None:
    n = normalize("plain text")
    assert align_tokens([(0, 5), (6, 10), (10, 10)], n) == [(0, 5), (6, 10), (10, 10)]
    with pytest.raises(ConfigError) as exc:
        align_tokens([(6, 11)], n)
    assert (
        str(exc.value)
        == "[T010] A normalized range must satisfy 0 <= start <= end <= 10. Got start=6, end=11."
    )
    with pytest.raises(ConfigError) as exc:
        align_tokens([(1,)], normalize("sh1t"))
    assert str(exc.value) == "[T010] A token offset must be a (start, end) pair. Got (1,) instead."


def test_align_tokens_with_a_real_wordpiece_tokenizer() -> None:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.models import WordPiece
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer

    vocab = ["[UNK]", "you", "fuck", "##ing", "idiot", "!", "off", "sh", "##it"]
    tok = tokenizers.Tokenizer(WordPiece({w: i for i, w in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = BertNormalizer(lowercase=True, strip_accents=True, clean_text=True)
    tok.pre_tokenizer = BertPreTokenizer()
    raw = "You f*ck!ng 1d10t! s h i t ｆ̶ｕ̶ｃ̶ｋ̶ off"
    n = normalize(raw)
    enc = tok.encode(n.text)
    assert enc.tokens == ["you", "fuck", "##ing", "idiot", "!", "sh", "##it", "fuck", "off"]
    pieces = [raw[s:e] for s, e in align_tokens(enc.offsets, n)]
    assert pieces == ["You", "f*ck", "!ng", "1d10t", "!", "s h", "i t", "ｆ̶ｕ̶ｃ̶ｋ̶", "off"]


# --------------------------------------------------------------------------------------
# Policy details
# --------------------------------------------------------------------------------------


def test_full_width_letters_fold_but_full_width_digits_and_punctuation_stay() -> None:
    n = normalize("ＡＢＣ是字母吗？２０２４年！")
    assert n.text == "ABC是字母吗？２０２４年！"
    assert n.starts == tuple(range(14))


def test_genuine_cyrillic_and_greek_words_stay() -> None:
    for text in ("сок", "раураl", "ΚΑΚΟ", "как дела"):
        assert normalize(text).text == text


def test_target_words_are_unique_lower_case_ascii() -> None:
    assert len(set(target_words())) == len(target_words())
    assert all(w.isascii() and w.isalpha() and w == w.lower() for w in target_words())


def test_marks_and_joiners_after_non_latin_characters_stay() -> None:
    # emoji presentation selector, keycap, ZWJ sequences, Persian ZWNJ
    for text in ("❤\ufe0f", "1\ufe0f\u20e3", "👨\u200d👩", "می\u200cخواهم", "а\u0301"):
        assert normalize(text).text == text


# --------------------------------------------------------------------------------------
# Properties on arbitrary text
# --------------------------------------------------------------------------------------

# fmt: off
_NASTY = [
    "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\ufe0f", "\U000e0100",
    "\u0301", "\u0336", "\u20e3", "\r\n", "\r", "\n", "😀", "👍🏽", "❤", "你", "م", "ﬁ", "𝐟", "ｆ",
    "ⓕ", "е", "о", "с", "ѕ", "і", "é", "ß", "１", "＊", "٣", "\ud800", "\x00",
]
# fmt: on
_OBFUSCATION = list("fuckshitdoaFUCK013457 .!?*@$#_-|+%")
texts = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(_OBFUSCATION + _NASTY), max_size=30).map("".join),
)
# fmt: off
_REMOVABLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\u2061", "\u2062", "\u2063", "\u2064",
              "\ufeff", "\u00ad", "\u034f", "\u180e"}
# fmt: on


def _removable(ch: str) -> bool:
    return ch in _REMOVABLE or unicodedata.category(ch) in ("Mn", "Me")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_map_invariants(raw: str) -> None:
    n = normalize(raw)
    assert n.original == raw
    assert len(n.starts) == len(n.ends) == len(n.text)
    for i in range(len(n.text)):
        assert 0 <= n.starts[i] < n.ends[i] <= len(raw)
        if i:
            assert n.starts[i - 1] <= n.starts[i]
            assert n.ends[i - 1] <= n.ends[i]
    if not n.text:
        assert all(_removable(c) for c in raw)
        return
    lo, hi = n.to_original(0, len(n.text))
    assert (lo, hi) == (n.starts[0], n.ends[-1])
    # Everything outside the full range is an invisible character or a mark...
    assert all(_removable(c) for c in raw[:lo] + raw[hi:])
    # ...and inside it, every character not produced is one too, or a separator
    # of joined spaced letters.
    covered = {k for s, e in zip(n.starts, n.ends, strict=True) for k in range(s, e)}
    assert all(_removable(raw[k]) or raw[k] in " ._-" for k in range(lo, hi) if k not in covered)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_idempotent_and_identity_iff_unchanged(raw: str) -> None:
    n = normalize(raw)
    again = normalize(n.text)
    assert again.text == n.text
    assert again.starts == tuple(range(len(n.text)))  # nothing left to change
    if n.text == raw:
        assert n.starts == tuple(range(len(raw)))
        assert n.ends == tuple(range(1, len(raw) + 1))


# fmt: off
_CLEAN_WORDS = [
    "hello", "world", "I", "a", "café", "Zoë", "😀", "❤️", "👨\u200d👩\u200d👧", "1️⃣", "你好", "مرحبا",
    "Привет", "καλημέρα", "2024", "$50", "3.14", "https://example.com/a*b", "x@y.org", "C++", "mp3",
    "e.g.", "U.S.A.", "don't", "straße", "می\u200cخواهم", "(ok)", "idiot!", "fine?",
]
# fmt: on


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_CLEAN_WORDS), st.sampled_from([" ", "\r\n", ", ", "\t", "\n\n"])
        ),
        max_size=12,
    ).map(lambda ws: "".join(w + sep for w, sep in ws))
)
def test_clean_text_property(raw: str) -> None:
    n = normalize(raw)
    assert n.text == raw
    assert n.starts == tuple(range(len(raw)))


# --------------------------------------------------------------------------------------
# tactful.align: the one word rule and the one span-edge rule
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("You IDIOT!!", ["You", "IDIOT"]),
        ("don't f*ck a**hole don\u2019t", ["don't", "f*ck", "a**hole", "don\u2019t"]),
        ("stupid_idiot 'quoted' *star* it's*", ["stupid", "idiot", "quoted", "star", "it's"]),
        ("Cafe\u0301 \u0301x", ["Cafe\u0301", "\u0301x"]),  # marks belong to the word
        (
            "id\u200biot \u200bedge\u200b soft\u00adhyphen",
            ["id\u200biot", "edge", "soft\u00adhyphen"],
        ),
        (
            "African-American non-binary 2024 3.14",
            ["African", "American", "non", "binary", "2024", "3", "14"],
        ),
        ("😀 你好 мир", ["你好", "мир"]),
        ("\ud800lone\udc00", ["lone"]),
        ("", []),
    ],
)
def test_word_spans_rule(text: str, words: list[str]) -> None:
    assert [text[s:e] for s, e in word_spans(text)] == words


def test_word_spans_with_the_decoders_symbols() -> None:
    text = "sh!t, @ss *shit* don't f_ck"
    got = [text[s:e] for s, e in word_spans(text, symbols=WORD_SYMBOLS, joiners="")]
    assert got == ["sh!t", "@ss", "*shit*", "don", "t", "f_ck"]
    assert set(WORD_SYMBOLS) == set(normalize_module._SYMBOLS) - set("0123456789")


@pytest.mark.parametrize(
    ("text", "span", "trimmed"),
    [
        ("(you idiot!)", (0, 12), "you idiot"),
        ("f*ck!!", (0, 6), "f*ck"),
        ("sh!t?!", (0, 6), "sh!t"),
        ("!diot", (0, 5), "!diot"),  # a leading "!" may be a letter
        ("@ss, $hit.", (0, 10), "@ss, $hit"),
        ("Cafe\u0301 ", (0, 6), "Cafe\u0301"),  # never cuts an accent off its letter
        (" \u200bidiot\u200b ", (0, 8), "idiot"),
        ("...!?", (0, 5), ""),
    ],
)
def test_trim_span_rule(text: str, span: tuple[int, int], trimmed: str) -> None:
    s, e = trim_span(text, *span)
    assert 0 <= s <= e <= len(text) and text[s:e] == trimmed


def test_replace_surrogates_and_strip_format() -> None:
    text = "a\ud800b\udfff\ud83d\ude00"
    out = replace_surrogates(text)
    assert out == "a\ufffdb\ufffd\ufffd\ufffd" and len(out) == len(text)
    assert out.encode("utf-8")  # a tokenizer can take it
    assert replace_surrogates("plain") == "plain"
    assert strip_format("id\u200biot\u00ad") == "idiot"


_ANY = st.lists(
    st.one_of(
        st.characters(codec=None),
        st.sampled_from(
            list(JOINERS + WORD_SYMBOLS + SENTENCE_END) + _NASTY + ["\ud800", "\udfff"]
        ),
    ),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_ANY)
def test_word_spans_properties(text: str) -> None:
    spans = word_spans(text)
    prev = 0
    for s, e in spans:
        assert prev <= s < e <= len(text)
        word = text[s:e]
        # never starts or ends with a joiner or a format character
        for ch in (word[0], word[-1]):
            assert ch not in JOINERS and unicodedata.category(ch) != "Cf"
        prev = e
    # lone surrogates and their U+FFFD stand-ins both separate words
    assert word_spans(replace_surrogates(text)) == spans


@settings(max_examples=400, deadline=None)
@given(_ANY, st.integers(0, 40), st.integers(0, 40))
def test_trim_span_properties(text: str, a: int, b: int) -> None:
    start, end = sorted((min(a, len(text)), min(b, len(text))))
    s, e = trim_span(text, start, end)
    assert start <= s <= e <= end
    assert trim_span(text, s, e) == (s, e)  # idempotent
    if e > s:
        assert text[e - 1] not in SENTENCE_END


# --------------------------------------------------------------------------------------
# Pinned word lists
# --------------------------------------------------------------------------------------


@pytest.fixture
def tampered_vocabulary(monkeypatch, tmp_path):
    """A copy of the package data whose vocabulary.tsv lost one line, with caches cleared."""
    import shutil

    copy = tmp_path / "data"
    shutil.copytree(wordlists.data_path(), copy)
    rel = copy / "words" / "vocabulary.tsv"
    rel.write_text(rel.read_text(encoding="utf-8").replace("hell\tprofanity\tdecode\n", ""))
    caches = (wordlists.vocabulary, normalize_module._forms, normalize_module._decode)
    for fn in caches:
        fn.cache_clear()
    monkeypatch.setattr(wordlists, "data_path", lambda rel="": copy / rel)
    yield
    monkeypatch.undo()
    for fn in caches:
        fn.cache_clear()


def test_word_lists_are_pinned(tampered_vocabulary) -> None:
    with pytest.raises(ModelError) as err:
        normalize("h3ll")
    message = str(err.value)
    assert message.startswith("[T030] tactful/data/words/vocabulary.tsv has SHA-256 ")
    assert message.endswith(
        "(pinned in tactful/data/manifest.json); the file was changed without re-pinning it."
    )
    assert normalize("plain text").text == "plain text"  # nothing to decode: nothing read


def test_shipped_word_lists_load() -> None:
    vocab = wordlists.vocabulary()
    assert {w.category for w in vocab} == set(wordlists.CATEGORIES)
    assert target_words() == wordlists.words("decode")
    assert "hell" in target_words() and "hell" not in wordlists.words("lexicon")
    assert "f*ck" in wordlists.words("lexicon") and "f*ck" not in target_words()
    exclusions = wordlists.slur_exclusions()
    assert "queer" in exclusions["identity words people use for themselves"]
    with pytest.raises(ConfigError, match="The 'use' parameter of words must be one of"):
        wordlists.words("profanity")


def test_joiners_after_a_word_go_with_its_last_character() -> None:
    # found by hypothesis: the decoded word must not leave a joiner behind it, or a
    # second normalization would remove it (after a Latin letter) and change the text
    for raw, text, word_end in (("Cu%\u200c", "Cum", 4), ("f*ck\u200d!", "fuck!", 4)):
        n = normalize(raw)
        assert n.text == text and normalize(text).text == text
        assert n.to_original(0, len(text.rstrip("!"))) == (0, word_end)  # "%\u200c" read as "m"

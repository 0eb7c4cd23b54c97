"""The Python module tokbench against tiktoken: the golden ids of every corpus text, and tiktoken's
behaviour for special tokens, errors and odd input, written out from tiktoken 0.14."""

import inspect
import os
import pathlib
import random
import unittest

import tokbench

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
CORPUS_DIR = REPOSITORY / "data" / "corpus"
GOLDEN_DIR = pathlib.Path(os.environ["TOKBENCH_GOLDEN_DIR"])
ENCODINGS = ("r50k_base", "cl100k_base", "o200k_base")


def golden_ids(name):
    data = (GOLDEN_DIR / name).read_bytes()
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def corpus_texts():
    return sorted(CORPUS_DIR.glob("*.txt"))


def read_text(path):
    """The text exactly: read_text would turn adv_mixed's CR LF into LF."""
    return path.read_bytes().decode("utf-8")


def first_difference(expected, actual):
    """None if the id lists are equal, else where and how they differ, briefly: unittest's own
    diff of two lists of a hundred thousand ids takes minutes."""
    if expected == actual:
        return None
    at = next((i for i, (e, a) in enumerate(zip(expected, actual)) if e != a), min(len(expected), len(actual)))
    return (f"{len(actual)} ids instead of {len(expected)}; first difference at {at}: "
            f"{actual[at:at + 5]} instead of {expected[at:at + 5]}")


class GoldenIds(unittest.TestCase):
    def test_every_encoder_gives_tiktokens_ids(self):
        for encoder in tokbench.encoders():
            for encoding in ENCODINGS:
                enc = tokbench.get_encoding(encoding, encoder=encoder)
                for path in corpus_texts():
                    with self.subTest(encoder=encoder, encoding=encoding, corpus=path.stem):
                        self.assertIsNone(first_difference(golden_ids(f"{path.stem}.{encoding}.u32"),
                                                           enc.encode_ordinary(read_text(path))))

    def test_allowed_special_tokens_give_tiktokens_ids(self):
        for encoding in ENCODINGS:
            enc = tokbench.get_encoding(encoding)
            for path in corpus_texts():
                special = GOLDEN_DIR / f"{path.stem}.{encoding}.special.u32"
                expected = golden_ids(special.name if special.exists() else f"{path.stem}.{encoding}.u32")
                with self.subTest(encoding=encoding, corpus=path.stem):
                    self.assertIsNone(first_difference(expected, enc.encode(read_text(path), allowed_special="all")))

    def test_batch_gives_each_documents_ids(self):
        enc = tokbench.get_encoding("cl100k_base")
        texts = [read_text(p) for p in corpus_texts()]
        expected = [enc.encode_ordinary(t) for t in texts]
        for threads in (1, 2, 8):
            self.assertEqual(enc.encode_ordinary_batch(texts, num_threads=threads), expected)
            self.assertEqual(enc.encode_batch(texts, num_threads=threads, disallowed_special=()), expected)
        self.assertEqual(enc.encode_batch([]), [])

    def test_array_variant_owns_the_same_ids(self):
        import numpy
        enc = tokbench.get_encoding("o200k_base")
        text = read_text(CORPUS_DIR / "udhr_jpn.txt")
        array = enc.encode_to_numpy(text)
        self.assertEqual(array.dtype, numpy.uint32)
        self.assertEqual(array.tolist(), enc.encode(text))
        # More than 1,024 ids, no copy: the array is a view of memory a capsule owns.
        self.assertGreater(array.size, 1024)
        self.assertFalse(array.flags.owndata)
        self.assertIsNotNone(array.base)
        # Fewer, copied into an array of numpy's own.
        short = enc.encode_to_numpy(text[:100])
        self.assertEqual(short.tolist(), enc.encode(text[:100]))
        self.assertTrue(short.flags.owndata)
        self.assertEqual(enc.encode_to_numpy("").tolist(), [])

    def test_ordinary_array_variants_give_the_ordinary_ids(self):
        import numpy
        enc = tokbench.get_encoding("cl100k_base")
        texts = [read_text(p) for p in corpus_texts()] + ["", "a<|endoftext|>"]
        expected = enc.encode_ordinary_batch(texts)
        for text, ids in zip(texts, expected):
            array = enc.encode_ordinary_to_numpy(text)
            self.assertEqual(array.dtype, numpy.uint32)
            self.assertEqual(array.tolist(), ids)
        for threads in (1, 2):
            arrays = enc.encode_ordinary_batch_to_numpy(texts, num_threads=threads)
            self.assertEqual([a.tolist() for a in arrays], expected)
            self.assertTrue(all(a.dtype == numpy.uint32 for a in arrays))
            # Views of the encoder's ids, or copies of up to 1,024 of them.
            self.assertTrue(all(a.flags.owndata == (a.size <= 1024) for a in arrays))
            self.assertTrue(any(a.size > 1024 for a in arrays) and any(0 < a.size <= 1024 for a in arrays))
        self.assertEqual(enc.encode_ordinary_batch_to_numpy([]), [])


class Behaviour(unittest.TestCase):
    enc = tokbench.get_encoding("cl100k_base")

    def test_vocabulary_figures(self):
        self.assertEqual((self.enc.name, self.enc.n_vocab, self.enc.max_token_value, self.enc.eot_token),
                         ("cl100k_base", 100277, 100276, 100257))
        self.assertEqual(self.enc.special_tokens_set, {"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>",
                                                       "<|fim_suffix|>", "<|endofprompt|>"})
        self.assertEqual(tokbench.get_encoding("r50k_base").n_vocab, 50257)
        self.assertEqual(tokbench.get_encoding("o200k_base").n_vocab, 200019)

    def test_special_tokens_as_tiktoken_has_them(self):
        enc = self.enc
        self.assertEqual(enc.encode("a<|endoftext|>", allowed_special="all"), [64, 100257])
        self.assertEqual(enc.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}, disallowed_special=()),
                         [100257])
        # Only the listed tokens are errors; the others are ordinary text.
        self.assertEqual(enc.encode("x<|fim_prefix|>", disallowed_special={"<|endoftext|>"}),
                         [87, 27, 91, 69, 318, 14301, 91, 29])
        self.assertEqual(enc.encode("x<|fim_prefix|>", disallowed_special=()), enc.encode_ordinary("x<|fim_prefix|>"))
        # Names of no special token are ignored.
        self.assertEqual(enc.encode("x", allowed_special={"nope"}, disallowed_special={"nope"}), [87])
        self.assertEqual(enc.encode_ordinary("a<|endoftext|>"), [64, 27, 91, 8862, 728, 428, 91, 29])

    def test_disallowed_special_token_is_tiktokens_value_error(self):
        token = "'<|fim_prefix|>'"
        message = (f"Encountered text corresponding to disallowed special token {token}.\n"
                   f"If you want this text to be encoded as a special token, pass it to `allowed_special`, "
                   f"e.g. `allowed_special={{{token}, ...}}`.\n"
                   f"If you want this text to be encoded as normal text, disable the check for this token by "
                   f"passing `disallowed_special=(enc.special_tokens_set - {{{token}}})`.\n"
                   f"To disable this check for all special tokens, pass `disallowed_special=()`.\n")
        with self.assertRaises(ValueError) as raised:
            self.enc.encode("a<|fim_prefix|>b<|endoftext|>")
        self.assertEqual(str(raised.exception), message)
        with self.assertRaises(ValueError):
            self.enc.encode("a<|endoftext|><|fim_prefix|>", disallowed_special={"<|fim_prefix|>"})
        with self.assertRaises(ValueError):
            self.enc.encode_to_numpy("<|endoftext|>")
        # In a batch, before anything is encoded.
        with self.assertRaises(ValueError):
            self.enc.encode_batch(["fine", "a<|endoftext|>"])
        self.assertEqual(self.enc.encode_batch(["a<|endoftext|>", "b"], allowed_special="all"), [[64, 100257], [65]])

    def test_bad_arguments(self):
        with self.assertRaisesRegex(TypeError, "expected str, not bytes"):
            self.enc.encode(b"abc")
        with self.assertRaisesRegex(TypeError, "expected str, not int"):
            self.enc.encode_ordinary(5)
        with self.assertRaisesRegex(TypeError, "not the str 'al'"):
            self.enc.encode("x", allowed_special="al")
        with self.assertRaisesRegex(ValueError, "num_threads must be at least 1"):
            self.enc.encode_ordinary_batch(["x"], num_threads=0)
        with self.assertRaisesRegex(ValueError, r"unknown encoding 'nope' \(built in: r50k_base, cl100k_base, o200k_base\)"):
            tokbench.get_encoding("nope")
        with self.assertRaisesRegex(ValueError, "unknown encoder 'zzz'"):
            tokbench.get_encoding("cl100k_base", encoder="zzz")
        with self.assertRaisesRegex(ValueError, "missing.tiktoken: cannot open vocabulary file"):
            tokbench.load_encoding("/nonexistent/missing.tiktoken")

    def test_arguments_as_tiktokens_signatures(self):
        # encode and encode_ordinary (and their numpy forms) parse their own arguments
        # (python/src/fast_methods.hpp): text by position or keyword, the special-token sets by
        # keyword only, as tiktoken's signatures have them.
        enc = self.enc
        for method in (enc.encode, enc.encode_ordinary, enc.encode_to_numpy, enc.encode_ordinary_to_numpy):
            with self.subTest(method=method.__name__):
                self.assertEqual(list(method(text="hi")), [6151])
                self.assertEqual(list(method("hi")), [6151])
                with self.assertRaisesRegex(TypeError, rf"{method.__name__}\(\) missing 1 required argument: 'text'"):
                    method()
                with self.assertRaisesRegex(TypeError, "takes 1 positional argument but 2 were given"):
                    method("a", "b")
                with self.assertRaisesRegex(TypeError, "got an unexpected keyword argument 'txt'"):
                    method(txt="a")
                with self.assertRaisesRegex(TypeError, "got multiple values for argument 'text'"):
                    method("a", text="b")
        self.assertEqual(str(inspect.signature(enc.encode)), "(text, *, allowed_special=(), disallowed_special='all')")
        self.assertEqual(str(inspect.signature(enc.encode_ordinary)), "(text)")
        self.assertEqual(enc.encode_to_numpy("a<|endoftext|>", allowed_special="all").tolist(), [64, 100257])
        with self.assertRaisesRegex(TypeError, "got an unexpected keyword argument 'allowed_special'"):
            enc.encode_ordinary("a", allowed_special="all")
        with self.assertRaisesRegex(TypeError, "doesn't apply to a 'int' object"):
            tokbench.Encoding.encode(5, "x")

    def test_decode_as_tiktoken(self):
        enc = self.enc
        self.assertEqual(enc.decode([15339, 1917]), "hello world")
        self.assertEqual(enc.decode_bytes([15339, 1917]), b"hello world")
        self.assertEqual(enc.decode([100257]), "<|endoftext|>")
        half = enc.encode("\u4e16")[:1]  # the first of the character's tokens: an incomplete UTF-8 sequence
        self.assertEqual(enc.decode(half), "\ufffd")
        self.assertEqual(enc.decode(half, errors="ignore"), "")
        with self.assertRaises(UnicodeDecodeError):
            enc.decode(half, errors="strict")
        with self.assertRaisesRegex(KeyError, "Invalid token for decoding: 100256"):
            enc.decode([100256])
        with self.assertRaisesRegex(KeyError, "Invalid token for decoding: 10000000"):
            enc.decode_bytes([10**7])
        with self.assertRaises(OverflowError):
            enc.decode([-1])
        with self.assertRaisesRegex(OverflowError, "out of range integral type conversion attempted"):
            enc.decode([2**32])
        with self.assertRaises(TypeError):
            enc.decode(["a"])

    def test_lone_surrogates_encode_as_replacement_characters(self):
        self.assertEqual(self.enc.encode("\ud800x"), [5809, 87])
        self.assertEqual(self.enc.encode("\ud800x"), self.enc.encode("\ufffdx"))

    def test_one_object_per_encoding_and_encoder(self):
        self.assertIs(tokbench.get_encoding("cl100k_base"), tokbench.get_encoding("cl100k_base"))
        serial = tokbench.get_encoding("cl100k_base", encoder="serial")
        self.assertEqual(serial.encoder, "serial")
        self.assertEqual(serial.with_encoder("simd").encoder, "simd")
        self.assertEqual(serial.with_encoder("simd").encode("hello world"), serial.encode("hello world"))
        with self.assertRaisesRegex(ValueError, "unknown encoder 'x'"):
            serial.with_encoder("x")
        self.assertEqual(tokbench.get_encoding("cl100k_base").encoder, tokbench.encoders()[-1])
        loaded = tokbench.load_encoding(str(REPOSITORY / "data" / "vocab" / "o200k_base.tiktoken"), encoder="simd")
        self.assertEqual(loaded.encode("hello world"), tokbench.get_encoding("o200k_base").encode("hello world"))

    def test_piece_cache_setting(self):
        path = str(REPOSITORY / "data" / "vocab" / "cl100k_base.tiktoken")
        self.assertEqual(tokbench.get_encoding("cl100k_base").piece_cache_bytes, 256 << 10)
        uncached = tokbench.load_encoding(path, piece_cache_bytes=0, piece_memo_bytes=0)
        small = tokbench.load_encoding(path, piece_cache_bytes=5000, piece_memo_bytes=5000, long_piece_memo_bytes=5000,
                                       bulk_piece_memo_bytes=5000)
        self.assertEqual(uncached.piece_cache_bytes, 0)
        self.assertEqual(small.piece_cache_bytes, 4096)  # a power of two of 64-byte lines
        self.assertEqual(small.piece_memo_bytes, 0)  # made on first use
        text = read_text(CORPUS_DIR / "en_shakespeare.txt")
        expected = golden_ids("en_shakespeare.cl100k_base.u32")
        for encoding in (uncached, small, small):  # small twice: cold, then warm
            self.assertIsNone(first_difference(expected, encoding.encode_ordinary(text)))
        # Hindi: words of more than 16 bytes, which the long-piece memo keeps.
        hindi = read_text(CORPUS_DIR / "udhr_hin.txt")
        for encoding in (uncached, small, small):
            self.assertIsNone(first_difference(golden_ids("udhr_hin.cl100k_base.u32"), encoding.encode_ordinary(hindi)))
        self.assertEqual(uncached.piece_memo_bytes, 0)
        # A memo a thread that encoded, each two tables of a power of two of 64-byte lines and 5,000
        # bytes for long pieces (an eighth of it, rounded down to a power of two of 16-byte slots, for
        # the index, the rest the arena); and, where a memo that small stopped paying, a bulk memo of
        # 34 buckets of 128 bytes (too little left for long pieces).
        threads = range(1, (os.cpu_count() or 1) + 1)
        self.assertIn(small.piece_memo_bytes, [n * (2048 + 2048 + 5000) + k * 34 * 128 for n in threads for k in range(n + 1)])

    def test_huge_piece_cache_setting(self):
        path = str(REPOSITORY / "data" / "vocab" / "cl100k_base.tiktoken")
        letters = "a" * (1 << 20)  # one piece of a megabyte: 131,072 ids of "aaaaaaaa"
        without = tokbench.load_encoding(path, huge_piece_cache_bytes=0)
        expected = without.encode_ordinary(letters)
        self.assertEqual(without.huge_piece_cache_bytes, 0)
        cached = tokbench.load_encoding(path)
        self.assertEqual(cached.huge_piece_cache_bytes, 0)  # records made as pieces come
        for _ in range(2):  # cold, then warm
            self.assertIsNone(first_difference(expected, cached.encode_ordinary(letters)))
        self.assertEqual(cached.huge_piece_cache_bytes, len(letters) + 4 * len(expected))
        small = tokbench.load_encoding(path, huge_piece_cache_bytes=1 << 20)  # too small for it
        for _ in range(2):
            self.assertIsNone(first_difference(expected, small.encode_ordinary(letters)))
        self.assertEqual(small.huge_piece_cache_bytes, 0)

    def test_bulk_piece_memo_setting(self):
        path = str(REPOSITORY / "data" / "vocab" / "cl100k_base.tiktoken")
        rng = random.Random(5)
        base64 = "".join(rng.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", k=256 << 10))
        expected = tokbench.load_encoding(path, piece_cache_bytes=0, piece_memo_bytes=0).encode_ordinary(base64)
        # One thread, so that the memo sees the text's windows one after another (each thread of a
        # parallel encoder sees its chunks').
        without = tokbench.load_encoding(path, encoder="simd", bulk_piece_memo_bytes=0)
        bulk = tokbench.load_encoding(path, encoder="simd", bulk_piece_memo_bytes=1 << 20)
        for encoding in (without, without, bulk, bulk):  # each cold, then warm
            self.assertIsNone(first_difference(expected, encoding.encode_ordinary(base64)))
        # The thread's memo, 2 MiB and 512 KiB for long pieces; beside it, for random base64, a bulk
        # memo of 1 MiB (seven eighths buckets of lines, the rest for long pieces: a power of two of
        # slots and an arena that fill it).
        memo = (2 << 20) + (512 << 10)
        self.assertEqual(without.piece_memo_bytes, memo)
        self.assertEqual(bulk.piece_memo_bytes, memo + (1 << 20))

    def test_round_trip_of_random_text(self):
        rng = random.Random(7)
        alphabet = "ab \n\t0123456789.,'éñ世界😀\u0301ـ"
        for enc in map(tokbench.get_encoding, ENCODINGS):
            for _ in range(200):
                text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
                ids = enc.encode_ordinary(text)
                self.assertEqual(enc.decode(ids), text)
                self.assertEqual(enc.encode_to_numpy(text, disallowed_special=()).tolist(), ids)


if __name__ == "__main__":
    unittest.main()

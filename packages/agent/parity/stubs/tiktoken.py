# Stand-in for `tiktoken` (not installable here): a pure-python cl100k_base with tiktoken's own
# algorithm (its split pattern, then byte-pair merges by rank). The ranks come from the file named
# by OSHARM_TIKTOKEN_RANKS, in tiktoken's own format (`<base64 token> <rank>` per line); the test
# writes it from gpt-tokenizer's table and checks its sha256 against tiktoken's published
# cl100k_base.tiktoken before use, so the ranks are tiktoken's, and the merge code here is not
# osharm's TypeScript: what upstream trims is cut by an independent implementation.
import base64
import os

import regex

_PATTERN = regex.compile(
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
_SPECIAL = {
    '<|endoftext|>': 100257,
    '<|fim_prefix|>': 100258,
    '<|fim_middle|>': 100259,
    '<|fim_suffix|>': 100260,
    '<|endofprompt|>': 100276,
}


def _byte_pair_merge(piece, ranks):
    # tiktoken's _byte_pair_merge: repeatedly merge the adjacent pair of lowest rank.
    parts = [bytes([b]) for b in piece]
    while len(parts) > 1:
        best = None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            break
        i = best[1]
        parts[i:i + 2] = [parts[i] + parts[i + 1]]
    return [ranks[part] for part in parts]


class Encoding:
    def __init__(self, ranks):
        self._ranks = ranks
        self._decoder = {rank: token for token, rank in ranks.items()}

    def encode(self, text):
        for special in _SPECIAL:
            if special in text:
                # tiktoken's default (disallowed_special="all") refuses special-token text.
                raise ValueError(f'Encountered text corresponding to disallowed special token {special!r}.')
        tokens = []
        for match in _PATTERN.finditer(text):
            piece = match.group().encode('utf-8')
            rank = self._ranks.get(piece)
            tokens.extend([rank] if rank is not None else _byte_pair_merge(piece, self._ranks))
        return tokens

    def decode(self, tokens):
        return b''.join(self._decoder[token] for token in tokens).decode('utf-8', errors='replace')


_cache = {}


def encoding_for_model(model):
    if model not in ('gpt-4', 'gpt-3.5-turbo'):
        raise KeyError(model)
    if 'cl100k_base' not in _cache:
        ranks = {}
        with open(os.environ['OSHARM_TIKTOKEN_RANKS'], 'rb') as rank_file:
            for line in rank_file.read().splitlines():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
        _cache['cl100k_base'] = Encoding(ranks)
    return _cache['cl100k_base']

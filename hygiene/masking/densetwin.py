"""The compiled twins of three dense rules (``_dense.c``): keys, URL passwords, URL users.

A huge line of ``pwd=a;`` holds a value every six characters, and ``re``'s cost per match
(its state reset, the search restarted, three slices made) was half of ``hygiene mask``'s
time on it. The twins cut a text into the same pieces as the rules' ``split`` with none of
that cost. The patterns in :mod:`hygiene.masking.dense` stay the definition: they run where
the extension was not built, and ``tests/masking/test_dense_compiled.py`` checks that the
twins cut every generated text as they do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

try:
    import hygiene.masking._dense as _C  # (a submodule, no cycle)
except ImportError:  # built without a compiler: the patterns run
    _C = None  # type: ignore[assignment]

# A twin splits (text, text.lower(), pos) as its rule's pattern splits text[pos:].
Twin = Callable[[str, str, int], list[str]]


def key_trie(words: tuple[str, ...]) -> bytes:
    """``words`` (lowercase ASCII letters) as the trie ``_dense.keys`` walks: 27 bytes a
    node, node 0 the root: flags (1: a word ends here, 2: longer words go on), then per
    letter ``a``..``z`` the child's index (0: none)."""
    nodes: list[bytearray] = [bytearray(27)]
    for word in words:
        node = 0
        for char in word:
            if not ("a" <= char <= "z"):
                raise ValueError(f"a key word of letters a-z only: {word!r}")
            slot = 1 + ord(char) - ord("a")
            if not nodes[node][slot]:
                nodes[node][0] |= 2
                nodes[node][slot] = len(nodes)
                nodes.append(bytearray(27))
            node = nodes[node][slot]
        nodes[node][0] |= 1
    if len(nodes) > 255:
        raise ValueError("too many key words for the compiled twin's trie")
    return b"".join(nodes)


def keys_twin(words: tuple[str, ...], word_run: int) -> Twin | None:
    """The twin of ``dense.KEYS`` (its key ``words``; a value's run of ``word_run`` characters
    takes no word after it), or None where not built."""
    if _C is None:
        return None
    split, trie = _C.keys, key_trie(words)

    def keys(text: str, low: str, pos: int) -> list[str]:
        return split(text, pos, text != low, trie, word_run)

    return keys


def userinfo_twin(longest: int) -> Twin | None:
    """The twin of ``dense.USERINFO`` (a user name of ``longest`` characters at most before
    the password), or None where not built."""
    if _C is None:
        return None
    split = _C.userinfo

    def userinfo(text: str, low: str, pos: int) -> list[str]:
        return split(text, pos, longest)

    return userinfo


def token_users_twin(prefix: str, shortest: int) -> Twin | None:
    """The twin of ``credentials._TOKEN_USER`` (user names of ``shortest`` token characters or
    more holding no ``prefix``), or None where not built."""
    if _C is None:
        return None
    split = _C.token_users

    def users(text: str, low: str, pos: int) -> list[str]:
        return split(text, pos, prefix, shortest)

    return users


COMPILED: Final = _C is not None
"""Whether the twins run (the extension was built)."""

__all__ = ["COMPILED", "Twin", "key_trie", "keys_twin", "token_users_twin", "userinfo_twin"]

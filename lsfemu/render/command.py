"""The job's command as LSF keeps it (reference lsf-breadth 6.4): the text
bsub stores, runs through /bin/sh, logs in lsb.events' JOB_NEW and shows in
`Command <...>` of bjobs -l, bhist -l and bacct.

`bsub cmd arg ...`: the words are joined the way OpenLava's bsub does it
(cmd.sub.c, CopyCommand), which LSF kept: one word is stored verbatim
(`bsub "sleep 10; echo hi"`); of several, the first is copied verbatim
(unless LSB_API_QUOTE_CMD=y) and every further word is re-quoted so that the
shell sees it as one word again:

- a word with a blank is wrapped in `"..."`, or in `'...'` when it also holds
  a `"` or a `$` (so `"cd DIR && prog"` stays one word for `bash -c`, and
  `'$HOME'` is not expanded);
- otherwise `"` `'` `\\` `(` `)` are escaped with a backslash (parentheses
  left bare when LSB_32_PAREN_ESC is set) and a word starting with `$` has
  each run between those characters wrapped in `'...'`.

`bsub < script`: the script's lines joined with `;` (no blank added, the
final newline dropped): what LSF logs and shows for a job read from stdin.
The script itself is what runs (lsfemu.engine.runner).

Pure: strings in, string out.
"""

from __future__ import annotations

_ESCAPED = {'"': '\\"', "'": "\\'", "\\": "\\\\", "(": "\\(", ")": "\\)"}


def _quote_word(word: str, paren_escape: bool) -> str:
    if " " in word:
        if '"' in word or "$" in word:
            return "'" + word + "'"
        return '"' + word + '"'
    # CopyCommand's loop: each run up to the next special character (possibly
    # empty), then that character escaped; a `$` word has each run quoted
    dollar = word.startswith("$")
    out: list[str] = []
    i, n = 0, len(word)
    while i < n:
        j = i
        while j < n and word[j] not in _ESCAPED:
            j += 1
        out.append("'" + word[i:j] + "'" if dollar else word[i:j])
        if j < n:
            ch = word[j]
            out.append(ch if ch in "()" and not paren_escape else _ESCAPED[ch])
        i = j + 1
    return "".join(out)


def join_words(words: list[str], *, quote_first: bool = False, paren_escape: bool = True) -> str:
    """The command text of `bsub words...` (CopyCommand)."""
    if not words:
        return ""
    if len(words) == 1 and not quote_first:
        return words[0]
    head, rest = ([], words) if quote_first else ([words[0]], words[1:])
    return " ".join(head + [_quote_word(w, paren_escape) for w in rest])


def script_command(script: str) -> str:
    """The command text of a job script read from stdin: its lines joined with `;`."""
    return script.rstrip("\n").replace("\r\n", "\n").replace("\n", ";")

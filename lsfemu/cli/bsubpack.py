"""`bsub -pack job_submission_file` (reference lsf-breadth 6.3): many
submissions in one call, one request a line in bsub's syntax without the
word `bsub`.

- Enabled by LSB_MAX_PACK_JOBS > 0 in lsf.conf (0 or unset: disabled); no
  other option and no command on the command line (LSF's usage otherwise).
- The client sends the file's contents (the daemon may not read the caller's
  files; lsfemu.client._pack_file); blank lines and lines starting with `#`
  are skipped, the others are word-split as a shell does (quotes honoured).
- Each request is read with bsub's own grammar and submitted by bsub's own
  function, so a line means what the same words mean after `bsub`; -I*, -K,
  -V, -h and -pack are refused in the file with OpenLava's texts.
- Each request answers as a single bsub does (`Job <N> is submitted to
  queue <q>.`, or `<reason>. Job not submitted.` on stderr). The first
  failure ends the pack unless LSB_PACK_SKIP_ERROR=Y. Exit 0 when every
  request was submitted, else 255.
"""

from __future__ import annotations

import re
import shlex

from lsfemu import options
from lsfemu.cli.base import Ctx, UsageExit
from lsfemu.errors import NotSubmitted
from lsfemu.render import messages as M

#: options LSF refuses inside a pack file, and its texts (lsb.err.c 140-144)
_NOT_IN_PACK = {
    "-V": M.VERSION_IN_PACK, "-K": M.BLOCK_IN_PACK, "-pack": M.PACK_IN_PACK,
    "-h": M.SYNTAX_ERROR, "-help": M.SYNTAX_ERROR,
    **{f: M.INTERACTIVE_IN_PACK for f in ("-I", "-Ip", "-Is", "-IS", "-ISp", "-ISs", "-IX")},
}


def submit_pack(c: Ctx, path: str, submit_one) -> None:
    """Submit each request of the pack file at *path* (its text is c.stdin)
    with *submit_one* (cli.bsub.bsub, called with a line's option values)."""
    if c.argv not in (["-pack", path], ["-pack" + path]):
        raise UsageExit()  # -pack takes no other option and no command (subUsage_)
    conf = c.cluster.config.lsf_conf
    limit = conf.get("LSB_MAX_PACK_JOBS", "0").strip()
    if not limit.isdigit() or int(limit) <= 0:
        c.error(M.PACK_DISABLED)
        return
    text = c.stdin
    if text is None:
        c.error(M.PACK_UNREADABLE.format(path))
        return
    if "\0" in text or "\ufffd" in text:
        c.error(M.PACK_NOT_TEXT.format(path))
        return
    skip_errors = conf.get("LSB_PACK_SKIP_ERROR", "N").strip() in ("Y", "y")
    g = options.grammar("bsub")
    failed = False
    c.stdin = None  # a request never reads the pack as its job script
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rc_before, c.rc = c.rc, 0
        try:
            submit_one(**_request(g, line))
        except NotSubmitted as e:
            c.error(M.error_text(e))
        ok = c.rc == 0
        c.rc = rc_before if ok else 255
        failed = failed or not ok
        if not ok and not skip_errors:
            break
    if failed:
        c.rc = 255


def _request(g: options.Grammar, line: str) -> dict:
    """The option values (and command words) of one request, or NotSubmitted."""
    if _QUOTING.search(line) is None:
        words = _WORD.findall(line)  # what shlex.split makes of a line without quoting, at a tenth of its cost
    else:
        try:
            words = shlex.split(line)
        except ValueError:
            raise NotSubmitted(M.PACK_BAD_LINE.format(line)) from None
    _refuse_pack_options(g, words)
    try:
        values, command = options.parse(g, words)
    except options.OptionError as e:
        raise NotSubmitted(M.option_error("bsub", e.kind, e.flag).rstrip("\n")) from None
    except options.HelpAsked:
        raise NotSubmitted(M.SYNTAX_ERROR) from None
    except options.VersionAsked:
        raise NotSubmitted(M.VERSION_IN_PACK) from None
    if not command:
        raise NotSubmitted(M.NO_COMMAND)
    return values


#: what makes shlex.split differ from splitting at its whitespace: quotes, escapes (issue 23: a pack's
#: lines are mostly plain words); its whitespace is space, tab, CR and LF, no other character
_QUOTING = re.compile(r"['\"\\]")
_WORD = re.compile(r"[^ \t\r\n]+")


def _refuse_pack_options(g: options.Grammar, words: list[str]) -> None:
    """LSF's answer to -I*, -K, -V, -h or -pack among a request's options (before
    the grammar's, which would name the unbuilt ones 'not supported by lsfemu')."""
    i = 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        w = words[i]
        if w in _NOT_IN_PACK:
            raise NotSubmitted(_NOT_IN_PACK[w])
        opt = g.by_flag.get(w)
        i += 2 if opt is not None and opt.value is not None else 1

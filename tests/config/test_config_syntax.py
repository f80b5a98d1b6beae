"""Lexical rules: comments, continuation lines, quotes, case-insensitivity, table rows."""

from __future__ import annotations

from lsfemu.config import parser
from lsfemu.config.lexer import (
    Reporter,
    inner,
    is_default,
    keyword_pairs,
    logical_lines,
    split_sections,
    tokenize_row,
    unquote,
)


def _lines(text: str):
    rep = Reporter("f")
    return [(ln.no, ln.text) for ln in logical_lines(text, rep)], rep.issues


# -- logical lines ---------------------------------------------------------------


def test_comments_blank_lines_and_numbering():
    lines, issues = _lines("# header\n\n  A = 1   # trailing\n\t\nB=2\n#C=3\n")
    assert lines == [(3, "A = 1"), (5, "B=2")]
    assert issues == []


def test_hash_inside_quotes_is_not_a_comment():
    lines, _ = _lines('X = "a # b" # real comment\n')
    assert lines == [(1, 'X = "a # b"')]


def test_continuation_joins_with_one_space_and_keeps_first_line_number():
    text = "\nDESCRIPTION = first   \\\n     second \\\n third\nNEXT = 1\n"
    lines, issues = _lines(text)
    assert lines == [(2, "DESCRIPTION = first second third"), (5, "NEXT = 1")]
    assert issues == []


def test_continuation_after_comment_removal_and_crlf():
    lines, _ = _lines("A = x \\   # comment after the backslash\r\n  y\r\nB = 2\r\n")
    assert lines == [(1, "A = x y"), (3, "B = 2")]


def test_backslash_inside_a_comment_does_not_continue():
    lines, _ = _lines("A = 1 # comment \\\nB = 2\n")
    assert lines == [(1, "A = 1"), (2, "B = 2")]


def test_continuation_at_end_of_file_is_a_warning():
    lines, issues = _lines("A = 1\nB = 2 \\")
    assert lines == [(1, "A = 1"), (2, "B = 2")]
    assert [(i.line, i.fatal) for i in issues] == [(2, False)]
    assert "ends with '\\'" in issues[0].message


def test_quoted_value_may_span_continuation():
    lines, issues = _lines('D = "a # \\\nb"\n')
    assert lines == [(1, 'D = "a # b"')] and issues == []


def test_unterminated_quote_is_fatal_at_first_line():
    lines, issues = _lines('A = 1\nD = "abc \\\n def\n')
    assert [(i.line, i.fatal) for i in issues] == [(2, True)]
    assert "unterminated double quote" in issues[0].message


def test_include_and_if_directives_warn():
    _, issues = _lines('#INCLUDE "/etc/lsf/more"\n#if time(18:30-19:30)\nA=1\n#else\nA=2\n#endif\n# if comment\n')
    assert [(i.line, i.fatal) for i in issues] == [(1, False), (2, False), (4, False), (6, False)]


# -- sections --------------------------------------------------------------------


def test_sections_are_case_insensitive_and_keep_lines():
    rep = Reporter("f")
    secs, loose = split_sections(logical_lines("bEgIn queue\nA=1\nEND QUEUE\nBegin Host\nEnd host\n", rep), rep)
    assert [(s.name, s.key, s.begin, s.end) for s in secs] == [("queue", "QUEUE", 1, 3), ("Host", "HOST", 4, 5)]
    assert [(ln.no, ln.text) for ln in secs[0].lines] == [(2, "A=1")]
    assert loose == [] and rep.issues == []


def test_begin_like_keys_are_not_markers():
    rep = Reporter("f")
    secs, _ = split_sections(logical_lines("Begin Parameters\nEND = 3\nBEGINNING=2\nEnd Parameters\n", rep), rep)
    assert [ln.text for ln in secs[0].lines] == ["END = 3", "BEGINNING=2"] and rep.issues == []


def test_keyword_pairs_upper_case_keys_and_unquote():
    rep = Reporter("f")
    lines = logical_lines('queue_name=Normal\nDescription = "Two  words"\nX=a=b\n', rep)
    assert keyword_pairs(lines, rep, "Queue") == [("QUEUE_NAME", "Normal", 1), ("DESCRIPTION", "Two  words", 2),
                                                  ("X", "a=b", 3)]


# -- table rows -------------------------------------------------------------------


def test_tokenize_row_groups_parentheses_brackets_and_quotes():
    toks, err = tokenize_row('g1 (a b  c) ([u1, 2] [u2, 4]) [x, 1] "q r" ()')
    assert err is None
    assert toks == ["g1", "(a b  c)", "([u1, 2] [u2, 4])", "[x, 1]", '"q r"', "()"]


def test_tokenize_row_errors():
    assert "unexpected ')'" in tokenize_row("a b)")[1]
    assert "expected ')' before the end" in tokenize_row("a (b c")[1]
    assert "expected ']', got ')'" in tokenize_row("a ([b c)")[1]


def test_cell_helpers():
    assert inner("(a b)") == "a b" and inner("x") == "x" and inner("(a)(b)") == "(a)(b)"
    assert is_default("-") and is_default("()") and is_default("(  )") and not is_default("(a)")
    assert unquote('"a b"') == "a b" and unquote('"a" "b"') == '"a" "b"' and unquote("'x'") == "'x'"
    assert unquote("'x'", single=True) == "x"


# -- case-insensitivity end to end -------------------------------------------------


def test_case_insensitive_keywords_values_keep_case(tmp_path, make_env):
    queues = "BEGIN QUEUE\nqueue_name = Normal\nPriority = 7\nusers = Alice bob\nend queue\n"
    params = "begin parameters\ndefault_queue = Normal\nEnd PARAMETERS\n"
    users = "Begin usergroup\ngroup_name group_member user_shares\nDevs (Alice bob) -\nEnd UserGroup\n"
    hosts = "Begin host\nhost_name mxj jl/u R1M\nhostA 4 - ()\nEnd Host\n"
    cluster = "begin clusteradmins\nADMINISTRATORS = Root\nend clusteradmins\nBEGIN HOST\nhostname SERVER\nhostA 1\nEND HOST\n"
    env = make_env(tmp_path, {"lsb.queues": queues, "lsb.params": params, "lsb.users": users,
                              "lsb.hosts": hosts, "lsf.cluster.mycluster": cluster})
    cfg = parser.load(env)
    assert [q.name for q in cfg.queues] == ["Normal"]
    assert cfg.queue("normal") is None  # names are case-sensitive
    assert cfg.queues[0].priority == 7 and cfg.queues[0].users == ["Alice", "bob"]
    assert cfg.params.default_queues == ["Normal"]
    assert cfg.user_groups["Devs"].members == ["Alice", "bob"]
    assert cfg.hosts["hostA"].mxj == 4
    assert cfg.admins == ["Root"] and cfg.host_names == ["hostA"]
    assert cfg.warnings == []


def test_table_row_continued_over_lines(tmp_path, make_env):
    users = ("Begin UserGroup\nGROUP_NAME GROUP_MEMBER USER_SHARES\n"
             "big (u1 u2 \\\n   u3 u4) \\\n ([u1, 1] \\\n [default, 2])\nsmall (u5) ()\nEnd UserGroup\n")
    cfg = parser.load(make_env(tmp_path, {"lsb.users": users}))
    assert cfg.user_groups["big"].members == ["u1", "u2", "u3", "u4"]
    assert cfg.user_groups["big"].user_shares == "[u1, 1] [default, 2]"
    assert cfg.user_groups["big"].line == 3 and cfg.user_groups["small"].line == 7


def test_all_members_and_table_columns_in_any_order(tmp_path, make_env):
    users = ("Begin UserGroup\nUSER_SHARES GROUP_MEMBER GROUP_NAME\n([default, 1]) (all) everyone\nEnd UserGroup\n"
             "Begin User\nMAX_PEND_JOBS USER_NAME\n5 default\nEnd User\n")
    cfg = parser.load(make_env(tmp_path, {"lsb.users": users}))
    assert cfg.user_groups["everyone"].members == ["all"]
    assert cfg.user_groups["everyone"].user_shares == "[default, 1]"
    assert cfg.user_limits["default"].max_pend_jobs == 5 and cfg.user_limits["default"].max_jobs is None

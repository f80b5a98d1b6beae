"""Issue 22: the lessons' pieces that need no cluster: pausing between steps,
the lesson script's quoting, every topic's fixed first instant."""

from __future__ import annotations

import subprocess

import pytest

from lsfemu import lessons
from lsfemu.lessons import Edit, Say, Topic, script, tour


def test_pause_waits_for_enter_before_each_narration_but_the_first(tmp_path, monkeypatch, capsys):
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append(prompt) or "")
    (tmp_path / "conf").mkdir()
    topic = Topic("t", "", [Say("one"), Edit("conf/x", "text\n"), Say("two"), Say("three")])
    assert tour.play(topic, tmp_path, pause=True) == 0
    assert asked == ["[Enter] ", "[Enter] "]
    assert (tmp_path / "conf" / "x").read_text() == "text\n"
    assert capsys.readouterr().out == "\n# one\n$ cat > conf/x <<'EOF'\ntext\nEOF\n\n# two\n\n# three\n"
    asked.clear()
    tour.play(topic, tmp_path, pause=False)
    assert asked == []


@pytest.mark.parametrize("text", ["plain words", "bjobs -o 'jobid user'", 'say "hi" $HOME `x` \\n', "it's"])
def test_the_script_quotes_a_line_as_it_was(text):
    out = subprocess.run(["sh", "-c", f"printf %s {script._quote(text)}"], capture_output=True, text=True).stdout
    assert out == text


@pytest.mark.parametrize("name", lessons.NAMES)
def test_every_topic_sets_the_clock_first(name):
    runs = [s for s in lessons.topic(name).steps if isinstance(s, lessons.Run)]
    assert runs[0].cmd.startswith("lsfemu clock set 20"), runs[0]
    text = script.script(lessons.topic(name))
    assert text.startswith("#!/bin/sh\n") and f"run '{runs[0].cmd}'" in text


def test_an_unknown_topic():
    with pytest.raises(KeyError):
        lessons.topic("nosuch")

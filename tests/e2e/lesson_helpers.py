"""Running `lsfemu demo TOPIC` and a lesson's script as a user would, and comparing
their transcripts with tests/e2e/golden_lessons (README there)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from lsfemu.testing import daemon_template
from tests import goldens

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden_lessons"
#: what the lesson's folder is written as in the goldens: the same length as the
#: folders the tests make, so that LSF's 79-column wrapping falls at the same places
CANON = "/tmp/lsfemu-lesson-XXXXXXXX"


def lesson_dir() -> Path:
    d = Path(tempfile.mkdtemp(prefix="lsfemu-lesson-", dir="/tmp"))
    assert len(str(d)) == len(CANON), d
    return d


def env(root: Path, path: str = "/usr/bin:/bin") -> dict:
    """A fresh user's environment (nothing of lsfemu's set), HOME in the lesson's folder;
    only the suite's daemon template (lsfemu.daemon.forkserver), which the lesson's
    daemons are forked from (a second of CPU less each; nothing a command shows)."""
    fresh = {"PATH": path, "HOME": str(root), "TZ": "UTC", "LANG": "C.UTF-8"}
    template = daemon_template()
    if template is not None:
        fresh["LSFEMU_FORKSERVER"] = template
    return fresh


def normalize(text: str, root: Path) -> str:
    """The transcript with the lesson's folder written as CANON, also where LSF's
    long formats wrap it across lines (each character kept in its column)."""
    pattern = r"(?:\n +)?".join(re.escape(c) for c in str(root))

    def canon(m: re.Match) -> str:
        chars = iter(CANON)
        return "".join(c if c.isspace() else next(chars) for c in m.group(0))

    return re.sub(pattern, canon, text)


def demo(topic: str, root: Path) -> subprocess.CompletedProcess:
    """`lsfemu demo TOPIC --dir ROOT` with stdout not a terminal (so no pauses)."""
    return subprocess.run([sys.executable, str(ROOT / "bin" / "lsfemu"), "demo", topic, "--dir", str(root)],
                          capture_output=True, text=True, timeout=300, env=env(root))


def assert_golden(topic: str, text: str) -> None:
    goldens.compare(GOLDEN / f"{topic}.txt", text)


def check_tour(topic: str) -> str:
    """Run the tour, check it against its golden; its normalized transcript."""
    root = lesson_dir()
    os.rmdir(root)  # --dir makes it
    try:
        r = demo(topic, root)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "Traceback" not in r.stdout + r.stderr
        assert r.stderr == f"The demo cluster is kept in {root}\n", r.stderr
        text = normalize(r.stdout, root)
        assert_golden(topic, text)
        return text
    finally:
        subprocess.run(["rm", "-rf", str(root)])

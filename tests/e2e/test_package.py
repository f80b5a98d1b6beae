"""Package-level promises: thin commands, wall mode, the pytest plugin (the demo: test_lessons.py)."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(14)  # seconds, quiet machine: scheduled early (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def test_command_path_imports_only_the_standard_library():
    code = (
        "import sys; sys.argv=['bjobs']; import lsfemu.client; "
        "bad=[m for m in sys.modules if m.split('.')[0] in "
        "('sqlalchemy','typer','click','tabulate','alembic','json','socket','re','enum')]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_bin_scripts_run_isolated_from_site_packages():
    """bin/'s scripts run under `python3 -I -S` (issue 23): no site, no .pth file,
    nothing but the standard library and lsfemu's client on a command's path."""
    for p in sorted((ROOT / "bin").iterdir()):
        lines = p.read_text().splitlines()
        assert lines[0] == "#!/bin/sh" and 'exec "$p" -I -S "$0" "$@"' in lines[:8], p.name
    env = {"PATH": os.environ.get("PATH", ""), "HOME": "/nonexistent"}  # no LSF_ENVDIR: the client answers alone
    p = subprocess.run([sys.executable, "-I", "-S", "-X", "importtime", str(ROOT / "bin" / "bjobs")],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 255 and "LSF_ENVDIR is not set" in p.stderr, p.stderr[-500:]
    imported = {line.split("|")[-1].strip() for line in p.stderr.splitlines() if line.startswith("import time:")}
    assert "lsfemu.client" in imported and "site" not in imported
    # nor os (posixpath, stat, _collections_abc: ~3 ms of a command's start-up; posix serves the client)
    assert not {m.split(".")[0] for m in imported} & {"sqlalchemy", "typer", "click", "tabulate", "re", "enum",
                                                       "json", "socket", "__future__", "os", "posixpath"}


def test_installed_script_starts_its_environments_python_isolated(tmp_path):
    """As pip installs it (pyproject's script-files, unchanged): in a virtual
    environment's bin/, the script runs the python3 beside it with -I -S and
    finds lsfemu in that environment's site-packages."""
    venv_bin = tmp_path / "bin"
    site = tmp_path / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    venv_bin.mkdir()
    site.mkdir(parents=True)
    (site / "lsfemu").symlink_to(ROOT / "lsfemu")
    shutil.copy(ROOT / "bin" / "bjobs", venv_bin / "bjobs")
    called = tmp_path / "called"
    (venv_bin / "python3").write_text(f'#!/bin/sh\necho "$@" > {called}\nexec {sys.executable} "$@"\n')
    (venv_bin / "python3").chmod(0o755)
    p = subprocess.run([str(venv_bin / "bjobs"), "-u", "all"], capture_output=True, text=True, cwd=tmp_path,
                       env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert p.returncode == 255 and "LSF_ENVDIR is not set" in p.stderr, p.stderr[-500:]
    assert called.read_text().split() == ["-I", "-S", str(venv_bin / "bjobs"), "-u", "all"]


def test_bin_scripts_exist_for_every_command():
    for name in ("bsub", "bjobs", "bkill", "bstop", "bresume", "bswitch", "bqueues", "bparams",
                 "bhosts", "busers", "lsid", "badmin", "lsfemu"):
        p = ROOT / "bin" / name
        assert p.exists() and p.stat().st_mode & 0o111, name


def test_wall_clock_mode_runs_jobs_in_real_time(lsf_cluster_factory):
    c = lsf_cluster_factory(clock="wall", files={"lsb.params": (
        "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nMAX_USER_PRIORITY = 100\nEnd Parameters\n")})
    assert c.run("bsub sleep 1", user="user1").rc == 0
    assert "simulated" in c.run("lsfemu daemon status").out
    assert c.run("lsfemu clock advance 1m").rc == 255  # wall time cannot be moved
    deadline = time.time() + 15
    stat = ""
    while time.time() < deadline:
        stat = c.run("bjobs -a -noheader -o stat 1").out.strip()
        if stat == "DONE":
            break
        time.sleep(0.3)
    assert stat == "DONE"


def test_plugin_gives_users_a_cluster(pytester, monkeypatch):
    pytester.makepyfile("""
        def test_mine(lsf_cluster):
            r = lsf_cluster.run("bsub -J x sleep 60", user="user1")
            assert r.out == "Job <1> is submitted to default queue <normal>.\\n"
            lsf_cluster.advance("2m")
            assert lsf_cluster.run("bjobs -a -noheader -o 'jobid stat' 1").out == "1 DONE\\n"
    """)
    from importlib.metadata import entry_points

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    installed = any(ep.value == "lsfemu.testing" for ep in entry_points(group="pytest11"))
    args = ["-p", "no:cacheprovider"] + ([] if installed else ["-p", "lsfemu.testing"])
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=1)

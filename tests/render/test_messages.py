"""Message texts (reference 2, 12)."""

from lsfemu import options
from lsfemu.render import messages as M

COMMANDS = ["bsub", "bjobs", "bkill", "bstop", "bresume", "bswitch", "bqueues", "bparams", "bhosts",
            "busers", "lsid", "badmin"]


def test_lsberrno_strings():
    assert M.NO_MATCHING_JOB == "No matching job found"
    assert M.PERM_DENIED == "User permission denied"
    assert M.JOB_FINISHED == "Job has already finished"
    assert M.BAD_USER_PRIORITY == "Bad user priority"
    # every string of the lsberrno block: a reason, completed by its caller (". Job not submitted.")
    assert len(set(M.LSBERRNO)) == len(M.LSBERRNO) >= 48
    assert all(s and s[0].isupper() and not s.endswith((".", " ")) for s in M.LSBERRNO)


def test_compositions():
    assert M.job_error(13298296, M.JOB_FINISHED) == "Job <13298296>: Job has already finished"
    assert M.job_error("408347[1-2:1]", M.JOB_FINISHED) == "Job <408347[1-2:1]>: Job has already finished"
    assert M.not_submitted(M.NO_SUCH_QUEUE, "missingqueue") == "missingqueue: No such queue. Job not submitted."
    assert M.not_submitted(M.BAD_USER_PRIORITY) == "Bad user priority. Job not submitted."
    assert M.not_modified(M.NO_MATCHING_JOB, 313) == "313: No matching job found. Job not modified."
    assert M.object_error("normal", M.NO_SUCH_QUEUE) == "normal: No such queue"


def test_not_found_family():
    assert M.not_found(6065212) == "Job <6065212> is not found"
    assert M.not_found(1234, queue="normal") == "Job <1234> is not found in queue <normal>"
    assert M.not_found("myname") == "Job <myname> is not found"
    assert M.not_an_array(1234) == "Job <1234> is not a job array"
    assert M.no_job_found() == "No unfinished job found"
    assert M.no_job_found("") == "No job found"
    assert M.no_job_found("pending") == "No pending job found"
    assert M.no_job_found("running") == "No running job found"
    assert M.no_job_found("suspended") == "No suspended job found"
    assert M.no_job_found("done") == "No DONE/EXIT job found"
    assert M.no_job_found("unfinished", queue="q", host="h") == (
        "No unfinished job found in queue <q> on host/group <h>"
    )


def test_success_lines():
    assert M.submitted(2405, "normal", default_queue=True) == "Job <2405> is submitted to default queue <normal>."
    assert M.submitted(981431, "normal", default_queue=False) == "Job <981431> is submitted to queue <normal>."
    assert M.being_changed("313[2]") == "Parameters of job <313[2]> are being changed"
    assert M.being_terminated(1) == "Job <1> is being terminated"
    assert M.switched(1234, "short") == "Job <1234> is switched to queue <short>"
    assert M.moved(79727, 1, top=True) == "Job <79727> has been moved to position 1 from top."


def test_usage_texts():
    """Commands with an option grammar have its usage (lsfemu.options;
    tests/unit/test_option_grammar.py); badmin keeps its own."""
    for cmd in COMMANDS:
        text = M.usage(cmd)
        assert text.endswith("\n") and cmd in text.splitlines()[0]
        assert "[-h]" in text and "[-V]" in text
    assert M.usage("bjobs") == options.usage(options.grammar("bjobs"))
    assert M.usage("nosuch") == "Usage: nosuch [-h] [-V]\n"

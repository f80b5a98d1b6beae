"""The messages a waiting bsub echoes (render.messages.interact_message, nios.c's
prtLine): a CR LF, `<< line >>` per line, long text broken before column 73
as prtLine breaks it, and the reasons in LSF's interactive form."""

from lsfemu.render import messages as M


def test_one_reason_and_several():
    assert M.interact_message(["New job is waiting for scheduling"]) == \
        "\r\n<< New job is waiting for scheduling >>\r\n"
    # several reasons in one message: lines in a row, one CR LF before them all (IBM's example)
    assert M.interact_message([" Job's resource requirements not satisfied: 2 hosts;",
                               " Load information unavailable: 1 host;"]) == \
        ("\r\n<<  Job's resource requirements not satisfied: 2 hosts; >>\r\n"
         "<<  Load information unavailable: 1 host; >>\r\n")


def test_long_text_breaks_where_prtline_does():
    text = "x" * 200
    got = M.interact_message([text])
    lines = got.split("\r\n")
    assert lines[0] == "" and lines[-1] == ""
    # the first line holds 68 characters of text (the cursor starts at 5), the next ones 73
    assert lines[1] == "<< " + "x" * 68 + " >>"
    assert lines[2] == "<< " + "x" * 73 + " >>"
    assert lines[3] == "<< " + "x" * 59 + " >>"


def test_reasons_in_the_interactive_form():
    assert M.interact_reason("New job is waiting for scheduling") == "New job is waiting for scheduling"
    assert M.interact_reason("Job's resource requirements not satisfied: 2 hosts") == \
        " Job's resource requirements not satisfied: 2 hosts;"
    assert M.interact_reason("Load information unavailable: 1 host") == " Load information unavailable: 1 host;"
    assert M.interact_reason("Job dependency condition not satisfied") == "Job dependency condition not satisfied"

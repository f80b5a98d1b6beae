"""bjobs -A (lsfemu.render.bjobs.array_table): OpenLava's printf layout,
`%-7d  %-8.8s %8.8s   %5d %4d %4d %4d %4d %5d %5d %5d`, -w without the cuts."""

from lsfemu.render.bjobs import ARRAY_HEADER, array_table


def _n(pend=0, done=0, run=0, exit_=0, ssusp=0, ususp=0, psusp=0):
    return {"PEND": pend, "DONE": done, "RUN": run, "EXIT": exit_, "SSUSP": ssusp, "USUSP": ususp, "PSUSP": psusp}


def test_header_and_rows():
    rows = [(1234, "myArray[1-10]", "user1", 10, _n(pend=3, done=2, run=4, exit_=1)),
            (99, "a[1-2]%1", "verylonguser", 2, _n(ssusp=1, psusp=1))]
    assert ARRAY_HEADER == "JOBID    ARRAY_SPEC  OWNER   NJOBS PEND DONE  RUN EXIT SSUSP USUSP PSUSP\n"
    assert array_table(rows) == ARRAY_HEADER + (
        "1234     myArray[    user1      10    3    2    4    1     0     0     0\n"
        "99       a[1-2]%1 verylong       2    0    0    0    0     1     0     1\n")


def test_wide_and_noheader():
    rows = [(1234, "myArray[1-10]", "verylonguser", 1000, _n(run=1000))]
    assert array_table(rows, wide=True, header=False) == (
        "1234     myArray[1-10] verylonguser    1000    0    0 1000    0     0     0     0\n")

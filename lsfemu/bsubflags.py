"""bsub's options, listed once: those lsfemu takes (flag -> the field of
`ops.submit.SubmitRequest`), and the other options of LSF's bsub that take a
value, which lsfemu refuses but the thin client must step over to find the
command (`lsfemu.client`). The typer signature in `cli/bsub.py` declares the
same flags (a test holds them equal); `#BSUB` lines are read with this table.

Standard library only and data only: the client reads it on every bsub.
"""

#: options with a value -> SubmitRequest field (-R may repeat: a list)
VALUES = {
    "-q": "queue", "-n": "nproc", "-J": "job_name", "-o": "out", "-oo": "out_over", "-e": "err",
    "-eo": "err_over", "-W": "runlimit", "-sp": "sp", "-R": "res_req", "-P": "project", "-G": "group",
    "-cwd": "cwd", "-gpu": "gpu", "-w": "depend", "-M": "mem_limit",
}
#: options without a value -> SubmitRequest field (True when given)
SWITCHES = {"-r": "rerun"}
#: LSF's other bsub options that take a value (not supported by lsfemu)
OTHER_VALUES = {
    "-We", "-u", "-g", "-app", "-env", "-b", "-m", "-i", "-is", "-c", "-E", "-Ep", "-L",
    "-k", "-t", "-F", "-D", "-S", "-v", "-f", "-Jd", "-sla", "-U", "-C", "-p", "-T", "-ext",
    "-alloc_flags", "-nnodes", "-data", "-datagrp", "-pack", "-rn", "-stage", "-smt",
    "-eptl", "-ptl", "-jsdl", "-jsdl_strict", "-XF", "-tty", "-outdir", "-hostfile",
}
#: every bsub option that takes a value
TAKES_VALUE = frozenset(VALUES) | OTHER_VALUES

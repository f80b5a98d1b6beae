"""The submission records of ``lsb.events``: JOB_NEW (bsub) and JOB_MODIFY2 (bmod).

The two largest record types, most of whose fields are gated on a ``SUB*``
bit of their ``options`` words; the format of a record line and the
conventions of the schemas are :mod:`lsfemu.events.records`' (which lists
every record type and imports these), the machinery
:mod:`lsfemu.events.schema`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lsfemu.events.lsbatch import (
    DEFAULT_RLIMIT, NUM_RLIMITS, SUB2_BSUB_BLOCK, SUB2_IN_FILE_SPOOL, SUB2_JOB_CMD_SPOOL,
    SUB2_EXTSCHED, SUB2_JOB_GROUP, SUB2_JOB_PRIORITY, SUB2_LICENSE_PROJECT, SUB2_MODIFY_CMD, SUB2_SLA,
    SUB2_USE_RSV, SUB2_WARNING_ACTION, SUB3_DESCRIPTION, SUB_CHKPNT_DIR, SUB_CHKPNT_PERIOD, SUB_DEPEND_COND, SUB_ERR_FILE, SUB_HOST,
    SUB_HOST_SPEC, SUB_IN_FILE, SUB_INTERACTIVE, SUB_JOB_NAME, SUB_LOGIN_SHELL, SUB_MAIL_USER, SUB_OTHER_FILES,
    SUB_OUT_FILE, SUB_PRE_EXEC, SUB_PROJECT_NAME, SUB_QUEUE, SUB_RES_REQ,
)
from lsfemu.events.schema import Record, _F, _gate, _opt, _register, _schema_fields, parse_job_id_str

_NEG1_LIMITS = (DEFAULT_RLIMIT,) * NUM_RLIMITS


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobNew(Record):
    """A job was submitted (bsub).

    Awk positions (1-based, the type is field 1): 4 job ID, 5 uid, 14 user
    name, 29 queue, 42 job name and 43 command when ``asked_hosts`` is empty
    -- the positions the snakemake LSF plugin relies on. The three strings
    between ``login_shell`` and ``options2`` are in real LSF 9 lines (always
    ``""`` in the samples; the last one's meaning is unknown).

    The LSF 9/10 tail after ``user_priority`` (issue 21): the names and their
    order are the lsbatch API's ``jobNewLog``; that a real LSF 9.1.3 line
    fits it (kind by kind, ``subcwd`` where its directory is) is the check;
    the gates of the strings it lacks (``rsv_id`` ... ``license_project``,
    ``job_description``) are [inferred] from their absence there. What lsfemu
    writes in it: ``job_group`` (-g), ``app`` (-app), ``post_exec_cmd``
    (-Ep), ``runtime_estimation`` (-We, seconds), ``job_description`` (-Jd),
    ``subcwd`` (-cwd: the specified CWD, with SUB3_CWD) and ``outdir``
    (-outdir); ``options3``'s bits are lsfemu's (as in JOB_MODIFY2). Fields
    after ``dc_vm_actions`` (LSF 10's network, ...) go to ``extra``."""

    TYPE: ClassVar[str] = "JOB_NEW"
    _RARE_GATES: ClassVar[bool] = True  # -g, -sla, -ext, ... (a job group's lines take the slow way)
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id", "i"),
        _F("user_id", "i"),
        _F("options", "i"),
        _F("num_processors", "i", default=1),
        _F("submit_time", "i"),
        _F("begin_time", "i"),
        _F("term_time", "i"),
        _F("sig_value", "i"),
        _F("chkpnt_period", "i"),
        _F("restart_pid", "i"),
        _F("user_name", "s"),
        _F("rlimits", "ints", size=NUM_RLIMITS, default=_NEG1_LIMITS),
        _F("host_spec", "s"),
        _F("host_factor", "f", "%.2f", default=1.0),
        _F("umask", "i", default=18),
        _F("queue", "s"),
        _F("res_req", "s"),
        _F("from_host", "s"),
        _F("cwd", "s"),
        _F("chkpnt_dir", "s"),
        _F("in_file", "s"),
        _F("out_file", "s"),
        _F("err_file", "s"),
        _F("sub_home_dir", "s"),
        _F("job_file", "s"),
        _F("asked_hosts", "slist"),
        _F("depend_cond", "s"),
        _F("pre_exec_cmd", "s"),
        _F("job_name", "s"),
        _F("command", "s"),
        _F("xfiles", "xf"),
        _F("mail_user", "s"),
        _F("project_name", "s", default="default"),
        _F("nios_port", "i", when=_opt(SUB_INTERACTIVE)),
        _F("max_num_processors", "i", default=1),
        _F("sched_host_type", "s"),
        _F("login_shell", "s"),
        _F("user_group", "s"),
        _F("except_list", "s"),
        _F("reserved_str", "s"),
        _F("options2", "i"),
        _F("idx", "i"),
        _F("nios_port2", "i", when=_opt(SUB2_BSUB_BLOCK, "options2")),
        _F("in_file_spool", "s", optional=True),
        _F("command_spool", "s", optional=True),
        _F("job_spool_dir", "s", optional=True),
        _F("user_priority", "i", optional=True, default=-1),
        # LSF 9/10 (issue 21): every field optional (lsfemu's older lines and LSF 7's end before)
        _F("rsv_id", "s", when=_opt(SUB2_USE_RSV, "options2"), optional=True),
        _F("job_group", "s", when=_opt(SUB2_JOB_GROUP, "options2"), optional=True),
        _F("extsched", "s", when=_opt(SUB2_EXTSCHED, "options2"), optional=True),
        _F("warning_time_period", "i", optional=True, default=-1),
        _F("warning_action", "s", when=_opt(SUB2_WARNING_ACTION, "options2"), optional=True),
        _F("sla", "s", when=_opt(SUB2_SLA, "options2"), optional=True),
        _F("sla_run_limit", "i", optional=True, default=-1),
        _F("license_project", "s", when=_opt(SUB2_LICENSE_PROJECT, "options2"), optional=True),
        _F("options3", "i", optional=True),
        _F("app", "s", optional=True),
        _F("post_exec_cmd", "s", optional=True),
        _F("runtime_estimation", "i", optional=True, default=-1),
        _F("requeue_evalues", "s", optional=True),
        _F("init_chkpnt_period", "i", optional=True),
        _F("mig_threshold", "i", optional=True, default=-1),
        _F("notify_cmd", "s", optional=True),
        _F("job_description", "s", when=_opt(SUB3_DESCRIPTION, "options3"), optional=True),
        _F("submit_ext", "slist", optional=True),  # [inferred] lsfemu writes none: 0
        _F("options4", "i", optional=True),
        _F("asked_clusters", "slist", optional=True),
        _F("src_cluster", "s", optional=True),
        _F("src_job_id", "i", optional=True, default=-1),
        _F("dst_cluster", "s", optional=True),
        _F("dst_job_id", "i", optional=True, default=-1),
        _F("flow_id", "s", optional=True),
        _F("subcwd", "s", optional=True),
        _F("outdir", "s", optional=True),
        _F("dc_tmpls", "s", optional=True),
        _F("dc_vm_actions", "s", optional=True),
    )


@_register
@dataclass(kw_only=True)
@_schema_fields
class JobModify2(Record):
    """Parameters of a job were changed (bmod). OpenLava's layout: most
    fields are present only when their bit is set in ``options`` /
    ``options2`` (the parameter was given to bmod); ``del_options`` /
    ``del_options2`` carry the ``-Xn`` (reset) bits. The tail ``options3``,
    ``del_options3``, ``aps_string`` (bmod -aps / -apsn; options3 also
    marks bmod -cwd / -cwdn, whose directory is ``cwd``) ``user_group``
    (bmod -G, with SUB_USER_GROUP), ``job_description`` and ``outdir`` (bmod
    -Jd, -outdir, with their options3 bits), ``job_group`` and ``app`` (bmod
    -g/-gn, -app/-appn, with SUB3_JOB_GROUP / SUB3_APP) is lsfemu's [lsfemu]; optional on reading. Use :func:`job_modify` to build one."""

    TYPE: ClassVar[str] = "JOB_MODIFY2"
    _SCHEMA: ClassVar[tuple[_F, ...]] = (
        _F("job_id_str", "s"),
        _F("options", "i"),
        _F("options2", "i"),
        _F("del_options", "i"),
        _F("user_id", "i"),
        _F("user_name", "s"),
        _F("submit_time", "i"),
        _F("umask", "i"),
        _F("num_processors", "i"),
        _F("begin_time", "i"),
        _F("term_time", "i"),
        _F("sig_value", "i"),
        _F("restart_pid", "i"),
        _F("job_name", "s", when=_opt(SUB_JOB_NAME)),
        _F("queue", "s", when=_opt(SUB_QUEUE)),
        _F("asked_hosts", "slist", when=_opt(SUB_HOST)),
        _F("res_req", "s", when=_opt(SUB_RES_REQ)),
        _F("rlimits", "ints", size=NUM_RLIMITS, default=_NEG1_LIMITS),
        _F("host_spec", "s", when=_opt(SUB_HOST_SPEC)),
        _F("depend_cond", "s", when=_opt(SUB_DEPEND_COND)),
        _F("sub_home_dir", "s"),
        _F("in_file", "s", when=_gate(f"v['options'] & {SUB_IN_FILE} or v['options2'] & {SUB2_IN_FILE_SPOOL}",
                                         "options", "options2")),
        _F("out_file", "s", when=_opt(SUB_OUT_FILE)),
        _F("err_file", "s", when=_opt(SUB_ERR_FILE)),
        _F("command", "s", when=_opt(SUB2_MODIFY_CMD, "options2")),
        _F("chkpnt_period", "i", when=_opt(SUB_CHKPNT_PERIOD)),
        _F("chkpnt_dir", "s", when=_opt(SUB_CHKPNT_DIR)),
        _F("xfiles", "xf", when=_opt(SUB_OTHER_FILES)),
        _F("job_file", "s"),
        _F("from_host", "s"),
        _F("cwd", "s"),
        _F("pre_exec_cmd", "s", when=_opt(SUB_PRE_EXEC)),
        _F("mail_user", "s", when=_opt(SUB_MAIL_USER)),
        _F("project_name", "s", when=_opt(SUB_PROJECT_NAME)),
        _F("nios_port", "i"),
        _F("max_num_processors", "i"),
        _F("login_shell", "s", when=_opt(SUB_LOGIN_SHELL)),
        _F("sched_host_type", "s"),
        _F("del_options2", "i"),
        _F("in_file_spool", "s", when=_opt(SUB2_IN_FILE_SPOOL, "options2")),
        _F("command_spool", "s", when=_opt(SUB2_JOB_CMD_SPOOL, "options2")),
        _F("user_priority", "i", when=_opt(SUB2_JOB_PRIORITY, "options2"), default=-1),
        _F("options3", "i", optional=True),
        _F("del_options3", "i", optional=True),
        _F("aps_string", "s", optional=True),
        _F("user_group", "s", optional=True),
        _F("job_description", "s", optional=True),
        _F("outdir", "s", optional=True),
        _F("job_group", "s", optional=True),
        _F("app", "s", optional=True),
        _F("post_exec_cmd", "s", optional=True),
        _F("runtime_estimate", "i", optional=True),
    )

    @property
    def job_key(self) -> tuple[int, int] | None:
        try:
            return parse_job_id_str(self.job_id_str)
        except ValueError:
            return None

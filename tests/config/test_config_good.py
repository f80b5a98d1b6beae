"""A complete, valid configuration loads into the expected objects; file location rules."""

from __future__ import annotations

import os

import pytest

from lsfemu.config import parser
from lsfemu.config.model import ClusterConfig, ConfigError
from lsfemu.sched import hostpick


@pytest.fixture
def cfg(tmp_path, make_env) -> ClusterConfig:
    return parser.load(make_env(tmp_path))


def test_lsf_conf_and_cluster(cfg, tmp_path):
    assert cfg.envdir == str(tmp_path)
    assert cfg.confdir == str(tmp_path)
    assert cfg.cluster_name == "mycluster"
    assert cfg.lsf_conf["LSF_UNIT_FOR_LIMITS"] == "MB"
    assert cfg.lsf_conf["LSB_JOBID_DISP_LENGTH"] == "10"
    # Quotes stripped; a '#' inside quotes is not a comment; trailing comment removed.
    assert cfg.lsf_conf["LSB_BJOBS_FORMAT"] == "jobid stat user queue # not a comment"
    assert cfg.lsf_conf["LSF_MASTER_LIST"] == "hostA hostB"
    assert cfg.lsf_conf["LSB_SHORT_HOSTLIST"] == "1"  # key upper-cased
    assert cfg.master_host == "hostA"
    assert cfg.admins == ["lsfadmin", "admin2"]
    assert cfg.is_cluster_admin("lsfadmin") and not cfg.is_cluster_admin("user1")
    assert [h.name for h in cfg.cluster_hosts] == ["hostA", "hostB", "client1"]
    assert cfg.host_names == ["hostA", "hostB"]  # client1 is server 0
    b = cfg.cluster_hosts[1]
    assert (b.model, b.type, b.server, b.resources, b.line) == ("!", "!", True, ["linux", "bigmem"], 8)
    assert cfg.cluster_hosts[2].server is False
    assert cfg.files["lsf.cluster"] == str(tmp_path / "lsf.cluster.mycluster")


def test_params(cfg):
    p = cfg.params
    assert p.default_queues == ["normal"]
    assert (p.mbd_sleep_time, p.sbd_sleep_time, p.job_accept_interval) == (10, 7, 1)
    assert p.max_user_priority == 100
    assert p.job_priority_over_time == (1, 10)
    assert p.hist_hours == 5.0
    # Untouched keys keep LSF 10.1's defaults.
    assert (p.clean_period, p.max_job_num, p.max_jobid, p.default_project) == (3600, 1000, 999999, "default")
    assert (p.cpu_time_factor, p.run_time_factor, p.run_job_factor) == (0.7, 0.7, 3.0)
    assert p.enable_hist_run_time is False and p.fwd_job_factor is None
    assert p.lines == {"DEFAULT_QUEUE": 2, "MBD_SLEEP_TIME": 3, "SBD_SLEEP_TIME": 4, "JOB_ACCEPT_INTERVAL": 5,
                       "MAX_USER_PRIORITY": 6, "JOB_PRIORITY_OVER_TIME": 7, "HIST_HOURS": 8}


def test_queues(cfg, tmp_path):
    assert [q.name for q in cfg.queues] == ["normal", "short"]
    q = cfg.queue("normal")
    assert q is not None and cfg.queue("nosuch") is None
    assert (q.priority, q.nice, q.run_limit) == (30, 20, 720.0)
    assert q.file == str(tmp_path / "lsb.queues") and q.line == 1
    assert q.fairshare == "USER_SHARES[[user1, 5000] [user2, 5000] [others, 1]]"
    assert q.aps_priority == ("WEIGHT[[JPRIORITY, 1] [QPRIORITY, 10] [FS, 100]] LIMIT[[JPRIORITY, 100]] "
                              "GRACE_PERIOD[[MEM,10h] [JPRIORITY, 10m]]")
    assert q.queue_group == ["short"]
    assert q.users == ["all"] and q.hosts == ["all"]
    assert q.description == "For normal low priority jobs, running only if hosts are lightly loaded."
    assert q.lines["DESCRIPTION"] == 11 and q.lines["QUEUE_NAME"] == 2
    s = cfg.queue("short")
    assert s.priority == 40 and s.line == 15
    assert (s.run_limit_default, s.run_limit) == (10.0, 90.0)  # "10 1:30": default, then maximum (hour:minute)
    assert q.run_limit_default is None  # one value: the maximum alone
    assert s.description is None and s.qjob_limit is None and s.factors == {}
    assert cfg.queue_hosts(q) == ["hostA", "hostB"]
    assert cfg.queue_allows_user(q, "anyone")


def test_users(cfg):
    g = cfg.user_groups
    assert list(g) == ["groupA", "groupB", "groupC"]
    assert g["groupA"].members == ["user1", "user2", "user3"] and g["groupA"].user_shares is None
    assert g["groupB"].user_shares == "[user4, 2] [user5, 4]"
    assert g["groupC"].user_shares == "[user6, 1] [groupA, 2] [default, 10]"
    assert g["groupC"].line == 5
    assert cfg.group_members("groupC") == {"user1", "user2", "user3", "user4", "user5", "user6"}
    lim = cfg.user_limits
    assert (lim["user1"].max_jobs, lim["user1"].jl_p, lim["user1"].max_pend_jobs) == (10, None, None)
    assert (lim["groupA@"].max_jobs, lim["groupA@"].jl_p, lim["groupA@"].max_pend_jobs) == (10, 1.0, 10)
    assert lim["default"].max_jobs == 6 and lim["default"].line == 12


def test_hosts(cfg):
    assert set(cfg.hosts) == {"hostA", "default"}
    assert (cfg.hosts["hostA"].mxj, cfg.hosts["hostA"].jl_u) == (1, None)
    assert (cfg.hosts["default"].mxj, cfg.hosts["default"].jl_u) == (2, 1)
    assert cfg.hosts["hostA"].load_sched == {"r1m": 0.6, "pg": 10.0} and cfg.hosts["default"].load_sched == {}
    assert cfg.host_mxj("hostA") == 1 and cfg.host_mxj("hostB") == 2
    assert cfg.host_groups == {"hg1": ["hostA", "hostB"]}
    assert cfg.host_partitions["part1"]["USER_SHARES"] == "[groupA@, 3] [default, 1]"


def test_only_expected_warnings(cfg):
    # The sample's warnings: LSF's columns lsfemu does not act on (each once, at
    # the first row giving it a value; JL/P, MAX_PEND_JOBS and JL/U act: none for them),
    # hostA's loadStop thresholds (r1m, pg: its
    # loadSched ones act) and the HostPartition kept but not used.
    not_acting = "is not supported by lsfemu; its values are ignored"
    assert [(os.path.basename(w.file), w.line, w.fatal, w.message) for w in cfg.warnings] == [
        ("lsb.hosts", 3, False, f"column DISPATCH_WINDOW {not_acting}"),
        ("lsb.hosts", 3, False, "r1m: the loadStop threshold <1.6> is not supported by lsfemu "
                                "(jobs are not suspended on load); ignored"),
        ("lsb.hosts", 3, False, "pg: the loadStop threshold <20> is not supported by lsfemu "
                                "(jobs are not suspended on load); ignored"),
        ("lsb.hosts", 12, False, "host partition part1: host partition fairshare is not supported by lsfemu; "
                                 "the section is kept but not used"),
    ]


def test_check_matches_load(tmp_path, make_env):
    cfg, issues = parser.check(make_env(tmp_path))
    assert cfg is not None and issues == cfg.warnings


def test_optional_files_may_be_missing(tmp_path, make_env):
    cfg = parser.load(make_env(tmp_path, {"lsb.users": None, "lsb.hosts": None}))
    assert cfg.user_groups == {} and cfg.user_limits == {} and cfg.hosts == {}
    assert cfg.host_mxj("hostA") is None
    assert not [w for w in cfg.warnings if "lsb.users" in w.file or "lsb.hosts" in w.file]


def test_mxj_bang_and_defaults(tmp_path, make_env):
    hosts = "Begin Host\nHOST_NAME MXJ JL/U\nhostA ! ()\nhostB - 3\nEnd Host\n"
    cfg = parser.load(make_env(tmp_path, {"lsb.hosts": hosts}))
    assert cfg.hosts["hostA"].mxj_is_ncpus and cfg.hosts["hostA"].mxj is None
    assert cfg.host_mxj("hostA") == (os.cpu_count() or 1)
    assert cfg.hosts["hostB"].mxj is None and cfg.hosts["hostB"].jl_u == 3


def test_host_groups_resolved_to_server_hosts(tmp_path, make_env):
    """GROUP_MEMBER's `all`, `~host`, `~group` and groups within groups become
    the server hosts they stand for, in cluster order (config.model.resolve_host_groups):
    `~hostA` was read as a host named "~hostA" by bsub -m, and `all` as a host
    named "all" by queue HOSTS, before."""
    groups = ("Begin HostGroup\nGROUP_NAME GROUP_MEMBER\nbutA (all ~hostA)\nrev (hostB hostA)\n"
              "nest (rev ~butA)\nself (self hostB)\nnone (client1)\nEnd HostGroup\n")
    queues = ("Begin Queue\nQUEUE_NAME = normal\nHOSTS = nest\nEnd Queue\n"
              "Begin Queue\nQUEUE_NAME = other\nHOSTS = butA\nEnd Queue\n")
    cfg = parser.load(make_env(tmp_path, {"lsb.hosts": groups, "lsb.queues": queues}))
    assert cfg.host_groups == {"butA": ["hostB"], "rev": ["hostA", "hostB"], "nest": ["hostA"],
                               "self": ["hostB"], "none": []}
    assert cfg.queue_hosts(cfg.queue("normal")) == ["hostA"]
    assert cfg.queue_hosts(cfg.queue("other")) == ["hostB"]
    assert hostpick.candidates("butA", cfg.host_names, cfg.host_groups) == ["hostB"]


def test_queue_full_keys(tmp_path, make_env):
    queues = """\
Begin Queue
QUEUE_NAME = normal
USERS = user1 groupA/
HOSTS = hostA hostB+2
ADMINISTRATORS = qadmin
QJOB_LIMIT = 100
UJOB_LIMIT = 10
PJOB_LIMIT = 2
HJOB_LIMIT = 4
CPU_TIME_FACTOR = 0.5
RUN_TIME_FACTOR = 1
HIST_HOURS = 0
RES_REQ = select[type==any]
RUNLIMIT = 12:00
NICE = -5
DESCRIPTION = "quoted # text"
End Queue
"""
    cfg = parser.load(make_env(tmp_path, {"lsb.queues": queues}))
    q = cfg.queue("normal")
    assert q.users == ["user1", "groupA/"] and q.hosts == ["hostA", "hostB+2"]
    assert q.administrators == ["qadmin"]
    assert (q.qjob_limit, q.ujob_limit, q.pjob_limit, q.hjob_limit) == (100, 10, 2, 4)
    assert q.factors == {"CPU_TIME_FACTOR": 0.5, "RUN_TIME_FACTOR": 1.0, "HIST_HOURS": 0.0}
    assert q.extra == {} and q.res_req == "select[type==any]"
    assert q.run_limit == 720.0 and q.nice == -5
    assert q.description == "quoted # text"
    assert q.priority == 1  # default
    assert cfg.queue_hosts(q) == ["hostA", "hostB"]
    assert cfg.queue_allows_user(q, "user2")  # via groupA/
    assert not cfg.queue_allows_user(q, "user9")


def test_params_all_keys(tmp_path, make_env):
    params = """\
Begin Parameters
DEFAULT_QUEUE = normal short
CLEAN_PERIOD = 60
MAX_JOB_NUM = 0
MAX_JOBID = 2000000
DEFAULT_PROJECT = "proj A"
JOB_TERMINATE_INTERVAL = 0
MAX_JOB_ARRAY_SIZE = 5000
PG_SUSP_IT = 0
MAX_SBD_FAIL = 5
CPU_TIME_FACTOR = 0.1
RUN_TIME_FACTOR = 0.2
RUN_JOB_FACTOR = 0.3
FAIRSHARE_ADJUSTMENT_FACTOR = 0.4
COMMITTED_RUN_TIME_FACTOR = 0.5
GPU_RUN_TIME_FACTOR = 0.6
FWD_JOB_FACTOR = 0.7
HIST_HOURS = 1.5
ENABLE_HIST_RUN_TIME = y
RUN_TIME_DECAY = Y
RESOURCE_RESERVE_PER_SLOT = Y
End Parameters
"""
    cfg = parser.load(make_env(tmp_path, {"lsb.params": params}))
    p = cfg.params
    assert p.default_queues == ["normal", "short"]
    assert (p.clean_period, p.max_job_num, p.max_jobid, p.default_project) == (60, 0, 2000000, "proj A")
    assert (p.job_terminate_interval, p.max_job_array_size, p.pg_susp_it, p.max_sbd_fail) == (0, 5000, 0, 5)
    assert (p.cpu_time_factor, p.run_time_factor, p.run_job_factor, p.fairshare_adjustment_factor) == (0.1, 0.2, 0.3, 0.4)
    assert (p.committed_run_time_factor, p.gpu_run_time_factor, p.fwd_job_factor, p.hist_hours) == (0.5, 0.6, 0.7, 1.5)
    assert p.enable_hist_run_time is True and p.run_time_decay is True
    assert p.extra == {"RESOURCE_RESERVE_PER_SLOT": "Y"}
    assert p.max_user_priority is None and p.job_priority_over_time is None
    assert not [w for w in cfg.warnings if "lsb.params" in w.file]


def test_load_raises_config_error_with_all_issues(tmp_path, make_env):
    env = make_env(tmp_path, {"lsb.params": "Begin Parameters\nMBD_SLEEP_TIME = 0\nFOO = 1\nEnd Parameters\n"})
    with pytest.raises(ConfigError) as ei:
        parser.load(env)
    issues = ei.value.issues
    assert any(i.fatal and i.line == 2 and "MBD_SLEEP_TIME" in i.message for i in issues)
    assert any(not i.fatal and i.line == 3 and "FOO" in i.message for i in issues)
    assert "lsb.params(2): MBD_SLEEP_TIME: expected a positive integer, got <0>" in str(ei.value)


# -- locating files -------------------------------------------------------------


def test_lsb_confdir_layout(tmp_path, make_env, sample):
    env = tmp_path / "envdir"
    lsb = tmp_path / "conf" / "lsbatch"
    configdir = lsb / "mycluster" / "configdir"
    lsb_files = {k: v for k, v in sample.items() if k.startswith("lsb.")}
    make_env(env, {k: None for k in lsb_files} | {"lsf.conf": f"LSB_CONFDIR={lsb}\n"})
    configdir.mkdir(parents=True)
    for k, v in lsb_files.items():
        (configdir / k).write_text(v)
    found = parser.find_files(str(env))
    assert found["cluster_name"] == "mycluster"
    assert found["confdir"] == str(configdir)
    assert found["lsb.queues"] == str(configdir / "lsb.queues")
    assert found["lsf.cluster"] == str(env / "lsf.cluster.mycluster")
    assert found["issues"] == []
    cfg = parser.load(str(env))
    assert cfg.confdir == str(configdir) and cfg.queues[0].file == str(configdir / "lsb.queues")


def test_lsb_confdir_missing_falls_back_to_envdir(tmp_path, make_env):
    env = make_env(tmp_path, {"lsf.conf": "LSF_UNIT_FOR_LIMITS=MB\nLSB_CONFDIR=/nonexistent/lsbatch\n"})
    cfg = parser.load(env)
    assert cfg.confdir == env
    w = [w for w in cfg.warnings if "LSB_CONFDIR" in w.message]
    assert len(w) == 1 and w[0].line == 2 and os.path.basename(w[0].file) == "lsf.conf"


def test_lsf_confdir_and_cluster_name(tmp_path, make_env, sample):
    env = tmp_path / "env"
    confdir = tmp_path / "lsfconf"
    confdir.mkdir()
    (confdir / "lsf.cluster.prod").write_text(sample["lsf.cluster.mycluster"])
    (confdir / "lsf.cluster.test").write_text("garbage")
    make_env(env, {"lsf.cluster.mycluster": None,
                   "lsf.conf": f"LSF_CONFDIR = {confdir}\nLSF_CLUSTER_NAME = prod\n"})
    cfg = parser.load(str(env))
    assert cfg.cluster_name == "prod"
    assert cfg.files["lsf.cluster"] == str(confdir / "lsf.cluster.prod")


def test_several_cluster_files_is_fatal(tmp_path, make_env, sample):
    env = make_env(tmp_path, {"lsf.cluster.other": sample["lsf.cluster.mycluster"]})
    cfg, issues = parser.check(env)
    assert cfg is None
    bad = [i for i in issues if "several cluster files" in i.message]
    assert len(bad) == 1 and bad[0].fatal and bad[0].file == env and bad[0].line == 0
    assert "lsf.cluster.mycluster" in bad[0].message and "lsf.cluster.other" in bad[0].message
    # Naming the cluster in lsf.conf resolves it.
    make_env(tmp_path, {"lsf.cluster.other": sample["lsf.cluster.mycluster"],
                        "lsf.conf": "LSF_CLUSTER_NAME=other\n"})
    assert parser.load(env).cluster_name == "other"


def test_no_cluster_file_is_fatal(tmp_path, make_env):
    env = make_env(tmp_path, {"lsf.cluster.mycluster": None})
    cfg, issues = parser.check(env)
    assert cfg is None
    bad = [i for i in issues if "no lsf.cluster.<name> file" in i.message]
    assert len(bad) == 1 and bad[0].file == env and bad[0].line == 0 and bad[0].fatal
    # The other files are still checked.
    assert not [i for i in issues if i is not bad[0] and i.fatal]


def test_named_cluster_file_missing(tmp_path, make_env):
    env = make_env(tmp_path, {"lsf.conf": "LSF_CLUSTER_NAME=nosuch\n"})
    cfg, issues = parser.check(env)
    assert cfg is None
    assert [(os.path.basename(i.file), i.line, i.message) for i in issues if i.fatal] == [
        ("lsf.cluster.nosuch", 0, "file not found")]


def test_find_files_flat(tmp_path, make_env):
    env = make_env(tmp_path)
    found = parser.find_files(env)
    assert found["lsf.conf"] == os.path.join(env, "lsf.conf")
    assert found["lsb.params"] == os.path.join(env, "lsb.params")
    assert found["lsb.users"] == os.path.join(env, "lsb.users")
    assert found["confdir"] == env and found["cluster_name"] == "mycluster"


def test_relative_lsb_confdir_is_under_envdir(tmp_path, make_env, sample):
    configdir = tmp_path / "lsbatch" / "mycluster" / "configdir"
    configdir.mkdir(parents=True)
    (configdir / "lsb.params").write_text(sample["lsb.params"].replace("MBD_SLEEP_TIME = 10", "MBD_SLEEP_TIME = 3"))
    for name in ("lsb.queues", "lsb.users", "lsb.hosts"):
        (configdir / name).write_text(sample[name])
    env = make_env(tmp_path, {"lsf.conf": "LSB_CONFDIR = lsbatch\n", "lsb.params": None})
    cfg = parser.load(env)
    assert cfg.confdir == str(configdir) and cfg.params.mbd_sleep_time == 3


def test_missing_lsf_confdir_warns(tmp_path, make_env):
    env = make_env(tmp_path, {"lsf.conf": "# x\nLSF_CONFDIR=/no/such/dir\n"})
    found = parser.find_files(env)
    assert [(os.path.basename(i.file), i.line, i.fatal) for i in found["issues"]] == [("lsf.conf", 2, False)]
    assert parser.load(env).cluster_name == "mycluster"


def test_find_files_without_lsf_conf(tmp_path, make_env):
    env = make_env(tmp_path, {"lsf.conf": None})
    found = parser.find_files(env)
    assert [(os.path.basename(i.file), i.line, i.message) for i in found["issues"]] == [("lsf.conf", 0, "file not found")]
    assert found["cluster_name"] == "mycluster" and found["confdir"] == env


def test_lsb_params_keys_lsfemu_has_not_built_are_named_not_silently_kept(tmp_path):
    """A real LSF parameter lsfemu keeps but does not act on gets a warning
    with its line; those that act (RESOURCE_RESERVE_PER_TASK, LSF 10.1's name
    of RESOURCE_RESERVE_PER_SLOT, among them) do not."""
    from lsfemu.config import parser
    from lsfemu.config.sample import write_cluster
    from lsfemu.sched.resreq import per_slot_from_params

    write_cluster(str(tmp_path), force=True)
    params = tmp_path / "lsbatch/cluster1/configdir/lsb.params"
    params.write_text(params.read_text().replace(
        "End Parameters", "PREEMPTION_WAIT_TIME = 5\nRESOURCE_RESERVE_PER_TASK = Y\n"
        "PREEMPT_FOR = least_run_time GROUP_MAX MINI_JOB BOGUS\nPREEMPT_JOBTYPE = backfill AFFINITY\n"
        "End Parameters"))
    cfg = parser.load(str(tmp_path))
    texts = [(w.file.endswith("lsb.params"), w.message) for w in cfg.warnings]
    assert (True, "parameter PREEMPTION_WAIT_TIME is not supported by lsfemu; ignored") in texts
    # PREEMPT_FOR acts; its keywords lsfemu has not built are named one by one
    assert cfg.params.preempt_for == {"LEAST_RUN_TIME", "MINI_JOB"}
    assert [m for _, m in texts if "PREEMPT_FOR" in m] == [
        "PREEMPT_FOR: GROUP_MAX is not supported by lsfemu; ignored", "PREEMPT_FOR: unknown keyword <BOGUS>; ignored"]
    assert cfg.params.preempt_jobtype == {"BACKFILL"}
    assert [m for _, m in texts if "PREEMPT_JOBTYPE" in m] == ["PREEMPT_JOBTYPE: AFFINITY is not supported by lsfemu; ignored"]
    assert not any("RESOURCE_RESERVE_PER_TASK" in m for _, m in texts)
    assert per_slot_from_params(cfg.params.extra) is True


def test_no_preempt_times_in_lsb_params_and_lsb_queues(tmp_path):
    """The preemption protections (NO_PREEMPT_RUN_TIME, NO_PREEMPT_FINISH_TIME,
    NO_PREEMPT_INTERVAL, MAX_TOTAL_TIME_PREEMPT) act (no warning) in
    lsb.params and in a queue; a value of the wrong form is named with its
    line and ignored."""
    from lsfemu.config import parser
    from lsfemu.config.sample import write_cluster

    write_cluster(str(tmp_path), force=True)
    conf = tmp_path / "lsbatch/cluster1/configdir"
    params = conf / "lsb.params"
    params.write_text(params.read_text().replace("End Parameters", "NO_PREEMPT_RUN_TIME = 50%\n"
                      "NO_PREEMPT_FINISH_TIME = 100%\nNO_PREEMPT_INTERVAL = 0\nMAX_TOTAL_TIME_PREEMPT = 0\n"
                      "End Parameters"))
    queues = conf / "lsb.queues"
    queues.write_text(queues.read_text().replace("End Queue", "NO_PREEMPT_FINISH_TIME = 10\n"
                      "NO_PREEMPT_RUN_TIME = soon\nNO_PREEMPT_INTERVAL = -5\nMAX_TOTAL_TIME_PREEMPT = 60\n"
                      "End Queue", 1))
    cfg = parser.load(str(tmp_path))
    texts = [m for w in cfg.warnings for m in [w.message] if "PREEMPT" in m]
    bad = "expected minutes (a positive integer) or a percentage from 1% to 99%"
    assert texts == [f"NO_PREEMPT_FINISH_TIME: {bad}, got <100%>; ignored",
                     "MAX_TOTAL_TIME_PREEMPT: expected minutes (a positive integer), got <0>; ignored",
                     f"NO_PREEMPT_RUN_TIME: {bad}, got <soon>; ignored",
                     "NO_PREEMPT_INTERVAL: expected minutes (an integer of 0 or more), got <-5>; ignored"]
    assert cfg.params.extra["NO_PREEMPT_RUN_TIME"] == "50%" and cfg.params.extra["NO_PREEMPT_INTERVAL"] == "0"
    assert "NO_PREEMPT_FINISH_TIME" not in cfg.params.extra and "MAX_TOTAL_TIME_PREEMPT" not in cfg.params.extra
    q = cfg.queues[0].extra
    assert q["NO_PREEMPT_FINISH_TIME"] == "10" and q["MAX_TOTAL_TIME_PREEMPT"] == "60"
    assert "NO_PREEMPT_RUN_TIME" not in q and "NO_PREEMPT_INTERVAL" not in q


def test_job_scheduling_interval_seconds_or_ms(tmp_path):
    """JOB_SCHEDULING_INTERVAL (LSF 10.1: seconds, or milliseconds with ms) acts:
    its value in seconds, kept as written for bparams -a; a value of another form
    is named with its line and ignored (passes keep the MBD_SLEEP_TIME grid)."""
    from lsfemu.config import parser
    from lsfemu.config.sample import write_cluster

    write_cluster(str(tmp_path), force=True)
    params = tmp_path / "lsbatch/cluster1/configdir/lsb.params"
    base = params.read_text()
    for value, want in (("0", 0.0), ("2", 2.0), ("500ms", 0.5), ("250 MS", 0.25)):
        params.write_text(base.replace("End Parameters", f"JOB_SCHEDULING_INTERVAL = {value}\nEnd Parameters"))
        cfg = parser.load(str(tmp_path))
        assert cfg.params.job_scheduling_interval == want
        assert cfg.params.extra["JOB_SCHEDULING_INTERVAL"] == value
        assert not [w for w in cfg.warnings if "JOB_SCHEDULING_INTERVAL" in w.message]
    params.write_text(base.replace("End Parameters", "JOB_SCHEDULING_INTERVAL = 1s\nEnd Parameters"))
    cfg = parser.load(str(tmp_path))
    assert [w.message for w in cfg.warnings if "JOB_SCHEDULING_INTERVAL" in w.message] == [
        "JOB_SCHEDULING_INTERVAL: expected seconds, or milliseconds followed by ms (an integer of 0 or more), "
        "got <1s>; ignored"]
    assert cfg.params.job_scheduling_interval is None and "JOB_SCHEDULING_INTERVAL" not in cfg.params.extra


def test_pending_time_limits_job_over_application_over_queue_over_lsb_params(tmp_path):
    """PEND_TIME_LIMIT / ELIGIBLE_PEND_TIME_LIMIT read (no warning) in lsb.params, a queue and an
    application profile, in minutes; a job's effective limits take its own, else its application's,
    else its queue's, else the cluster's (engine.views.pend_limits); the eligible one only with
    TRACK_ELIGIBLE_PENDINFO=Y."""
    from types import SimpleNamespace

    from lsfemu.config import parser
    from lsfemu.config.sample import write_cluster
    from lsfemu.engine.views import pend_limits

    write_cluster(str(tmp_path), force=True)
    conf = tmp_path / "lsbatch/cluster1/configdir"
    params = conf / "lsb.params"
    params.write_text(params.read_text().replace("End Parameters", "PEND_TIME_LIMIT = 2:00\n"
                      "ELIGIBLE_PEND_TIME_LIMIT = 90\nEnd Parameters"))
    queues = conf / "lsb.queues"
    queues.write_text(queues.read_text().replace("End Queue", "PEND_TIME_LIMIT = 45\nEnd Queue", 1))
    (conf / "lsb.applications").write_text("Begin Application\nNAME = quick\nELIGIBLE_PEND_TIME_LIMIT = 0:20\n"
                                           "End Application\n")
    cfg = parser.load(str(tmp_path))
    assert not [w for w in cfg.warnings if "PEND_TIME_LIMIT" in w.message]
    q = cfg.queues[0]
    assert (cfg.params.pend_time_limit, cfg.params.eligible_pend_time_limit, q.pend_time_limit) == (120, 90, 45)
    assert cfg.applications["quick"].eligible_pend_time_limit == 20

    def job(queue, app=None, own=None, own_e=None):
        return SimpleNamespace(queue=queue, app_profile=app, pend_limit_min=own, epend_limit_min=own_e)
    other = next(x.name for x in cfg.queues[1:] if x.pend_time_limit is None)
    assert pend_limits(cfg, job(q.name)) == (45, None)  # TRACK_ELIGIBLE_PENDINFO unset: no eligible limit
    cfg.params.track_eligible_pendinfo = True
    assert pend_limits(cfg, job(q.name)) == (45, 90)  # the queue's, the cluster's
    assert pend_limits(cfg, job(other, "quick")) == (120, 20)  # the cluster's, the application's
    assert pend_limits(cfg, job(q.name, "quick", 5, 7)) == (5, 7)  # the job's own over all

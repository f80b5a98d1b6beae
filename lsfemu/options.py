"""Every batch command's options, declared once: LSF 10.1's documented option
list per command, which of them lsfemu implements (the name of the command
function's parameter that receives it), and the one parser that reads argv
with that table the way LSF's commands do.

How LSF reads options (OpenLava's `my_getopt`, the parser LSF's batch
commands grew from; the reading is written down in docs/semantics.md):

- a word that names an option exactly is that option (`-sum`, `-Jd`, `-env`);
  a multi-letter option is never read as a bundle of letters;
- otherwise, a word that begins with the name of an option taking a value
  carries that value (`-n4`, `-qnormal`); the longest such name wins;
- otherwise, a word of single-letter options is read as those options, as
  getopt does (`-aw`; `-aJ name`: the last letter may take the next word);
- anything else is LSF's `cmd: illegal option -- x`.

An option LSF has that lsfemu has not built yet is refused naming it (exit
255, nothing changed), never read as something else. Usage texts are made
from the table and list only what works.

Standard library only and data only: the thin client reads it to find where
bsub's command words begin.
"""



class Opt:
    """One option: its flag ("-Jd"); the command function's parameter that
    receives it (None: LSF's option, not built in lsfemu yet); the name of its
    value in the usage text (None: a switch); whether it may be given many
    times (its values make a list)."""

    __slots__ = ("flag", "dest", "value", "many")

    def __init__(self, flag: str, dest: str | None, value: str | None = None, many: bool = False):
        self.flag, self.dest, self.value, self.many = flag, dest, value, many

    def __repr__(self) -> str:
        return f"Opt({self.flag!r}, {self.dest!r}, {self.value!r}, many={self.many})"


class Grammar:
    """A command's options; the parameter that receives the words that are not
    options (and how the usage names them); whether options may follow those
    words (False for bsub: the first one starts the command); groups of
    options that exclude each other, for the usage text ("-r | -rn")."""

    def __init__(self, cmd: str, opts: tuple[Opt, ...], args_dest: str | None = None, args_usage: str = "",
                 interspersed: bool = True, alternatives: tuple[tuple[str, ...], ...] = ()):
        self.cmd, self.opts, self.args_dest, self.args_usage = cmd, opts, args_dest, args_usage
        self.interspersed, self.alternatives = interspersed, alternatives
        self.by_flag = {o.flag: o for o in opts}
        # every implemented option's value when not given (parse copies it: a bsub -pack parses each line)
        self.unset = {o.dest: (False if o.value is None else None) for o in opts if o.dest}

    def implemented(self) -> list[Opt]:
        return [o for o in self.opts if o.dest is not None]

    def refused(self) -> list[Opt]:
        return [o for o in self.opts if o.dest is None]


class OptionError(Exception):
    """argv that the grammar does not accept. kind: 'illegal' (LSF has no such
    option), 'requires' (a value is missing), 'no_argument' (a switch given a
    value), 'not_implemented' (LSF's option, not built in lsfemu yet)."""

    def __init__(self, kind: str, flag: str):
        super().__init__(kind, flag)
        self.kind = kind
        self.flag = flag


class HelpAsked(Exception):
    """-h: the usage text, exit 0."""


class VersionAsked(Exception):
    """-V: the version banner, exit 0."""


def parse(g: Grammar, argv: list[str]) -> tuple[dict, list[str]]:
    """(values by parameter name, the other words) of argv read with g. Every
    implemented option has a value: None or False when not given, a list for
    options given many times."""
    values: dict = dict(g.unset)
    args: list[str] = []
    by_flag = g.by_flag
    i = 0
    n = len(argv)
    while i < n:
        w = argv[i]
        if w == "--":
            args.extend(argv[i + 1:])
            break
        if not w.startswith("-") or w == "-":
            if not g.interspersed:
                args.extend(argv[i:])
                break
            args.append(w)
            i += 1
            continue
        opt = by_flag.get(w)
        if opt is not None:
            if opt.value is None:
                _set(values, opt, True)
                i += 1
                continue
            if i + 1 >= n:
                _refuse_unbuilt(opt)
                raise OptionError("requires", w)
            _set(values, opt, argv[i + 1])
            i += 2
            continue
        if w in ("-h", "-help", "--help"):
            raise HelpAsked()
        if w == "-V":
            raise VersionAsked()
        opt = _attached(g, w)
        if opt is not None:
            _set(values, opt, w[len(opt.flag):])
            i += 1
            continue
        letters = [by_flag.get("-" + ch) for ch in w[1:]]
        if len(w) > 2 and all(o is not None and o.value is None for o in letters[:-1]) and letters[-1]:
            for o in letters[:-1]:
                _set(values, o, True)
            last = letters[-1]
            if last.value is None:
                _set(values, last, True)
                i += 1
                continue
            if i + 1 >= n:  # getopt: the last letter may take the next word as its value (-aJ name)
                _refuse_unbuilt(last)
                raise OptionError("requires", last.flag)
            _set(values, last, argv[i + 1])
            i += 2
            continue
        switch = max((o for o in g.opts if o.value is None and w.startswith(o.flag)),
                     key=lambda o: len(o.flag), default=None)
        if switch is not None:  # a switch with letters after it
            _refuse_unbuilt(switch)
            raise OptionError("no_argument", switch.flag)
        raise OptionError("illegal", w)
    if g.args_dest is not None:
        values[g.args_dest] = args
    return values, args


def _attached(g: Grammar, w: str) -> Opt | None:
    """The option taking a value whose name begins w (`-n4`), longest first."""
    best = None
    for o in g.opts:
        if o.value is not None and w.startswith(o.flag) and len(w) > len(o.flag):
            if best is None or len(o.flag) > len(best.flag):
                best = o
    return best


def _set(values: dict, opt: Opt, v) -> None:
    _refuse_unbuilt(opt)
    if opt.many:
        if values[opt.dest] is None:
            values[opt.dest] = []
        values[opt.dest].append(v)
    else:
        values[opt.dest] = v


def _refuse_unbuilt(opt: Opt) -> None:
    if opt.dest is None:
        raise OptionError("not_implemented", opt.flag)


def usage(g: Grammar, width: int = 79) -> str:
    """`Usage: cmd [-h] [-V] [...]`: the implemented options, wrapped to width
    with continuation lines under the first option, ending with a newline."""
    done: set[str] = set()
    items = ["[-h]", "[-V]"]
    alt_of = {f: alt for alt in g.alternatives for f in alt}

    def one(o: Opt) -> str:
        return o.flag if o.value is None else f"{o.flag} {o.value}"

    switches = [o for o in g.implemented() if o.value is None]
    valued = [o for o in g.implemented() if o.value is not None]
    for o in switches + valued:
        if o.flag in done:
            continue
        alt = [g.by_flag[f] for f in alt_of.get(o.flag, (o.flag,)) if g.by_flag[f].dest is not None]
        done.update(a.flag for a in alt)
        text = " | ".join(one(a) for a in alt)
        if o.many:
            text = f"{text} [{one(o)} ...]"
        items.append(f"[{text}]")
    if g.args_usage:
        items.append(g.args_usage)
    head = f"Usage: {g.cmd} "
    lines: list[str] = []
    line = head
    for item in items:
        if line.strip() and line != head and len(line) + len(item) > width:
            lines.append(line.rstrip())
            line = " " * len(head)
        line += item + " "
    lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


# -- the tables: LSF 10.1's documented options, per command ---------------------
#
# (flag, parameter or None, value name or None[, "many"]). The lists follow
# the command references of LSF 10.1 (the options' order is the reference's);
# `-h` and `-V` are every command's.

_JOB_IDS = '[job_ID | "job_ID[index_list]" ...]'


def _g(cmd: str, rows, args_dest=None, args_usage="", interspersed=True, alternatives=()) -> Grammar:
    opts = tuple(Opt(r[0], r[1], r[2], len(r) > 3 and r[3] == "many") for r in rows)
    return Grammar(cmd, opts, args_dest, args_usage, interspersed, tuple(tuple(a.split()) for a in alternatives))


_BSUB_ROWS = (
    ("-a", None, '"esub_application [([argument[,argument...]])]..."'),
    ("-alloc_flags", None, '"flag1 [flag2 ...]"'),
    ("-app", "app", "application_profile_name"),
    ("-ar", None, None),
    ("-B", "notify_begin", None),
    ("-b", "begin", "[[year:][month:]day:]hour:minute"),
    ("-C", None, "core_limit"),
    ("-c", "cpulimit", "[hour:]minute[/host_name | /host_model]"),
    ("-clusters", None, '"all [~cluster_name] ... | cluster_name[+[pref_level]] ..."'),
    ("-cn_cu", None, '"cu_spec"'),
    ("-cn_mem", None, "mem_size"),
    ("-core_isolation", None, "0 | 1 | 2 | 3 | 4 | 5"),
    ("-csm", None, "y | n"),
    ("-cwd", "cwd", '"current_working_directory"'),
    ("-D", None, "data_limit"),
    ("-data", None, '"[host_name:]abs_file_path ..." | "tag:tag_name ..."'),
    ("-datachk", None, None),
    ("-datagrp", None, '"user_group_name"'),
    ("-E", "pre_exec", '"pre_exec_command [argument ...]"'),
    ("-Ep", "post_exec", '"post_exec_command [argument ...]"'),
    ("-e", "err", "error_file"),
    ("-eo", "err_over", "error_file"),
    ("-env", "env_spec", '"none" | "all[, ...]" | "var_name[=var_value][, ...]"'),
    ("-eptl", "epend_limit", "[hour:]minute"),
    ("-ext", None, '"external_scheduler_options"'),
    ("-extsched", None, '"external_scheduler_options"'),
    ("-F", None, "file_limit"),
    ("-f", None, '"local_file operator [remote_file]" ...'),
    ("-freq", None, "numberUnit"),
    ("-G", "group", "user_group"),
    ("-g", "job_group", "job_group_name"),
    ("-gpu", "gpu", '- | "gpu_req"'),
    ("-H", "hold", None),
    ("-hl", None, None),
    ("-hostfile", "host_file", "file_path"),
    ("-I", "interactive", None),
    ("-Ip", "interactive_pty", None),
    ("-IS", None, None),
    ("-ISp", None, None),
    ("-ISs", None, None),
    ("-Is", "interactive_shell", None),
    ("-IX", None, None),
    ("-i", "input_file", "input_file"),
    ("-is", "input_spool", "input_file"),
    ("-J", "job_name", 'job_name | -J "job_name[index_list]%job_slot_limit"'),
    ("-Jd", "description", '"job_description"'),
    ("-jobaff", None, '"[! | # | ~]attribute_name ..."'),
    ("-jsdl", None, "file_name"),
    ("-jsdl_strict", None, "file_name"),
    ("-jsm", None, "y | n | d"),
    ("-json", None, "file_name"),
    ("-K", "block", None),
    ("-k", None, '"checkpoint_dir [init=initial_checkpoint_period] [checkpoint_period] [method=method_name]"'),
    ("-L", "login_shell", "login_shell"),
    ("-Lp", None, "ls_project_name"),
    ("-ln_mem", None, "mem_size"),
    ("-ln_slots", None, "num_slots"),
    ("-M", "mem_limit", "mem_limit[!]"),
    ("-m", "asked_hosts", '"host_name[+[pref_level]] | host_group[+[pref_level]] ..."'),
    ("-mig", None, "migration_threshold"),
    ("-N", "notify_end", None),
    ("-Ne", "notify_exit", None),
    ("-n", "nproc", "min_tasks[,max_tasks]"),
    ("-network", None, '"network_res_req"'),
    ("-nnodes", None, "num_nodes"),
    ("-notify", None, '"[exit] [done] [start] [suspend] [resume]"'),
    ("-o", "out", "output_file"),
    ("-oo", "out_over", "output_file"),
    ("-outdir", "outdir", "output_directory"),
    ("-P", "project", "project_name"),
    ("-p", None, "process_limit"),
    ("-pack", "pack_file", "job_submission_file"),
    ("-ptl", "pend_limit", "[hour:]minute"),
    ("-Q", None, '"[exit_code ...] [EXCLUDE(exit_code ...)]"'),
    ("-q", "queue", '"queue_name ..."'),
    ("-R", "res_req", '"res_req"', "many"),
    ("-r", "rerun", None),
    ("-rcacct", None, '"rc_account_name"'),
    ("-rn", "rerun_never", None),
    ("-rnc", None, "resize_notification_cmd"),
    ("-S", None, "stack_limit"),
    ("-s", None, "signal"),
    ("-sla", None, "service_class_name"),
    ("-smt", None, "smt_value"),
    ("-sp", "sp", "priority"),
    ("-stage", None, '"storage= min_size [ : in=path_to_stage_in_script ] [ : out=path_to_stage_out_script ]"'),
    ("-step_cgroup", None, "y | n"),
    ("-T", None, "thread_limit"),
    ("-t", "term", "[[year:][month:]day:]hour:minute"),
    ("-ti", None, None),
    ("-tty", None, None),
    ("-U", None, "reservation_ID"),
    ("-u", "mail_user", "mail_user"),
    ("-ul", None, None),
    ("-v", None, "swap_limit"),
    ("-W", "runlimit", "[hour:]minute[/host_name | /host_model]"),
    ("-We", "est_runtime", "[hour:]minute[/host_name | /host_model]"),
    ("-w", "depend_cond", "'dependency_expression'"),
    ("-wa", None, "'signal'"),
    ("-wt", None, "'[hour:]minute'"),
    ("-XF", None, None),
    ("-x", "exclusive", None),
    ("-yaml", None, "file_name"),
    ("-Zs", None, None),
)

#: bmod: bsub's options (less those that only make sense at submission), their
#: `n` forms that remove a setting, and bmod's own
_BMOD_NOT_FROM_BSUB = {"-I", "-Ip", "-IS", "-ISp", "-ISs", "-Is", "-IX", "-K", "-pack", "-jsdl", "-jsdl_strict",
                       "-json", "-yaml", "-tty", "-XF", "-csm", "-jsm", "-step_cgroup", "-alloc_flags", "-cn_cu",
                       "-cn_mem", "-ln_mem", "-ln_slots", "-nnodes", "-core_isolation", "-smt", "-ti", "-ext",
                       "-extsched", "-datachk", "-datagrp", "-H", "-sp", "-Zs", "-s", "-rcacct", "-notify"}
_BMOD_N = ("-arn -Bn -hln -Nn -uln -xn -appn -bn -Cn -cn -clustersn -cwdn -Dn -datan -En -Epn -en -eptln -Fn "
           "-fn -freqn -Gn -gn -gpun -hostfilen -in -isn -Jn -Jdn -jobaffn -kn -Ln -Lpn -Mn -mn -nn -networkn "
           "-on -outdirn -Pn -pn -ptln -Qn -qn -Rn -rncn -Sn -slan -stagen -Tn -tn -Un -un -vn -Wn -Wen -wn "
           "-wan -wtn -Zsn").split()
#: bmod's implemented options (flag -> the bmod function's parameter); the rest
#: of its table is refused by name. The `n` forms reset a setting.
_BMOD_DESTS = {
    "-cwd": "cwd", "-cwdn": "cwd_n", "-e": "err", "-eo": "err_over", "-en": "err_n",
    "-G": "group", "-Gn": "group_n", "-J": "job_name", "-Jn": "job_name_n", "-M": "mem_limit", "-Mn": "mem_limit_n",
    "-n": "nproc", "-nn": "nproc_n", "-o": "out", "-oo": "out_over", "-on": "out_n", "-P": "project",
    "-Pn": "project_n", "-q": "queue", "-qn": "queue_n", "-R": "res_req", "-Rn": "res_req_n", "-r": "rerun",
    "-rn": "rerun_n", "-W": "runlimit", "-Wn": "runlimit_n", "-w": "depend_cond", "-wn": "depend_n",
    "-Z": "command", "-Jd": "description", "-Jdn": "description_n", "-b": "begin", "-bn": "begin_n",
    "-t": "term", "-tn": "term_n", "-L": "login_shell", "-Ln": "login_shell_n", "-i": "input_file",
    "-in": "input_file_n", "-outdir": "outdir", "-outdirn": "outdir_n", "-u": "mail_user", "-un": "mail_user_n",
    "-B": "notify_begin", "-Bn": "notify_begin_n", "-N": "notify_end", "-Ne": "notify_exit", "-Nn": "notify_end_n",
    "-x": "exclusive", "-xn": "exclusive_n", "-m": "hosts", "-mn": "hosts_n", "-hostfile": "host_file",
    "-hostfilen": "host_file_n", "-E": "pre_exec", "-En": "pre_exec_n",
    "-g": "job_group", "-gn": "job_group_n", "-app": "app", "-appn": "app_n", "-Ep": "post_exec",
    "-Epn": "post_exec_n", "-We": "estimate", "-Wen": "estimate_n", "-c": "cpulimit", "-cn": "cpulimit_n",
    "-ptl": "pend_limit", "-ptln": "pend_limit_n", "-eptl": "epend_limit", "-eptln": "epend_limit_n",
}
_BMOD_ROWS = (
    tuple((r[0], _BMOD_DESTS.get(r[0])) + tuple(r[2:]) for r in _BSUB_ROWS if r[0] not in _BMOD_NOT_FROM_BSUB)
    + tuple((f, _BMOD_DESTS.get(f), None) for f in _BMOD_N)
    + (
        ("-sp", "sp", "priority"),
        ("-spn", "spn", None),
        ("-aps", "aps", '"system=value" | "admin=value"'),
        ("-apsn", "apsn", None),
        ("-Z", "command", '"new_command"'),
        ("-Zs", None, '"new_command"'),
        ("-Ne", "notify_exit", None),
        ("-rn", "rerun_n", None),
        ("-slan", None, None),
        ("-hostfilen", "host_file_n", None),
    )
)


def _dedupe(rows):
    seen: dict[str, tuple] = {}
    for r in rows:
        seen.setdefault(r[0], r)
    return tuple(seen.values())


_SELECT = (  # the job selection the control commands share
    ("-app", "app", "application_profile_name"),
    ("-g", "job_group", "job_group_name"),
    ("-J", "name", "job_name"),
    ("-m", "host", "host_name | -m host_group"),
    ("-q", "queue", "queue_name"),
    ("-sla", None, "service_class_name"),
    ("-u", "user", "user_name | -u user_group | -u all"),
)

#: bsub's grammar, made at import: the thin client reads it (command_words) and no other
_BSUB = _g("bsub", _BSUB_ROWS, "command", "[command [argument ...]]", interspersed=False,
           alternatives=("-e -eo", "-i -is", "-o -oo", "-r -rn", "-I -Ip -IS -ISp -ISs -Is -IX -K"))


def _grammars() -> dict[str, Grammar]:
    """Every command's grammar (GRAMMARS), made at the first use of GRAMMARS: not for
    the thin client's bsub, which needs bsub's alone (0.4 ms of its start)."""
    return {g.cmd: g for g in (
    _BSUB,
    _g("bmod", _dedupe(_BMOD_ROWS), "args", 'job_ID | "job_ID[index_list]"',
       alternatives=("-sp -spn", "-aps -apsn", "-cwd -cwdn", "-e -eo -en", "-G -Gn", "-J -Jn", "-M -Mn",
                     "-n -nn", "-o -oo -on", "-P -Pn", "-q -qn", "-R -Rn", "-r -rn", "-W -Wn", "-w -wn", "-Jd -Jdn", "-b -bn", "-t -tn",
                     "-L -Ln", "-i -in", "-outdir -outdirn", "-u -un", "-B -Bn", "-N -Ne -Nn", "-x -xn",
                     "-E -En", "-Ep -Epn", "-We -Wen", "-c -cn")),
    _g("bkill", (
        ("-l", "list_signals", None), ("-b", "bucket", None), ("-C", "kill_reason", "kill_reason"), ("-d", "as_done", None),
        ("-s", "sig", "signal_value | -s signal_name"), ("-r", "remove", None),
        ("-stat", "stat", "run | pend | susp"),
    ) + _SELECT, "job_ids", "[0] " + _JOB_IDS, alternatives=("-r -s -d",)),
    _g("bstop", (("-a", None, None), ("-C", "suspend_reason", "suspend_reason")) + _SELECT, "job_ids", "[0] " + _JOB_IDS),
    _g("bresume", (("-C", "resume_reason", "resume_reason"),) + _SELECT, "job_ids", "[0] " + _JOB_IDS),
    _g("bswitch", (
        ("-a", None, '"application_name(arg1 arg2 ...) ..."'), ("-J", "name", "job_name"),
        ("-m", "host", "host_name | -m host_group"), ("-q", "queue", "queue_name"),
        ("-u", "user", "user_name | -u user_group | -u all"),
    ), "args", "destination_queue [0] " + _JOB_IDS),
    _g("bmig", (
        ("-f", None, None), ("-J", "name", "job_name"), ("-m", None, '"host_name ..." | -m "host_group ..."'),
        ("-u", "user", "user_name | -u user_group | -u all"),
    ), "job_ids", "[0] " + _JOB_IDS),
    _g("brequeue", (
        ("-a", "all_", None), ("-d", "done", None), ("-e", "exited", None), ("-H", "hold", None),
        ("-p", None, None), ("-r", "running", None),
        ("-J", "name", 'job_name | -J "job_name[index_list]"'), ("-u", "user", "user_name | -u all"),
    ), "job_ids", _JOB_IDS),
    _g("btop", (("-u", "owner_list", None),), "args", 'job_ID | "job_ID[index_list]" [position]'),
    _g("bbot", (("-u", "owner_list", None),), "args", 'job_ID | "job_ID[index_list]" [position]'),
    _g("bpeek", (
        ("-f", None, None), ("-q", "queue", "queue_name"), ("-m", "host", "host_name"),
        ("-J", "name", "job_name"),
    ), "args", '[job_ID | "job_ID[index]"]', alternatives=("-q -m -J",)),
    _g("bjdepinfo", (
        ("-c", "children", None), ("-l", "detail", None), ("-p", "pending_only", None), ("-r", "level", "level"),
    ), "args", 'job_ID | "job_ID[index]"'),
    _g("brun", (
        ("-b", None, None), ("-c", None, None), ("-f", None, None),
        ("-m", "hosts", '"host_name[#num_cpus] ..."'),
    ), "args", 'job_ID | "job_ID[index]"'),
    _g("bjobs", (
        ("-A", "arrays", None), ("-a", "all_", None), ("-aff", None, None), ("-aps", "aps", None),
        ("-cname", None, None), ("-d", "done", None), ("-data", None, None), ("-env", "env", None),
        ("-fwd", None, None), ("-gpu", None, None), ("-hms", "hms", None), ("-json", "json_", None),
        ("-l", "long", None), ("-noheader", "noheader", None), ("-p", "pend", None),
        ("-p0", "p0", None), ("-p1", "p1", None), ("-p2", "p2", None), ("-p3", "p3", None),
        ("-pe", "eligible", None), ("-pei", "eligible_split", None), ("-pi", "ineligible", None), ("-plan", None, None),
        ("-prio", "prio", None), ("-psum", "psum", None), ("-r", "run", None), ("-s", "susp", None),
        ("-script", "script", None), ("-ss", None, None), ("-sum", "sum_", None), ("-UF", "uf", None),
        ("-W", "wfull", None), ("-WF", "est_finish", None), ("-WL", "est_left", None),
        ("-WP", "est_complete", None),
        ("-w", "wide", None), ("-X", "noncondensed", None), ("-x", "exception", None),
        ("-app", "app", "application_profile_name"), ("-G", "user_group", "user_group"),
        ("-g", "job_group", "job_group_name"), ("-hostfile", "host_file", None), ("-J", "name", "job_name"),
        ("-Jd", "description", "job_description"), ("-Lp", None, "ls_project_name"),
        ("-m", "host", "host_name | -m host_group | -m cluster_name"),
        ("-N", "normalize", "host_name | -N host_model | -N cpu_factor"),
        ("-o", "fmt", "\"field_name[:[-][output_width]] ... [delimiter='character']\""),
        ("-P", "project", "project_name"), ("-q", "queue", "queue_name"),
        ("-rusage", "rusage", '"resource_name[,resource_name,...]"'),
        ("-sla", None, "service_class_name"), ("-U", None, "reservation_ID"),
        ("-u", "user", "user_name | -u user_group | -u all"),
    ), "job_ids", _JOB_IDS, alternatives=("-aps -l -UF -w",)),
    _g("bhist", (
        ("-a", "all_", None), ("-b", "brief", None), ("-d", "done", None), ("-data", None, None),
        ("-e", "exited", None), ("-l", "long", None), ("-aff", None, None), ("-gpu", None, None),
        ("-hostfile", "host_file", None), ("-cname", None, None), ("-p", "pend", None), ("-r", "run", None),
        ("-s", "susp", None), ("-t", "chron", None), ("-w", "wide", None),
        ("-app", "app", "application_profile_name"), ("-C", "complete", "start_time,end_time"),
        ("-D", "dispatched", "start_time,end_time"), ("-f", "logfile", "logfile_name"),
        ("-G", "user_group", "user_group"), ("-J", "name", "job_name"), ("-Jd", "description", '"job_description"'),
        ("-Lp", "license_project", "ls_project_name"), ("-m", "hosts", '"host_name ..."'),
        ("-N", "normalize", "host_name | -N host_model | -N cpu_factor"),
        ("-n", "nfiles", "number_logfiles | -n min_logfile,max_logfile | -n 0"),
        ("-P", "project", "project_name"), ("-q", "queue", "queue_name"),
        ("-S", "submitted", "start_time,end_time"), ("-T", "events_window", "start_time,end_time"),
        ("-u", "user", "user_name | -u all"),
    ), "job_ids", _JOB_IDS, alternatives=("-b -w", "-f -n", "-u -G")),
    _g("bacct", (
        ("-b", "brief", None), ("-l", "long", None), ("-aff", None, None), ("-gpu", None, None),
        ("-d", "done", None), ("-E", "eligible", None), ("-e", "exited", None), ("-UF", "unformatted", None),
        ("-w", "wide", None), ("-x", "exception", None),
        ("-app", "app", '"application_profile_name ..."'), ("-C", "complete", "time0,time1"),
        ("-D", "dispatched", "time0,time1"), ("-f", "logfile", "logfile_name | -f -"),
        ("-Lp", "license_project", '"ls_project_name ..."'), ("-m", "host", '"host_name ..."'),
        ("-M", "host_file", "host_list_file"),
        ("-N", "normalize", "host_name | -N host_model | -N cpu_factor"),
        ("-P", "project", '"project_name ..."'), ("-q", "queue", '"queue_name ..."'),
        ("-rcacct", None, '"all | rc_account_name ..."'), ("-rcalloc", None, '"all | rc_account_name ..."'),
        ("-sla", "sla", '"service_class_name ..."'), ("-S", "submitted", "time0,time1"),
        ("-u", "user", '"user_name ..." | -u all'), ("-U", None, "reservation_ID ... | -U all"),
    ), "job_ids", _JOB_IDS, alternatives=("-b -l", "-m -M")),
    _g("bqueues", (
        ("-alloc", "alloc", None), ("-json", "json_", None), ("-l", "long", None), ("-noheader", "noheader", None),
        ("-r", "recursive", None), ("-w", "wide", None),
        ("-m", "host", "host_name | -m host_group | -m cluster_name | -m all"),
        ("-o", "fmt", '"field_name[:[-][output_width]] ... [delimiter=\'char\']"'),
        ("-u", "user", "user_name | -u user_group | -u all"),
    ), "queues", "[queue_name ...]", alternatives=("-w -l -r",)),
    _g("bhosts", (
        ("-a", "all_", None), ("-aff", None, None), ("-alloc", "alloc", None), ("-cname", None, None),
        ("-e", None, None), ("-gpu", None, None), ("-json", "json_", None), ("-l", "long", None),
        ("-noheader", "noheader", None), ("-rc", None, None), ("-rconly", None, None), ("-s", "shared", None),
        ("-w", "wide", None), ("-X", "uncondensed", None), ("-x", "exceptions", None),
        ("-o", "fmt", '"field_name[:[-][output_width]] ... [delimiter=\'char\']"'),
        ("-R", "res_req", '"res_req"'),
    ), "hosts", "[host_name ... | host_group ... | compute_unit ...]"),
    _g("busers", (
        ("-alloc", "alloc", None), ("-json", "json_", None), ("-w", "wide", None),
        ("-o", "fmt", '"field_name[:[-][output_width]] ... [delimiter=\'char\']"'),
    ), "names", "[user_name ... | user_group ... | all]"),
    _g("bparams", (("-a", "all_", None), ("-l", "long", None)), alternatives=("-a -l",)),
    _g("bugroup", (("-l", "long", None), ("-r", "recursive", None), ("-w", "wide", None)),
       "names", "[user_group ...]"),
    _g("bhpart", (("-r", "recursive", None),), "names", "[host_partition_name ...]"),
    _g("lsid", ()),
    _g("lshosts", (
        ("-a", "all_", None), ("-cname", None, None), ("-gpu", None, None), ("-json", "json_", None),
        ("-l", "long", None), ("-loc", None, None), ("-mig", None, None), ("-s", "shared", None), ("-sl", None, None),
        ("-T", None, None), ("-w", "wide", None),
        # (the value's name shortened from LSF's synopsis so that the usage line fits 79 columns)
        ("-o", "fmt", '"field_name[:[-][width][:unit]] ... [delimiter=\'char\']"'),
        ("-R", "res_req", '"res_req"'),
    ), "hosts", "[host_name ... | host_group ... | cluster_name ...]", alternatives=("-w -l",)),
    _g("lsload", (
        ("-a", "all_", None), ("-cname", None, None), ("-E", "effective", None), ("-gpu", None, None),
        ("-gpuload", None, None), ("-json", "json_", None), ("-l", "long", None), ("-loc", None, None),
        ("-N", "normalized", None), ("-s", "shared", None), ("-w", "wide", None),
        ("-I", "indices", "load_index[:load_index] ..."), ("-n", "num_hosts", "num_hosts"),
        ("-o", "fmt", '"field_name[:[-][output_width]] ... [delimiter=\'character\']"'),
        ("-R", "res_req", '"res_req"'),
    ), "hosts", "[host_name ... | host_group ... | cluster_name ...]", alternatives=("-l -w", "-N -E")),
    _g("lsclusters", (("-l", None, None), ("-w", "wide", None)), "clusters", "[cluster_name ...]",
       alternatives=("-l -w",)),
    _g("lsinfo", (
        ("-l", "long", None), ("-M", "all_models", None), ("-m", "models", None), ("-r", "resources", None),
        ("-t", "types", None), ("-w", "wide", None),
    ), "names", "[resource_name ...]", alternatives=("-l -w", "-m -M")),
    _g("bgadd", (("-L", "limit", "limit"), ("-sla", None, "service_class_name")), "args", "job_group_name"),
    _g("bgmod", (("-L", "limit", "limit"), ("-Ln", "no_limit", None), ("-u", "owner", "job_group_owner")),
       "args", "job_group_name", alternatives=("-L -Ln",)),
    _g("bgdel", (("-c", "below", "job_group_name"), ("-d", None, "idle_time"), ("-u", "user", "user_name | -u all")),
       "args", "job_group_name | 0"),
    _g("bjgroup", (("-N", None, None), ("-s", "sort", None)), "args", "[group_name]"),
    _g("blimits", (
        ("-a", "all_", None), ("-c", "config", None), ("-w", "wide", None), ("-gl", None, None),
        ("-fwd", None, None), ("-o", None, "\"field_name[:[-][output_width]] ... [delimiter='character']\""),
        ("-n", "names", "limit_name", "many"), ("-P", "projects", "project_name", "many"),
        ("-q", "queues", "queue_name", "many"), ("-u", "users", "user_name | user_group", "many"),
        ("-Lp", None, '"ls_license_project"'), ("-m", "hosts", "host_name | host_group", "many"),
        ("-C", None, "cluster_name"), ("-A", "apps", "application_name", "many"),
    ), alternatives=("-a -c",)),
    _g("bapp", (("-alloc", None, None), ("-l", "long", None), ("-w", "wide", None)), "names",
       "[application_profile ...]", alternatives=("-l -w",)),
)}


#: badmin's subcommands (LSF 10.1 badmin reference) that lsfemu has, with their
#: options; the others are refused by badmin itself. -f (no confirmation
#: prompt) holds always, as the daemon never prompts; -v (detailed messages)
#: too: badmin always prints them.
_ADMIN_CTRL = (("-C", "comment", "comment"),)
_ADMIN_HIST = (("-t", "window", "time0,time1"), ("-f", "logfile", "logfile_name"))
BADMIN: dict[str, Grammar] = {sub: _g("badmin", rows, "names", args) for sub, rows, args in (
    ("ckconfig", (("-v", "verbose", None),), ""),
    ("reconfig", (("-f", "force", None), ("-v", "verbose", None)), ""),
    ("mbdrestart", (("-C", None, "comment"), ("-f", "force", None), ("-p", None, None), ("-s", None, None),
                    ("-v", "verbose", None)), ""),
    ("qopen", _ADMIN_CTRL, "[queue_name ... | all]"),
    ("qclose", _ADMIN_CTRL, "[queue_name ... | all]"),
    ("qact", _ADMIN_CTRL, "[queue_name ... | all]"),
    ("qinact", _ADMIN_CTRL, "[queue_name ... | all]"),
    ("hopen", _ADMIN_CTRL, "[host_name ... | host_group ... | all]"),
    ("hclose", _ADMIN_CTRL + (("-i", None, '"lock_id=id"'),), "[host_name ... | host_group ... | all]"),
    ("showconf", (), "mbd"),
    ("showstatus", (), ""),
    ("hist", _ADMIN_HIST, ""),
    ("mbdhist", _ADMIN_HIST, ""),
    ("qhist", _ADMIN_HIST, "[queue_name ...]"),
    ("hhist", _ADMIN_HIST, "[host_name ...]"),
    ("perfmon", (("-json", "json_", None),), "start [sample_period] | stop | view | setperiod sample_period"),
)}
#: badmin's other subcommands (LSF 10.1): refused naming them
BADMIN_UNBUILT = ("diagnose", "gpddebug", "gpdrestart", "gpdtime", "hghostadd", "hghostdel", "hpower", "hrestart",
                  "hshutdown", "hstartup", "lsfproxyd", "mbddebug", "mbdtime", "perflog", "sbddebug",
                  "sbdtime", "schddebug", "schdtime", "security", "help", "quit")

#: lsadmin's subcommands (LSF 10.1 lsadmin reference) that lsfemu has; the
#: others (LSADMIN_UNBUILT) are refused naming them
LSADMIN: dict[str, Grammar] = {sub: _g("lsadmin", rows, "names", args) for sub, rows, args in (
    ("showconf", (), "lim [host_name ... | all]"),
)}
LSADMIN_UNBUILT = ("ckconfig", "reconfig", "limlock", "limunlock", "reslogon", "reslogoff", "limdebug", "resdebug",
                   "limtime", "restime", "expire", "limrestart", "limstartup", "limshutdown", "resrestart",
                   "resstartup", "resshutdown", "help", "quit")

#: bsub's options that make it wait for its job (parameter, the mode the job
#: stores): -K waits; -I, -Ip, -Is also talk to the job (lsfemu.bsubwait)
BSUB_WAITING = (("block", "K"), ("interactive", "I"), ("interactive_pty", "Ip"), ("interactive_shell", "Is"))


#: command -> its Grammar (every batch command's), made at its first use (_all_grammars)
GRAMMARS: dict[str, Grammar]


def _all_grammars() -> dict[str, Grammar]:
    global GRAMMARS
    try:
        return GRAMMARS
    except NameError:
        GRAMMARS = _grammars()
        return GRAMMARS


def __getattr__(name: str):
    """``options.GRAMMARS`` before anything made it (PEP 562)."""
    if name == "GRAMMARS":
        return _all_grammars()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def grammar(cmd: str) -> Grammar:
    return _all_grammars()[cmd]


def command_words(argv: list[str]) -> list[str] | None:
    """bsub's command words (those after its options); None when the options
    are not bsub's (the daemon answers those)."""
    try:
        return parse(_BSUB, argv)[1]
    except (OptionError, HelpAsked, VersionAsked):
        return None

"""The parameters in force that `badmin showconf mbd` and `lsadmin showconf
lim` print (issue 21, parts 3 and 4): lsf.conf as the daemon read it, with the
values LSF derives when lsf.conf leaves them out (LSF_ENVDIR, LSF_CONFDIR,
LSB_SHAREDIR, LSF_UNIT_FOR_LIMITS); folders as resolved paths.

LSB_SHAREDIR is where lsb.events and lsb.acct are, as tools compute it:
LSB_SHAREDIR/<cluster>/logdir. A shared cluster's is lsf.conf's (its log
folder is there). A daemon alone keeps its log folder in LSFEMU_HOME/logdir;
its LSB_SHAREDIR is LSFEMU_HOME/work (LSF's default place under LSF_TOP),
where <cluster>/logdir is made a link to that folder, so that the path a
tool builds from the printed value leads to the real files.
"""

from __future__ import annotations

import os


def _resolve(envdir: str, value: str) -> str:
    value = value.strip()
    return os.path.normpath(os.path.join(envdir, value)) if value else envdir


def sharedir(cl) -> str:
    """The LSB_SHAREDIR whose <cluster>/logdir is the cluster's log folder (module doc)."""
    name = cl.config.cluster_name
    configured = cl.config.lsf_conf.get("LSB_SHAREDIR", "").strip()
    logdir = os.path.realpath(cl.logdir)
    if configured and os.path.realpath(os.path.join(configured, name, "logdir")) == logdir:
        return configured
    work = os.path.join(cl.home, "work")
    link = os.path.join(work, name, "logdir")
    if os.path.realpath(link) != logdir:
        try:
            os.makedirs(os.path.dirname(link), exist_ok=True)
            if os.path.islink(link):
                os.unlink(link)
            os.symlink(logdir, link)
        except OSError:  # a state folder this process may not write: the path stays the rule's
            pass
    return work


def lim_conf(cl) -> dict[str, str]:
    """`lsadmin showconf lim`: lsf.conf with LSF_ENVDIR and LSF_CONFDIR in force."""
    conf = dict(cl.config.lsf_conf)
    conf["LSF_ENVDIR"] = cl.envdir
    conf["LSF_CONFDIR"] = _resolve(cl.envdir, conf.get("LSF_CONFDIR", ""))
    return conf


def mbd_conf(cl) -> dict[str, str]:
    """`badmin showconf mbd`: LIM's view plus mbatchd's folders and units."""
    conf = lim_conf(cl)
    if conf.get("LSB_CONFDIR", "").strip():  # (unset: the lsb.* files are read from LSF_ENVDIR itself)
        conf["LSB_CONFDIR"] = _resolve(cl.envdir, conf["LSB_CONFDIR"])
    conf["LSB_SHAREDIR"] = sharedir(cl)
    conf.setdefault("LSF_UNIT_FOR_LIMITS", "MB")  # lsfemu's default unit (sched/resreq.units_from_conf)
    return conf

"""What the daemon keeps between passes for fairshare: the users of the jobs
in memory (Cluster.job_users) and each scope's share tree
(Cluster.share_tree) must always equal what a fresh computation gives."""

from __future__ import annotations

from lsfemu.config.sample import write_cluster
from lsfemu.engine.cluster import Cluster
from lsfemu.engine.jobs import SubmitSpec
from lsfemu.sched import fairshare as fs

QUEUES = """Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
FAIRSHARE = USER_SHARES[[alice, 3] [default, 1]]
End Queue
"""


def _spec(user: str) -> SubmitSpec:
    return SubmitSpec(user=user, queue="normal", default_queue_used=True, command="sleep 60", name=None,
                      num_processors=1, max_processors=None, cwd="/tmp", home="/tmp", specified_cwd=None,
                      output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                      run_limit_min=None, submit_priority=None, res_req=None, mem_req_mb=None,
                      project="default", user_group=None, env={}, from_host="hostA")


def _cluster(tmp_path, monkeypatch) -> Cluster:
    monkeypatch.setenv("LSFEMU_CLOCK_START", "1767603600")
    envdir = write_cluster(str(tmp_path / "conf"))
    (tmp_path / "conf" / "lsbatch" / "cluster1" / "configdir" / "lsb.queues").write_text(QUEUES)
    return Cluster(str(envdir), str(tmp_path / "home"))


def _tree_shape(tree: fs.ShareTree) -> list:
    def walk(n):
        return [(c.name, c.kind, c.shares, walk(c)) for c in n.children]
    return walk(tree.root)


def test_job_users_follow_new_jobs_and_reloads(tmp_path, monkeypatch):
    cl = _cluster(tmp_path, monkeypatch)
    assert cl.job_users() == set()
    cl.submit(_spec("alice"))
    assert cl.job_users() == {"alice"}
    cl.scheduling_pass(cl.now())  # (rows kept: the other way of reading users)
    cl.submit(_spec("bob"))
    assert cl.job_users() == {"alice", "bob"}
    cl.commit()
    cl.submit(_spec("carol"))
    assert cl.job_users() == {"alice", "bob", "carol"}
    cl.session.rollback()
    cl.reload_jobs()  # carol's job was never committed
    assert cl.job_users() == {"alice", "bob"}


def test_kept_tree_is_the_fresh_tree(tmp_path, monkeypatch):
    cl = _cluster(tmp_path, monkeypatch)
    cl.submit(_spec("alice"))
    cl.submit(_spec("bob"))
    scope = cl.fs_by_queue["normal"]
    known = cl.fairshare(cl.now()).known_users()
    kept = cl.share_tree(scope, known)
    assert cl.share_tree(scope, set(known)) is kept  # the same users: kept
    assert _tree_shape(kept) == _tree_shape(fs.build_tree(scope.shares_text, cl.config.user_groups, known))
    # a user the tree did not know gets a default account on first sight: the
    # tree has grown, and the next caller gets a fresh one
    assert kept.account_path("dave") is not None
    again = cl.share_tree(scope, known)
    assert again is not kept
    assert "dave" not in [c.name for c in again.root.children]
    # new users: a new tree with their default accounts
    cl.submit(_spec("erin"))
    known2 = cl.fairshare(cl.now()).known_users()
    assert "erin" in known2
    tree2 = cl.share_tree(scope, known2)
    assert "erin" in [c.name for c in tree2.root.children]
    assert _tree_shape(tree2) == _tree_shape(fs.build_tree(scope.shares_text, cl.config.user_groups, known2))

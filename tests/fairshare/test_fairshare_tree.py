"""USER_SHARES parsing, share trees (group@, group, default, others, all, lsb.users subtrees),
the choose() walk and the dispatch loop."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lsfemu.config.model import UserGroupConf
from lsfemu.config.fairshare import ShareSyntaxError, parse_user_shares
from lsfemu.sched.fairshare import (
    ALL, GROUP, OTHERS, SUBTREE, USER, Factors, FairshareState, Usage, build_tree, fairshare_order,
)

# ---------------------------------------------------------------------------
# parsing


@pytest.mark.parametrize("text", [
    "USER_SHARES[[user1, 5000] [user2, 5000] [others, 1]]",
    "USER_SHARES [ [user1,5000] [user2 , 5000]  [others,1] ]",
    "user_shares[[user1, 5000][user2, 5000][others, 1]]",
    "[user1, 5000] [user2, 5000] [others, 1]",
    "[[user1, 5000] [user2, 5000] [others, 1]]",
    "([user1, 5000] [user2, 5000] [others, 1])",
    "  [user1,\t5000]\n[user2, 5000] [others, 1]  ",
])
def test_parse_spacing_variants(text):
    assert parse_user_shares(text) == [("user1", 5000.0), ("user2", 5000.0), ("others", 1.0)]


def test_parse_keeps_group_at_and_empty():
    assert parse_user_shares("[grp@, 3] [grp2, 7] [default, 1]") == [("grp@", 3), ("grp2", 7), ("default", 1)]
    assert parse_user_shares("") == []
    assert parse_user_shares("USER_SHARES[]") == []


@pytest.mark.parametrize("text, expected", [
    ("USER_SHARES[user1, 10]", "expected '[' to open a share assignment"),
    ("USER_SHARES(([user1, 10]))", "expected '[' after USER_SHARES"),
    ("USER_SHARES[[user1, 10]", "expected ']' to close [user1, 10]"),
    ("[user1 10]", "expected ',' between the name 'user1' and its number of shares"),
    ("[user1, ten]", "expected a positive number of shares for 'user1'"),
    ("[user1, 0]", "expected a positive number of shares for 'user1', got 0"),
    ("[user1, -2]", "expected a positive number of shares"),
    ("[, 2]", "expected a user or group name after '['"),
    ("[u, 1] [u, 2]", "'u' is given shares twice"),
    ("[u, 1] x", "expected '[' to open a share assignment [name, shares] at character 8, got 'x'"),
])
def test_parse_errors_say_what_was_expected(text, expected):
    with pytest.raises(ShareSyntaxError) as e:
        parse_user_shares(text)
    assert expected in str(e.value)
    assert isinstance(e.value, ValueError)


# ---------------------------------------------------------------------------
# seed 003: the Engineering share tree

ENGINEERING_USERS = """\
Begin UserGroup
GROUP_NAME    GROUP_MEMBER                    USER_SHARES
TechSupport   (sup1 sup2)                     ()
Test          (dev1 dev2)                     ()
Application   (app1)                          ()
Systems       (sys1)                          ()
Development   (Test Application Systems)      ([Test, 50] [Application, 35] [Systems, 15])
ChipX         (User1 User2)                   ([User1, 50] [User2, 50])
ChipY         (User3 User4)                   ([User3, 80] [User4, 20])
Research      (ChipX ChipY)                   ([ChipX, 80] [ChipY, 20])
End UserGroup
"""
ENGINEERING_QUEUE = "USER_SHARES[[TechSupport, 25] [Development, 50] [Research, 25]]"


@pytest.fixture
def engineering(lsb_users):
    return build_tree(ENGINEERING_QUEUE, lsb_users(ENGINEERING_USERS), {"User1", "User2", "User3", "User4"})


def test_seed_entitlements_user1_10_percent_user3_4_percent(engineering):
    # "User1 is entitled to 10% (.50 x .80 x .25 = .10) and User3 is entitled to 4% (.80 x .20 x .25 = .04)"
    assert engineering.entitlement("User1") == pytest.approx(0.10)
    assert engineering.entitlement("User3") == pytest.approx(0.04)
    assert [n.name for n in engineering.account_path("User3")] == ["Research", "ChipY", "User3"]
    assert [n.kind for n in engineering.account_path("User3")] == [SUBTREE, SUBTREE, USER]
    # Development's subgroups receive 15/35/50 % of Development's half.
    assert engineering.entitlement("sys1") == pytest.approx(0.5 * 0.15)
    assert engineering.entitlement("app1") == pytest.approx(0.5 * 0.35)
    assert engineering.account("dev1").kind == GROUP and engineering.account("dev1").name == "Test"
    assert engineering.account_path("stranger") is None


def test_seed_walk_research_then_chipy_then_user3_user1_not_computed(engineering):
    f = Factors()
    seen: list[str] = []

    def spy(node, usage):  # the adjustment hook sees every priority that is computed
        seen.append(node.name)
        return 0.0

    usage = {
        "sup1": Usage(job_slots=30),  # TechSupport and Development are busy -> Research wins
        "dev1": Usage(job_slots=60),
        "User2": Usage(job_slots=20),  # ChipX busy -> ChipY wins
    }
    st = FairshareState(engineering, f, usage, adjust=spy)
    cands = ["sup1", "dev1", "User1", "User2", "User3", "User4"]
    assert st.choose(cands) == "User3"  # 80 shares beat User4's 20 at equal usage
    assert "User1" not in seen  # "The dynamic priority of User1 is not even calculated"
    assert seen.count("ChipX") == 1 and "User3" in seen and "User4" in seen
    # Only User4 and User1 left: ChipY still beats ChipX -> User4.
    assert st.choose(["User1", "User4"]) == "User4"
    # Only User1 left: the walk goes where the candidate is.
    assert st.choose({"User1"}) == "User1"
    assert st.choose(["stranger"]) is None


def test_choose_ties_follow_configuration_order():
    st = FairshareState(build_tree("USER_SHARES[[b, 1] [a, 1] [c, 1]]"), Factors(), {})
    assert st.choose({"a", "b", "c"}) == "b"
    assert st.choose({"a", "c"}) == "a"


def test_priority_drops_within_the_same_pass():
    st = FairshareState(build_tree("USER_SHARES[[u1, 2] [u2, 1]]"), Factors(), {})
    picks = []
    for _ in range(6):
        u = st.choose(["u1", "u2"])
        st.job_started(u, 1)
        picks.append(u)
    # 2:1 shares -> u1 gets two slots for each of u2's
    assert picks.count("u1") == 4 and picks.count("u2") == 2
    assert picks[:3] == ["u1", "u2", "u1"] or picks[:3] == ["u1", "u1", "u2"]


# ---------------------------------------------------------------------------
# group@ vs group, default / others / all

GROUPS = {
    "grpA": UserGroupConf("grpA", ["u1", "u2", "sub"]),
    "sub": UserGroupConf("sub", ["u3"]),
    "everyone": UserGroupConf("everyone", ["all"]),
}


def test_group_at_gives_each_member_the_shares_recursively():
    t = build_tree("USER_SHARES[[grpA@, 10] [u9, 5]]", GROUPS, set())
    top = t.root.children
    assert [(n.name, n.shares, n.kind, n.origin) for n in top] == [
        ("u1", 10, USER, "group@"), ("u2", 10, USER, "group@"), ("u3", 10, USER, "group@"), ("u9", 5, USER, "listed")]
    assert t.entitlement("u3") == pytest.approx(10 / 35)


def test_group_without_at_is_one_account_fcfs_inside():
    t = build_tree("USER_SHARES[[grpA, 10] [u9, 10]]", GROUPS, set())
    acct = t.account("u3")
    assert acct.kind == GROUP and acct.name == "grpA" and t.account("u1") is acct
    st = FairshareState(t, Factors(), {"u1": Usage(job_slots=3)})
    # u2 is charged for u1's usage: the account is shared
    assert st.user_priority("u2") == pytest.approx(10 / 12)
    assert st.choose(["u2", "u9"]) == "u9"
    # FCFS inside the account: the first candidate in the given order
    assert st.choose(["u3", "u2"]) == "u3"
    assert st.choose(["u2", "u3"]) == "u2"


def test_default_gives_every_other_user_an_account():
    t = build_tree("USER_SHARES[[u1, 10] [default, 1]]", {}, {"u1", "u2", "u3"})
    assert [(n.name, n.origin) for n in t.root.children] == [("u1", "listed"), ("u2", "default"), ("u3", "default")]
    assert t.entitlement("u1") == pytest.approx(10 / 12)
    # Somebody new gets an account the first time they are seen.
    assert t.account("newbie").shares == 1 and t.account("newbie").origin == "default"
    assert t.entitlement("u1") == pytest.approx(10 / 13)


def test_others_share_one_account():
    t = build_tree("USER_SHARES[[u1, 10] [others, 2]]", {}, {"u1", "u2", "u3"})
    assert t.account("u2") is t.account("u3") is t.account("anybody")
    assert t.account("u2").kind == OTHERS
    assert t.entitlement("u2") == pytest.approx(2 / 12)
    st = FairshareState(t, Factors(), {"u2": Usage(job_slots=1)})
    assert st.user_priority("u3") == pytest.approx(2 / 6)


def test_all_is_one_account_for_everybody():
    t = build_tree("USER_SHARES[[all, 1]]", {}, {"u1", "u2"})
    assert t.account("u1") is t.account("zz") and t.account("u1").kind == ALL
    assert t.entitlement("u1") == 1.0


def test_uncovered_users_cannot_run():
    t = build_tree("USER_SHARES[[u1, 10] [grpA, 5]]", GROUPS, {"u1", "u7"})
    assert t.account_path("u7") is None and t.entitlement("u7") == 0.0
    assert t.account("u3").name == "grpA"  # member of a subgroup of grpA


def test_group_with_all_members():
    t = build_tree("USER_SHARES[[everyone, 5]]", GROUPS, {"u1"})
    assert t.account("whoever").name == "everyone"


def test_unknown_group_at_is_an_error():
    with pytest.raises(ShareSyntaxError, match="there is no user group 'nogroup'"):
        build_tree("USER_SHARES[[nogroup@, 1]]", GROUPS, set())


def test_bad_group_user_shares_names_the_group():
    groups = {"g": UserGroupConf("g", ["a"], user_shares="[a 1]")}
    with pytest.raises(ShareSyntaxError, match="user group g: USER_SHARES: expected ','"):
        build_tree("USER_SHARES[[g, 1]]", groups, set())


def test_lsf_doc_share_tree_with_default_inside_a_group(lsb_users):
    # The lsb.users example of the LSF docs: GroupA gives User5 1 share and every other member 10.
    groups = lsb_users("""\
Begin UserGroup
GROUP_NAME   GROUP_MEMBER            USER_SHARES
GroupB       (User1 User2)           ()
GroupC       (User3 User4)           ([User3, 3] [User4, 4])
GroupA       (GroupB GroupC User5)   ([User5, 1] [default, 10])
End UserGroup
""")
    t = build_tree("USER_SHARES[[GroupA, 100]]", groups, set())
    ga = t.root.children[0]
    assert [(c.name, c.shares, c.kind) for c in ga.children] == [
        ("User5", 1, USER), ("GroupB", 10, GROUP), ("GroupC", 10, SUBTREE)]
    assert t.entitlement("User3") == pytest.approx(10 / 21 * 3 / 7)
    assert t.entitlement("User1") == pytest.approx(10 / 21)
    assert t.levels() == [(), ("GroupA",), ("GroupA", "GroupC")]
    st = FairshareState(t, Factors(), {"User3": Usage(job_slots=1)})
    rows = st.share_info(("GroupA",))
    assert [(r.name, r.started, r.is_group) for r in rows] == [("User5", 0, False), ("GroupB", 0, True),
                                                               ("GroupC", 1, True)]
    assert [r.name for r in st.share_info(("GroupA", "GroupC"))] == ["User3", "User4"]


def test_group_priority_uses_own_shares_and_members_usage():
    groups = {"g": UserGroupConf("g", ["a", "b"], user_shares="[a, 1] [b, 1]")}
    t = build_tree("USER_SHARES[[g, 30] [c, 10]]", groups, set())
    st = FairshareState(t, Factors(), {"a": Usage(job_slots=2), "b": Usage(job_slots=3), "c": Usage(job_slots=1)})
    g = t.root.children[0]
    assert st.usage(g).job_slots == 5
    assert st.priority(g) == pytest.approx(30 / 18)
    assert st.priority(t.root.children[1]) == pytest.approx(10 / 6)
    # g (30/18) and c (10/6) tie: configuration order picks g; inside g, a (1/9) beats b (1/12)
    assert st.choose(["a", "b", "c"]) == "a"


def test_tie_inside_walk_then_lower_usage_member():
    groups = {"g": UserGroupConf("g", ["a", "b"], user_shares="[a, 1] [b, 1]")}
    t = build_tree("USER_SHARES[[g, 30] [c, 10]]", groups, set())
    st = FairshareState(t, Factors(), {"a": Usage(job_slots=3), "b": Usage(job_slots=2), "c": Usage(job_slots=2)})
    # g: 30/18 = 1.667 beats c: 10/9 = 1.111; inside g, b (used less) beats a
    assert st.choose(["a", "b", "c"]) == "b"


# ---------------------------------------------------------------------------
# the dispatch loop


@dataclass
class Job:
    job_id: int
    user: str
    slots: int = 1
    priority: int = 0
    position: float = 0


def test_fairshare_order_user_priority_then_job_priority_then_submission():
    st = FairshareState(build_tree("USER_SHARES[[u1, 1] [u2, 1] [u3, 1]]"), Factors(), {})
    jobs = [Job(1, "u1", position=1), Job(2, "u1", position=2), Job(3, "u1", priority=10, position=3),
            Job(4, "u2", position=4), Job(5, "u2", position=5), Job(6, "nobody", position=6)]
    started, no_account = fairshare_order(st, jobs, lambda j: True)
    assert [j.job_id for j in started] == [3, 4, 1, 5, 2]
    assert [j.job_id for j in no_account] == [6]


def test_fairshare_order_charges_only_started_jobs():
    st = FairshareState(build_tree("USER_SHARES[[u1, 1] [u2, 1]]"), Factors(), {})
    jobs = [Job(1, "u1", slots=4, position=1), Job(2, "u1", position=2), Job(3, "u2", position=3),
            Job(4, "u2", position=4)]
    free = [3]

    def try_start(j):
        if j.slots <= free[0]:
            free[0] -= j.slots
            return True
        return False

    started, _ = fairshare_order(st, jobs, try_start)
    assert [j.job_id for j in started] == [2, 3, 4]  # job 1 does not fit; its user is not charged for it
    assert st.user_usage("u1").job_slots == 1 and st.user_usage("u2").job_slots == 2


def test_fairshare_order_many_users_is_fair():
    # (its speed is the benchmark's business: tests/bench/, not a timed unit test)
    users = [f"u{i}" for i in range(100)]
    st = FairshareState(build_tree("USER_SHARES[[default, 1]]", {}, set(users)), Factors(), {})
    jobs = [Job(i, users[i % 100], position=i) for i in range(2000)]
    started, _ = fairshare_order(st, jobs, lambda j: True)
    assert len(started) == 2000
    # equal shares, equal jobs: after every round of 100 starts each user has the same count
    first = [j.user for j in started[:100]]
    assert sorted(first) == sorted(users)

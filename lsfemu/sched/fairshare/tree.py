"""Share trees: the share accounts of one queue or host partition.

Share trees (:func:`build_tree`): a queue's ``FAIRSHARE=USER_SHARES[[...]]``
(or a HostPartition's USER_SHARES) is the top level; a group listed without
``@`` that has USER_SHARES in lsb.users is a subtree, recursively. Accounts:

* ``user``     - one user;
* ``group@``   - every member (recursively) gets its own account with those shares;
* ``group``    - the group is one account; its members compete FCFS inside it
  (unless lsb.users gives it USER_SHARES: then it is a subtree);
* ``default``  - every user not covered by another entry gets its own account
  with default's shares (created for ``known_users`` at build time and lazily
  for anybody else the first time :meth:`ShareTree.account_path` sees them);
* ``others``   - all users not covered by another entry share ONE account;
* ``all``      - all users share one account.

Users covered by nothing have no account and cannot run in the queue.

lsfemu's choices where LSF's documents leave room (docs/semantics.md repeats
them): a user is resolved at each level by explicit entries first (own name,
``group@`` members, then groups in configuration order), then by the first
of ``default`` / ``others`` / ``all`` in configuration order; when a user is
assigned twice at one level the first assignment wins; ``all`` and
``others`` differ only in name once explicit entries are taken; ``default``
inside a group's USER_SHARES applies to the group's direct members (users
and subgroups) not listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from lsfemu.config.fairshare import ShareSyntaxError, parse_user_shares

ROOT = "root"
USER = "user"  # one user's account
GROUP = "group"  # one account for a whole group (members compete FCFS inside)
SUBTREE = "subtree"  # a group with its own USER_SHARES: an internal node
OTHERS = "others"  # one account for everybody not covered otherwise
ALL = "all"  # one account for all users


@dataclass(eq=False)
class ShareNode:
    """One share account (or the root / a subtree)."""

    name: str
    shares: float
    kind: str
    parent: ShareNode | None = field(default=None, repr=False)
    children: list[ShareNode] = field(default_factory=list, repr=False)
    group: str | None = None  # lsb.users group behind GROUP/SUBTREE
    members: frozenset[str] | None = None  # GROUP: users covered (None with everybody=True)
    everybody: bool = False  # GROUP whose members include "all"
    origin: str = "listed"  # listed | group@ | default
    # internal nodes only: how to catch users nobody lists (config order)
    catch: list[Any] = field(default_factory=list, repr=False)
    default_shares: float | None = None
    default_index: int = 0

    @property
    def is_account_leaf(self) -> bool:
        return self.kind in (USER, GROUP, OTHERS, ALL)

    @property
    def is_group(self) -> bool:
        return self.kind in (GROUP, SUBTREE, OTHERS, ALL)

    def path_names(self) -> tuple[str, ...]:
        out: list[str] = []
        n: ShareNode | None = self
        while n is not None and n.kind != ROOT:
            out.append(n.name)
            n = n.parent
        return tuple(reversed(out))


class ShareTree:
    """The share accounts of one queue or host partition (see the module doc)."""

    def __init__(self, root: ShareNode, user_groups: dict[str, Any], known_users: Iterable[str]):
        self.root = root
        self._groups = user_groups
        self._known = set(known_users)
        self._paths: dict[str, list[ShareNode] | None] = {}
        self._member_cache: dict[str, tuple[frozenset[str], bool]] = {}
        self.grown = 0  # default accounts made on first sight since the build (see account_path)

    # -- membership ---------------------------------------------------------
    def group_members(self, group: str) -> tuple[frozenset[str], bool]:
        """(users of *group* recursively, whether "all" is among them)."""
        if group in self._member_cache:
            return self._member_cache[group]
        users: set[str] = set()
        everybody = False
        stack, seen = [group], set()
        while stack:
            g = stack.pop()
            if g in seen or g not in self._groups:
                continue
            seen.add(g)
            for m in self._groups[g].members:
                if m == "all":
                    everybody = True
                elif m in self._groups:
                    stack.append(m)
                else:
                    users.add(m)
        res = (frozenset(users), everybody)
        self._member_cache[group] = res
        return res

    def _is_member(self, group: str, user: str) -> bool:
        users, everybody = self.group_members(group)
        return everybody or user in users

    # -- resolution ----------------------------------------------------------
    def account_path(self, user: str) -> list[ShareNode] | None:
        """Nodes from the top level down to *user*'s account (root excluded),
        or None when the user has no share account (cannot run here).
        A ``default`` account is created the first time a user needs it."""
        if user not in self._paths:
            self._paths[user] = self._resolve(self.root, user)
        return self._paths[user]

    def account(self, user: str) -> ShareNode | None:
        p = self.account_path(user)
        return p[-1] if p else None

    def _resolve(self, node: ShareNode, user: str) -> list[ShareNode] | None:
        for c in node.children:
            if c.kind == USER and c.name == user:
                return [c]
        for c in node.children:
            if c.kind == GROUP and (c.everybody or (c.members is not None and user in c.members)):
                return [c]
            if c.kind == SUBTREE and c.group is not None and self._is_member(c.group, user):
                sub = self._resolve(c, user)
                if sub is not None:
                    return [c] + sub
        for catch in node.catch:
            if catch == "default":
                self.grown += 1
                leaf = ShareNode(user, node.default_shares or 0.0, USER, parent=node, origin="default")
                node.children.insert(node.default_index, leaf)
                node.default_index += 1
                return [leaf]
            return [catch]
        return None

    # -- queries -------------------------------------------------------------
    def node(self, level_path: Sequence[str] = ()) -> ShareNode:
        """The node at *level_path* (names from the top level down); () is the root."""
        n = self.root
        for name in level_path:
            matches = [c for c in n.children if c.name == name]
            if not matches:
                raise KeyError(f"no share account {'/'.join(level_path)!r}")
            n = next((c for c in matches if c.kind == SUBTREE), matches[0])
        return n

    def levels(self) -> list[tuple[str, ...]]:
        """Paths of the root and every subtree, depth first (bqueues -r order)."""
        out: list[tuple[str, ...]] = []

        def walk(n: ShareNode) -> None:
            out.append(n.path_names())
            for c in n.children:
                if c.kind == SUBTREE:
                    walk(c)

        walk(self.root)
        return out

    def fraction(self, node: ShareNode) -> float:
        """node's shares / the shares of all accounts at its level."""
        if node.parent is None:
            return 1.0
        total = sum(c.shares for c in node.parent.children)
        return node.shares / total if total > 0 else 0.0

    def entitlement(self, user: str) -> float:
        """Product of the user's fractions along the path (0 with no account).
        In a shared account (group, others, all) this is the account's."""
        path = self.account_path(user)
        if not path:
            return 0.0
        out = 1.0
        for n in path:
            out *= self.fraction(n)
        return out

    def iter_nodes(self) -> Iterable[ShareNode]:
        stack = [self.root]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))


def _group_users_ordered(user_groups: dict[str, Any], group: str, known_users: Iterable[str]) -> list[str]:
    """Members of *group* recursively, in configuration order (all -> known users, sorted)."""
    out: list[str] = []
    seen_users: set[str] = set()
    seen_groups: set[str] = set()

    def walk(g: str) -> None:
        if g in seen_groups or g not in user_groups:
            return
        seen_groups.add(g)
        for m in user_groups[g].members:
            if m == "all":
                for u in sorted(known_users):
                    if u not in seen_users:
                        seen_users.add(u)
                        out.append(u)
            elif m in user_groups:
                walk(m)
            elif m not in seen_users:
                seen_users.add(m)
                out.append(m)

    walk(group)
    return out


def build_tree(fairshare_text: str, user_groups: dict[str, Any] | None = None,
               known_users: Iterable[str] = ()) -> ShareTree:
    """The share tree of a queue's FAIRSHARE (or a HostPartition's USER_SHARES).

    *user_groups* maps group names to :class:`~lsfemu.config.model.UserGroupConf`
    (members, user_shares). *known_users*: the users that exist (their
    ``default`` accounts are created now, in name order; anybody else gets one
    on first sight). Raises :class:`ShareSyntaxError` for bad USER_SHARES
    texts (the queue's or a group's) and for ``name@`` that is no group.
    """
    groups = dict(user_groups or {})
    known = set(known_users)
    root = ShareNode("", 0.0, ROOT)
    tree = ShareTree(root, groups, known)
    _build_level(tree, root, parse_user_shares(fairshare_text or ""), groups, known, scope=None, stack=())
    for u in sorted(known):
        tree.account_path(u)
    tree.grown = 0  # (those made here are the tree's own)
    return tree


def _build_level(tree: ShareTree, node: ShareNode, entries: list[tuple[str, float]], groups: dict[str, Any],
                 known: set[str], scope: str | None, stack: tuple[str, ...]) -> None:
    listed_users: set[str] = set()
    listed_groups: set[str] = set()
    for name, shares in entries:
        if name == "default":
            node.default_shares = shares
            node.default_index = len(node.children)
            node.catch.append("default")
        elif name in (OTHERS, ALL):
            child = ShareNode(name, shares, OTHERS if name == OTHERS else ALL, parent=node)
            node.children.append(child)
            node.catch.append(child)
        elif name.endswith("@") and len(name) > 1:
            g = name[:-1]
            if g not in groups:
                raise ShareSyntaxError(f"USER_SHARES: {name!r}: there is no user group {g!r} "
                                       f"(name@ assigns shares to each member of a group)")
            listed_groups.add(g)
            for u in _group_users_ordered(groups, g, known):
                if u in listed_users:
                    continue  # the first assignment of a user wins
                listed_users.add(u)
                node.children.append(ShareNode(u, shares, USER, parent=node, origin="group@"))
        elif name in groups:
            listed_groups.add(name)
            node.children.append(_group_account(tree, name, shares, node, groups, known, stack))
        else:
            if name in listed_users:
                continue
            listed_users.add(name)
            node.children.append(ShareNode(name, shares, USER, parent=node))
    # default inside a group's share tree: each unlisted member (user or subgroup) gets its account now.
    if scope is not None and node.default_shares is not None and node.catch and node.catch[0] == "default":
        for m in groups[scope].members:
            if m == "all" or m in listed_users or m in listed_groups:
                continue
            if m in groups:
                acct = _group_account(tree, m, node.default_shares, node, groups, known, stack)
                acct.origin = "default"
                node.children.insert(node.default_index, acct)
            else:
                node.children.insert(node.default_index, ShareNode(m, node.default_shares, USER, parent=node,
                                                                   origin="default"))
            node.default_index += 1


def _group_account(tree: ShareTree, group: str, shares: float, parent: ShareNode, groups: dict[str, Any],
                   known: set[str], stack: tuple[str, ...]) -> ShareNode:
    conf = groups[group]
    text = getattr(conf, "user_shares", None)
    if text and text.strip() and group not in stack:
        sub = ShareNode(group, shares, SUBTREE, parent=parent, group=group)
        try:
            entries = parse_user_shares(text)
        except ShareSyntaxError as e:
            raise ShareSyntaxError(f"user group {group}: {e}") from None
        _build_level(tree, sub, entries, groups, known, scope=group, stack=stack + (group,))
        return sub
    users, everybody = tree.group_members(group)
    return ShareNode(group, shares, GROUP, parent=parent, group=group, members=users, everybody=everybody)

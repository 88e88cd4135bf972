"""A partition of ``0..size-1`` into classes, merged one pair at a time (union-find)."""

from __future__ import annotations


class Partition:
    """Union-find over ``0..size-1`` in which a class's representative is its smallest member, so the
    classes alone (not the order of the merges) fix every :meth:`find`."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, a: int) -> int:
        """The smallest member of ``a``'s class (halving the path on the way)."""
        parent = self.parent
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(self, a: int, b: int) -> int:
        """Merge the classes of ``a`` and ``b``; returns the merged class's representative."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)
        return min(ra, rb)

    def join(self, members: list[int]) -> None:
        """Merge the classes of all of ``members``."""
        for member in members[1:]:
            self.union(members[0], member)


__all__ = ["Partition"]

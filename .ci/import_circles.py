#!/usr/bin/env python3
"""Fails when modules of a crate import each other in a circle.

Reads the graph that `cargo modules dependencies --no-externs --no-sysroot` prints (DOT,
one node per item, "uses" edges between items), folds every item into the module that
holds it, and prints each strongly connected set of two or more modules. A module and
its own ancestors are not a circle: a folder's mod.rs re-exporting its children while
they use its types is how a Rust folder is laid out. Between any other two modules an
edge in both directions, directly or round a longer loop, is reported.

Usage: cargo modules dependencies -p CRATE --lib --no-externs --no-sysroot | import_circles.py
"""
import re
import sys

NODE = re.compile(r'"([^"]+)" \[label="[^|"]*(?:mod|crate)\|')
USES = re.compile(r'"([^"]+)" -> "([^"]+)" \[label="uses"')


def module_graph(dot: str) -> dict[str, set[str]]:
    modules = set(NODE.findall(dot))

    def module_of(item: str) -> str:
        while item not in modules and "::" in item:
            item = item.rsplit("::", 1)[0]
        return item

    edges: dict[str, set[str]] = {}
    for user, used in USES.findall(dot):
        a, b = module_of(user), module_of(used)
        if a == b or b.startswith(a + "::") or a.startswith(b + "::"):
            continue
        edges.setdefault(a, set()).add(b)
        edges.setdefault(b, set())
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, iteratively (graphs can be deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for next_node in successors:
                if next_node not in index:
                    index[next_node] = low[next_node] = len(index)
                    stack.append(next_node)
                    on_stack.add(next_node)
                    work.append((next_node, iter(sorted(edges[next_node]))))
                    advanced = True
                    break
                if next_node in on_stack:
                    low[node] = min(low[node], index[next_node])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main() -> int:
    dot = sys.stdin.read()
    if "digraph" not in dot:
        print("import_circles: no module graph on standard input", file=sys.stderr)
        return 2
    edges = module_graph(dot)
    found = circles(edges)
    for component in found:
        print(f"circle of {len(component)} modules: {', '.join(component)}")
    print(f"{len(edges)} modules with imports, {len(found)} circle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""Which pod or node a file is about, as the scheduler's or orchestrator's own output states it.

A paste of `kubectl describe pod`, an LSF or PBS job report, `scontrol show job` names the one
pod or machine its lines are about, while the failing line itself (`Evicted`, `TERM_LOAD: job
killed`, `OOMKilled`) names none. A finding that names no culprit of its own names that
subject, so that the page says which machine or pod to look at.

Pure: `stated_subjects(text)` reads a small file's text once.
"""

from __future__ import annotations

import re

# Each alternative states one subject; its group's name says which. A line may come with a
# prefix a paste or a shipper put before it (a quote's `> `, a stamp, `[pod/w-2/c] `): the
# fields are found after any such prefix, not only at the start of the line.
_FIELD = rb"(?:^|(?<=[\s>|\]]))"
_END = rb" *\r?$"
_SUBJECT = re.compile(
    # kubectl's command for one pod (`kubectl -n ml describe pod trainer-worker-2`,
    # `kubectl get pod w-6 -o wide`; `kubectl get pods` lists many and names none)
    rb"\bkubectl\b[^\n|]*?\b(?:describe|get) +pod(?:/| +)(?!-)(?P<cmd_pod>[a-z0-9][\w.-]*)|"
    # ... and for one node (`kubectl describe node gpu-node-14`: its events are that node's)
    rb"\bkubectl\b[^\n|]*?\bdescribe +node(?:/| +)(?!-)(?P<cmd_node>[A-Za-z0-9][\w.-]*)|"
    # `kubectl describe pod` itself: its Name line, then its Namespace line
    + _FIELD + rb"Name: +(?P<described_pod>[a-z0-9][\w.-]*) *\r?\n[^\n]{0,80}?\bNamespace: |"
    # its Node line (`Node: gke-pool-7c1e-m9tz/10.128.0.45`), a pod spec's `nodeName`
    + _FIELD + rb"Node: +(?P<described_node>[A-Za-z0-9][\w.-]*)/[\d.]+" + _END + rb"|"
    # a pod's manifest (`kubectl get pod -o yaml`): its metadata's name, and the spec's
    # `nodeName` the scheduler bound it to
    rb"^metadata: *\r?\n(?: +[\w.-]+:.*\n){0,12}?  name: +(?P<spec_pod>[a-z0-9][\w.-]*)"
    + _END + rb"|"
    + _FIELD + rb"\"?nodeName\"?: +\"?(?P<spec_node>[A-Za-z0-9][\w.-]*)\"?,?" + _END + rb"|"
    # LSF's job report (`Job was executed on host(s) <8*gpu-h100-12>`, one host), PBS's
    # (`Exec host: gpu-2-17/11`, qstat's `exec_host = gpu-2-17/0*8`), Slurm's batch host
    rb"\bexecuted on host\(s\) <(?:\d+\*)?(?P<lsf_host>[\w.-]+)>(?:, in|" + _END + rb")|"
    + _FIELD + rb"(?:Exec host:|exec_host =) +(?P<pbs_host>[A-Za-z0-9][\w.-]*)/\d+(?:\*\d+)?"
    + _END + rb"|"
    rb"\bBatchHost=(?P<batch_host>[A-Za-z0-9][\w.-]*)\b",
    re.MULTILINE,
)
_NODES = ("described_node", "spec_node", "lsf_host", "pbs_host", "batch_host", "cmd_node")


def stated_subjects(text: bytes) -> tuple[str, ...]:
    """The one pod and the one node a file's scheduler or orchestrator output is about, named
    as a culprit names them (`pod w-2 on node gpu-7`, `node gpu-2-17`); () where the file
    states none, or several pods or several nodes (then it is about no one of them)."""
    found: dict[str, set[str]] = {}
    for m in _SUBJECT.finditer(text):
        group = m.lastgroup or ""
        found.setdefault(group, set()).add(m[group].decode("utf-8", "replace"))
    pods = found.get("cmd_pod", set())
    if "described_node" in found:  # a Name line is a pod's where `describe` shows its Node
        pods |= found.get("described_pod", set())
    if "spec_node" in found:  # a manifest is a pod's where its spec names the node
        pods |= found.get("spec_pod", set())
    nodes = {n for group in _NODES for n in found.get(group, ())}
    if len(pods) > 1 or len(nodes) > 1:
        return ()
    pod, node = next(iter(pods), ""), next(iter(nodes), "")
    if pod:
        return (f"pod {pod} on node {node}" if node else f"pod {pod}",)
    return (f"node {node}",) if node else ()


# The scheduler's binding of a pod to its node (`Successfully assigned llm/w-0 to gpu-14`,
# in `kubectl describe`'s and `kubectl get events`' output)
_ASSIGNED = re.compile(rb"\bSuccessfully assigned (?:[a-z0-9][\w.-]*/)?(?P<pod>[a-z0-9][\w.-]*) "
                       rb"to (?P<node>[A-Za-z0-9][\w.-]*[\w])")
# the header of `kubectl get pods -o wide` (`NAME  READY  STATUS … NODE  NOMINATED NODE`): its
# rows give each pod's node in the NODE column
# (bounded: a header opens its line, after a prompt or a shipper's prefix of at most 80 bytes,
# and is at most 400 bytes long)
_WIDE_HEADER = re.compile(rb"^(?P<lead>[^\n]{0,80}?)\bNAME +[^\n]{0,400}?\bNODE(?= |\r?$)",
                          re.MULTILINE)
_TOKEN = re.compile(rb"[^\s]+")


# `kubectl drain`'s output: the node cordoned, then each pod it evicts from that node
# (`node/gpu-3 cordoned`, `evicting pod ml/w-1`, `pod/w-1 evicted`, `node/gpu-3 drained`;
# kubectl before 1.17 quoted the names: `node "gpu-3" cordoned`)
_DRAIN = re.compile(rb"^\s*node(?:/| \")(?P<node>[A-Za-z0-9][\w.-]*[\w])\"? "
                    rb"(?P<step>cordoned|already cordoned|drained)\b|"
                    rb"^\s*evicting pod \"?(?:[a-z0-9][\w.-]*/)?(?P<pod>[a-z0-9][\w.-]*[a-z0-9])\"?\s*$",
                    re.MULTILINE)


def _drained(text: bytes) -> list[tuple[str, str]]:
    """The pods a `kubectl drain` in the file evicted, each with the node it drained: only
    while one node is cordoned and not yet drained (`kubectl drain A B` cordons both, then
    evicts node by node, naming no node on its eviction lines)."""
    out: list[tuple[str, str]] = []
    cordoned: set[bytes] = set()
    for m in _DRAIN.finditer(text):
        if m["node"] is not None:
            if m["step"] == b"drained":
                cordoned.discard(m["node"])
            else:
                cordoned.add(m["node"])
        elif len(cordoned) == 1:
            out.append((m["pod"].decode("utf-8", "replace"),
                        next(iter(cordoned)).decode("utf-8", "replace")))
    return out


def pod_nodes(text: bytes) -> dict[str, str]:
    """Each pod's node, as the orchestrator's output in a file states it: the scheduler's
    `Successfully assigned` events, the rows of `kubectl get pods -o wide` and the pods a
    `kubectl drain` evicted. A pod the file places on two nodes (a pod name reused over a
    day's paste) is placed on neither."""
    found: dict[str, set[str]] = {}
    for m in _ASSIGNED.finditer(text):
        found.setdefault(m["pod"].decode("utf-8", "replace"), set()).add(
            m["node"].decode("utf-8", "replace"))
    for evicted, drained in _drained(text):
        found.setdefault(evicted, set()).add(drained)
    for header in _WIDE_HEADER.finditer(text):
        line = header.group(0)
        name_at = line.index(b"NAME", len(header["lead"]))
        node_at = line.rindex(b"NODE")
        start, rows = text.find(b"\n", header.end()) + 1, 0
        while start and rows < 63:  # (the rows under the header, read in place)
            end = text.find(b"\n", start)
            row = text[start:end] if end >= 0 else text[start:start + 4096]
            start, rows = (end + 1 if end >= 0 else 0), rows + 1
            if len(row) <= node_at or (not row[:1].strip() and name_at == 0):
                break  # the table ends at a short or blank line
            name = _TOKEN.match(row, name_at)
            node = _TOKEN.match(row, node_at)
            if name is None or node is None or row[node_at - 1:node_at] not in (b" ", b"\t"):
                break
            if node[0] in (b"<none>", b"<nodes>"):
                continue  # a pod not bound to any node
            found.setdefault(name[0].decode("utf-8", "replace"), set()).add(
                node[0].decode("utf-8", "replace"))
    return {pod: nodes.pop() for pod, nodes in found.items() if len(nodes) == 1}


_POD_NAMED = re.compile(r"\bpod (?P<pod>[a-z0-9][\w.-]*[a-z0-9])(?![\w.-]| on node)")


def placed_pods(culprit: str, nodes: dict[str, str]) -> str:
    """A culprit that names a pod without its node, with the node the files place it on."""
    return _POD_NAMED.sub(lambda m: f"pod {m['pod']} on node {nodes[m['pod']]}"
                          if m["pod"] in nodes else m[0], culprit)

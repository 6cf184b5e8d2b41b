"""Rules that read the network and start-up: NCCL, gloo and store connections, rendezvous
and store waits, retries that ran out, ssh.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from monitor.model import Category
from monitor.parse.log_events import EventKind
from monitor.parse.log_patterns import IB_FLUSHED, FieldValue, Level
from monitor.triage.evidence import (
    GLOBAL_ORIGINS,
    Located,
    compress_ranks,
    file_hosts,
    whereabouts,
    who,
)
from monitor.triage.lexicon import (
    Family,
    logged_below_error,
    places,
    read_line,
    words_family,
)
from monitor.triage.rules.base import (
    _COLLATERAL,
    _CRASHED,
    _NCCL_UNEXPLAINED,
    _NET_SETUP,
    _PASTE_BREAK,
    Context,
    Finding,
    _best_located,
    _called,
    _chose_another_network,
    _message,
    _named,
    _ranks_text,
    _ray_task,
    _ray_task_name,
    _some,
    _writer,
    connected_after,
    exit_reports,
    first_written,
    others_trained_past,
    raised_of_its_own,
    says_nccl_unexplained,
    table_entries,
    trained_after,
    training_line,
    went_on_past,
)
from monitor.triage.rules.collectives import absent_rank, silent_file
from monitor.triage.rules.job import chained_endpoint
from monitor.triage.rules.unexplained import platform_stopped


def _connect_failed(ctx: Context, item: Located) -> bool:
    """proxy.cc's `[Proxy Service N] Failed to execute operation Connect …, retcode R`: the
    transport's connection could not be made by a system call of this host's (R 2) or inside
    NCCL (R 3). Retcode 6 is a remote error, and a peer that closed its end in the same log
    may be why the connect failed: either way the peer went away, which says nothing of this
    host's network; so is the proxy's service thread failing to hear from a rank of its own
    node (`Could not receive type from localRank 7`): that process went away. Retcode 1, or
    a `Cuda failure` beside it, is the P2P transport's CUDA call (peer access, IPC in a
    container): the GPU's, not the network's."""
    f = item.event.fields
    if f.get("op") != "Connect" or str(f.get("retcode")) not in ("2", "3"):
        return False  # the common case, before the file's other warnings are looked at
    same_file = [w for w in ctx.of(EventKind.NCCL_WARN_NET, EventKind.NCCL_WARN)
                 if w.file_index == item.file_index]
    return not any(w.event.fields.get("consequence") or "Cuda failure" in w.event.text
                   or "Could not receive type from localRank" in w.event.text
                   for w in same_file)


def _url_port(text: str, host: str) -> str | None:
    """The port a URL on the line gives for `host` (`http://wandb.svc:8080/graphql`)."""
    m = re.search(rf"//{re.escape(host)}:(\d+)\b", text)
    return m[1] if m else None


def network(ctx: Context) -> Finding | None:
    return _network(ctx)


def ib_completion_flushed(ctx: Context) -> Finding | None:
    """An InfiniBand completion flushed (status 5) where no rule before found another cause
    (a GPU's, the job's own, a peer's death): its queue pair went to error under it and the
    excerpt shows nothing else; a completion error is the fabric's."""
    if not any(_flushed(e) for e in ctx.of(EventKind.NCCL_WARN_NET)):
        return None  # (the common case: the network rule's reading is not done again)
    return _network(ctx, flushed_too=True)


def _flushed(item: Located) -> bool:
    return (item.event.fields.get("status") in IB_FLUSHED
            and item.event.fields.get("transport") == "ib")


def _network(ctx: Context, *, flushed_too: bool = False) -> Finding | None:
    warns = [e for e in ctx.of(EventKind.NCCL_WARN_NET)
             if not e.event.fields.get("consequence") and (
                 e.event.fields.get("peer")
                 # an IB completion error: before NCCL 2.10 its line names no peer
                 or isinstance(e.event.fields.get("status"), int)
                 # ... and the libfabric plugin's (EFA's, Slingshot's) completion error, but
                 # its remote side's I/O error: the peer that went away, no more
                 or (("NET/OFI Request" in e.event.text or "NET/OFI Remote write" in e.event.text)
                     and _OFI_REMOTE_WENT.search(e.event.text) is None)
                 or any(w in str(e.event.fields.get("error", "")) for w in _UNREACHABLE)
                 # the host's own socket or verbs call failed: its network setup
                 or str(e.event.fields.get("op", "")).startswith(("Socket", "ibv_"))
                 or _connect_failed(ctx, e))]
    # NCCL's own warning that a peer never answered or its connect gave up (aws-ofi-nccl's
    # `… strerror: Unreachable remote - never received a response`, `socketPollConnect:
    # exceeded retries (20000)`)
    warns += [e for e in ctx.of(EventKind.NCCL_WARN)
              if any(w in str(e.event.fields.get("message", "")) for w in _GAVE_UP_ON_PEER)]
    errors = [e for e in ctx.of(EventKind.NCCL_ERROR)
              if (e.event.fields.get("peer") or _connect_failed(ctx, e))
              and not e.event.fields.get("consequence")]
    connects = [e for e in ctx.of(EventKind.STORE_TIMEOUT)
                if e.event.fields.get("phase") == "connect" and not _connect_retried_past(ctx, e)]
    rendezvous = [e for e in ctx.of(EventKind.RENDEZVOUS_ERROR)
                  if "Connection" in str(e.event.fields.get("exc", ""))
                  and not _rendezvous_went(ctx, e)]
    store_raised = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
                    if _store_unreachable(ctx, e) or _peer_unreachable(e)]
    # gloo's own report of its transport's exception in a log line, not raised to Python
    # (caffe2's `Caught gloo IO exception: [.../pair.cc:528] connect [10.0.0.2]:896:
    # Connection refused`)
    store_raised += [e for e in ctx.of(EventKind.CONNECTION_ERROR)
                     if _gloo_pair_unreachable(e.event.text) and not _gloo_line_explained(ctx, e)]
    # The HCA or port itself failed: the completions flushed after it are its consequences.
    async_events = [e for e in ctx.of(EventKind.NCCL_WARN)
                    if _ib_fault(str(e.event.fields.get("message", "")))
                    and not _port_came_back(ctx, e)]
    if async_events:
        return _ib_async_event(async_events[0])
    setup = [e for e in ctx.of(EventKind.NCCL_WARN, EventKind.NCCL_ERROR, EventKind.PYTHON_TRACEBACK)
             if _NET_SETUP.search(f"{e.event.fields.get('message', '')} "
                                  f"{e.event.fields.get('last_error', '')}")]
    items = [*warns, *errors, *connects, *rendezvous, *store_raised]
    setup = [e for e in setup if not _setup_fell_back(ctx, e)]
    if flushed_too:
        if items or setup:
            return None  # read by the network rule already
        items = [e for e in ctx.of(EventKind.NCCL_WARN_NET) if _flushed(e)]
    if not items and setup:
        return _net_setup(_best_located(setup))
    if not items:
        return None
    first = min(items, key=Located.order)
    if _rank_died_of_its_own_before(ctx, first):
        return None  # a peer's process died first: its links broke with it
    if _ssh_failed_before(ctx, first):
        # the launcher could not ssh into a host first: the ranks there never started, and
        # the others' store and rendezvous errors wait for them
        return ssh_unreachable(ctx)
    fields = first.event.fields
    if fields.get("unresolved") and fields.get("cuda_dev") is not None:
        # NCCL's own line (`host:pid:tid [dev] … error encountered when getting address info`):
        # its prefix names the host that wrote it, not the name that did not resolve
        fields = {k: v for k, v in fields.items() if k not in ("host", "port")}
    evidence: list[str] = []
    nccl_line = first.kind in (EventKind.NCCL_WARN_NET, EventKind.NCCL_WARN, EventKind.NCCL_ERROR)
    if nccl_line:
        host = fields.get("host")
        if host:
            local = f"{host} GPU {fields.get('cuda_dev')} (pid {fields.get('pid')})"
            if first.event.host and first.event.host != host:  # a launcher's tag: its address
                local += f" on {first.event.host}"
        elif first.rank is not None:
            local = who(first)
        elif (task := _ray_task(ctx, first)) is not None:
            local = _ray_task_name(task)
        elif whereabouts(first):
            local = _called(None, whereabouts(first))
        else:
            local = f"the process writing {first.file.rsplit('/', 1)[-1]}"
        detail = fields.get("error") or next(
            (f"its peer never answered ({w})" for w in _GAVE_UP_ON_PEER
             if w in str(fields.get("message", ""))), None) or (
            f"its NCCL proxy failed to connect the transport (retcode {fields.get('retcode')})"
            if _connect_failed(ctx, first) else None) or (
            f"completion error {fields.get('status')}, vendor err {fields.get('vendor_err')}"
            if fields.get("status") is not None else "network error")
        port = fields.get("peer_port")
        named_host = _PEER_HOST_ID.search(f"{fields.get('message', '')} {first.event.text}")
        peer = fields.get("peer") or (named_host[1] if named_host else None) or (
            "a peer the line does not name")
        if str(peer).startswith("["):  # `[PRIVATE_IP]`: the paste masked the address
            peer = "a peer whose address the log masks"
        peer_text = f"{peer}<{port}>" if port is not None else str(peer)
        culprit = f"{local} <-> {peer_text}"
        evidence.append(f"{local}: {detail} talking to {peer_text} ({first.where})")
    elif first.kind is EventKind.CONNECTION_ERROR:
        named = _RAISED_PEER.search(first.event.text)
        assert named is not None  # _gloo_pair_unreachable matched it
        culprit = f"the peer endpoint {named.group(1)}:{named.group(2)}"
        evidence.append(f"{who(first)}: gloo could not connect to {culprit}: "
                        f"{fields.get('error')} ({first.where})")
    elif first.kind is EventKind.PYTHON_TRACEBACK and not _store_unreachable(ctx, first):
        named = _RAISED_PEER.search(str(fields.get("exc_message", "")))
        culprit = f"the peer endpoint {named.group(1)}:{named.group(2)}" if named else (
            "a peer the error does not name")
        evidence.append(f"{who(first)} could not connect to {culprit}: "
                        f"{fields.get('exc_type')}: {fields.get('exc_message')} ({first.where})")
    elif first.kind is EventKind.PYTHON_TRACEBACK:
        given = _launch_endpoint(ctx) or _init_method_shown(ctx, first)
        culprit = f"the rendezvous store endpoint {given or '(MASTER_ADDR:MASTER_PORT)'}"
        evidence.append(f"{who(first)} could not connect to the rendezvous store: "
                        f"{fields.get('exc_type')}: {fields.get('exc_message')} ({first.where})")
    elif fields.get("own_address"):
        culprit = f"the host name {fields.get('host')} (gloo could not resolve its own address)"
        evidence.append(f"{who(first)}: gloo could not resolve the host name "
                        f"{fields.get('host')} it was to listen on ({first.where}); set "
                        "GLOO_SOCKET_IFNAME to an interface, or fix the name's DNS entry")
    elif fields.get("unresolved") and fields.get("host") and fields.get("port") is None:
        # every name that did not resolve (a launcher tries each host of its list)
        names = tuple(dict.fromkeys(
            str(i.event.fields["host"]) for i in sorted(items, key=Located.order)
            if i.event.fields.get("unresolved") and i.event.fields.get("host")
            and i.event.fields.get("port") is None))
        culprit = (f"the host name{'s' if len(names) > 1 else ''} {_some(names)} "
                   f"({'they do' if len(names) > 1 else 'it does'} not resolve)")
        if len(names) == 1 and (port := _url_port(first.event.text, names[0])):
            # the client's own line gives the endpoint whole (`Post "http://wandb.svc:8080/…":
            # dial tcp: lookup wandb.svc …: no such host`)
            culprit = f"the endpoint {names[0]}:{port} (its host name does not resolve)"
        evidence.append(f"{who(first)} could not resolve the host name {fields.get('host')}: "
                        f"{fields.get('error')} ({first.where})")
    elif fields.get("unresolved") and not fields.get("host") and (later := [
            i for i in items if i.file_index == first.file_index
            and 0 < i.event.line - first.event.line <= 40
            and i.event.fields.get("unresolved") and i.event.fields.get("host")]):
        # a resolver's error that names no host, under a client whose own error names it
        # (urllib3's `socket.gaierror`, then `HTTPConnectionPool(host='mlflow', …)`)
        host = later[0].event.fields["host"]
        culprit = f"the host name {host} (it does not resolve)"
        evidence.append(f"{who(first)} could not resolve the host name {host}: "
                        f"{fields.get('error')} ({first.where}, {later[0].where})")
    elif not rendezvous and _host_port(fields) is None and _launch_endpoint(ctx) is None:
        # a client's failure that names no endpoint, with no rendezvous in sight: the service
        # a line above says the client was using (pip's `Looking in indexes: https://…`), or
        # an endpoint the lines do not name (not a rendezvous)
        used = _service_above(ctx, first)
        chained = chained_endpoint(ctx, first) if not used else ""
        culprit = (f"the endpoint {used}" if used else chained
                   or "an endpoint the lines do not name")
        evidence.append(f"{who(first)} could not reach {culprit} ({first.where})")
    else:
        endpoint = _endpoint(ctx, fields)
        culprit = f"the rendezvous endpoint {endpoint}"
        evidence.append(f"{who(first)} could not reach the rendezvous/store endpoint "
                        f"{endpoint} ({first.where})")
        evidence.extend(f"{item.event.fields.get('exc')} ({item.where})" for item in rendezvous[:1])
    # The rank that reports a link's failure is one end of it, not shown to be the faulty one:
    # the link (host, device, peer, store) is named instead, whichever line reported it.
    return Finding(
        Category.NETWORK, (),
        (culprit,), tuple(evidence), first,
        ("Check the link between these hosts (`ibstat`, `ibv_devinfo`, switch counters) and "
         "that NCCL uses the right interfaces (NCCL_SOCKET_IFNAME, NCCL_IB_HCA); for the "
         "rendezvous, a reachable MASTER_ADDR and port.",),
    )


def _setup_fell_back(ctx: Context, item: Located) -> bool:
    """A set-up failure the rules parsed (`NET/OFI aws-ofi-nccl initialization failed`) after
    which its NCCL thread went on with another network (`NCCL INFO Using network Socket`)."""
    writer = _writer(item.event.text)
    if writer is None:
        pid, host = item.event.fields.get("pid"), item.event.fields.get("host")
        if pid is None:
            return False
        writer = (str(host) if host else None, str(pid), None)
    return _chose_another_network(ctx.scans[item.file_index], writer, item.event.line)


def _net_setup(item: Located) -> Finding:
    where = whereabouts(item)
    text = str(item.event.fields.get("last_error") or item.event.fields.get("message") or "")
    return Finding(
        Category.NETWORK, (), (f"the network setup of {where}" if where else
                               "the network setup of the host that wrote it",),
        (f"{who(item)}: NCCL could not set up the host's network: {text.strip()[:120]} "
         f"({item.where})",), item,
        ("Check the interfaces NCCL may use on that host (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, the "
         "network plugin's provider and its libfabric/EFA setup) and run with "
         "NCCL_DEBUG=INFO to see which one it tried.",),
    )


# net_ib.cc: `NET/IB : mlx5_3:1 Got async event : port error` (<= 2.21: without the device),
# `NET/IB : mlx5_3:1 async fatal event: local catastrophic error` (2.23+), `… Got async error
# event: port error`, `… async fatal event on QP (0x…): …` (later)
_IB_ASYNC = re.compile(r"NET/IB : (?:(\S+) )?(?:Got async (?:error )?event|"
                       r"async fatal event(?: on \w+ \([^)]*\))?) ?: ?(.+)")
# The verbs events that report a change, not a fault (ibv_event_type_str's words): the subnet
# manager re-registering its clients, a LID, P_Key, GID or SM change, a port coming up. NCCL
# warns of every async event; only an error event is the HCA's or the port's failure.
_IB_EVENT_NOTICE = re.compile(r"^\s*(?:client reregistration|LID change|P_Key change|SM change|"
                              r"GID table change|port active|communication established|"
                              r"send queue drained|last WQE reached|path migrated|"
                              r"SRQ limit reached)\b", re.IGNORECASE)


def _ib_fault(message: str) -> bool:
    m = _IB_ASYNC.search(message)
    return m is not None and _IB_EVENT_NOTICE.match(m[2]) is None


# exceptions a rank raises when a peer or the network failed it: never its own fault
_RAISED_BY_A_PEER = re.compile(r"DistBackendError|DistNetworkError|DistStoreError|NCCL|[Gg]loo|"
                               r"[Cc]onnection|[Tt]imeout|[Tt]imed out|KeyboardInterrupt|"
                               r"SignalException|ChildFailedError|[Bb]roken pipe|peer")


def _own_fault_raised(item: Located) -> bool:
    f = item.event.fields
    return bool(f.get("exc_type")) and _RAISED_BY_A_PEER.search(
        f"{f.get('exc_type')} {f.get('exc_message', '')}") is None


_OFI_REMOTE_WENT = re.compile(r"\bREMOTE_IO\b|Remote I/O error|[Cc]onnection was reset by remote peer")


def _ssh_failed_before(ctx: Context, item: Located) -> bool:
    """ssh's own word that it could not reach a host, earlier in `item`'s file."""
    return any(_SSH_NETWORK.search(t.text) for t in ctx.scans[item.file_index].loose
               if t.line < item.event.line)


def _rank_died_of_its_own_before(ctx: Context, item: Located) -> bool:
    """A rank with its own GPU error or out-of-memory in these logs, whose exit its launcher
    reported before `item` by both clocks (torchrun's failure table or its `failed (exitcode
    …)` line): the network errors after it are its peers' links breaking as it died."""
    own = {e.rank for e in ctx.of(EventKind.CUDA_ERROR, EventKind.CUDA_OOM)
           if e.rank is not None and e.event.level >= Level.ERROR}
    # ... or its own exception (a disk that failed under it), not one a lost peer raised
    raised = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if e.event.level >= Level.ERROR and _own_fault_raised(e)]
    own |= {e.rank for e in raised if e.rank is not None}
    if any(named in own for named in _exits_before(ctx, item)):
        return True
    # ... or a crash of its own, which no peer's loss causes (a segfault, a bus error, a
    # floating-point or illegal-instruction trap), that its launcher reported before
    if any(_crashed(e) and named is not None and named != item.rank
           and not trained_after(ctx, e.file_index, e.event.line)  # (not a restart's past)
           for e, named in exit_reports(ctx) if e.time is not None and item.time is not None
           and e.time < item.time):
        return True
    # ... or another file's process (the store's host, a peer's pod) raised its own exception
    # before, by both clocks: the connects to it were refused because it had died
    target = str(item.event.fields.get("host") or item.event.fields.get("peer") or "")
    if item.time is not None and any(
            e.file_index != item.file_index and e.time is not None
            and 0 < item.time - e.time <= _DIED_BEFORE_CONNECT and not e.time_inferred
            # (a rank of the job's, or the process the connect was to: its file named after
            # it, or its host's; another program's error beside the job is not its peer's)
            and (e.rank is not None or (target and (
                target in e.file.rsplit("/", 1)[-1]
                or target in file_hosts(ctx.scans[e.file_index]))))
            and not went_on_past(ctx, e) for e in raised):
        return True
    # ... or, in a console of every rank whose lines carry no time, another rank's own
    # exception on an earlier line (srun --label: the peers' links broke as it died)
    # (NCCL's own lines carry no rank prefix: then any rank's own exception above is another's)
    # (a line's time inferred from the stamped line above it orders nothing within its file:
    # the file's own order does)
    return any(
        e.file_index == item.file_index and e.event.line < item.event.line
        and (e.time is None or e.time_inferred) and (item.time is None or item.time_inferred)
        and e.rank is not None and e.rank != item.rank and not went_on_past(ctx, e)
        for e in raised)


# a peer that died this long before a connect to it failed: the connect's whole timeout (a
# store's default 900 s, a long one set by the job) and more; an older error is another run's
_DIED_BEFORE_CONNECT = 3600.0

# the signals a process raises on itself: no peer's loss makes a process fault
# (and a SIGKILL: a peer's loss raises an exception or aborts, it does not send one; the OOM
# killer or an operator did)
_CRASH_EXITS = frozenset({-4, -7, -8, -9, -11})


def _crashed(report: Located) -> bool:
    f = report.event.fields
    code = f.get("root_exitcode") if report.kind is EventKind.CHILD_FAILED_SUMMARY else f.get(
        "exitcode")
    return code in _CRASH_EXITS


def _exits_before(ctx: Context, item: Located) -> list[object]:
    """The ranks of the worker exits torchrun reported before `item` by both clocks."""
    if item.time is None:
        return []
    return [named for e, named in exit_reports(ctx) if e.time is not None and e.time < item.time]


def _port_came_back(ctx: Context, item: Located) -> bool:
    """A port's error event answered by its `port active` event later in the same file, and
    the job trained on after: a link that flapped and came back, which the job rode out."""
    m = _IB_ASYNC.search(str(item.event.fields.get("message", "")))
    if m is None or not m[1] or "port error" not in m[2].lower():
        return False
    active = re.compile(rf"{re.escape(m[1])} Got async (?:error )?event ?: ?port active\b")
    back = next((t.line for t in ctx.scans[item.file_index].tail
                 if t.line > item.event.line and active.search(t.text)), None)
    return back is not None and trained_after(ctx, item.file_index, back)


def _ib_async_event(item: Located) -> Finding:
    m = _IB_ASYNC.search(str(item.event.fields.get("message", "")))
    assert m is not None
    f = item.event.fields
    device = f" HCA {m[1]}" if m[1] else " its IB device"
    where = f"{f.get('host')}{device}" if f.get("host") else f"{who(item)}{device}"
    return Finding(
        Category.NETWORK, (), (where,),
        (f"{where}: InfiniBand async event '{m[2].strip()}' ({item.where}); the errors that "
         "follow on this link are its consequence",), item,
        ("Check that HCA and its port (`ibstat`, `ibv_devinfo`, the switch port's counters, "
         "the cable); drain the node if the port keeps failing.",),
    )


def _keep_alive(item: Located) -> bool:
    """An elastic agent that lost the rendezvous mid-run (its keep-alive heartbeats fail)."""
    return "keep-alive heartbeat" in item.event.text


_PEER_WENT = ("Broken pipe", "Connection reset by peer")


def _store_went(ctx: Context, item: Located) -> bool:
    """A rendezvous error whose own traceback says the store's connection broke (`Broken
    pipe`, `Connection reset by peer`), none that it could not be reached: the store was
    reached and went away, which says nothing of the network."""
    said = [str(e.event.fields.get("exc_message", "")) for e in ctx.of(EventKind.PYTHON_TRACEBACK)
            if e.file_index == item.file_index]
    return any(w in m for m in said for w in _PEER_WENT) and not any(
        w in m for m in said for w in _UNREACHABLE)


def _rendezvous_went(ctx: Context, item: Located) -> bool:
    # (the agent's final exception after its keep-alive heartbeats failed in the same file
    # is the same loss)
    return _keep_alive(item) or _store_went(ctx, item) or any(
        _keep_alive(e) and e.file_index == item.file_index and e.event.line <= item.event.line
        for e in ctx.of(EventKind.RENDEZVOUS_ERROR))


def rendezvous_lost(ctx: Context) -> Finding | None:
    """The rendezvous store went away after the job started: the host that kept it (the
    first node's agent) is gone or cut off, and its own logs hold why; the agents that
    report it only see the loss."""
    lost = [e for e in ctx.of(EventKind.RENDEZVOUS_ERROR) if _rendezvous_went(ctx, e)]
    # the store's connection broke while a rank fetched NCCL's id (not torch's heartbeat
    # `got 0 bytes`, printed by every survivor after any rank died)
    lost += [e for e in ctx.of(EventKind.STORE_CONNECTION_LOST)
             if e.event.fields.get("phase") == "nccl_id"]
    if not lost:
        return None
    lost.sort(key=Located.order)
    if _store_host_raised(ctx) or any(raised_of_its_own(e) and e.order() < lost[0].order()
                                      for e in ctx.of(EventKind.PYTHON_TRACEBACK)):
        # rank 0 (whose node keeps the store) failed of its own, or a rank did before the
        # loss: the rules after say
        return None
    first = lost[0]
    how = ("its keep-alive heartbeats fail with" if _keep_alive(first) else
           "its connection to the store broke:")
    said = first.event.fields.get("exc") or first.event.fields.get("error")
    return Finding(
        Category.UNDETERMINED, (), (),
        (f"{who(first)} lost the rendezvous: {how} "
         f"{said} ({first.where}, {len(lost)} time(s)); the node "
         "that kept the store stopped answering, and these logs do not say why",), first,
        ("Read the logs of the node that hosts the rendezvous store (the rdzv endpoint, "
         "usually the first node) and its kernel log around that time.",),
    )


def _store_host_raised(ctx: Context) -> bool:
    """Rank 0, whose node keeps the store that torchrun and init_process_group start there,
    raised an exception of its own (not about the store or its connections): its exit is
    why the store went, and the other ranks' lost connections only follow it."""
    return any(0 in ctx.global_ranks([e]) and raised_of_its_own(e)
               for e in ctx.of(EventKind.PYTHON_TRACEBACK))


def _host_port(fields: Mapping[str, FieldValue]) -> str | None:
    host, port = fields.get("host"), fields.get("port")
    if host is None:
        return None
    return f"{host}:{port}" if port is not None else str(host)


_INIT_METHOD = re.compile(r"init_method\s*=\s*['\"]tcp://([\w.\-]+|\[[0-9a-fA-F:]+\]):(\d+)")


def _init_method_shown(ctx: Context, item: Located) -> str | None:
    """The store URL the job's own call gave, in a source line of the traceback
    (`dist.init_process_group(…, init_method='tcp://10.0.0.1:23456')`)."""
    for t in ctx.scans[item.file_index].tail:
        if item.event.line <= t.line <= item.event.line + 60:
            m = _INIT_METHOD.search(t.text)
            if m is not None:
                return f"{m[1]}:{m[2]} (as init_method gave it)"
    return None


def _launch_endpoint(ctx: Context) -> str | None:
    """The endpoint the launcher was given (`--rdzv_endpoint`, `MASTER_ADDR=`), or NCCL its
    root (`NCCL_COMM_ID`), if shown."""
    for item in ctx.of(EventKind.LAUNCH_ENDPOINT):
        fields = item.event.fields
        if "root" in fields:  # (in fields of its own: `host` there is NCCL's prefix's)
            root = _host_port({"host": fields["root"], "port": fields.get("root_port")})
            return f"{root} (as NCCL_COMM_ID gave it)"
        if (given := _host_port(fields)) is not None:
            return f"{given} (as the launcher was given)"
    return None


# A client's own word for the service it is using: pip's `Looking in indexes:
# https://pypi.internal.corp.example/simple`, huggingface_hub's `… thrown while requesting HEAD
# https://hf-mirror.example/…`
# (pip hides an index's credentials as `https://build-bot:****@artifactory.corp.example/…`)
_SERVICE_USED = re.compile(r"\bLooking in (?:indexes|links): https?://(?:[^@\s/]*@)?"
                           r"([\w.-]+(?::\d+)?)|"
                           r"\bthrown while requesting [A-Z]+ https?://([\w.-]+(?::\d+)?)|"
                           # torchft's manager naming the lighthouse it talks to
                           r"\bestablishing connection to https?://([\w.-]+(?::\d+)?)")
# pip's own words on the package it was fetching (`…': /simple/sentencepiece/`, `No matching
# distribution found for …`): the failure is pip's, and its index is the endpoint
_PIPS_OWN = re.compile(r"/simple/|\bNo matching distribution found\b|\bpip\b")
# where another command's output begins: the shell's trace of a command, pip's word that it
# was done, another paste's part
_NEXT_COMMAND = re.compile(r"^\+{1,3} \S|\bSuccessfully installed\b")


def _service_above(ctx: Context, item: Located) -> str | None:
    """The service `item`'s own line (huggingface_hub's retry: `… thrown while requesting HEAD
    https://…`), or a line of the same file up to 40 lines above it and in the same command's
    output, says its client was using (pip's index only for pip's own failure)."""
    own = _SERVICE_USED.search(item.event.text)
    if own is not None and (own[2] or own[3]):
        return own[2] or own[3]
    for t in reversed(ctx.scans[item.file_index].tail):
        if not item.event.line - 40 <= t.line < item.event.line:
            continue
        m = _SERVICE_USED.search(t.text)
        if m is not None:
            return m[2] or m[3] or (m[1] if _PIPS_OWN.search(item.event.text) else None)
        if _NEXT_COMMAND.search(t.text) or _PASTE_BREAK.search(t.text):
            return None
    return None


def _endpoint(ctx: Context, fields: Mapping[str, FieldValue]) -> str:
    """host:port of the endpoint an error names, else the one the launcher was given."""
    return _host_port(fields) or _launch_endpoint(ctx) or "(not named in the logs)"


_PEER_HOST_ID = re.compile(r"Peer host id: (i-[0-9a-f]+)")  # EFA's peer instance, in its error
# (NCCL's socket connect gives up after its refused retries or its timed-out ones)
_GAVE_UP_ON_PEER = ("Unreachable remote", "socketPollConnect: exceeded retries",
                    "socketStartConnect: exceeded retries", "socketPollConnect: exceeded timeouts",
                    "socketStartConnect: exceeded timeouts")
_UNREACHABLE = ("Connection timed out", "Connection refused", "No route to host",
                "Network is unreachable", *_GAVE_UP_ON_PEER,
                # libfabric's provider could not deliver to the far endpoint
                "(UNDELIVERABLE)")


# gloo's pair and c10d's socket name the address they could not connect to:
# `connect [10.0.0.2]:13195: Connection refused`
_RAISED_PEER = re.compile(r"(?:connect(?:ing)?(?: to)? |Connect timeout |remote=)\[?([\w.:\-]+?)\]?:(\d+)(?:\W|$)")


def _peer_unreachable(item: Located) -> bool:
    """An exception of the job's transport (gloo, c10d sockets) that says it could not
    connect to a peer: the link or the peer is down, not the job's code."""
    message = str(item.event.fields.get("exc_message", ""))
    if "connectFullMesh failed" in message:  # gloo, at start-up; its pair may name no peer
        return any(w in message for w in (*_UNREACHABLE, "Connect timeout"))
    if re.search(r"\bConnect timeout \[[\w.:\-]+\]:\d+", message) and "pair" in message:
        return True  # gloo's pair waited out its connect to that peer (pair.h waitUntilConnected)
    return (any(w in message for w in _UNREACHABLE) and _RAISED_PEER.search(message) is not None
            and any(w in message for w in ("gloo", "c10d", "socket", "pair.cc")))


def _gloo_pair_unreachable(text: str) -> bool:
    """A line that reports gloo's TCP pair failing to connect to a peer's address, logged
    as an error or an exception (never a retry under way): the link or the peer is down."""
    return ("gloo IO exception" in text and "pair.cc" in text
            and any(w in text for w in _UNREACHABLE) and _RAISED_PEER.search(text) is not None)


def _gloo_line_explained(ctx: Context, item: Located) -> bool:
    """A logged gloo connect failure that another process's failure came before (its peer
    went, so it could not be reached), or that its job stepped past (a restart that went on)."""
    if any(p.file_index == item.file_index and p.event.line > item.event.line
           for p in ctx.of(EventKind.PROGRESS)):
        return True
    return any(f.order() < item.order() and (f.file_index != item.file_index or f.rank != item.rank)
               and (f.kind is not EventKind.PYTHON_TRACEBACK or f.event.fields.get("exc_type"))
               for f in ctx.of(*_CRASHED, EventKind.PYTHON_TRACEBACK))


def _store_unreachable(ctx: Context, item: Located) -> bool:
    """An exception raised while connecting to the rendezvous store (TCPStore in the
    rendezvous handler): the endpoint could not be reached. A paste that starts below the
    traceback's header has no frames parsed: the lines just above the exception say it."""
    frames = item.event.fields.get("frames")
    message = str(item.event.fields.get("exc_message", ""))
    # (torch 1.x's tcputil: `RuntimeError: connect() timed out.`, later `… Original timeout
    # was 1800000 ms.`: the store's connect ran out, the store never reached)
    if not any(w in message for w in (*_UNREACHABLE, "connect() timed out")):
        return False
    shown = [str(f) for f in frames] if isinstance(frames, tuple) else []
    if not shown and item.event.fields.get("headless"):
        shown = [t.text for t in ctx.scans[item.file_index].tail
                 if item.event.line - 6 <= t.line < item.event.line]
    return any("rendezvous" in f or "TCPStore" in f for f in shown)


_BARRIER_REPORT_LINES = 20  # the exit barrier's traceback under its `Error waiting on exit barrier`


# A process that failed: a store wait after it is for that process, not one that never came
_FAILED_FIRST = (*_CRASHED, EventKind.PYTHON_TRACEBACK)


# a frame of the job's training loop (`train.py:111 train_one_step`, Lightning's
# `training_step`, a `backward`): the program had passed its start-up
_TRAINING_FRAME = re.compile(r"(?i) (?:\w*_)?(?:train|training)_(?:one_)?(?:step|epoch|batch|iter\w*|loop)"
                             r"\w*$| training_step$| backward$| optimizer_step$")
_SETUP_FRAME = re.compile(r" (?:init_process_group|rendezvous|_store_based_barrier|new_group|"
                          r"init_device_mesh|_create_c10d_store|_env_rendezvous_handler|"
                          r"_tcp_rendezvous_handler)$")
_OWN_TRACEBACK_BELOW = 3  # lines between a store wait and the traceback it raised


def _in_training(ctx: Context, wait: Located) -> bool:
    """A store wait whose own traceback (right below it, the same rank's) runs through the
    job's training loop: a wait in the middle of training, not at its start."""
    for raised in ctx.of(EventKind.PYTHON_TRACEBACK):
        # right below the wait's line, or (torch >= 2.2) the traceback whose exception it is
        if (raised.file_index == wait.file_index and raised.rank == wait.rank and (
                0 < raised.event.line - wait.event.line <= _OWN_TRACEBACK_BELOW
                or raised.event.line <= wait.event.line <= raised.event.end_line)):
            frames = raised.event.fields.get("frames")
            shown = [str(f) for f in frames] if isinstance(frames, tuple) else []
            # (a training function that was still setting up its process group is at start)
            return (any(_TRAINING_FRAME.search(f) is not None for f in shown)
                    and not any(_SETUP_FRAME.search(f) is not None for f in shown))
    return False


def _after_the_start(ctx: Context, wait: Located) -> bool:
    """A wait for the store's keys after the job had stepped (its file shows progress above
    it, or its own traceback runs through the training loop), or after another process failed
    (its exception or crash, before the wait or untimed in another file): the peer's failure
    or the re-rendezvous it caused, not a rank that never came at start-up."""
    if any(s.file_index == wait.file_index and s.event.line < wait.event.line
           for s in ctx.of(EventKind.PROGRESS)) or _in_training(ctx, wait):
        return True
    for failed in ctx.of(*_FAILED_FIRST):
        exc = str(failed.event.fields.get("exc_type") or "")
        if failed.kind is EventKind.PYTHON_TRACEBACK and (
                not exc or any(w in exc for w in _COLLATERAL) or "Timeout" in exc):
            continue  # the wait's own report, or another symptom
        if failed.kind is EventKind.PYTHON_TRACEBACK and any(
                w.file_index == failed.file_index
                and failed.event.line <= w.event.line <= failed.event.end_line
                for w in ctx.of(EventKind.STORE_TIMEOUT)):
            # a traceback whose exception is itself a store wait (torch before 2.0 raised the
            # NCCL unique id's as a plain `RuntimeError: [2] is setting up NCCL communicator
            # … got error: Socket Timeout`): another rank waiting alike, no failure of its own
            continue
        if failed.file_index == wait.file_index and failed.event.line >= wait.event.line:
            continue  # after the wait in its file: the waiter's own end
        if failed.rank == wait.rank and (failed.rank is not None
                                         or failed.file_index == wait.file_index):
            continue  # the waiter's own line (its rank, or its file when no rank is shown)
        if failed.time is not None and wait.time is not None and failed.time > wait.time:
            continue
        return True
    return False


# a shell's exit status for a command it could not find or run (`bash: torchrun: command not
# found`, then srun's `task 1: Exited with exit code 127`)
_NOT_RUN_STATUS = frozenset({126, 127})


def _not_started(ctx: Context, wait: Located) -> Finding | None:
    """A node whose launch command the shell could not run (exit code 127 or 126), reported
    before the others' wait ran out: the job's environment there (a conda env not activated,
    a path not mounted), for which the other nodes waited at their rendezvous."""
    exits = [e for e in ctx.of(EventKind.SLURM_TASK_EXIT)
             if e.event.int_field("exitcode") in _NOT_RUN_STATUS
             and (e.event.line < wait.event.line if e.file_index == wait.file_index
                  else e.time is not None and wait.time is not None and e.time < wait.time)]
    if not exits:
        return None
    first = exits[0]
    f = first.event.fields
    listed = f.get("tasks")
    tasks = ", ".join(str(t) for t in listed) if isinstance(listed, tuple) else ""
    who_ = f"task {tasks} on {f.get('node')}" if tasks else f"node {f.get('node')}"
    return Finding(
        Category.SOFTWARE, (), (f"{who_} (its command could not be run: exit code "
                                f"{f.get('exitcode')})",),
        (f"srun: {who_} exited with code {f.get('exitcode')} ({first.where}), the shell's "
         "status for a command it could not find or run; the other nodes then waited for "
         "it at their rendezvous",), first,
        ("Check the job's environment on that node: the launcher on its PATH (the conda or "
         "virtual environment activated in the job script), the script's path mounted.",),
    )


def init_timeout(ctx: Context) -> Finding | None:
    waits = [e for e in ctx.of(EventKind.STORE_TIMEOUT) if e.event.fields.get("phase") == "wait"
             and not _after_the_start(ctx, e)]
    waits += [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if str(e.event.fields.get("exc_type", "")).endswith(
                  ("RendezvousTimeoutError", "WorkerGroupStartupTimeoutError"))]
    # the elastic agent's error file (`"message": "RendezvousTimeoutError: "`)
    waits += [e for e in ctx.of(EventKind.RENDEZVOUS_ERROR)
              if e.event.fields.get("exc") == "RendezvousTimeoutError"]
    # torchrun's agent waiting for the other nodes' agents at the end (its exit barrier) is
    # no startup wait: the exit_barrier rule reads it
    waits = [w for w in waits if not any(
        b.file_index == w.file_index and 0 <= w.event.line - b.event.line <= _BARRIER_REPORT_LINES
        for b in ctx.of(EventKind.EXIT_BARRIER))]
    waits.sort(key=Located.order)
    if not waits:
        # Still waiting in the store barrier when the log ends: the job never stepped after
        # it (steps before it belong to an earlier process group or run).
        steps = ctx.of(EventKind.PROGRESS)
        waits = [e for e in ctx.of(EventKind.STORE_TIMEOUT)
                 if e.event.fields.get("phase") == "barrier_wait"
                 and not any(s.file_index == e.file_index and s.event.line > e.event.line
                             for s in steps)
                 and not barrier_completed(ctx, e)]
    if not waits:
        return None
    if any(raised_of_its_own(e) for e in ctx.of(EventKind.PYTHON_TRACEBACK)):
        return None  # a process raised its own error instead of arriving: the rules after say
    first = waits[0]
    if _ssh_failed_before(ctx, first):
        return ssh_unreachable(ctx)  # the ranks of a host the launcher never reached
    if (unstarted := _not_started(ctx, first)) is not None:
        return unstarted
    fields = first.event.fields
    detail = ""
    if fields.get("joined") is not None:
        detail = f": {fields.get('joined')} of {fields.get('expected')} joined"
    elif fields.get("keys"):
        detail = f": keys {fields.get('keys')}"
    absent = _absent_from_barrier(ctx)
    evidence = [f"{who(first)}: store/rendezvous wait timed out{detail} ({first.where}); a rank "
                "never arrived"]
    root = None if absent else _unique_id_root(ctx, waits)
    if root is not None:
        absent = (root,)
        evidence.append(f"rank {root} never published the NCCL unique id the others wait for: "
                        "it never reached the communicator's creation")
    if absent:
        evidence.append(f"every rank of the world but {_ranks_text(absent)} reports waiting in "
                        "the store barrier: the absent one never reached init_process_group")
    return Finding(
        Category.INIT_TIMEOUT, absent, tuple(f"rank {r}" for r in absent),
        tuple(evidence), first,
        ("Check that every rank started (scheduler, container pull, a crash before "
         "init_process_group) and that they all use the same MASTER_ADDR and port.",),
    )


# NCCL's account of its bootstrap, printed when it ends, done or failed (2.24 and later):
# `Bootstrap timings total 71.987136 (create 0.000033, send 0.000090, recv 0.020619, ring …)`
_BOOTSTRAP_TOOK = re.compile(r"\bBootstrap timings total (\d+(?:\.\d+)?)")
_LONG_BOOTSTRAP_S = 30.0  # NCCL's own bootstrap takes well under a second once all ranks are up


def nccl_init_unfinished(ctx: Context) -> Finding | None:
    """Some ranks of a communicator began NCCL's set-up (`… rank 2 nranks 4 … - Init START`),
    none finished it, the others never began, and the bootstrap waited for them long past what
    it takes (NCCL's own timings): the ranks that never began are the ones it waited for. The
    stop or error that ended the job after it is that wait's consequence. Only for the world's
    communicator (its ranks are the global ones) and with no training after it."""
    inits = ctx.of(EventKind.NCCL_INIT)
    world = ctx.world_size
    if world is None:
        return None
    started = [i for i in inits if i.event.fields.get("phase") == "START"
               and i.event.int_field("nranks") == world]
    ids = {i.event.fields.get("comm_id") for i in started}
    if not started or len(ids) != 1:
        return None
    first = min(started, key=Located.order)
    if any(p.order() > first.order() for p in ctx.of(EventKind.PROGRESS)):
        return None
    comm_id = ids.pop()
    if any(i.event.fields.get("phase") == "COMPLETE" and i.event.fields.get("comm_id") in
           (comm_id, None) and i.event.int_field("nranks") == world for i in inits):
        return None
    began = {r for i in started if (r := i.event.int_field("nccl_rank")) is not None}
    never = tuple(r for r in range(world) if r not in began)
    waited = [float(m.group(1)) for scan in ctx.scans for t in scan.tail
              if (m := _BOOTSTRAP_TOOK.search(t.text)) is not None]
    if not never or len(never) >= len(began) or not waited or max(waited) < _LONG_BOOTSTRAP_S:
        return None
    return Finding(
        Category.INIT_TIMEOUT, never, tuple(f"rank {r} (never began NCCL's set-up)" for r in never),
        (f"rank(s) {compress_ranks(sorted(began))} of {world} began NCCL's set-up of the world's "
         f"communicator{f' {comm_id}' if comm_id else ''} ({first.where}) and none finished it; "
         f"rank(s) {compress_ranks(never)} never began it",
         f"NCCL's bootstrap waited {max(waited):.0f} s for them (its own timings); what ended "
         "the job after that wait is its consequence"),
        first,
        (f"Find out why rank(s) {compress_ranks(never)} never reached init_process_group's "
         "first collective: their own output (a crash, a slow start, data loading before "
         "it), the scheduler's record of their processes.",),
    )


# ProcessGroupNCCL: `[45] is setting up NCCL communicator and retrieving ncclUniqueId from
# [0] via c10d key-value store by key '0', but store->get('0') got error: …`
_UNIQUE_ID_WAIT = re.compile(r"\[(\d+)\] is setting up NCCL communicator and retr(?:ie|ei)ving "
                             r"ncclUniqueId from \[(\d+)\]")  # torch <= 1.11 misspelt it


def _unique_id_root(ctx: Context, waits: Sequence[Located]) -> int | None:
    """The rank whose NCCL unique id every waiting rank asks the store for. Its number is a
    rank of the group being created: the global one only for the default group (named in the
    keys, or the waiting rank's number in the group is its global rank)."""
    roots: set[int] = set()
    for item in waits:
        m = _UNIQUE_ID_WAIT.search(item.event.text)
        if m is None:
            continue
        default = "default_pg" in item.event.text or (  # the keys the store waited for
            item.rank is not None and item.rank_origin != "local" and item.rank == int(m[1]))
        if not default:
            return None
        roots.add(int(m[2]))
    return roots.pop() if len(roots) == 1 else None


def _absent_from_barrier(ctx: Context) -> tuple[int, ...]:
    """The ranks that never joined the store barrier, when the others each said they wait
    (`... for rank: N ... world_size=W, worker_count=J`), most of the world spoke, and the
    count of those missing (W - J) is exactly how many of 0..W-1 never spoke."""
    waits = [e.event for e in ctx.of(EventKind.STORE_TIMEOUT)
             if e.event.fields.get("phase") in ("barrier_wait", "wait")]
    worlds = {e.int_field("expected") for e in waits} - {None}
    joined = {e.int_field("joined") for e in waits} - {None}
    if len(worlds) != 1 or len(joined) != 1:
        return ()
    world, count = worlds.pop(), joined.pop()
    assert world is not None and count is not None
    waiting = {e.int_field("rank_in_message") for e in waits} - {None}
    absent = tuple(r for r in range(world) if r not in waiting)
    # Most of the world must have spoken: one rank's own log shows only that rank waiting.
    if not absent or len(absent) != world - count or len(absent) >= len(waiting):
        return ()
    return absent


# urllib3's cause when no connection was made at all (refused, no route, a name that does
# not resolve), and the pool's endpoint: `HTTPConnectionPool(host='0.0.0.0', port=8000)`
_NEVER_CONNECTED = re.compile(r"NewConnectionError|Failed to establish a new connection|"
                              r"Connection refused|No route to host|Name or service not known|"
                              r"Temporary failure in name resolution")


_HTTP_POOL = re.compile(r"HTTPS?ConnectionPool\(host='([^']+)', port=(\d+)\)")


def retries_exhausted(ctx: Context) -> Finding | None:
    """Retries that ran out (attempt N of N, "Max retries exceeded"): recovering noise always
    shows attempt 1 of N; exhaustion is a failure of what was being retried."""
    progress = ctx.of(EventKind.PROGRESS)
    exhausted = [e for e in ctx.of(EventKind.RETRY) if e.event.fields.get("exhausted")
                 # the job went on past it: a side service's retries (a model hub, a metrics
                 # uploader) that ran out, no failure of the job
                 and not any(p.file_index == e.file_index and p.event.line > e.event.line
                             and (e.rank is None or p.rank is None or p.rank == e.rank)
                             for p in progress)
                 # (nor inside a side thread's traceback the job went on after)
                 and not ctx.passed_over(e.file_index, e.event.line)]
    if not exhausted:
        return None
    first = exhausted[0]
    context = first.event.fields.get("context")
    category = {"storage": Category.STORAGE_IO, "network": Category.NETWORK}.get(
        str(context), Category.UNDETERMINED)
    culprits: tuple[str, ...] = ()
    # (a count that ran out, in words that name no cause (torchft's `lighthouse quorum
    # failed after 3 retries.`): the same process's retried failures above it say what failed)
    retried = [e for e in ctx.of(EventKind.CONNECTION_ERROR, EventKind.RETRY)
               if e.file_index == first.file_index and e.event.line < first.event.line
               and e.rank == first.rank] if str(context) == "unknown" else []
    if _NEVER_CONNECTED.search(first.event.text) or any(
            _NEVER_CONNECTED.search(e.event.text) for e in retried):
        # whatever it talked to (a store, a server), the endpoint could not be reached
        category = Category.NETWORK
        pool = _HTTP_POOL.search(first.event.text)
        used = None if pool else _service_above(ctx, first)
        culprits = ((f"the endpoint {pool[1]}:{pool[2]}",) if pool else
                    (f"the endpoint {used}",) if used else ())
    # the rank that could not reach an endpoint is one end of the link, not its fault
    ranks = () if category is Category.NETWORK else ctx.global_ranks([first])
    recovering = sum(1 for e in ctx.of(EventKind.RETRY)
                     if not e.event.fields.get("exhausted") and e.event.int_field("attempt") == 1)
    evidence = [f"{who(first)}: retries exhausted ({context}): {first.event.text.strip()[:160]} "
                f"({first.where})"]
    if recovering:
        evidence.append(f"{recovering} earlier retry line(s) recovered at attempt 1 (noise)")
    return Finding(
        category, ranks, ((who(first),) if ranks else ()) + culprits, tuple(evidence), first,
        ("The retried operation failed for good: check the storage or endpoint it talks to "
         "(throttling, credentials, a full or unreachable file system).",),
    )


# DeepSpeed's launcher checks every host of its hostfile with `ssh HOST hostname` first
_SSH_UNREACHABLE = re.compile(r"host=([\w.\-]+) was not reachable via ssh")


# ssh's own words when it cannot get there: the network's (a login it was refused is not)
_SSH_NETWORK = re.compile(r"ssh: (?:connect to host ([\w.\-]+) port \d+|Could not resolve "
                          r"hostname ([\w.\-]+)): (No route to host|Connection refused|"
                          r"Connection timed out|Network is unreachable|Name or service not "
                          r"known|Temporary failure in name resolution)")


# ssh's last word when every way of logging in was refused: `user@host: Permission denied
# (publickey,password).` (the host reached, the login not)
_SSH_REFUSED = re.compile(r"(?<![\w.\-@])(?!git@)(?:[\w.\-]+@)?([\w.\-]+): Permission denied \((?:publickey|password|"
                          r"gssapi|keyboard-interactive|hostbased)[\w,\-]*\)")


# what a launcher says after ssh failed: pdsh's exit 255, ORTE's or PRRTE's daemons not started
_LAUNCH_FAILED = re.compile(r"ssh exited with exit code 255|unable to (?:reliably )?start one or more "
                            r"daemons")


_GIT_FATAL = re.compile(r"fatal: Could not read from remote repository")


def ssh_unreachable(ctx: Context) -> Finding | None:
    """A launcher that could not ssh into a host of its hostfile. ssh's exit status 255 is
    any failure of ssh itself (a refused key as much as a lost route): the network only when
    ssh's own line says so; the host is named either way."""
    checks = [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
              if _SSH_UNREACHABLE.search(str(e.event.fields.get("exc_message", "")))]
    said = [(t.line, scan.path, m) for scan in ctx.scans for t in scan.loose
            if (m := _SSH_NETWORK.search(t.text)) is not None]
    # a refusal counts only in a file where a launcher then says it could not start
    launching = [scan for scan in ctx.scans
                 if any(_LAUNCH_FAILED.search(u.text) for u in scan.tail)]
    refused = [(t.line, scan.path, m) for scan in launching for t in scan.tail
               if (m := _SSH_REFUSED.search(t.text)) is not None
               and not any(_GIT_FATAL.search(u.text) for u in scan.tail
                           if 0 < u.line - t.line <= 2)]
    if not checks and not said and not refused:
        return None
    if refused and not said:
        line, path, m = min(refused, key=lambda s: s[0])
        return Finding(
            Category.INFRASTRUCTURE, (), (f"host {m.group(1)} (ssh login refused)",),
            (f"the launcher's ssh login to {m.group(1)} was refused ({path}:{line}): the tasks "
             "there could not be started",), None,
            (f"Check the launching node's ssh key and {m.group(1)}'s authorized_keys (the "
             "launcher logs in without a password), then rerun.",),
        )
    if said:
        line, path, m = min(said, key=lambda s: s[0])
        host = m.group(1) or m.group(2)
        where = f"{path}:{line}"
        return Finding(
            Category.NETWORK, (), (f"host {host} (ssh: {m.group(3)})",),
            (f"ssh could not reach {host}: {m.group(3)} ({where})",), None,
            ("Check that the host is up and reachable from the launching node (its name, "
             "route and firewall), then rerun.",),
        )
    first = checks[0]
    m = _SSH_UNREACHABLE.search(str(first.event.fields.get("exc_message", "")))
    host = m.group(1) if m else "a host of the hostfile"
    return Finding(
        Category.UNDETERMINED, (), (f"host {host} (not reachable via ssh)",),
        (f"the launcher could not ssh into {host} ({first.where}); ssh's exit status 255 "
         "says ssh itself failed, and its own error (a refused key, no route, a name that "
         "does not resolve) is not shown",), first,
        (f"Run `ssh -v {host} hostname` from the launching node: its last lines say whether "
         "the host, the route or the login is at fault.",),
    )


_NCCL_SHM = re.compile(r"/dev/shm/nccl|shared memory segment|posix_fallocate|shm_open")
_NCCL_SHM_REASON = re.compile(r"Error while creating shared memory segment|posix_fallocate|"
                              r"shm_open")


# What the error itself says NCCL warned last (torch's `Last error:`, XLA's `Last NCCL
# warning(error) log entry (may be unrelated) '…'`): a socket's words, or another reason
_LAST_WARNING = re.compile(r"Last NCCL warning\(error\) log entry[^']*'([^']*)'")
_SOCKET_WORDS = re.compile(r"(?i)socket|connect|accept|\bbind\b|NET/|ibv_")
_OTHER_REASON = re.compile(r"(?i)shared memory|/dev/shm|peer|cuda|out of memory|\bUDS\b")
# A process that crashed or was killed: a system error on a socket after it is its peer's
_A_PEER_DIED = (*_CRASHED, EventKind.CHILD_FAILED_SUMMARY)


def _own_warning(error: Located) -> str:
    """The NCCL WARN an error's record opens with (a return-code trace under its warning)."""
    text = error.event.text
    return text if " NCCL WARN " in text else ""


def _last_error(ctx: Context, error: Located) -> str:
    """What NCCL warned last, as the error carries it: torch's `Last error:` (on the error's
    own record, or on a line of its own below a prefixed one), XLA's quoted last warning."""
    quoted = _LAST_WARNING.search(f"{_message(error)} {error.event.text}")
    return (str(error.event.fields.get("last_error") or "") or (quoted.group(1) if quoted else "")
            or _last_error_below(ctx, error))


def _last_error_below(ctx: Context, error: Located) -> str:
    """NCCL's `Last error:` when a prefix on every line kept it from the error's own record
    (vLLM's `(VllmWorkerProcess pid=3985) ERROR … Last error:`, its reason on the line right
    after it (a blank one between in a double-spaced paste), of the same rank): that line's
    text, or ""."""
    tail = ctx.scans[error.file_index].tail
    for i, line in enumerate(tail[:-1]):
        after = tail[i + 1]
        if (error.event.line <= line.line <= error.event.line + 8
                and line.text.rstrip().endswith("Last error:")
                and after.line - line.line <= 2 and after.rank == line.rank
                # NCCL's own words for its segment, never another writer's note on /dev/shm
                and _NCCL_SHM_REASON.search(after.text) is not None
                and not logged_below_error(after.text)):
            return after.text
    return ""


_NCCL_VERSION = re.compile(r"NCCL version (\d+)\.(\d+)")


def _failed_socket_call(ctx: Context, error: Located, last: str) -> Located | None:
    """The line of NCCL's return-code trace where a system error began in its network code
    (`misc/socket.cc:567 -> 2`, `transport/net_ib.cc:605 -> 2`), before the error in its file;
    None unless that trace is the only reason the log gives. Code 2 is ncclSystemError (a
    socket or verbs call failed); 6 is a peer that closed, 3 NCCL's own error. Before NCCL 2.13
    a peer that closed returned code 2 as well, and so does NCCL's abort of a socket wait (after
    another failure): those, any warning NCCL printed, a reason the error quotes that is not a
    socket's (`last`, what NCCL warned last), and a process that crashed or was killed each
    leave the error unexplained."""
    text = f"{_message(error)} {error.event.fields.get('last_error', '')} {error.event.text}"
    if error.event.fields.get("nccl_code") != "system" and not any(
            w in text for w in ("unhandled system error", "ncclSystemError")):
        return None
    version = _NCCL_VERSION.search(text)
    if version is not None and (int(version[1]), int(version[2])) < (2, 13):
        return None
    if last and (not _SOCKET_WORDS.search(last) or _OTHER_REASON.search(last)):
        return None
    same_file = [i for i in ctx.located if i.file_index == error.file_index
                 and i.event.line <= error.event.line]
    if ctx.of(*_A_PEER_DIED) or any(
            (i.kind in (EventKind.NCCL_WARN, EventKind.NCCL_WARN_NET, EventKind.NCCL_PEER_CLOSED)
             and i.event.level >= Level.WARNING)
            or (i.kind is EventKind.NCCL_NET_CALL_FAILED and i.event.fields.get("abort"))
            for i in same_file):
        return None
    pid = error.event.int_field("pid")
    calls = [c for c in same_file if c.kind is EventKind.NCCL_NET_CALL_FAILED
             and c.event.int_field("code") == 2
             and (pid is None or c.event.int_field("pid") in (None, pid))]
    writers = {(c.event.fields.get("host"), c.event.fields.get("pid")) for c in calls}
    # an error that names no process is explained by one process's trace only
    return calls[0] if calls and (pid is not None or len(writers) == 1) else None


# signals a launcher or a scheduler sends to stop a worker: a stop, not a death of its own
_STOP_SIGNALS = frozenset({"SIGTERM", "SIGINT", "SIGHUP"})


def _died_by_signal_unsaid(ctx: Context, error: Located) -> bool:
    """torchrun's table names a first failure killed by a signal of its own (SIGABRT, SIGSEGV,
    SIGKILL, SIGBUS) whose rank wrote no error before, and the NCCL error is another rank's:
    that process went away, and the peer's `remote process exited` is its consequence,
    whenever the launcher noticed. A rank that wrote an error first (a watchdog's, which then
    aborts), or an error whose rank is not shown, is not one."""
    for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        rank, signal = table.event.fields.get("root_rank"), table.event.fields.get("root_signal")
        if not isinstance(rank, int) or not signal or signal in _STOP_SIGNALS:
            continue
        if error.rank is None or error.rank == rank or error.rank_origin not in GLOBAL_ORIGINS:
            return False
        said = [e for e in ctx.located if e.rank == rank and e.event.level >= Level.ERROR
                and e.kind not in (EventKind.SIGNAL_KILL, EventKind.CHILD_FAILED_SUMMARY,
                                   EventKind.AGENT_WORKER_FAILED)
                and (e.file_index != table.file_index or e.event.line < table.event.line)]
        return not said
    return False


def _exited_first_unreported(ctx: Context, error: Located) -> bool:
    """torchrun's table names as its first failure a rank that exited with a code of its own,
    lists the others, each stopped by the launcher's SIGTERM, and the NCCL error is another
    rank's `remote process exited`; the first rank wrote an error of its own that is neither a
    failed peer or socket nor a wait that ran out (its own aborted communicator). That rank went
    away, and its peers' remote errors are how they saw it, whenever the launcher noticed."""
    if error.event.fields.get("nccl_code") != "remote" or error.rank is None or (
            error.rank_origin not in GLOBAL_ORIGINS):
        return False
    for table in ctx.of(EventKind.CHILD_FAILED_SUMMARY):
        rank, code = table.event.fields.get("root_rank"), table.event.fields.get("root_exitcode")
        if not isinstance(rank, int) or not isinstance(code, int) or code <= 0 or rank == error.rank:
            continue
        others = [e for e in table_entries(table)[1:] if e.get("rank") != rank]
        if not others or any(e.get("signal") != "SIGTERM" for e in others):
            return False
        # (its own error, not a wait that ran out on a peer: that would make it a victim too)
        own = [e for e in ctx.located if e.rank == rank and e.event.level >= Level.ERROR
               and e.kind not in (EventKind.SIGNAL_KILL, EventKind.CHILD_FAILED_SUMMARY,
                                  EventKind.AGENT_WORKER_FAILED, EventKind.WATCHDOG_TIMEOUT,
                                  EventKind.STORE_TIMEOUT, EventKind.HEARTBEAT_HANG)]
        return bool(own) and not any(
            e.kind is EventKind.NCCL_ERROR
            and e.event.fields.get("nccl_code") in ("remote", "system", "internal") for e in own)
    return False


def _cuda_failed(error: Located) -> bool:
    """NCCL's word that a CUDA call failed under it (`unhandled cuda error`)."""
    return error.event.fields.get("nccl_code") == "unhandled_cuda" or any(
        w in f"{_message(error)} {error.event.fields.get('what', '')}"
        for w in ("unhandled cuda error", "ncclUnhandledCudaError"))


# A program's own line that it is connecting to a named endpoint (`worker 6 connecting to shard
# 3 at ps-3.sparse.internal:7070`): where an uncaught connect error's far end is named
_CONNECTING_TO = re.compile(r"(?i)\bconnect(?:ing)? to\b.{0,60}?\b(?:at )?([A-Za-z][\w.-]*:\d{2,5})\b")


def native_network(ctx: Context) -> Finding | None:
    """A C++ exception that ended a process (`terminate called after throwing …`) whose own
    words are the network's (Boost.Asio's `what():  connect: Connection refused`, its resolver's
    `Host not found`): the link, to the endpoint its lines name, never the process's bug."""
    for item in ctx.of(EventKind.CPP_EXCEPTION):
        what = str(item.event.fields.get("what", "")).split(" *** ", 1)[0]
        if words_family(what) is not Family.NETWORK:
            continue
        where = ", ".join(places(what)) or next(
            (m[1] for t in reversed(ctx.scans[item.file_index].tail)
             if 0 < item.event.line - t.line <= 10 and (m := _CONNECTING_TO.search(t.text))),
            "")
        return Finding(
            Category.NETWORK, (), (f"the link to {where}",) if where else (),
            (f"{who(item)} ended on an uncaught {item.event.fields.get('exc_type')}: "
             f"'{what[:120]}' ({item.where}): the network's words",), item,
            ("Check that the endpoint was up and reachable from that node (DNS, firewall, the "
             "service's own log).",),
        )
    return None


def nccl_unexplained(ctx: Context) -> Finding | None:
    """An NCCL system, internal or remote error whose reason no line shows (the rules that
    read a reason, a peer or a CUDA failure come first). An unhandled cuda error is NCCL's
    word that a CUDA call failed under it: the reporting rank's GPU, its reason shown or not."""
    errors = [e for e in ctx.of(EventKind.NCCL_ERROR)
              if e.event.fields.get("nccl_code") in ("system", "internal", "remote",
                                                      "unhandled_cuda")
              # NCCL's own warning that it could not create its segment, with the return
              # codes it passed up (`include/shm.h:48 NCCL WARN Error while creating shared
              # memory segment …`, then `transport/shm.cc:101 -> 2`)
              or _NCCL_SHM_REASON.search(_own_warning(e)) is not None]
    errors += [e for e in ctx.of(EventKind.PYTHON_TRACEBACK)
               if says_nccl_unexplained(str(e.event.fields.get("exc_message", "")))]
    # a C++ program's own report of NCCL's code (`what():  NCCL failure: unhandled cuda error`)
    errors += [e for e in ctx.of(EventKind.CPP_EXCEPTION)
               if "NCCL" in (what := str(e.event.fields.get("what", "")))
               and any(w in what for w in _NCCL_UNEXPLAINED)]
    if not errors:
        return None
    errors.sort(key=Located.order)
    first = first_written(errors)
    # A failed CUDA call is the reporting rank's own GPU; a failed socket or peer is not
    cuda = _cuda_failed(first)
    # (where a CUDA call failed, the ranks it failed on; a peer's remote error after it is
    # that rank's exit as its peers saw it)
    reporters = ctx.global_ranks([e for e in errors if _cuda_failed(e)] if cuda else errors)
    # NCCL's `Last error:` about its shared-memory segment (`Error while creating shared
    # memory segment /dev/shm/nccl-…`, posix_fallocate's ENOSPC): the container's /dev/shm
    # explains the error, whichever code NCCL returned for it (a system error, or with its
    # cuMem host memory an unhandled cuda error); the rank that met it is no culprit
    last = _last_error(ctx, first) or _own_warning(first)
    if not cuda and not _NCCL_SHM.search(last) and (_exits_before(ctx, first)
                                                    or _died_by_signal_unsaid(ctx, first)
                                                    or _exited_first_unreported(ctx, first)):
        return None  # a launcher reported a worker's exit before it: the peer that went away
    if not cuda and platform_stopped(ctx):
        # the platform's own word that it stopped a pod or a node (`Pod was terminated in
        # response to imminent node shutdown`): the peer that went away, read by the lexicon
        return None
    # (a segment it could not open for want of file descriptors is the process's limit, no
    # shortage of /dev/shm)
    if _NCCL_SHM.search(last) and "Too many open files" not in last:
        return Finding(
            Category.INFRASTRUCTURE, (), tuple(filter(None, (_named(None, first),))),
            (f"{who(first)}: NCCL's error ({first.where}) came from its shared-memory "
             f"segment: '{last[:160]}'",), first,
            ("Give the container a larger /dev/shm (--shm-size, a memory-backed emptyDir), "
             "then rerun.",),
        )
    # NCCL's WARN before it may say which CUDA call failed and why (a CUDA IPC handle that
    # would not open between two devices): that is the GPU's failure, not an unknown
    reasons = [w for w in ctx.of(EventKind.NCCL_WARN) if cuda
               and (r := read_line(w.event.text)) is not None and r.family is Family.GPU]
    if reasons:
        reason = reasons[0]
        culprits = tuple(f"rank {r}" for r in reporters) or tuple(
            filter(None, (_named(None, reason),)))
        return Finding(
            Category.GPU_CUDA, reporters, culprits,
            (f"{who(reason)}: {_message(reason)[:160]} ({reason.where}), then NCCL's "
             f"'unhandled cuda error' ({first.where})",), reason,
            ("Check the GPUs named (nvidia-smi topo -m, peer access, the driver's Xid lines); "
             "a CUDA failure inside NCCL is the node's, not the job's code.",),
        )
    failed = _failed_socket_call(ctx, first, last) if not cuda else None
    if failed is not None:
        where = whereabouts(failed)
        return Finding(
            Category.NETWORK, (), (f"the network of {where}" if where else
                                   "the network of the host that wrote it",),
            (f"NCCL's system error ({first.where}) began in a failed call of its network code "
             f"({failed.event.fields.get('source')}, {failed.where}): a socket or verbs call "
             "of this host's failed, and nothing in the log says a peer went away first",),
            failed,
            ("Check the interfaces NCCL may use on that host (NCCL_SOCKET_IFNAME, "
             "NCCL_IB_HCA), that its peers are reachable on them, and rerun with "
             "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET for the failing call's reason.",),
        )
    if not cuda and first.event.fields.get("nccl_code") == "remote":
        # NCCL's remote error says a peer process exited (or the network failed): where one
        # rank of a known world said nothing while the others wait, that rank is the one
        silent = absent_rank(ctx) or silent_file(ctx)
        if silent is not None:
            return replace(silent, evidence=(
                *silent.evidence, f"{who(first)}: NCCL's remote error ({first.where}): a peer "
                "process exited or the network between them failed"))
    said = (first.event.fields.get("message") or first.event.fields.get("exc_message")
            or first.event.text)
    # (a CUDA call's own failure NCCL quotes as its last error: `Cuda failure 'unspecified
    # launch failure'`, the reason as far as the process saw it)
    why = f"; its last error: {last[:120]}" if cuda and "Cuda failure" in last else (
        " with no reason shown")
    # (no rank: the process a CUDA failure's line names, a serving engine's worker by its
    # `(RayWorkerWrapper pid=12455, ip=…)` prefix)
    process = _named(None, first) if cuda and not reporters else None
    return Finding(
        Category.GPU_CUDA if cuda else Category.UNDETERMINED, reporters if cuda else (),
        tuple(f"rank {r}" for r in reporters) if cuda and reporters else (
            (process,) if process else ()),
        (f"{who(first)}: NCCL error '{str(said)[:200]}' ({first.where}){why}"
         + (f"; a CUDA call failed under NCCL on rank(s) {compress_ranks(reporters)}: their "
            "own GPU's failure" if cuda and reporters else
            f"; reported by rank(s) {compress_ranks(reporters)}, which may be the victims"
            if reporters else ""),), first,
        ("Rerun with NCCL_DEBUG=WARN (or INFO): the NCCL WARN line before the error names the "
         "failing system call, peer or link.",),
    )


def mpi_peer_lost(ctx: Context) -> Finding | None:
    """Open MPI: a peer process disconnected without finalising. The peer's failure is the
    cause (Open MPI says so); its host is named, the reason is in its own output."""
    lost = [e for e in ctx.of(EventKind.MPI_PEER_LOST)
            if e.event.fields.get("peer_host") is None and not e.event.fields.get("daemon")]
    if not lost:
        return None
    first = lost[0]
    hosts = [e.event.fields["peer_host"] for e in ctx.of(EventKind.MPI_PEER_LOST)
             if e.file_index == first.file_index and e.event.fields.get("peer_host")
             and 0 < e.event.line - first.event.line <= 40]  # the help text is 13 lines
    peer = f"the peer process on {hosts[0]}" if hosts else ""
    return Finding(
        Category.UNDETERMINED, (), (peer,) if peer else (),
        (f"Open MPI: {peer or 'a peer process'} disconnected unexpectedly ({first.where}); "
         "its crash or exit is the cause, and these logs do not show it",), first,
        ("Read the output of the peer's ranks on that host (and its kernel log): a crash, an "
         "OOM kill or an exit without MPI_Finalize.",),
    )


def nccl_connect_refused(ctx: Context) -> Finding | None:
    """NCCL retrying a refused connect, once a second for the same process, and nothing after
    it: the peer's listening socket is not there (the peer died, or a firewall or the wrong
    interface). Recovered retries are followed by the job's progress and do not count."""
    retries = ctx.of(EventKind.NCCL_CONNECT_RETRY)
    per_process = Counter(_retrying_process(r) for r in retries)
    # a connect that timed out waited its timeout before each retry: two are long enough
    timed_out = Counter(_retrying_process(r) for r in retries
                        if "timed out" in str(r.event.fields.get("error")))
    # a process whose communicator came up after its retries connected in the end
    came_up = {_retrying_process(i) for i in ctx.of(EventKind.NCCL_INIT)
               if i.event.fields.get("phase") == "COMPLETE"
               and any(_retrying_process(r) == _retrying_process(i)
                       and r.event.line < i.event.line for r in retries)}
    stuck = [k for k, n in per_process.items()
             if (n >= _STILL_REFUSED or timed_out[k] >= _STILL_TIMING_OUT) and k not in came_up]
    if not stuck:
        return None
    last = retries[-1]
    if any(p.file_index == last.file_index and p.event.line > last.event.line
           for p in ctx.of(EventKind.PROGRESS)):
        return None
    first = next(r for r in retries if _retrying_process(r) in stuck)
    f = first.event.fields
    local = f"{f.get('host')} GPU {f.get('cuda_dev')} (pid {f.get('pid')})"
    error = str(f.get("error") or "Connection refused")
    address = (f"{f.get('peer')}<{f.get('peer_port')}>" if f.get("peer_port") is not None
               else f.get("peer"))
    peer = (f"{address}, " if address else "") + (
        "a peer that refuses connections" if "refused" in error else
        f"a peer it cannot connect to ({error})")
    return Finding(
        Category.NETWORK, (), (f"{local} <-> {peer}" + ("" if address else " (address not shown)"),),
        (f"{local}: NCCL's connect fails again and again ({error}; "
         f"{per_process[stuck[0]]} retry lines from {first.where}) and the log ends there",),
        first,
        ("Run with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,NET to see the address it "
         "connects to; check that the peer is alive, that NCCL_SOCKET_IFNAME picks a routable "
         "interface, and that no firewall blocks the ports.",),
    )


# NCCL INFO's return-code trace reaching the communicator's set-up (`init.cc:1350 -> 2`,
# `bootstrap.cc:270 -> 2`, `group.cc:65 -> 2 [Async thread]`)
_INIT_TRACE = re.compile(r"NCCL INFO (?:\S*/)?init\.cc:\d+ -> 2\b")
# the same process's word that its communicator came up after all, or went down before
_COMM_CAME_UP = re.compile(r"NCCL INFO .*\bInit COMPLETE\b")
_COMM_WENT_DOWN = re.compile(r"NCCL INFO .*\b(?:Destroy|Abort) COMPLETE\b")


def _init_failed(ctx: Context, call: Located) -> bool:
    """The trace of a failed call that went up to the communicator's init (`init.cc:N -> 2`),
    from a process that neither brought a communicator up after it (`Init COMPLETE`) nor was
    tearing one down or training before it (a trace at the job's end)."""
    own = f":{call.event.fields.get('pid')}:"  # `host:pid:tid [dev] NCCL INFO`
    tail = ctx.scans[call.file_index].tail
    if any(p.file_index == call.file_index and p.event.line < call.event.line
           for p in ctx.of(EventKind.PROGRESS)):
        return False
    if any(own in t.text and ((t.line > call.event.line and _COMM_CAME_UP.search(t.text))
                              or (t.line < call.event.line and _COMM_WENT_DOWN.search(t.text)))
           for t in tail):
        return False
    return any(t.line > call.event.line and own in t.text and _INIT_TRACE.search(t.text)
               for t in tail)


def nccl_init_trace(ctx: Context) -> Finding | None:
    """NCCL's INFO trace of a system error that began in its socket or verbs code and went up
    to the communicator's set-up, where the logs show nothing else: no NCCL error or warning,
    no crash, no exception (a paste that kept only the trace). A socket or verbs call of that
    host failed NCCL's init. Before NCCL 2.13 a peer that closed returned the same code, and
    an abort of a socket wait is another failure's consequence: neither counts."""
    calls = [c for c in ctx.of(EventKind.NCCL_NET_CALL_FAILED)
             if c.event.int_field("code") == 2 and not c.event.fields.get("abort")]
    if not calls or ctx.of(EventKind.NCCL_ERROR, EventKind.NCCL_WARN, EventKind.NCCL_WARN_NET,
                           EventKind.NCCL_PEER_CLOSED, EventKind.PYTHON_TRACEBACK,
                           *_A_PEER_DIED):
        return None
    if any(c.event.fields.get("abort") for c in ctx.of(EventKind.NCCL_NET_CALL_FAILED)):
        return None
    for scan in ctx.scans:
        for line in scan.tail:
            version = _NCCL_VERSION.search(line.text)
            if version is not None and (int(version[1]), int(version[2])) < (2, 13):
                return None
    reached = [c for c in calls if _init_failed(ctx, c)]
    if not reached:
        return None
    first = reached[0]
    where = whereabouts(first)
    hosts = sorted({str(c.event.fields.get("host")) for c in reached if c.event.fields.get("host")})
    return Finding(
        Category.NETWORK, (), (f"the network of {_some(tuple(hosts))}" if hosts else
                               (f"the network of {where}" if where else
                                "the network of the host that wrote it"),),
        (f"NCCL's return-code trace ({first.where}) shows a system error that began in its "
         f"network code ({first.event.fields.get('source')}) and went up to the "
         "communicator's set-up: a socket or verbs call of this host failed NCCL's init, and "
         "nothing in the logs says a peer went away first",),
        first,
        ("Check the interfaces NCCL may use on that host (NCCL_SOCKET_IFNAME, NCCL_IB_HCA), "
         "that its peers are reachable on them, and rerun with NCCL_DEBUG=WARN for the "
         "failing call's reason.",),
    )


def _retrying_process(item: Located) -> tuple[int, object, object]:
    """Which process a retry line is from: its file, NCCL's host and pid."""
    return item.file_index, item.event.fields.get("host"), item.event.fields.get("pid")


# retry lines from one process: three seconds of refusals (NCCL 2.19 and later sleep 100 ms
# more before each try, so three of theirs are longer still)
_STILL_REFUSED = 3


_STILL_TIMING_OUT = 2  # each waited a connect timeout first


_WELL_BEFORE_THE_WAIT_ENDED = 300.0


def _connect_retried_past(ctx: Context, item: Located) -> bool:
    """A store connect the client logged as a warning, which it retries (`[W socket.cpp:663]
    [c10d] The client socket has failed to connect to [host]:29500 (errno: 99 - …)`: the
    pattern table reads that line at WARNING), and then got past: the job's progress follows
    in the same file."""
    if item.event.level is not Level.WARNING:
        return False
    if "errno: 97 -" in item.event.text or ("IPv6 network addresses of (" in item.event.text
                                             and "IPv6 network addresses of ([" not in
                                             item.event.text):
        # (c10d's try of the host's IPv6 address, or its lookup, where it has none: routine;
        # its IPv4 lookup that failed is an error of its own, and an IPv6 address that does
        # not resolve has no IPv4 one to fall back on)
        return True
    if trained_after(ctx, item.file_index, item.event.line):
        return True
    if others_trained_past(ctx, item.file_index, item.event.line):
        return True
    if _ended_by_own_exception(ctx, item):
        return True
    # ... or the store's server counted clients that joined (`3/4 clients joined`) while this
    # client's file shows no connect of its own that failed for good: it joined after them
    joins = [e for e in ctx.of(EventKind.STORE_TIMEOUT) if (e.event.int_field("joined") or 0) > 0]
    # (its refusals must have stopped well before the store gave up waiting: a client refused
    # to the end is the one that never joined)
    last = max((e for e in ctx.of(EventKind.STORE_TIMEOUT, EventKind.CONNECTION_ERROR)
                if e.file_index == item.file_index and e.event.level is Level.WARNING),
               key=lambda e: e.event.line, default=item)
    joined = any(j.time is not None and last.time is not None
                 and last.time < j.time - _WELL_BEFORE_THE_WAIT_ENDED for j in joins)
    return joined and not any(
        e.file_index == item.file_index and e.event.line > item.event.line
        and e.event.level >= Level.ERROR for e in ctx.of(
            EventKind.STORE_TIMEOUT, EventKind.CONNECTION_ERROR, EventKind.PYTHON_TRACEBACK))


# what an exception says when it is the store's or the network's own failure, not the job's
_NETWORK_SAID = re.compile(r"(?i:time[ds]? ?out|connect|socket|refused|unreachable|reset by peer|"
                           r"\bstore\b|rendezvous|network|address)")


def _ended_by_own_exception(ctx: Context, item: Located) -> bool:
    """The file's process went on to raise an exception of its own that is no store or network
    failure (`RuntimeError: use_libuv was requested but PyTorch was built without libuv
    support`): the client's connect warnings above it were retries under way when that
    exception ended the process, not the failure."""
    return any(e.file_index == item.file_index and e.event.line > item.event.line
               and e.event.level >= Level.ERROR
               and (exc := str(e.event.fields.get("exc_type") or ""))
               and not any(w in exc for w in _COLLATERAL) and "Timeout" not in exc
               and not _NETWORK_SAID.search(f"{exc} {e.event.fields.get('exc_message', '')}")
               for e in ctx.of(EventKind.PYTHON_TRACEBACK))


# a client's word, at any level, that a connect it made failed (gRPC's subchannel `Connect
# failed: {… "os_error":"Connection refused" … "target_address":"ipv4:10.0.1.4:14417"}`,
# logged at INFO since it tries again)
_CONNECT_FAILED = re.compile(r"\b(?:[Cc]onnect(?:ion)? (?:failed|refused|timed out)|[Ff]ailed to "
                             r"connect\b|No route to host|Network is unreachable)")
_CONNECT_TARGET = re.compile(r'"?target_address"?\s*[:=]\s*"?(?:ipv[46]:)?(?P<ep>[\w.\-:\[\]]+)')
# what a client goes on to say while it tries again (`Retry in 998 milliseconds`, `Failed to
# connect to channel, retrying`, TF's `CreateSession still waiting for response from worker`)
_STILL_TRYING = re.compile(r"(?i)\bretry(?:ing)?\b|\bstill waiting\b|\btrying again\b")
_CONNECTS_TO_THE_END = 2
# a job at work, besides training: a server answering (`"POST /v1/chat/completions HTTP/1.1"
# 200 OK`, Uvicorn's start, vLLM's throughput lines)
_AT_WORK = re.compile(r"\bHTTP/\d(?:\.\d)?\" 200\b|\b200 OK\b|\bUvicorn running on\b|"
                      r"\bApplication startup complete\b|\bthroughput: \d")  # failed connects to one endpoint, the last lines of their file


def barrier_completed(ctx: Context, item: Located) -> bool:
    """A wait in c10d's store-based barrier that its own later word says completed (`Rank 0:
    Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes.`)."""
    return item.event.fields.get("phase") == "barrier_wait" and any(
        t.line > item.event.line and "Completed store-based barrier" in t.text
        for t in ctx.scans[item.file_index].tail)


def connects_to_the_end(ctx: Context) -> Finding | None:
    """The last resort's last word: a client that kept failing to connect to one endpoint
    (logged below error, as it tries again), where its file ends in those tries, with no
    connect made and no training in any file, and nothing else failed: the job never got
    past reaching that endpoint. Two tries, or one and the client's word that it retries."""
    at_work: bool | None = None  # the job trained or served somewhere (read once, if needed)
    for index, scan in enumerate(ctx.scans):
        tries: dict[str, list[int]] = {}
        for tail in scan.tail:
            if _CONNECT_FAILED.search(tail.text) is None:
                continue
            target = _CONNECT_TARGET.search(tail.text)
            endpoint = target["ep"] if target is not None else next(
                (w for w in places(tail.text) if ":" in w), "")
            if endpoint:
                tries.setdefault(endpoint, []).append(tail.line)
        for endpoint, lines in tries.items():
            last = lines[-1]
            host = endpoint.rsplit(":", 1)[0].strip("[]")
            after = [t for t in scan.tail if t.line > last]
            if ((len(lines) < _CONNECTS_TO_THE_END and not after)
                    or any(_STILL_TRYING.search(t.text) is None for t in after)
                    or connected_after(ctx, index, last, host)):
                continue
            if at_work is None:
                at_work = (any(trained_after(ctx, i, 0) for i in range(len(ctx.scans)))
                           or any(_AT_WORK.search(t.text) for s in ctx.scans for t in s.tail))
            if at_work:
                return None
            first = lines[0]
            return Finding(
                Category.NETWORK, (), (f"the endpoint {endpoint}",),
                (f"{scan.path}:{first}-{last}: {len(lines)} connects to {endpoint} failed and "
                 "were tried again, and the log ends there: no connect made, no training "
                 "after",), None,
                (f"Check that the process that should listen at {endpoint} started and is "
                 "reachable from this host (its address, the port, a firewall).",),
            )
    return None


# A store's server that could not listen: its port is held (`… failed to listen on any local
# network address. port: 29500, … name: EADDRINUSE`, the older `failed to bind to [::]:29500
# (errno: 98 - Address already in use)`)
_PORT_IN_USE = re.compile(r"EADDRINUSE|[Aa]ddress already in use")
_HELD_PORT = re.compile(r"\bport: (\d+)\b|\bbind to \S*?:(\d+) ")
# A command line that starts a distributed launch (as `bash -x` or a prompt shows it)
_LAUNCH_COMMAND = re.compile(r"^(?:\S{0,60}[$#] |\+{1,3} )(?!export |echo )\S*"
                             r"(?:torchrun|torch\.distributed\.(?:run|launch)|accelerate launch|"
                             r"deepspeed|python\S*)\b")


def port_held_by_own_launch(ctx: Context) -> Finding | None:
    """A store that could not listen on its port (EADDRINUSE) where the same file shows the
    job itself starting on that port before: two launch commands naming the port (`+ torchrun
    --master_port 29500 …` twice), or an init on it (`tcp://127.0.0.1:2333`) that ran (its
    progress follows) and then another init on the same port. The job's own earlier launch
    holds the port: its set-up, not the network's. One launch alone is the network rules'."""
    for item in ctx.of(EventKind.PYTHON_TRACEBACK):
        said = f"{item.event.fields.get('exc_type', '')}: {item.event.fields.get('exc_message', '')}"
        held = _HELD_PORT.search(said) if _PORT_IN_USE.search(said) else None
        if held is None:
            continue
        port = next(g for g in held.groups() if g)
        on_port = re.compile(rf"tcp://[\w.\-\[\]:]*?:{port}\b|"
                             rf"(?:master[_-]port|MASTER_PORT|rdzv[_-]endpoint)\W{{1,3}}(?:[\w.\-]+:)?{port}\b")
        scan = ctx.scans[item.file_index]
        lines = dict(scan.head_commands)
        lines.update((t.line, t.text) for t in scan.tail)
        before = sorted(n for n, text in lines.items()
                        if n < item.event.line and on_port.search(text))
        commands = [n for n in before if _LAUNCH_COMMAND.search(lines[n])]
        ran_between = len(before) >= 2 and any(
            before[0] < t.line < before[-1] and training_line(t) for t in scan.tail)
        if len(commands) < 2 and not ran_between:
            continue
        return Finding(
            Category.SOFTWARE, (), (f"the job's own earlier launch on port {port}",),
            (f"{who(item)}: {item.event.fields.get('exc_type')}: the store could not listen on "
             f"port {port}, already in use ({item.where}); the same file started the job on "
             f"port {port} before (lines {', '.join(map(str, before[:4]))})",), item,
            ("Give each launch its own port (--master_port, MASTER_PORT, tcp://host:port), or "
             "destroy the first process group before starting another on the same port.",),
        )
    return None

"""The line envelope: prefixes stripped, ranks attributed, tqdm damage repaired."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.parse.envelope import line_rank, split_envelope, visible_segment

GLOG = "[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught"


@pytest.mark.parametrize(
    ("line", "rank", "local_rank", "host", "prefixes", "payload"),
    [
        (f"[rank3]:{GLOG}", 3, None, None, ("rank",), GLOG),
        ("[rank0]: Traceback (most recent call last):", 0, None, None, ("rank",),
         "Traceback (most recent call last):"),
        (f"[default3]:[rank3]:{GLOG}", 3, 3, None, ("torchrun", "rank"), GLOG),
        ("[1,0]<stderr>:Traceback (most recent call last):", 0, None, None, ("mpirun",),
         "Traceback (most recent call last):"),
        ("[1,0]<stderr>:[1,0]<stderr>:Traceback (most recent call last):", 0, None, None,
         ("mpirun", "mpirun"), "Traceback (most recent call last):"),
        (f"[alphagpu12:5]:[rank5]:{GLOG}", 5, 5, "alphagpu12", ("accelerate", "rank"), GLOG),
        (f"202.197.0.170: [rank1]:{GLOG}", 1, None, "202.197.0.170", ("pdsh", "rank"), GLOG),
        (f"2026-09-18 19:29:24 [rank3]:{GLOG}", 3, None, None, ("date", "rank"), GLOG),
        (f"  | 2024-08-23T22:22:51.871Z | [rank2]:{GLOG}", 2, None, None,
         ("cloudwatch", "rank"), GLOG),
        (f"[1784] [rank0]:{GLOG}", 0, None, None, ("line_number", "rank"), GLOG),
        # stern's coloured pod and container; `aws logs tail`'s time and log stream
        (f"\x1b[32mllm-master-0\x1b[0m \x1b[36mpytorch\x1b[0m [rank3]:{GLOG}", 3, None, None,
         ("stern", "rank"), GLOG),
        (f"2024-05-14T03:10:30.2+00:00 llm-pt-123/algo-2-1715652669 [rank3]:{GLOG}", 3, None,
         None, ("date", "log_stream", "rank"), GLOG),
        (f"2024-05-14T15:10:00+0000 gpu-node-14 python[2211]: [rank3]:{GLOG}", 3, None,
         "gpu-node-14", ("date", "journald", "rank"), GLOG),
        ("[2024-03-18 17:38:50,208] torch.distributed.elastic.multiprocessing.api: [ERROR] "
         "failed", None, None, None, ("timestamp",),
         "torch.distributed.elastic.multiprocessing.api: [ERROR] failed"),
        ("Mar 18 17:38:50 gpu017 kernel: NVRM: Xid (PCI:0000:dc:00): 79, GPU has fallen off",
         None, None, "gpu017", ("journald",), "kernel: NVRM: Xid (PCI:0000:dc:00): 79, GPU has "
         "fallen off"),
        # a program's own journal lines: its name and pid stripped, the job's line kept
        ("May  1 12:00:00 gpu-node-3 python[12345]: [rank0]: Traceback (most recent call last):",
         0, None, "gpu-node-3", ("journald", "rank"), "Traceback (most recent call last):"),
        (f"\x1b[36m(RayWorkerWrapper pid=4009, ip=10.0.0.7)\x1b[0m [rank1]:{GLOG}", 1, None,
         "10.0.0.7", ("ray", "rank"), GLOG),
        # an actor's given name, Ray Data's operator with its class, Ray before 1.0's bare pid
        ("(model_worker/12 pid=43581, ip=10.208.16.54) NET/IB : Got completion", None, None,
         "10.208.16.54", ("ray",), "NET/IB : Got completion"),
        ("(MapBatches(Tokenize) pid=777, ip=10.0.0.1) Traceback (most recent call last):", None,
         None, "10.0.0.1", ("ray",), "Traceback (most recent call last):"),
        ("(pid=15183) Traceback (most recent call last):", None, None, None, ("ray",),
         "Traceback (most recent call last):"),
        # SkyPilot's node tag (its rank is the node's), a viewer's stamp then a tab, a stamp
        # with its zone's name
        (f"(worker1, rank=1, pid=4888, ip=10.60.0.4) [rank9]:{GLOG}", 9, None, None,
         ("skypilot", "rank"), GLOG),
        (f"2024-05-01 12:00:00.123\t[rank2]:{GLOG}", 2, None, None, ("date", "rank"), GLOG),
        (f"2024-05-01 12:00:00.123 UTC [rank2]:{GLOG}", 2, None, None, ("date", "rank"), GLOG),
        # SageMaker's mpirun tag (the rank and its host); Airflow's relay of a task's output
        ("[1,mpirank:3,algo-2]<stdout>:Traceback (most recent call last):", 3, None, "algo-2",
         ("mpirun",), "Traceback (most recent call last):"),
        (f"[2024-05-01, 12:00:00 UTC] {{subprocess.py:93}} INFO - [rank1]:{GLOG}", 1, None, None,
         ("airflow", "rank"), GLOG),
        ("[2024-05-01 12:00:00,123] {pod_manager.py:466} INFO - [base] RuntimeError: boom", None,
         None, None, ("airflow",), "RuntimeError: boom"),
        ("[2022-06-09T09:22:31.405196Z] 8de2ca81 ||   rank      : 0 (local_rank: 0)", None, None,
         None, ("timestamp", "determined"), "  rank      : 0 (local_rank: 0)"),
        (f"[2022-06-09T09:22:31.405196Z] 8de2ca81 [rank=1] || {GLOG}", 1, None, None,
         ("timestamp", "determined"), GLOG),
        ("a || b: not a container id", None, None, None, (), "a || b: not a container id"),
    ],
)
def test_prefixes_are_stripped_and_attributed(
    line: str, rank: int | None, local_rank: int | None, host: str | None,
    prefixes: tuple[str, ...], payload: str,
) -> None:
    """Every launcher/shipper prefix is removed, outermost first, and says who wrote the line."""
    env = split_envelope(line)
    assert (env.rank, env.local_rank, env.host, env.prefixes, env.payload) == (
        rank, local_rank, host, prefixes, payload)


@pytest.mark.parametrize(("line", "engine", "stamp"), [
    ("[2025-02-21 22:59:28 TP0] Scheduler hit an exception: Traceback (most recent call last):",
     "TP0", "2025-02-21 22:59:28"),
    ("[2025-03-02 10:01:07 DP1 TP3] Load weight end.", "DP1 TP3", "2025-03-02 10:01:07"),
    ("[2025-03-02 10:01:07 TP0 EP0] Decode batch. #running-req: 1", "TP0 EP0",
     "2025-03-02 10:01:07"),
    ("[2025-03-02 10:01:07] Decode batch. #running-req: 1", None, "2025-03-02 10:01:07"),
    ("[2025-03-02 10:01:07 rank0] not an engine's tag", None, None),
])
def test_an_inference_engine_s_process_tag_names_the_process(
        line: str, engine: str | None, stamp: str | None) -> None:
    """SGLang writes which of its processes logged a line after the date: kept as the
    engine's process (never a rank: a tensor-parallel index inside one server)."""
    env = split_envelope(line)
    assert (env.engine_process, env.timestamp, env.rank) == (engine, stamp, None)


def test_tqdm_bar_glued_before_a_rank_line_is_cut_and_kept() -> None:
    """A progress bar written without newline glues onto the next line: the anchor is found
    anywhere and the bar is kept apart as `glued`."""
    bar = "99%|█████████▉| 23054/23316 [2:22:47<01:34,  2.79it/s]"
    env = split_envelope(f"{bar}[rank1]:{GLOG}")
    assert (env.rank, env.glued, env.payload) == (1, bar, GLOG)
    assert line_rank(f"{bar}[rank1]:{GLOG}") == 1


def test_glued_bar_without_rank_prefix_is_cut_before_the_glog_header() -> None:
    """Before torch 2.2 there is no `[rankN]:`; the bar is still separated from the message."""
    bar = "Creating dataset split:  96%|█████████▋| 1927287/2000000 [29:56<01:08, 1060.83it/s]"
    line = f"{bar}[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught collective"
    env = split_envelope(line)
    assert (env.rank, env.glued, env.payload) == (
        None, bar, "[E ProcessGroupNCCL.cpp:474] [Rank 1] Watchdog caught collective")


def test_carriage_return_redraws_keep_the_last_visible_segment() -> None:
    """tqdm redraws with \\r; what a terminal finally shows is the last non-empty segment."""
    line = f" 10%|#  | 1/10 [00:01<00:09]\r 20%|## | 2/10 [00:02<00:08]\r[rank2]:{GLOG}\r\n"
    assert visible_segment(line) == f"[rank2]:{GLOG}"
    env = split_envelope(line)
    assert (env.rank, env.payload) == (2, GLOG)


def test_ray_repeat_suffix_is_counted() -> None:
    """Ray folds duplicates into `[repeated Nx across cluster]`: stripped and counted."""
    env = split_envelope("(WorkerDict pid=231421) [rank1]:boom [repeated 14x across cluster]")
    assert (env.rank, env.payload, env.repeat) == (1, "boom", 14)


def test_ambiguous_prefixes_are_only_stripped_when_enabled() -> None:
    """`3: ...` (srun --label) and `host: ...` (pdsh) look like payloads; off by default."""
    assert split_envelope("3: hello").payload == "3: hello"
    env = split_envelope("  3: hello", srun_label=True)
    assert (env.task, env.payload, env.attributed) == (3, "hello", (3, "task"))
    assert split_envelope("srun: error: gpu1: task 0: Killed").payload.startswith("srun:")
    env = split_envelope("gpu-node7: [rank4]:x", host_prefix=True)
    assert (env.host, env.rank, env.payload) == ("gpu-node7", 4, "x")
    # a stream's name is a tag but no host, and the tag is stripped once: the exception's
    # type after it stays in the payload
    env = split_envelope("stderr: RuntimeError: boom", host_prefix=True)
    assert (env.host, env.prefixes, env.payload) == (None, ("stream",), "RuntimeError: boom")


def test_plain_lines_take_the_fast_path_unchanged() -> None:
    """A line with no envelope comes back as its own payload with nothing attributed."""
    line = "gpu017:12345:12390 [3] NCCL INFO Channel 05/0 : 3[3] -> 4[4] via P2P/IPC/read"
    env = split_envelope(line)
    assert (env.payload, env.rank, env.prefixes, env.attributed) == (line, None, (), (None, None))
    assert line_rank(line) is None


@given(st.text(max_size=300))
def test_any_text_splits_without_error(text: str) -> None:
    """Hostile or random input never raises, and the payload comes from the input."""
    env = split_envelope(text)
    assert isinstance(env.payload, str)
    assert len(env.payload) <= len(text)
    line_rank(text)


def test_google_clouds_replica_stream_names_the_replica_as_the_host() -> None:
    env = split_envelope("ERROR 2023-02-07T10:23:09.442Z workerpool1-1 requests.exceptions."
                         "ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443)")
    assert (env.host, env.prefixes, env.timestamp) == ("workerpool1-1", ("gcloud",),
                                                       "2023-02-07T10:23:09.442Z")
    assert env.payload.startswith("requests.exceptions.ConnectionError: ")
    # the platform's own voice names no replica; a bare severity word is no envelope
    assert split_envelope("ERROR 2019-03-11 14:03:02 service Job failed.").host is None
    assert split_envelope("ERROR: something failed").prefixes == ()


@pytest.mark.parametrize(("line", "stamp", "payload"), [
    ("[Sun Nov 29 03:58:12 2026] Memory cgroup out of memory: Killed process 20371 (python3)",
     "2026-11-29 03:58:12", "Memory cgroup out of memory: Killed process 20371 (python3)"),
    ("[Thu Feb  6 07:01:02 2025] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
     "2025-02-06 07:01:02", "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."),
])
def test_dmesg_wall_clock_stamp_gives_the_line_its_time(line: str, stamp: str,
                                                        payload: str) -> None:
    """`dmesg -T` writes ctime's form; the stamp is read, the kernel's line kept."""
    env = split_envelope(line)
    assert (env.timestamp, env.prefixes, env.payload) == (stamp, ("dmesg",), payload)

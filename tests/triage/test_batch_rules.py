"""Rules learned from the public corpus's tuning halves, each checked on the real lines that
taught it (tests/data/corpus_public) and on what must not change with it."""

from __future__ import annotations

import json
from pathlib import Path

from monitor.model import Category
from monitor.parse.log_events import EventExtractor, EventKind
from monitor.triage.analysis import diagnose
from monitor.triage.reader import read_inputs
from tests.triage.texts import triage_texts

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus_public"


def triage(name: str):  # type: ignore[no-untyped-def]
    scans, problems, _ = read_inputs([str(CORPUS / name)])
    return diagnose(scans, problems)


def test_a_lone_exception_line_is_the_rank_error_in_triage_but_not_live() -> None:
    line = (CORPUS / "nan-gradnorm-rank2-nemo-14348.log").read_text().splitlines()[0]
    live, post_mortem = EventExtractor(), EventExtractor(bare_exceptions=True)
    live_events = live.feed(line, 0) + live.flush()
    triage_events = post_mortem.feed(line, 0) + post_mortem.flush()
    assert not [e for e in live_events if e.kind is EventKind.PYTHON_TRACEBACK]
    (event,) = [e for e in triage_events if e.kind is EventKind.PYTHON_TRACEBACK]
    assert event.rank == 2 and event.fields["exc_type"] == "RuntimeError"
    diagnosis = triage("nan-gradnorm-rank2-nemo-14348.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (2,))


def test_missing_ranks_in_a_stall_report_are_the_culprits() -> None:
    diagnosis = triage("horovod-missing-rank0-534.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (0,))


def test_gloo_transport_timeouts_are_collective_symptoms_not_startup_or_bugs() -> None:
    diagnosis = triage("gloo-recv-timeout-pipedream39.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_an_agent_exit_code_names_the_local_rank_without_calling_it_global() -> None:
    diagnosis = triage("torchrun-exit1-local5-pytorch-88251.log")
    assert diagnosis.category is Category.UNDETERMINED and diagnosis.culprit_ranks == ()
    assert any("local_rank 5" in c and "59469" in c for c in diagnosis.culprits)


def test_a_killed_dataloader_worker_is_oom_only_with_oom_evidence() -> None:
    diagnosis = triage("dataloader-worker-killed-dcpdn.log")
    assert diagnosis.category is Category.UNDETERMINED
    assert any("19597" in c for c in diagnosis.culprits)


def test_a_store_that_cannot_be_reached_is_the_network_not_the_jobs_bug() -> None:
    diagnosis = triage("store-connect-timeout-distributed-tutorial-3.log")
    assert diagnosis.category is Category.NETWORK


def test_a_tag_on_every_line_is_stripped_like_a_runner_prefix() -> None:
    from monitor.triage.reader import has_line_tag

    tagged = (CORPUS / "torchrun-table-exit1-llamafactory-701.log").read_bytes()
    assert has_line_tag(tagged)  # every line starts with `stderr: `
    diagnosis = triage("torchrun-table-exit1-llamafactory-701.log")
    assert diagnosis.category is Category.UNDETERMINED and diagnosis.culprit_ranks == ()
    kernel = (Path(__file__).resolve().parent.parent / "data" / "logs" /
              "26-kernel-xid45-after-nvlink-xid145-149.log").read_bytes()  # fmt: skip
    assert not has_line_tag(kernel)  # `kernel:` opens the kernel's own lines
    assert not has_line_tag(b"RuntimeError: a\n" * 10)  # exception lines are payloads
    assert not has_line_tag(b"gpu1: x\ngpu1: y\n")  # too few lines to tell


def test_an_ib_completion_error_from_a_link_local_peer_is_the_network() -> None:
    diagnosis = triage("network-nccl-928-ib-error4.log")
    assert diagnosis.category is Category.NETWORK
    assert any("%ib0" in c for c in diagnosis.culprits)


def test_a_store_barrier_the_job_never_left_is_an_init_timeout_but_not_a_slow_start(
    tmp_path: Path,
) -> None:
    assert triage("init-storebarrier-accelerate-1401.log").category is Category.INIT_TIMEOUT
    # The same real waiting lines followed by real training steps: a start that took a while.
    waits = (CORPUS / "init-storebarrier-accelerate-1401.log").read_text()
    steps = (Path(__file__).resolve().parent.parent / "data" / "logs" /
             "34-megatron-iteration-progress-slow-healthy.log").read_text()  # fmt: skip
    (tmp_path / "job.log").write_text(waits + steps)
    scans, problems, _ = read_inputs([str(tmp_path / "job.log")])
    assert diagnose(scans, problems).category is not Category.INIT_TIMEOUT
    # Live, the waiting lines never page: ranks still joining print them too.
    from monitor.detectors.log_events import route

    extractor = EventExtractor()
    events = [e for i, line in enumerate(waits.splitlines()) for e in extractor.feed(line, i)]
    assert events and all(route(e) is None for e in events)


def test_deepspeeds_exit_line_names_a_local_rank_only_for_a_single_worker() -> None:
    single = triage("deepspeed-launcher-return-code-9-ds3232.log")
    assert any("local_rank 0" in c and "13266" in c for c in single.culprits)
    several = triage("launcher-dsexamples-626-exit11.log")  # two workers: the line shows the last
    assert several.category is Category.UNDETERMINED and several.culprits == ()


def test_ddp_unused_parameters_blame_the_rank_they_name() -> None:
    diagnosis = triage("ddp-unused-tuneavideo-78-rank0.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (0,))


def test_ddp_unused_parameters_live_name_the_rank_too() -> None:
    from monitor.detectors.log_events import route

    lines = (CORPUS / "ddp-unused-tuneavideo-78-rank0.log").read_text().splitlines()
    extractor = EventExtractor()
    events = [e for i, line in enumerate(lines) for e in extractor.feed(line, i)]
    events += extractor.flush()
    unused = [e for e in events if e.kind is EventKind.DDP_MISMATCH]
    assert all(route(e) == "DdpModelMismatch" for e in unused)


def test_c10d_socket_warnings_never_page_live() -> None:
    """c10d prints "waitForInput … timed out" as a warning its caller may retry; triage reads
    it as a rendezvous that never completed, the live path waits for the store's exception."""
    from monitor.detectors.log_events import route

    lines = (CORPUS / "rdzv-wait-msswift-3343.log").read_text().splitlines()
    waits = [line for line in lines if "waitForInput" in line]
    extractor = EventExtractor()
    events = [e for i, line in enumerate(waits) for e in extractor.feed(line, i)]
    assert events and all(route(e) is None for e in events)
    assert triage("rdzv-wait-msswift-3343.log").category is Category.INIT_TIMEOUT



def test_a_kernel_oom_report_is_placed_by_the_lines_that_continue_it() -> None:
    # `python invoked oom-killer` names no pid; the kernel's next lines do (`CPU: 6 PID: …`)
    diagnosis = triage("oom-dali-585-oom-killer.log")
    assert diagnosis.category is Category.OOM
    assert any("208253" in c for c in diagnosis.culprits)


def test_a_wrapped_line_is_read_to_its_end_for_the_place() -> None:
    diagnosis = triage("oom-ray-wmpo-3-memory-pressure.log")
    assert diagnosis.category is Category.OOM
    assert any("172.24.0.226" in c for c in diagnosis.culprits)


def test_a_continuation_stops_at_the_next_failure(tmp_path: Path) -> None:
    # the next line is a failure of its own: its place is not the first line's
    lines = (CORPUS / "oom-dali-585-oom-killer.log").read_text().splitlines()
    text = "\n".join([lines[0], "RuntimeError: peer 10.0.0.7 failed", *lines[1:]]) + "\n"
    assert not any("10.0.0.7" in c for c in triage_texts(tmp_path, text).culprits)


def test_ray_low_memory_detail_takes_the_dead_actors_node() -> None:
    diagnosis = triage("ray-28778-actor-oom-memory-monitor.log")
    assert diagnosis.category is Category.OOM
    assert any("172.31.41.244" in c and "1412" in c for c in diagnosis.culprits)


def test_a_mismatch_report_cut_short_still_pairs_its_two_ranks() -> None:
    # rank 0 reports rank 1; rank 5's report is cut inside rank 0's fingerprint
    diagnosis = triage("collective-desync-deepspeed-7044-shape.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (0,))


def test_a_proxy_connect_that_failed_here_is_the_network() -> None:
    diagnosis = triage("network-megatron-lm-792-proxy-connect.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.NETWORK, ())


def test_a_proxy_connect_the_peer_closed_is_not_a_network_fault_here() -> None:
    # retcode 6 is NCCL's remote error; a peer that closed its end may be why a connect
    # failed: the peer went away, and why is not shown
    for name in ("undetermined-mosaicdiffusion-110-peer-closed.log",
                 "undetermined-nccl-952-proxy-connect.log",
                 "network-nccl-914-proxy-connect-closed.log"):
        assert triage(name).category is Category.UNDETERMINED, name


def test_a_checkpoint_path_that_already_exists_is_storage() -> None:
    diagnosis = triage("storage-dle-1092-symlink-exists.log")
    assert diagnosis.category is Category.STORAGE_IO


def test_a_gpu_oom_without_a_rank_names_the_process_its_wrapped_message_lists() -> None:
    diagnosis = triage("oom-everyvoice-178-srun-cuda-oom.log")
    assert diagnosis.category is Category.OOM
    assert any("pid 307065" in c for c in diagnosis.culprits)


def test_a_watchdog_line_cut_by_the_paste_still_names_its_collective() -> None:
    # both lines end inside NumelIn: the timeout is still read, and blames no one
    diagnosis = triage("olmo-846-watchdog-allgather.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())
    assert "149489" in diagnosis.summary


def test_a_go_dial_that_timed_out_is_the_network_and_names_the_endpoint() -> None:
    diagnosis = triage("kubelet-dial-timeout-mpijob-61.log")
    assert diagnosis.category is Category.NETWORK
    assert any("HOSTIP:10250" in c for c in diagnosis.culprits)


def test_ddp_reports_that_contradict_each_other_blame_no_rank() -> None:
    # rank 7 says rank 0 has 0 params; rank 0 says it has 448 and rank 1 has 0
    diagnosis = triage("transformers-26724-ddp-param-mismatch.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, ())


def test_memory_at_its_cgroup_limit_names_the_worker_killed_beside_it() -> None:
    diagnosis = triage("oom-radfm-30-cgroup.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.OOM, ())
    assert any("process 2" in c for c in diagnosis.culprits)


def test_a_collective_that_timed_out_in_its_wait_is_not_the_jobs_own_bug() -> None:
    # `all_reduce` → `work.wait()` → `RuntimeError: Operation timed out!` on two workers
    diagnosis = triage("undetermined-espnet-2673-allreduce-timed-out.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_ranks_that_reached_the_monitored_barrier_blame_no_one_without_rank_0s_report() -> None:
    diagnosis = triage("desync-cosyvoice-1727-monitored-barrier-join.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())
    assert "5-7" in diagnosis.summary


def test_rank_0s_monitored_barrier_report_still_names_the_missing_ranks() -> None:
    line = "RuntimeError: [Rank 0]: Ranks 4, 5 failed to pass monitoredBarrier in 30000 ms"
    other = ("RuntimeError: Rank 1 successfully reached monitoredBarrier, but received errors "
             "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.")
    extractor = EventExtractor(bare_exceptions=True)
    events = extractor.feed(other, 1) + extractor.feed(line, 2) + extractor.flush()
    assert [e.fields.get("ranks") for e in events if e.kind is EventKind.MONITORED_BARRIER
            and e.fields.get("ranks")] == ["4, 5"]


def test_srun_that_could_not_launch_tasks_names_every_node_it_failed_on() -> None:
    diagnosis = triage("srun-pcluster-4179-task-launch-timeout.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.INFRASTRUCTURE, ())
    (named,) = diagnosis.culprits
    assert "compute-od-gpu-st-p4d-24xlarge-33" in named and "1 more" in named


def test_a_launchers_warnings_after_an_oom_are_not_its_continuation(tmp_path: Path) -> None:
    # torchrun's `Sending process N closing signal` lines name the peers it stops
    diagnosis = triage_texts(tmp_path, (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 3129 closing "
        "signal SIGTERM\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 3130 closing "
        "signal SIGTERM\n"))
    assert diagnosis.category is Category.OOM
    assert not any("3129" in c or "3130" in c for c in diagnosis.culprits)


def test_a_wrapped_oom_listing_two_gpu_processes_names_neither(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a\n"
        "total capacity of 79.10 GiB of which 1.2 GiB is free. Process 1111 has 40.00\n"
        "GiB memory in use. Process 2222 has 37.80 GiB memory in use.\n"))
    assert diagnosis.category is Category.OOM
    assert not any("1111" in c or "2222" in c for c in diagnosis.culprits)


def test_the_task_that_invoked_the_oom_killer_is_not_its_victim(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "[100.1] node_exporter invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE)\n"
        "[100.1] CPU: 6 PID: 1122 Comm: node_exporter Not tainted 5.15.0 #1\n"
        "[100.2] Out of memory: Killed process 4455 (python) total-vm:100kB\n"))
    assert diagnosis.category is Category.OOM
    assert any("4455" in c for c in diagnosis.culprits)
    assert not any("1122" in c for c in diagnosis.culprits)


def test_a_peer_the_launcher_killed_is_not_the_oom_victim(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "memory: usage 117964800kB, limit 117964800kB, failcnt 12\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Unable to shutdown process 3129 "
        "via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 2 "
        "(pid: 3131) of binary: /usr/bin/python\n"))
    assert not any("3129" in c for c in diagnosis.culprits)
    assert any("3131" in c for c in diagnosis.culprits)


def test_a_proxy_connect_beside_a_cuda_failure_is_not_the_network(tmp_path: Path) -> None:
    diagnosis = triage_texts(tmp_path, (
        "gpu-a:1234:1300 [3] transport/p2p.cc:275 NCCL WARN Cuda failure 'operation not "
        "permitted'\n"
        "gpu-a:1234:1300 [3] proxy.cc:1519 NCCL WARN [Proxy Service 3] Failed to execute "
        "operation Connect from rank 3, retcode 1\n"))
    assert diagnosis.category is not Category.NETWORK


def test_a_warning_after_a_failure_is_a_record_of_its_own(tmp_path: Path) -> None:
    # a logger's WARNING that no pattern knows is not the rest of the kernel's OOM report
    diagnosis = triage_texts(tmp_path, (
        "memory: usage 117964800kB, limit 117964800kB, failcnt 12\n"
        "WARNING:root:heartbeat from node gpu-17 is late\n"))
    assert diagnosis.category is Category.OOM
    assert not any("gpu-17" in c for c in diagnosis.culprits)


# --- batch 16 ------------------------------------------------------------------------------

def test_an_exception_line_whose_only_event_is_a_lost_connection_is_a_failed_job() -> None:
    # gloo's `RuntimeError: … Read error …: Connection reset by peer` after a two-hour stall
    diagnosis = triage("undet-rvc-1882-gloo-reset-by-peer.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_a_grpc_socket_closed_is_a_lost_peer_not_the_jobs_bug() -> None:
    diagnosis = triage("tf-mwms-models-9109-socket-closed.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_gloo_that_cannot_resolve_its_own_host_name_is_the_network(tmp_path: Path) -> None:
    diagnosis = triage("dns-pipedream-32-gloo-unable-find-address.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.NETWORK, ())
    assert any("dgx-1.ai" in c and "own address" in c for c in diagnosis.culprits)


def test_a_verbs_call_that_failed_without_a_reason_is_the_network() -> None:
    # NCCL before 2.9: `ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed`
    diagnosis = triage("net-tf-51760-ibv-create-qp-srun.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.NETWORK, ())


def test_paddles_launcher_names_the_aborted_trainer_rank() -> None:
    diagnosis = triage("undetermined-paddle-33074-abort-rank3.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, (3,))


def test_a_container_released_on_a_lost_node_is_infrastructure() -> None:
    diagnosis = triage("infra-tony-468-container-lost-node.log")
    assert diagnosis.category is Category.INFRASTRUCTURE


# --- batch 17 ------------------------------------------------------------------------------

def test_a_failing_line_whose_only_event_is_a_warning_is_still_read_by_the_lexicon() -> None:
    # `Failed to modify QP to RTR: Connection timed out`: a counted connection error, and the
    # RDMA connection set-up that failed
    diagnosis = triage("network-uccl-641-qp-rtr-timeout.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.NETWORK, ())


def test_a_failure_table_cut_after_its_root_cause_still_names_that_rank() -> None:
    diagnosis = triage("undet-speculators-1115-npu-childfailed.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, (1,))
    assert any("cut off" in f for f in diagnosis.findings)


def test_a_pods_status_as_yaml_saying_oomkilled_is_an_oom() -> None:
    diagnosis = triage("oom-kuberay-4287-head-oomkilled.log")
    assert diagnosis.category is Category.OOM


def test_mpich_names_the_pid_of_the_process_that_terminated_badly() -> None:
    diagnosis = triage("undet-jukebox-155-mpiexec-bad-termination.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())
    assert any("9665" in c for c in diagnosis.culprits)


def test_slurmctld_recording_a_job_killed_by_a_signal_is_a_failed_job() -> None:
    diagnosis = triage("undet-arjuna-137-slurmctld-wtermsig9.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_mxnets_dataloader_worker_timeout_is_a_dataloader_stall() -> None:
    diagnosis = triage("dlstall-mxnet-18224-gluon-worker-timeout.log")
    assert diagnosis.category is Category.DATALOADER_STALL


def test_two_reporters_in_the_same_collective_naming_one_other_rank_make_it_the_odd_one(
        tmp_path: Path) -> None:
    name = "collective-desync-lightning-19045-checkpoint-broadcast.log"
    diagnosis = triage(name)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (0,))
    # reporters that do not run the same collective disagree with each other as well: no rank
    text = (CORPUS / name).read_text().replace(
        "Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=152517",
        "Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=152516")
    apart = triage_texts(tmp_path, text)
    assert (apart.category, apart.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())


def test_one_report_of_a_mismatch_blames_neither_side() -> None:
    diagnosis = triage("collective-desync-sglang-13227-broadcast-seqnum.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())


def test_a_line_after_a_logger_name_that_opens_with_the_rank_places_it_on_its_node() -> None:
    diagnosis = triage("software-megatron-lm-5026-nan-rank3.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (3,))
    assert diagnosis.culprits == ("rank 3 (core-ci-test-1779833921-task-1-0)",)


def test_gloo_that_cannot_connect_its_full_mesh_is_the_network_not_the_jobs_bug() -> None:
    diagnosis = triage("gloo-connect-timeout-dmlcloud-47.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.NETWORK, ())


def test_amds_kernel_driver_errors_are_the_gpu(tmp_path: Path) -> None:
    diagnosis = triage("gpu-rocm-2494-amdgpu-sq-intr-multicard.log")
    assert diagnosis.category is Category.GPU_CUDA
    # the driver loading is no failure
    quiet = triage_texts(tmp_path, "[    2.118] [drm] amdgpu kernel modesetting enabled.\n"
                                   "[    2.120] amdgpu: Topology: Add CPU node\n")
    assert quiet.category is Category.NONE


def test_a_preemption_named_as_one_possibility_is_no_preemption() -> None:
    diagnosis = triage("jax-heartbeat-t5x-archobj-26.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())
    assert any("task:37" in c for c in diagnosis.culprits)


def test_ranks_killed_by_one_signal_in_one_second_have_no_first_failure(tmp_path: Path) -> None:
    name = "undet-openocr-71-sigbus-both-ranks.log"
    diagnosis = triage(name)
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())
    assert any("ranks 0-1 were all killed by SIGBUS" in f for f in diagnosis.findings)
    # a second apart, the launcher's first failure is the first
    text = (CORPUS / name).read_text().replace("time      : 2024-12-31_16:45:52\n  host      : "
                                               "server\n  rank      : 1",
                                               "time      : 2024-12-31_16:45:53\n  host      : "
                                               "server\n  rank      : 1")
    assert "16:45:53" in text
    apart = triage_texts(tmp_path, text)
    assert apart.culprit_ranks == (0,)


def test_a_store_connection_that_broke_is_a_lost_store_not_the_network() -> None:
    """`RuntimeError: Broken pipe` under a RendezvousConnectionError: the store was reached
    and went away; a store that could not be reached stays the network."""
    diagnosis = triage("undet-store-brokenpipe-wespeaker-171.log")
    assert (diagnosis.category, diagnosis.culprits) == (Category.UNDETERMINED, ())
    assert "connection to the store broke" in diagnosis.summary


def test_a_host_name_ssh_cannot_resolve_is_named() -> None:
    diagnosis = triage("net-dns-ssh-volcano-2226.log")
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprits == (
        "the host name lm-horovod-job-worker-5.lm-horovod-job (it does not resolve)",)


def test_the_peer_a_failed_connect_names_is_the_link() -> None:
    """Open MPI's `peer: NAME`, its failed `connect() to ADDR failed`, an RPC agent's
    `request #0 to NAME: ECONNREFUSED`: the other end, by name or address."""
    named = {"net-mpi-tcp-noroute-mlx-2540.log": "the link to melchior, 192.168.68.53",
             "net-mpi-tcp-connect-mpi4py-11.log": "the link to 169.254.140.13:1026",
             "net-rpc-econnrefused-tensorpipe-201.log": "the link to Test1"}
    for name, culprit in named.items():
        diagnosis = triage(name)
        assert (diagnosis.category, diagnosis.culprits) == (Category.NETWORK, (culprit,)), name


def test_a_kernel_gpu_drivers_engine_reset_is_the_gpu_named_by_its_address() -> None:
    diagnosis = triage("gpu-intel-computeruntime-944-xe-engine-reset.log")
    assert (diagnosis.category, diagnosis.culprits) == (Category.GPU_CUDA,
                                                        ("the GPU at 0000:3d:00.0",))


def test_a_machine_powered_off_under_the_job_is_a_stop_from_outside_named_by_syslog(
        tmp_path: Path) -> None:
    diagnosis = triage("infra-translations-400-gcp-spot-poweroff.log")
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == (
        "translations-1-b-linux-v100-gpu-4-1tb-fqyy7djjszsfazxznsdfna-1",)
    # a syslog line's host is the node of the failure it reports (Xid, OOM killer)
    kernel = triage_texts(tmp_path, "Jan 30 10:33:08 gpu-node-17 kernel: NVRM: Xid "
                                    "(PCI:0000:3b:00): 79, GPU has fallen off the bus.\n")
    assert kernel.category is Category.GPU_CUDA


def test_a_host_the_launcher_could_not_ssh_into_is_named_and_the_network_only_when_ssh_says(
        tmp_path: Path) -> None:
    """DeepSpeed's `host=NAME was not reachable via ssh` after ssh's exit status 255: any
    failure of ssh itself. With ssh's own `No route to host` it is the network's."""
    diagnosis = triage("undet-ssh-255-hpcac-1.log")
    assert (diagnosis.category, diagnosis.culprits) == (
        Category.UNDETERMINED, ("host gadi-gpu-v100-0011 (not reachable via ssh)",))
    text = (CORPUS / "undet-ssh-255-hpcac-1.log").read_text(encoding="utf-8")
    routed = triage_texts(tmp_path, "ssh: connect to host gadi-gpu-v100-0011 port 22: No route "
                                    "to host\n" + text)
    assert (routed.category, routed.culprits) == (
        Category.NETWORK, ("host gadi-gpu-v100-0011 (ssh: No route to host)",))


def test_a_device_wait_that_timed_out_on_ascend_is_a_hang_symptom_not_the_jobs_bug() -> None:
    diagnosis = triage("hccl-vllmascend-1443-sync-timeout.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())


def test_nccls_unhandled_cuda_error_in_any_stacks_words_is_the_gpu() -> None:
    """PaddlePaddle's `what(): unhandled cuda error at nccl_helper.h` and XLA's `NCCL
    operation ncclCommInitRank(...) failed: unhandled cuda error`."""
    for name in ("gpu-paddle-18576-nccl-unhandled-cuda.log", "gpu-jax-17399-ncclcomminit.log"):
        assert triage(name).category is Category.GPU_CUDA, name


def test_a_json_lines_log_is_read_by_its_text_field(tmp_path: Path) -> None:
    """A runner's JSON records (`{"event": "line", "data": "…\\n"}`) and Docker's json-file
    (`{"log": "…\\n", "stream": "stderr"}`) are read as the lines they carry; torch on ROCm
    says HIP where it says CUDA."""
    diagnosis = triage("gpu-milabench-397-hip-launch-failure.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.GPU_CUDA, (1,))
    scans, _, _ = read_inputs([str(CORPUS / "gpu-milabench-397-hip-launch-failure.log")])
    assert any("JSON log" in note for note in scans[0].notes)
    lines = (CORPUS / "srun-deit-102-task5-exit1.log").read_text(encoding="utf-8").splitlines()
    docker = "".join(json.dumps({"log": line + "\n", "stream": "stderr",
                                 "time": "2024-05-01T12:00:00.000000000Z"}) + "\n"
                     for line in lines)
    shipped = triage_texts(tmp_path, docker)
    assert (shipped.category, shipped.culprit_ranks) == (triage(
        "srun-deit-102-task5-exit1.log").category, (5,))


def test_a_log_viewers_json_array_is_read_oldest_first(tmp_path: Path) -> None:
    """A viewer's download (Cloud Logging's JSON array, pretty-printed, newest first) is read
    as the lines its records carry, in the order of their times."""
    lines = (CORPUS / "srun-deit-102-task5-exit1.log").read_text(encoding="utf-8").splitlines()
    records = [{"textPayload": line, "severity": "INFO", "resource": {"type": "k8s_container"},
                "timestamp": f"2024-05-14T09:{i // 60:02d}:{i % 60:02d}.000000000Z"}
               for i, line in enumerate(lines)]
    exported = triage_texts(tmp_path, json.dumps(records[::-1], indent=2))
    assert (exported.category, exported.culprit_ranks) == (triage(
        "srun-deit-102-task5-exit1.log").category, (5,))
    scans, _, _ = read_inputs([str(tmp_path / "part0.log")])
    assert scans[0].lines == len(lines)  # one line per record, not the JSON's own lines
    assert [t.text for t in scans[0].tail][-1] == lines[-1].strip()  # the newest last


def test_an_error_without_a_rank_is_the_launchers_one_failed_worker(tmp_path: Path) -> None:
    """A CUDA OOM whose lines show no rank, and torchrun's agent reporting one failed worker:
    that worker ran out of memory. With two failed workers neither is named."""
    diagnosis = triage("oom-flagembedding-709-torchrun.log")
    assert diagnosis.category is Category.OOM
    assert diagnosis.culprits[0].startswith("local_rank 0 (pid 358104), the launcher's one")
    text = (CORPUS / "oom-flagembedding-709-torchrun.log").read_text(encoding="utf-8")
    second = ("[2024-04-20 18:56:38,932] torch.distributed.elastic.multiprocessing.api: [ERROR] "
              "failed (exitcode: 1) local_rank: 1 (pid: 358105) of binary: /usr/bin/python3\n")
    two = triage_texts(tmp_path, text + second)
    assert not any("local_rank" in c for c in two.culprits)


def test_a_cuda_error_after_another_processs_cut_report_names_no_first_rank(
        tmp_path: Path) -> None:
    """The paste opens inside a C++ report whose head (and writer) was cut off, then rank 0's
    watchdog reports the same CUDA error: another process's came first, unnamed."""
    diagnosis = triage("cuda-illegal-flux-40-multinode.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.GPU_CUDA, ())
    assert "which rank failed first is not shown" in diagnosis.summary
    # the same report without the cut one before it names its rank
    lines = (CORPUS / "cuda-illegal-flux-40-multinode.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("[rank0]:"))
    alone = triage_texts(tmp_path, "".join(lines[start:]))
    assert (alone.category, alone.culprit_ranks) == (Category.GPU_CUDA, (0,))


def test_a_missing_file_is_the_jobs_bug_not_the_storage() -> None:
    """Two ranks racing to remove one checkpoint, a rename of a file another rank moved: the
    storage did what it was asked."""
    for name in ("sw-dolly-28-ckpt-rmtree-race.log", "sw-mosaicstreaming-868-rank0-rename.log"):
        assert triage(name).category is Category.SOFTWARE, name


def test_nccl_connects_that_time_out_again_and_again_are_the_network(tmp_path: Path) -> None:
    diagnosis = triage("net-oneflow-3586-nccl-connect-timedout.log")
    assert diagnosis.category is Category.NETWORK
    assert "Connection timed out" in diagnosis.culprits[0]
    # one timed-out retry is not yet a failure
    lines = (CORPUS / "net-oneflow-3586-nccl-connect-timedout.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    once = [line for line in lines if "retrying" not in line]
    once.append(next(line for line in lines if "retrying" in line))
    assert triage_texts(tmp_path, "".join(once)).category is not Category.NETWORK


def test_horovods_stall_report_one_rank_a_line(tmp_path: Path) -> None:
    """Several stalled ranks, each missing others' tensors: a desync with no culprit; one
    stalled rank alone is the culprit."""
    diagnosis = triage("desync-automl-563-hvd-stalled-ranks.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())
    lines = (CORPUS / "desync-automl-563-hvd-stalled-ranks.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    one = [line for line in lines if not line.startswith("[1,0]<stderr>:1: [")]
    single = triage_texts(tmp_path, "".join(one))
    assert (single.category, single.culprit_ranks) == (Category.COLLECTIVE_DESYNC, (0,))


def test_mp_spawns_report_names_the_worker_whose_exception_ended_the_job(
        tmp_path: Path) -> None:
    """`-- Process 1 terminated with the following error:` then the worker's exception: that
    worker is named by its spawn index, never taken for a global rank. Two workers named in
    one file name neither; an exception above the report is not that worker's."""
    diagnosis = triage("sw-edgeyolo-20-spawn-process1-assert.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, ())
    assert diagnosis.culprits == ("spawned worker process 1",)
    text = (CORPUS / "sw-edgeyolo-20-spawn-process1-assert.log").read_text(encoding="utf-8")
    two = triage_texts(tmp_path, text + "\n-- Process 0 terminated with the following error:\n"
                       "AssertionError\n")
    assert two.culprits == ()
    earlier = triage_texts(tmp_path, "KeyError: 'lr'\n\n" + text.replace("AssertionError", "."))
    assert earlier.culprits == ()


def test_a_store_connection_that_broke_while_fetching_nccls_id_is_no_startup_timeout() -> None:
    """`store->get('0') got error: Connection reset by peer`: the store answered, then went
    away; nothing timed out, and the reset does not say whether rank 0 died or the link did."""
    diagnosis = triage("undet-llava-930-store-get-reset.log")
    assert diagnosis.category is Category.UNDETERMINED
    assert "its connection to the store broke" in diagnosis.summary


def test_a_proxy_connect_after_a_local_rank_went_silent_is_not_the_network() -> None:
    """NCCL's proxy thread could not hear from a rank of its own node, then a connect failed:
    that process went away, which says nothing of the network. The report still says which
    error nothing explains."""
    diagnosis = triage("undet-hugectr-433-nccl-proxy-recv.log")
    assert diagnosis.category is Category.UNDETERMINED
    assert "no rule explains it" in diagnosis.summary
    assert "Failed to execute operation Connect" in diagnosis.summary


def test_grpcs_failed_connect_is_the_network_toward_the_remote_target_it_names() -> None:
    """`failed to connect to all addresses` (TensorFlow's parameter servers over gRPC), the far
    end named on the failing line under it."""
    diagnosis = triage("net-tf-57760-ps-failed-connect-all.log")
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprits == ("the link to /job:ps/replica:0/task:0",)


def test_shutdowns_and_deadlines_that_follow_another_failure_are_not_the_jobs_bug() -> None:
    """Horovod's `has been shut down` (after some rank's exception) and gRPC's
    DEADLINE_EXCEEDED from JAX's coordination service raise in the job's code, and say only
    that someone else stopped answering."""
    for name in ("hvd-shutdown-openpai-2730.log", "undetermined-cleanrl-338-jax-coord-shutdown.log"):
        assert triage(name).category is Category.UNDETERMINED, name


def test_a_glog_check_is_the_frameworks_assertion_unless_it_carries_a_lost_peer() -> None:
    assert triage("software-oneflow-6953-rpc-check-failed.log").category is Category.SOFTWARE
    reset = triage("undetermined-paddle-8876-pserver-conn-reset.log")
    assert reset.category is Category.UNDETERMINED
    assert any("10.89.199.23" in c for c in reset.culprits)


def test_machine_level_words_of_other_stacks() -> None:
    """A port already bound (BytePS's scheduler), UCX's retry count on an HCA, a raylet's full
    disk, a raylet's memory-pressure kill wrapped by the paster, Paddle's container report."""
    cases = {
        "network-byteps-353-scheduler-bind.log": (Category.NETWORK, None),
        "network-ucx-9590-retry-exceeded.log": (Category.NETWORK, "mlx5_0"),
        "diskfull-rlinf-304-raylet-tmp.log": (Category.STORAGE_IO, "10.0.1.36"),
        "oom-raymemmonitor-vllm-1160-tp4.log": (Category.OOM, "10.0.167.26"),
        "sigkill-paddleocr-11773-launch-container.log": (Category.UNDETERMINED,
                                                         "Container rank 0"),
    }
    for name, (category, place) in cases.items():
        diagnosis = triage(name)
        assert diagnosis.category is category, name
        assert place is None or any(place in c for c in diagnosis.culprits), (name, diagnosis.culprits)


def test_nccls_last_error_about_the_machine_explains_its_system_error(tmp_path: Path) -> None:
    """`unhandled system error` whose `Last error:` is NCCL failing to create its /dev/shm
    segment: the container's shared memory, not an unknown. A last error that names nothing
    of the machine leaves it unexplained."""
    diagnosis = triage("infra-vllm-14537-nccl-shm-segment.log")
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert "/dev/shm" in diagnosis.summary
    lines = (CORPUS / "infra-vllm-14537-nccl-shm-segment.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    other = triage_texts(tmp_path, "".join(
        "Call to recv failed : Connection reset by peer\n" if "shared memory" in line else line
        for line in lines))
    assert other.category is Category.UNDETERMINED
    assert "shared-memory" not in other.summary


def test_a_ray_actors_own_line_before_its_creation_failed_says_why(tmp_path: Path) -> None:
    """A gRPC server the actor could not bind (`Cannot assign requested address`, deep in a
    long JSON line), then the actor died in its creation task: the network, the actor named.
    Without that line the death stays unexplained."""
    diagnosis = triage("network-alpa-701-xla-server-bind.log")
    assert diagnosis.category is Category.NETWORK
    assert diagnosis.culprits[0].startswith("Ray task ProfileWorker.__init__ (pid 1920")
    lines = (CORPUS / "network-alpa-701-xla-server-bind.log").read_text(
        encoding="utf-8").splitlines(keepends=True)
    assert triage_texts(tmp_path, "".join(lines[1:])).category is Category.UNDETERMINED


def test_an_own_exception_is_not_hidden_by_the_store_heartbeat_every_survivor_prints(
        tmp_path: Path) -> None:
    """torch >= 2.3's `Failed to check the "should dump" flag on TCPStore … got 0 bytes` is
    printed by every rank still alive after any rank died: the rank that raised first is
    still the story."""
    diagnosis = triage_texts(tmp_path, (
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]:   File \"train.py\", line 9, in <module>\n"
        "[rank0]:     cfg['lr']\n"
        "[rank0]: KeyError: 'lr'\n"
        "[rank1]:[W625 23:35:35.311127584 ProcessGroupNCCL.cpp:1662] [PG ID 0 PG GUID "
        "0(default_pg) Rank 1] Failed to check the \"should dump\" flag on TCPStore, (maybe "
        "TCPStore server has shut down too early), with error: failed to recv, got 0 bytes\n"))
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.SOFTWARE, (0,))


def test_a_store_connect_that_timed_out_is_the_network_when_the_paste_starts_below_its_header(
        tmp_path: Path) -> None:
    """`RuntimeError: Connection timed out` under `store = TCPStore(master_addr, …)`, the
    traceback's header cut off: the frames above it still say it was the store's connect."""
    diagnosis = triage("transformers-1795-tcpstore-conn-timeout.log")
    assert diagnosis.category is Category.NETWORK
    bare = triage_texts(tmp_path, "  File \"train.py\", line 3, in main\n"
                        "    run()\nRuntimeError: Connection timed out\n")
    assert bare.category is not Category.NETWORK


def test_other_accelerators_memory_and_runtime_errors_are_theirs_not_the_jobs_bug() -> None:
    """Habana's PT_DEVMEM allocation, Intel's Level Zero and Unified Runtime results, in an
    exception or a oneCCL line: out of memory, or the device's error, never `software`."""
    habana = triage("oom-optimum-habana-2214-hpu-devmem.log")
    assert (habana.category, habana.culprit_ranks) == (Category.OOM, (7,))
    xpu = triage("xpu-ipex-838-ur-out-of-resources.log")
    assert (xpu.category, xpu.culprit_ranks) == (Category.GPU_CUDA, (0,))
    ccl = triage("oom-torch-ccl-65-ze-device-memory.log")
    assert ccl.category is Category.OOM
    assert any("202165" in c for c in ccl.culprits)


def test_slurms_memory_limit_kill_is_out_of_memory_on_the_node_it_cancelled(
        tmp_path: Path) -> None:
    """slurmstepd's `Job N exceeded memory limit (… > …), being killed` (also without its
    `error:` tag), then `*** JOB N ON node CANCELLED AT …`: the job's memory limit, not a
    cancel from outside."""
    for name, node in (("oom-coquistt-2238-slurm-memlimit.log", "xantipa"),
                       ("oom-adeptrl-13-slurm-memlimit.log", "cuda-24-0")):
        diagnosis = triage(name)
        assert diagnosis.category is Category.OOM, name
        assert diagnosis.culprits == (f"node {node} (the job's memory limit)",), name
    cancelled = triage_texts(tmp_path, "slurmstepd: *** JOB 7 ON n1 CANCELLED AT "
                             "2018-10-16T13:24:27 ***\n")
    assert cancelled.category is Category.INFRASTRUCTURE
    # another job's cancel names no node for this job's kill
    other = triage_texts(tmp_path, "slurmstepd: *** JOB 100 ON nodeA CANCELLED AT "
                         "2018-10-16T13:24:27 ***\nslurmstepd: Job 200 exceeded memory limit "
                         "(18202456 > 16384000), being killed\n")
    assert other.category is Category.OOM
    assert not any("nodeA" in c for c in other.culprits)
    # printed on jobs that end well too: no kill, no page
    fine = triage_texts(tmp_path, "Epoch 3 done\nslurmstepd: error: Exceeded step memory limit "
                        "at some point.\n")
    assert fine.category is not Category.OOM


def test_a_clouds_termination_notice_names_the_machine_that_logged_it() -> None:
    diagnosis = triage("spot-translations-1067-gcp-preempt.log")
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("translations-1-b-linux-v100-gpu-4-1tb-zjc9cutks-akaqwot-p0nw",)


def test_a_c_plus_plus_programs_report_of_nccls_unhandled_cuda_error_is_the_gpu() -> None:
    """`terminate called … what():  NCCL failure: unhandled cuda error in …cu at line: 86
    rank: 0` on both ranks of an MPI benchmark: a CUDA call failed under NCCL, no rank first."""
    diagnosis = triage("deepbench-97-nccl-mpi-allreduce-unhandled-cuda.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.GPU_CUDA, ())


def test_exceptions_that_only_follow_a_kill_are_not_the_jobs_bug(tmp_path: Path) -> None:
    """mp.spawn's `process 0 terminated with signal SIGKILL`, then Python's report of an
    exception it ignored in a `__del__` and a spawned child that could not unpickle its
    start-up data: the kill is the story, its cause not shown."""
    diagnosis = triage("yolox-593-two-gpu-spawn-sigkill.log")
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.culprits == ("process 0",)
    own = triage_texts(tmp_path, "Traceback (most recent call last):\n"
                       "  File \"train.py\", line 3, in <module>\n    del self.imgs\n"
                       "AttributeError: imgs\n")
    assert own.category is Category.SOFTWARE


def test_a_tensors_shared_memory_file_that_could_not_be_written_is_dev_shm() -> None:
    """`unable to write to file </torch_4740_…>: No space left on device` from a worker's
    queue: the node's /dev/shm filled, not a disk."""
    diagnosis = triage("fairseq-5032-share-fd-no-space.log")
    assert diagnosis.category is Category.INFRASTRUCTURE


def test_an_agents_exit_barrier_that_timed_out_is_no_startup_timeout() -> None:
    diagnosis = triage("skypilot-825-exit-barrier-socket-timeout.log")
    assert diagnosis.category is Category.UNDETERMINED


def test_xlas_resource_exhausted_allocation_is_the_devices_memory() -> None:
    diagnosis = triage("torchxla-8020-tpu-pod-hbm-oom-worker3.log")
    assert diagnosis.category is Category.OOM


def test_two_ranks_at_one_seqnum_in_different_collectives_are_a_desync_when_one_pg_is_named(
        tmp_path: Path) -> None:
    """Rank 7 times out in BROADCAST #80078 (its status line names PG 0), rank 3 in ALLREDUCE
    #80078 with no status line: the logs name one group, so both are its, and they disagree.
    With a second group named, rank 3's collective may be that group's: nothing is merged."""
    diagnosis = triage("nccl-1409-seqnum-broadcast-vs-allreduce.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())
    text = (CORPUS / "nccl-1409-seqnum-broadcast-vs-allreduce.log").read_text(encoding="utf-8")
    other_group = ("    [rank5]:[E816 01:45:40.184373931 ProcessGroupNCCL.cpp:1664] [PG 3 Rank 1] "
                   "Exception (either an error or timeout) detected by watchdog at work: 12, last "
                   "enqueued NCCL work: 12, last completed NCCL work: 11.\n")
    assert triage_texts(tmp_path, text + other_group).category is not Category.COLLECTIVE_DESYNC


def test_an_own_exceptions_category_follows_only_memory_or_an_accelerators_result(
        tmp_path: Path) -> None:
    """Host memory in any words is out of memory; an accelerator's runtime result is the
    device's; a job's assertion that merely mentions NVML is still the job's."""
    def raised(line: str) -> Category:
        return triage_texts(tmp_path, "Traceback (most recent call last):\n  File \"t.py\", "
                            f"line 1, in <module>\n    f()\n{line}\n").category
    assert raised("MemoryError") is Category.OOM
    assert raised("RuntimeError: UR backend failed. UR backend returns:39 "
                  "(UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)") is Category.OOM
    assert raised("AssertionError: NVML must be initialised before calling it") is (
        Category.SOFTWARE)


def test_only_a_parents_loss_or_an_ignored_del_is_aftermath(tmp_path: Path) -> None:
    """A spawned child's own bug while importing `__main__` (the missing `if __name__ ==
    '__main__':`) and a real exception right after an ignored `__del__` report stay the
    job's."""
    bootstrap = triage_texts(tmp_path, (
        "Traceback (most recent call last):\n"
        "  File \"<string>\", line 1, in <module>\n"
        "  File \"/usr/lib/python3.10/multiprocessing/spawn.py\", line 116, in spawn_main\n"
        "    exitcode = _main(fd, parent_sentinel)\n"
        "  File \"/usr/lib/python3.10/multiprocessing/spawn.py\", line 125, in _main\n"
        "    prepare(preparation_data)\n"
        "RuntimeError: An attempt has been made to start a new process before the current "
        "process has finished its bootstrapping phase.\n"))
    assert bootstrap.category is Category.SOFTWARE
    after_del = triage_texts(tmp_path, (
        "Exception ignored in: <function Loader.__del__ at 0x7f>\n"
        "Traceback (most recent call last):\n"
        "  File \"loader.py\", line 9, in __del__\n"
        "    self.close()\n"
        "AttributeError: close\n"
        "Traceback (most recent call last):\n"
        "  File \"train.py\", line 3, in <module>\n"
        "    main()\n"
        "ValueError: bad learning rate\n"))
    assert after_del.category is Category.SOFTWARE


def test_a_guessed_group_yields_to_evidence_and_never_names_a_culprit(tmp_path: Path) -> None:
    """Three ranks at SeqNum 2, the third in another collective and its group unnamed: a
    desync with no culprit, and an IB error in the same logs is the story instead."""
    lines = (
        "[rank0]:[E1 00:00:01.0 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=2, OpType=BROADCAST, NumelIn=8, NumelOut=8, "
        "Timeout(ms)=600000) ran for 600026 milliseconds before timing out.\n"
        "[rank0]:[E1 00:00:01.0 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 0] Exception "
        "(either an error or timeout) detected by watchdog at work: 2, last enqueued NCCL work: "
        "2, last completed NCCL work: 1.\n"
        "[rank1]:[E1 00:00:01.0 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=2, OpType=BROADCAST, NumelIn=8, NumelOut=8, "
        "Timeout(ms)=600000) ran for 600026 milliseconds before timing out.\n"
        "[rank2]:[E1 00:00:01.0 ProcessGroupNCCL.cpp:607] [Rank 2] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=64, NumelOut=64, "
        "Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n")
    guessed = triage_texts(tmp_path, lines)
    assert (guessed.category, guessed.culprit_ranks) == (Category.COLLECTIVE_DESYNC, ())
    ib = ("node3:4242:4300 [2] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from "
          "peer 10.0.0.7<54321> with error 12, opcode 0, len 0, vendor err 129 (Send) localGid "
          "::ffff:10.0.0.3 remoteGids::ffff:10.0.0.7 hca mlx5_0\n")
    assert triage_texts(tmp_path, ib + lines).category is Category.NETWORK


def test_a_full_dev_shm_told_over_two_lines_is_the_node_and_a_network_fallback_no_fault(
        tmp_path: Path) -> None:
    """NCCL's proxy says `No space left on device` and the next line names /dev/shm: the
    node's shared memory, not a disk; a plugin that failed and fell back to another network
    is no failure, while one that did not fall back is the host's network setup."""
    shm = triage("shm-deepep-53-internode-enospc.log")
    assert shm.category is Category.INFRASTRUCTURE
    disk = triage_texts(tmp_path, "proxy.cc:1587 NCCL WARN [Service thread] Accept failed No "
                        "space left on device\nTraceback (most recent call last):\n  File "
                        "\"t.py\", line 1, in <module>\nOSError: [Errno 28] No space left on "
                        "device: '/ckpt/step_100.pt'\n")
    assert disk.category is Category.STORAGE_IO
    plugin = ("algo-1:17778:17848 [5] nccl_net_ofi_create_plugin:259 NCCL WARN NET/OFI "
              "aws-ofi-nccl initialization failed\n")
    fell_back = plugin + "algo-1:17778:17848 [5] NCCL INFO Using network Socket\n"
    assert triage_texts(tmp_path, fell_back).category is Category.NONE
    other = plugin + "algo-1:17779:17849 [6] NCCL INFO Using network Socket\n"
    assert triage_texts(tmp_path, other).category is Category.NETWORK


def test_a_refused_ssh_login_is_the_launch_and_every_unresolved_host_is_named(
        tmp_path: Path) -> None:
    refused = triage("mpijob-mpioperator-424-ssh-denied.log")
    assert refused.category is Category.INFRASTRUCTURE
    assert refused.culprits == (
        "host tensorflow-benchmarks-worker-1.tensorflow-benchmarks-worker (ssh login refused)",)
    unreachable = triage_texts(tmp_path, "ssh: connect to host node-7 port 22: No route to host\n"
                               "node-7: Permission denied (publickey,password).\n")
    assert unreachable.category is Category.NETWORK  # ssh's own words about the route win
    resolved = triage("mpijob-mpioperator-481-ssh-resolve.log")
    assert resolved.category is Category.NETWORK
    assert "worker-0" in resolved.culprits[0] and "worker-1" in resolved.culprits[0]


def test_a_corrupt_input_is_the_data_not_the_disk(tmp_path: Path) -> None:
    worker = triage("data-truncated-image-cyclegan-876-worker3.log")
    assert worker.category is Category.DATA
    raised = triage_texts(tmp_path, "Traceback (most recent call last):\n  File \"t.py\", line 1,"
                          " in <module>\nRuntimeError: PytorchStreamReader failed reading zip "
                          "archive: failed finding central directory\n")
    assert raised.category is Category.DATA
    disk = triage_texts(tmp_path, "Traceback (most recent call last):\n  File \"t.py\", line 1,"
                        " in <module>\nOSError: [Errno 5] Input/output error: '/data/x.png'\n")
    assert disk.category is Category.STORAGE_IO


def test_ncclss_newer_connect_retries_a_masked_peer_and_a_server_never_reached(
        tmp_path: Path) -> None:
    """NCCL 2.19's `socketPollConnect … retrying (n/N)` lines name the refusing peer; an IB
    completion error whose paste masks the peer is still the network; urllib3's retries that
    never made a connection are the endpoint's, not the storage's."""
    refused = triage("torch-167288-k8s-nccl-connrefused.log")
    assert refused.category is Category.NETWORK
    assert "10.29.224.148<52333>" in refused.culprits[0]
    recovered = triage_texts(tmp_path, (
        "h1:5971:6015 [4] NCCL INFO socketPollConnect: connect to 10.0.0.5<52333> returned "
        "Connection refused, retrying (1/34) after sleep for 100 msec\n" * 3
        + "".join(f"Epoch 1:  {i}%|#   | {i}/100 [00:{i:02d}<01:00,  1.2it/s]\n"
                  for i in range(1, 4))))
    assert recovered.category is Category.NONE
    masked = triage("network-sglang-4857-ib-completion-error12.log")
    assert masked.category is Category.NETWORK
    assert "[PRIVATE_IP]" not in masked.culprits[0]
    server = triage("refused-axolotl-2528-grpo-vllm.log")
    assert (server.category, server.culprits) == (Category.NETWORK, ("the endpoint 0.0.0.0:8000",))
    hub = triage_texts(tmp_path, "requests.exceptions.ConnectionError: HTTPSConnectionPool(host="
                       "'huggingface.co', port=443): Max retries exceeded with url: /api/models "
                       "(Caused by ReadTimeoutError(\"Read timed out. (read timeout=10)\"))\n")
    assert hub.category is Category.STORAGE_IO  # it connected: the far side did not answer


def test_determineds_trial_log_prefix_is_read_through() -> None:
    diagnosis = triage("determined-4292-pidclient-childfailed.log")
    assert diagnosis.culprit_ranks == (0,)


def test_a_plugins_undeliverable_completion_a_short_host_tagged_paste_and_a_crashed_rank(
        tmp_path: Path) -> None:
    undeliverable = triage("network-nccl-1928-netofi-undeliverable.log")
    assert (undeliverable.category, undeliverable.culprit_ranks) == (Category.NETWORK, ())
    other_ofi = triage_texts(tmp_path, (
        "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote "
        "process exiting prematurely.\n[rank3]: Last error:\n[rank3]: NET/OFI Request 0x7f14 "
        "completed with error. RC: 5. Error: 5 (REMOTE_IO). Completed length: 0\n"))
    assert other_ofi.category is Category.UNDETERMINED  # a peer that went away, not shown why
    tagged = triage("oom-deepspeed-2899-pdsh-gpu-q-13.log")
    assert tagged.category is Category.OOM and "gpu-q-13" in tagged.culprits[0]
    crashed = triage("undetermined-composer-1165-rank2-sigabrt.log")
    assert (crashed.category, crashed.culprit_ranks) == (Category.UNDETERMINED, (2,))
    ranked = triage_texts(tmp_path, "ERROR:launcher:rank 2 of 8 is ready\nERROR: worker "
                          "exited with exit code 1\n")
    assert ranked.culprit_ranks == ()


_GCS = "gcs_actor_manager.cc:731] Node 3ddf99132c312ccc8af79c66f826b2dc622d5ee4 failed, "
_HEALTHY_NEAR_MISSES = {
    # a private helper repository the job's setup could not clone: no launch failed
    "git over ssh": ("git@github.com: Permission denied (publickey).\nfatal: Could not read from "
                     "remote repository.\nstep 100 | loss 2.31\ntraining finished\n", Category.NONE),
    # a retried connection that then succeeded
    "grpc retry": ("E0312 10:00:01.123456 140 grpc_client.cc:88] grpc error:Connect Failed, retry "
                   "1/10\nI0312 10:00:03.123456 140 grpc_client.cc:95] connected to pserver "
                   "10.0.0.2:6174\nstep 100 | loss 2.31\ntraining finished\n", None),
    # bad samples a dataset skipped
    "skipped images": ("step 100 | loss 2.31\nError loading /data/2231.jpg: image file is "
                       "truncated (3 bytes not processed), skipping\nstep 200 | loss 2.2\n",
                       Category.NONE),
    # Ray's GCS removing a node on a scale-down: no actor failed with it
    "ray scale-down": (f"I1008 10:13:07.989955 452 452 gcs_node_manager.cc:389] Removing node, "
                       f"node id = 3ddf99132c312ccc8af79c66f826b2dc622d5ee4\n"
                       f"W1008 10:13:07.990022 452 452 {_GCS}reconstructing actors.\n",
                       Category.NONE),
}


def test_healthy_lines_near_the_new_wordings_are_no_failure(tmp_path: Path) -> None:
    for name, (text, category) in _HEALTHY_NEAR_MISSES.items():
        diagnosis = triage_texts(tmp_path / name.replace(" ", "_"), text)
        assert diagnosis.category is not Category.NETWORK, name
        if category is not None:
            assert diagnosis.category is category, name


def test_real_failures_near_the_new_wordings_keep_their_cause(tmp_path: Path) -> None:
    bug = ("git@github.com: Permission denied (publickey).\nfatal: Could not read from remote "
           "repository.\nTraceback (most recent call last):\n  File \"train.py\", line 8, in "
           "main\nKeyError: 'lr_schedule'\n")
    assert triage_texts(tmp_path / "bug", bug).category is Category.SOFTWARE
    worker = ("Error loading /data/2231.jpg: image file is truncated, skipping\n"
              "Traceback (most recent call last):\n  File \"train.py\", line 20, in <module>\n"
              "KeyError: Caught KeyError in DataLoader worker process 0.\nOriginal Traceback "
              "(most recent call last):\n  File \"ds.py\", line 5, in __getitem__\n"
              "KeyError: 'label'\n")
    assert triage_texts(tmp_path / "worker", worker).category is Category.SOFTWARE
    unpickle = ("[rank1]: Traceback (most recent call last):\n"
                "[rank1]:   File \"train.py\", line 88, in <module>\n"
                "[rank1]:     dist.all_gather_object(outputs, metrics)\n"
                "[rank1]:   File \"distributed_c10d.py\", line 2436, in all_gather_object\n"
                "[rank1]:     object_list[i] = _tensor_to_object(tensor, tensor_size)\n"
                "[rank1]:   File \"distributed_c10d.py\", line 2159, in _tensor_to_object\n"
                "[rank1]:     return _unpickler(io.BytesIO(buf)).load()\n"
                "[rank1]: _pickle.UnpicklingError: invalid load key, '\\x00'.\n")
    assert triage_texts(tmp_path / "unpickle", unpickle).category is Category.SOFTWARE
    disks = ("[rank0]: OSError: [Errno 28] No space left on device: '/lustre/ckpt/rank0.pt'\n"
             "[rank2]: WARNING: HF datasets cache in /dev/shm/hf_cache is 91% full\n")
    assert triage_texts(tmp_path / "disks", disks).category is Category.STORAGE_IO
    # two pods' processes share a pid; one's link failed before the other's set-up lines
    pods = ("algo-1:45:45 [0] NCCL INFO Using network IB\nalgo-2:45:45 [0] NCCL INFO Using "
            "network IB\nstep 100 | loss 2.31\nalgo-1:45:120 [0] NCCL WARN NET/IB : Got async "
            "event : port error\nalgo-2:45:45 [0] NCCL INFO Using network IB\n")
    assert triage_texts(tmp_path / "pods", pods).category is Category.NETWORK
    actor = (f"W1008 10:13:07.990022 452 452 {_GCS}reconstructing actors.\n"
             "W1008 10:13:07.990080 452 452 gcs_actor_manager.cc:800] Actor is failed "
             "2ab78bd103000000 on worker fada8da402dfd2f16d559a2f6c61278c4615cb6b at node "
             "3ddf99132c312ccc8af79c66f826b2dc622d5ee4, need_reschedule = 1, remaining_restarts = 0\n")
    lost = triage_texts(tmp_path / "actor", actor)
    assert lost.category is Category.INFRASTRUCTURE
    assert lost.culprits == ("3ddf99132c312ccc8af79c66f826b2dc622d5ee4",)


def test_a_side_services_retries_that_ran_out_while_the_job_went_on_are_no_cause(
        tmp_path: Path) -> None:
    hub = ("'(MaxRetryError(\"HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
           "exceeded with url: /bert/resolve/main/config.json (Caused by NewConnectionError("
           "'<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new "
           "connection: [Errno 111] Connection refused'))\"))'\n")
    went_on = triage_texts(tmp_path / "on", hub + "".join(
        f"Epoch 1:  {i}%|#   | {i}/100 [00:{i:02d}<01:00,  1.2it/s]\n" for i in range(1, 4)))
    assert went_on.category not in (Category.NETWORK, Category.STORAGE_IO)
    assert went_on.culprits == ()
    stopped = triage_texts(tmp_path / "stopped", hub)
    assert (stopped.category, stopped.culprits) == (
        Category.NETWORK, ("the endpoint huggingface.co:443",))


def test_eagain_out_of_a_collective_is_the_peers_story_not_the_jobs_bug(tmp_path: Path) -> None:
    assert triage("undet-maskrcnn-931-resource-unavailable.log").category is (
        Category.UNDETERMINED)
    own = triage_texts(tmp_path, "Traceback (most recent call last):\n  File \"prep.py\", line 3,"
                       " in <module>\n    pool.start()\nRuntimeError: Resource temporarily "
                       "unavailable\n")
    assert own.category is Category.SOFTWARE  # no collective under it


# -- batch 34 ---------------------------------------------------------------------------------
def test_a_transport_error_in_any_exception_or_check_is_the_peers_story(tmp_path: Path) -> None:
    """Paddle's store barrier raising `ValueError: … TCP send error. Details: Broken pipe.` and
    Ray's raylet failing a check on its GCS connection are a peer that went, not the job's bug;
    a check on the job's own data still is."""
    for name in ("paddle-tcp-send-broken-pipe-52622.log", "undet-ray-26966-raylet-lost-gcs.log"):
        assert triage(name).category is Category.UNDETERMINED, name
    oneflow = triage("software-oneflow-6953-rpc-check-failed.log")
    assert oneflow.category is Category.SOFTWARE
    pipe = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
            "    sock.sendall(batch)\n  File \"/usr/lib/python3.10/socket.py\", line 720, in "
            "sendall\nBrokenPipeError: [Errno 32] Broken pipe\n")
    assert triage_texts(tmp_path / "pipe", pipe).category is Category.UNDETERMINED
    # a pipe to a subprocess of the job's own (ffmpeg that never started) stays its bug
    own = ("Traceback (most recent call last):\n  File \"video.py\", line 41, in write\n"
           "    self.proc.stdin.write(frame.tobytes())\n"
           "BrokenPipeError: [Errno 32] Broken pipe\n")
    assert triage_texts(tmp_path / "own", own).category is Category.SOFTWARE
    bug = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
           "    cfg['pipe']\nKeyError: 'pipe'\n")
    assert triage_texts(tmp_path / "bug", bug).category is Category.SOFTWARE


def test_a_signal_paddle_reports_is_no_exception_of_the_job() -> None:
    """Paddle's `FatalError: `Termination signal` is detected by the operating system.` is the
    SIGTERM its launcher sent: no bug of the job's is shown."""
    diagnosis = triage("sigterm-from-launcher-paddledet-5255.log")
    assert diagnosis.category is Category.UNDETERMINED and diagnosis.culprit_ranks == ()


def test_a_ray_client_that_never_reached_its_gcs_is_the_network() -> None:
    """Ray's `Failed to connect to GCS at address 172.23.15.13:20000 within 5 seconds` with no
    later line saying it connected: the head's address was never reached (the start that
    connects a moment later is healthy: tests/data/triage_probes/ray_gcs_*)."""
    diagnosis = triage("net-tinyzero-75-ray-gcs-connect.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()
    assert any("172.23.15.13:20000" in c for c in diagnosis.culprits)


def test_a_progress_bar_written_into_a_traceback_does_not_end_it() -> None:
    """Another process's tqdm line inside a traceback's frames: the AssertionError under it is
    still the traceback's exception (the job's bug)."""
    diagnosis = triage("software-transformers-9243-ddp-device-assert.log")
    assert diagnosis.category is Category.SOFTWARE


def test_a_launchers_child_that_ended_with_a_code_is_a_failure_named_by_its_pid() -> None:
    """Lightning's `Child process with PID 23026 terminated with code 1`: a failure (not a
    healthy log), its cause not shown, the pid named."""
    diagnosis = triage("lightning-child-exit1-neuralforecast-1291.log")
    assert diagnosis.category is Category.UNDETERMINED
    assert any("23026" in c for c in diagnosis.culprits)


def test_a_ray_actors_own_traceback_names_its_process() -> None:
    diagnosis = triage("software-vllm-28873-ray-local-world-size-assert.log")
    assert diagnosis.category is Category.SOFTWARE and diagnosis.culprit_ranks == ()
    assert any("570282" in c for c in diagnosis.culprits)


def test_a_cuda_error_then_mp_spawns_report_names_the_spawned_process(tmp_path: Path) -> None:
    """`terminate called after throwing … c10::Error` / `what(): CUDA error: …` then the
    launcher's Python traceback `ProcessExitedException: process 3 terminated with signal
    SIGABRT`: the C++ report ends where the traceback starts, and process 3 (a local index,
    not a rank) is named."""
    diagnosis = triage("illegal-address-brightdreamer-10-mpspawn.log")
    assert diagnosis.category is Category.GPU_CUDA and diagnosis.culprit_ranks == ()
    assert diagnosis.culprits == ("process 3",)
    # two spawned workers reported dead: which one's error this is is not shown
    two = (CORPUS / "illegal-address-brightdreamer-10-mpspawn.log").read_text() + (
        "Traceback (most recent call last):\n  File \"main.py\", line 213, in <module>\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal "
        "SIGABRT\n")
    named = triage_texts(tmp_path / "two", two)
    assert named.category is Category.GPU_CUDA and "process 3" not in named.culprits


# -- batch 35 ---------------------------------------------------------------------------------
def test_a_hedged_preemption_is_no_preemption() -> None:
    """TF's `This may be due to a preemption in a connected worker …` lists a possibility:
    the TPU session's closed socket stays undetermined."""
    diagnosis = triage("tf-tpu-estimator-infeed-socket-closed-tpu-187.log")
    assert diagnosis.category is Category.UNDETERMINED


def test_hccls_socket_it_could_not_listen_on_is_the_network() -> None:
    diagnosis = triage("hccl-listen-port-fail-link-timeout-vllm-ascend-1955.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()


def test_a_node_that_could_not_start_the_task_explains_sruns_task_exit(tmp_path: Path) -> None:
    """pyxis could not start the container, then srun reports task 0 on gpu-1-0 exited: the
    node, not an unexplained task exit. A task that exits with no such line before it stays
    undetermined."""
    diagnosis = triage("slinky-2-pyxis-ldcache-gpu-node.log")
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("node gpu-1-0",)
    plain = ("step 10 loss 2.1\nsrun: error: gpu-1-0: task 0: Exited with exit code 1\n")
    assert triage_texts(tmp_path / "plain", plain).category is Category.UNDETERMINED
    after = ("srun: error: gpu-1-0: task 0: Exited with exit code 1\n"
             "[2025-07-18T15:07:29.684] error: pyxis: couldn't start container\n")
    assert triage_texts(tmp_path / "after", after).category is Category.UNDETERMINED


def test_an_oom_wrapped_over_lines_still_names_its_gpu_and_request() -> None:
    """torch's OOM message pasted one clause per line (`Tried to allocate 1.36 GiB.` / `GPU 7
    has a total capacity …` / `Process 282836 has 22.29 GiB memory in use.`)."""
    diagnosis = triage("oom-opendm-11-fsdp-init-gpu7.log")
    assert diagnosis.category is Category.OOM
    assert any("GPU 7" in c and "282836" in c for c in diagnosis.culprits)
    assert any("1.36 GiB" in f for f in diagnosis.findings), diagnosis.findings


# -- batch 36 ---------------------------------------------------------------------------------
def test_mpichs_ofi_completion_error_is_the_fabric_not_a_disk(tmp_path: Path) -> None:
    """Cray MPICH's `MPIDI_OFI_handle_cq_error … OFI poll failed (… Input/output error -
    UNDELIVERABLE)` is the fabric's; a file write's Input/output error stays the disk's."""
    diagnosis = triage("warpx-4234-frontier-ofi-undeliverable.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()
    disk = ("Traceback (most recent call last):\n  File \"train.py\", line 40, in save\n"
            "OSError: [Errno 5] Input/output error: '/lustre/ckpt/step_100.pt'\n")
    assert triage_texts(tmp_path / "disk", disk).category is Category.STORAGE_IO


# -- crash handlers name their process ---------------------------------------------------------
def test_a_crash_handlers_one_process_is_named_by_its_pid_and_host(tmp_path: Path) -> None:
    """UCX's `[host:pid :thread:tid] Caught signal 7` from several threads of one process, and
    OpenMPI's `[host:pid] Failing at address` kept alone: one process crashed, named by its pid
    (no rank is shown)."""
    ucx = triage("sigbus-megatron-llm-63-fused-kernels.log")
    assert ucx.category is Category.UNDETERMINED and ucx.culprit_ranks == ()
    assert ucx.culprits == ("pid 3439 on 9c77a8dc6f05",)
    openmpi = triage("mindyolo-mpirun-hccl-segv-238.log")
    assert openmpi.category is Category.UNDETERMINED
    assert openmpi.culprits == ("pid 3436928 on notebook-2a7fcf5e-9744-41c7-9c1c-5e37eeafdf60",)
    assert any("a fault at address 0xb8" in f for f in openmpi.findings), openmpi.findings
    # two processes crashing with one signal share a cause: neither is named
    two = ("[gpu7:18080:0:18080] Caught signal 7 (Bus error: nonexistent physical address)\n"
           "[gpu7:18079:0:18079] Caught signal 7 (Bus error: nonexistent physical address)\n")
    shared = triage_texts(tmp_path / "two", two)
    assert shared.category is Category.UNDETERMINED and shared.culprits == ()
    assert any("processes 18079 on gpu7, 18080 on gpu7 all crashed" in f for f in shared.findings)


def test_openmpis_address_line_keeps_ranks_that_crashed_alike_unblamed() -> None:
    """Four mpirun ranks print `Signal: Bus error (7)` and `Failing at address`: the address
    lines name no signal of their own and do not make the four crashes look different."""
    diagnosis = triage("undetermined-horovod-2053-buserror.log")
    assert diagnosis.category is Category.UNDETERMINED and diagnosis.culprit_ranks == ()


def test_a_system_error_that_began_in_ncclss_socket_code_is_the_network(tmp_path: Path) -> None:
    """XLA's `NCCL operation ncclCommInitRank(…) failed: unhandled system error`, after NCCL's
    INFO trace `misc/socket.cc:666 -> 2` (a socket call failed, code 2): this host's network.
    A trace of code 6 (a peer that closed) or one after the error says nothing of the host."""
    diagnosis = triage("net-jax-22747-nccl-bootstrap-accept.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()
    assert diagnosis.culprits == ("the network of user-G493-ZB1-AAP1-000:275204",)
    error = ("INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation "
             "ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled system error\n")
    for i, trace in enumerate(("node1:42:43 [0] NCCL INFO misc/socket.cc:541 -> 6\n",
                               "node1:42:43 [0] NCCL INFO proxy.cc:968 -> 2\n")):
        other = triage_texts(tmp_path / str(i), trace + error)
        assert other.category is Category.UNDETERMINED, trace
    after = triage_texts(tmp_path / "after", error + "node1:42:43 [0] NCCL INFO "
                         "misc/socket.cc:567 -> 2\n")
    assert after.category is Category.UNDETERMINED


def test_the_aws_sdks_unreachable_endpoint_under_any_error_status_is_the_network() -> None:
    """TensorFlow's S3 save: `Unknown: : Unable to connect to endpoint` (the status TF gave
    the SDK's failure), as under `Internal` or `Unavailable`."""
    diagnosis = triage("s3-ckpt-curl55-sagemaker-sdk-454.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()


# -- batch 37 ---------------------------------------------------------------------------------
def test_tensorflows_collective_members_that_disagree_are_a_desync(tmp_path: Path) -> None:
    """TF's RingReduce `Inconsistent output shapes, got [4], but expected is [2]`, `Shape
    mismatch in the collective instance 106 …` and `Collective Op has group_size 8 … but that
    group has size 4`: the members of one collective disagree; no member is blamed."""
    for name in ("tf-33339-ringreduce-inconsistent-shapes.log",
                 "desync-tf-34156-ringreduce-shape.log", "desync-tf-33979-collective-group-size.log"):
        diagnosis = triage(name)
        assert diagnosis.category is Category.COLLECTIVE_DESYNC, name
        assert (diagnosis.culprit_ranks, diagnosis.culprits) == ((), ()), name
    # a user's own shape error is no collective's
    own = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
           "ValueError: Shapes (None, 4) and (None, 2) are incompatible\n")
    assert triage_texts(tmp_path / "own", own).category is Category.SOFTWARE


def test_a_stores_wait_for_keys_that_ran_out_is_a_start_up_wait() -> None:
    """Horovod's gloo HTTP store: `what(): … Wait timeout after 30 seconds for key(s): 0`, then
    SIGABRT: the store was reached and the others never wrote their keys."""
    diagnosis = triage("ray-25866-horovod-gloo-httpstore-wait-timeout.log")
    assert diagnosis.category is Category.INIT_TIMEOUT and diagnosis.culprit_ranks == ()


def test_a_halted_tpu_is_the_devices_and_an_amdgpu_reset_only_when_it_failed(
        tmp_path: Path) -> None:
    """The TPU runtime's `Accelerator device halted prematurely …`, in its log line or raised
    (JAX's XlaRuntimeError). amdgpu's `GPU reset begin!` may succeed while the job goes on, so
    only a reset that failed is the GPU's (a review found the first form paging a healthy
    run's dmesg)."""
    tpu = triage("tpu-halted-xla-7138-litepod16.log")
    assert tpu.category is Category.GPU_CUDA and tpu.culprit_ranks == ()
    raised = ("Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n"
              "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Accelerator device halted "
              "prematurely, perhaps due to an on-device check-failure. Node 0 halted "
              "unexpectedly at tag:pc 2:0x1f\n")
    assert triage_texts(tmp_path / "jax", raised).category is Category.GPU_CUDA
    began = ("[76914.214195] amdgpu 0000:dd:00.0: amdgpu: GPU reset begin!\n"
             "[76914.938315] amdgpu 0000:dd:00.0: amdgpu: GPU reset(1) succeeded!\n"
             "step 9000 loss 1.21\n")
    assert triage_texts(tmp_path / "began", began).category is Category.NONE
    failed = ("[76914.214195] amdgpu 0000:dd:00.0: amdgpu: GPU reset begin!\n"
              "[76915.938315] amdgpu 0000:dd:00.0: amdgpu: GPU reset(1) failed\n")
    amd = triage_texts(tmp_path / "failed", failed)
    assert amd.category is Category.GPU_CUDA and amd.culprits == ("the GPU at 0000:dd:00.0",)


def test_an_ib_async_event_that_reports_a_change_is_no_fault(tmp_path: Path) -> None:
    """`NET/IB : Got async event : client reregistration` (the subnet manager) on every rank,
    and nothing failing after it: no failure. A port error is still the HCA's."""
    assert triage("ibasync-deepspeed-3272-v100.log").category is Category.NONE
    fault = ("gpu1:1334:1679 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : "
             "port error\n")
    assert triage_texts(tmp_path / "fault", fault).category is Category.NETWORK


def test_vllms_worker_prefix_names_its_pid_not_a_rank() -> None:
    """`(VllmWorker rank=3 pid=268) ERROR … CUDA error: an illegal instruction`: rank=3 is the
    engine's tensor-parallel index; the worker is named by its pid."""
    diagnosis = triage("gpucuda-vllm-18045-illegal-instruction.log")
    assert diagnosis.category is Category.GPU_CUDA and diagnosis.culprit_ranks == ()
    assert any("268" in c for c in diagnosis.culprits), diagnosis.culprits


def test_a_cancelled_task_and_an_hccl_field_name_are_no_cause() -> None:
    """Dask's chained `asyncio.exceptions.CancelledError` is a cancellation, not the job's bug;
    HCCL's `isUsedRdma[1]` is a field, not the network; its link error, with HCCL's own check
    finding nothing abnormal, stays undetermined."""
    assert triage("dask-9502-worker-connect-timeout.log").category is not Category.SOFTWARE
    assert triage("hccl-connect-vllmascend-10591-2node.log").category is Category.UNDETERMINED


# -- batch 38 ---------------------------------------------------------------------------------
def test_a_shells_killed_where_a_traceback_was_cut_is_no_exception() -> None:
    """`Traceback (most recent call last):` and then the shell's `Killed`: the process was
    killed (cause unknown), it raised nothing called `Killed`."""
    diagnosis = triage("undet-arctic-37-tp4-worker-killed.log")
    assert diagnosis.category is Category.UNDETERMINED
    assert not any("raised Killed" in f for f in diagnosis.findings), diagnosis.findings


def test_a_full_disk_under_rays_object_store_and_torch_saves_short_write_are_storage() -> None:
    """Ray's `OutOfDiskError: Local disk is full`, and torch.save's uncaught C++ check
    `what(): [enforce fail at inline_container.cc:274] . unexpected pos N vs M`."""
    assert triage("storage-alpa-969-ray-outofdisk.log").category is Category.STORAGE_IO
    short = triage("ckpt-unexpected-pos-xla-2491.log")
    assert short.category is Category.STORAGE_IO
    assert any("unexpected pos 3695636864" in f for f in short.findings), short.findings


def test_an_exception_that_relays_mpis_own_failure_leaves_the_transport_to_speak() -> None:
    """UCX's `ibv_create_ah(… dgid=::ffff:192.160.0.55 …) failed: Connection timed out` and
    `ucp_ep_create(proc=1) failed: Endpoint timeout`, then HugeCTR's `RuntimeError: Runtime
    error: MPI_ERR_OTHER: known error not in list`: the fabric, not the job's bug."""
    diagnosis = triage("ucx-endpoint-timeout-hugectr-421.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()
    assert any("192.160.0.55" in c for c in diagnosis.culprits), diagnosis.culprits


def test_a_traceback_a_shell_report_cut_says_what_shows_the_failure(tmp_path: Path) -> None:
    """A traceback cut by the shell's `Terminated`: undetermined, and the finding says which
    lines show that something failed (it used to give no reason at all)."""
    text = ("epoch 3 step 1210 loss 1.869\nTraceback (most recent call last):\n"
            "  File \"train.py\", line 258, in main\n    dist.all_reduce(loss_t)\nTerminated\n")
    diagnosis = triage_texts(tmp_path, text)
    assert diagnosis.category is Category.UNDETERMINED
    assert diagnosis.findings and "exception line not shown" in diagnosis.findings[0]


# -- batch 39 ---------------------------------------------------------------------------------
def test_ncclss_last_error_below_a_prefixed_error_names_dev_shm() -> None:
    """vLLM's workers prefix every line, so NCCL's `Last error:` and its reason (`Error while
    creating shared memory segment /dev/shm/nccl-…`) are lines of their own after `unhandled
    cuda error`: the container's /dev/shm, whichever code NCCL returned."""
    diagnosis = triage("wsl-12467-vllm-nccl-shm-segment.log")
    assert diagnosis.category is Category.INFRASTRUCTURE and diagnosis.culprit_ranks == ()


def test_a_programs_own_assertion_before_its_abort_is_its_bug(tmp_path: Path) -> None:
    """`GGML_ASSERT: llama.cpp:9881: false && "not implemented"`, then Open MPI's handler:
    `Signal: Aborted (6)`: the program's assertion, named by the crashing pid. glibc's malloc
    assertion (heap corruption from somewhere else) stays undetermined."""
    diagnosis = triage("llamacpp-3752-mpi-ggml-assert-abort.log")
    assert diagnosis.category is Category.SOFTWARE
    assert diagnosis.culprits == ("pid 3123 on a1flex-node-1",)
    heap = ("python: malloc.c:3722: _int_malloc: Assertion `(unsigned long) (size) >= "
            "(unsigned long) (nb)' failed.\n[node00:13555] *** Process received signal ***\n"
            "[node00:13555] Signal: Aborted (6)\n")
    assert triage_texts(tmp_path, heap).category is Category.UNDETERMINED


def test_a_launcher_that_timed_out_waiting_for_its_tasks_is_a_start_up_wait() -> None:
    """Horovod on Spark: `Timed out waiting for Spark tasks to start`."""
    diagnosis = triage("spark-operator-456-horovod-spark-registration-timeout.log")
    assert diagnosis.category is Category.INIT_TIMEOUT


def test_ranks_that_exited_alike_in_one_second_name_no_first_culprit() -> None:
    """torchrun's table: ranks 0 and 1 both `exitcode : 1` at the same time, no traceback of
    either: the "root cause" is only the first the launcher noticed (as for a signal)."""
    diagnosis = triage("childfailed-sd-scripts-1047-two-ranks-exit1.log")
    assert (diagnosis.category, diagnosis.culprit_ranks) == (Category.UNDETERMINED, ())
    assert any("ranks 0-1 all exited with exit code 1" in f for f in diagnosis.findings), (
        diagnosis.findings)


def test_glogs_report_of_a_gloo_pair_that_could_not_connect_names_the_peer() -> None:
    """caffe2's `Caught gloo IO exception: [.../pair.cc:528] connect [192.126.232.53]:896:
    Connection refused`, logged and not raised to Python: the peer endpoint, no rank."""
    diagnosis = triage("gloo-caffe2-984-connect-refused.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()
    assert any("192.126.232.53:896" in c for c in diagnosis.culprits)


def test_nccls_return_code_trace_from_its_socket_code_up_to_init_is_the_hosts_network() -> None:
    """Only NCCL INFO's `misc/socket.cc:567 -> 2` … `bootstrap.cc:270 -> 2` … `init.cc:1350 -> 2`
    lines, on every GPU of one host: a socket call failed NCCL's init there."""
    diagnosis = triage("net-nccl-1000-bootstrap-socket.log")
    assert diagnosis.category is Category.NETWORK and diagnosis.culprit_ranks == ()
    assert diagnosis.culprits == ("the network of dso-s1-r1-a100-03",)


def test_mpiruns_daemons_that_would_not_start_are_a_launch_failure() -> None:
    """Open MPI's `ORTE was unable to reliably start one or more daemons` alone: the launcher
    could not start the job on its nodes (infrastructure, no node named)."""
    diagnosis = triage("orte-trtllm-backend-698-multinode-daemons.log")
    assert diagnosis.category is Category.INFRASTRUCTURE and diagnosis.culprit_ranks == ()


def test_a_launch_failure_after_the_link_failed_is_the_links() -> None:
    """kubectl's `dial tcp HOSTIP:10250: … connection timed out` above ORTE's daemon failure:
    the launcher's failure lists causes, and the link's line is the one shown."""
    diagnosis = triage("kubelet-dial-timeout-mpijob-61.log")
    assert diagnosis.category is Category.NETWORK


def test_a_store_wait_raised_inside_the_training_step_is_no_start_up_timeout() -> None:
    """c10d's `waitForInput … timed out after 600000ms` whose own traceback runs through
    `train_one_step`: the job was training, so no rank failed to arrive at start-up."""
    diagnosis = triage("undet-fastvideo-228-store-socket-timeout.log")
    assert diagnosis.category is Category.UNDETERMINED


def test_a_full_disk_under_mp_spawns_report_names_the_spawned_worker() -> None:
    """`-- Process 0 terminated with the following error:` above torch.save's ENOSPC: the
    write failed in spawned worker 0 (an index, not a global rank)."""
    diagnosis = triage("storage-sam3-367-enospc-spawn.log")
    assert diagnosis.category is Category.STORAGE_IO and diagnosis.culprit_ranks == ()
    assert any("process 0" in c for c in diagnosis.culprits)


def test_slurms_stop_names_its_node_only_as_where_the_stop_was_served() -> None:
    """`*** STEP … ON nid01934 CANCELLED AT … DUE TO TIME LIMIT ***`: the node is where
    slurmstepd served the stop, said as such, never as a node at fault."""
    diagnosis = triage("timelimit-desitarget-628-srun.log")
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.culprits == ("node nid01934 (where the stop was served)",)


def test_a_launchers_words_that_a_rank_exited_with_a_code_name_that_rank() -> None:
    """mpiexec's `hostname: rank 0 exited with code 139`: a failure of rank 0, its cause not
    shown."""
    diagnosis = triage("segv-mpiexec-xpu-unitrace-69.log")
    assert diagnosis.category is Category.UNDETERMINED and diagnosis.culprit_ranks == (0,)

"""Constructed probes (tests/data/triage_probes): healthy lines and failures in the shapes the
lexicon's and the rules' newer wordings read. Each states what triage must say of it: a healthy
job stays healthy, a guess names no culprit, and a real failure keeps its cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.model import Category
from monitor.triage.analysis import Diagnosis, diagnose
from monitor.triage.reader import read_inputs

PROBES = Path(__file__).resolve().parent.parent / "data" / "triage_probes"

HEALTHY = ("infra_mce_edac_corrected_healthy",  # corrected machine checks on a run that finished
           # runs that print a failure's words and went on or ended well
           "io_h01_s3_retry_ok", "io_h02_hf_503_retry_ok", "io_h03_corrupt_sample_skipped",
           "io_h04_wds_warn_and_continue", "io_h06_hf_disk_space_warning",
           "rv44_p04_torch_cudnn_plan_failed_internal_warning",
           "rv44_p06_job_warns_cudnn_internal_retries_without_cudnn",
           "rv44_p07_glog_F_helper_uploader_job_outlived", "rv44_p13_paddle_glog_I_W_healthy",
           "rv43_p01_ray_driver_gcs_warn_then_connected",
           "rv43_p02_ray_head_start_W_gcs_then_runtime_started",
           "rv43_p03_ray_worker_E_gcs_then_runtime_started", "rv43_p04_ray_gcs_warn_stepped_past",
           "rv43_p05_gloo_io_exception_elastic_restart_completed",
           "rv43_p06_nccl_info_trace_then_init_complete", "rv43_p07_nccl_info_trace_at_shutdown",
           "rv43_p08_pbs_epilogue_accounting_ok", "rv43_p10_htcondor_normal_termination",
           "rv43_p11_mce_corrected_then_trained", "rv43_p12_tf_ps_worker_failure_recovered",
           "rv43_p13_compose_exit0_sidecar_143", "rv43_p15_slurmctld_not_responding_transient",
           "rv43_p17_sagemaker_describe_completed", "rv43_p19_c10d_ipv6_errno97_warnings",
           "rv43_p20_oneccl_ccl_warn_healthy", "rv43_p21_jax_dns_W_then_connected",
           "rv43_p22_pytorchjob_events_exitedwithcode0",
           "grpc_retry_healthy", "ray_gcs_scaledown", "ray_driver", "git_publickey_healthy",
           # Ray's client that failed to reach its GCS once and connected a moment later
           "ray_gcs_retry_then_connected", "ray_gcs_warning_then_started",
           "skip_bad_images_healthy", "fallback_healthy", "tf_ignore_errors_healthy",
           "webdataset_handler", "helper_exit_code_healthy", "vllm_preemption_healthy",
           "retry_after_paragraph_healthy", "retry_double_spaced_healthy",
           # NCCL's abort of its socket waits at a clean teardown, a connect it retried, and
           # a sentence that mentions an XLA NCCL operation
           "nccl_teardown_abort_healthy", "nccl_connect_retry_healthy",
           "xla_operation_mention_healthy",
           # InfiniBand async events that report a change, from one host or several (their
           # equal-length records are no terminal's wrap), and an amdgpu reset that succeeded
           "ib_notice_healthy", "ib_notice_gidchange_new", "ib_path_migrated", "ib_srq_limit",
           "unwrap_same_host", "unwrap_two_hosts_notices", "unwrap_srun_label_notices",
           "amd_reset_healthy_run",
           # Ray's spilling notes alone; a save that failed its short-write check and succeeded
           # on its retry
           "ray_spill_only_healthy", "unexpected_pos_retried_healthy",
           # Open MPI's abort words where they end nothing (a skipped test's message, a
           # counter, a note, an abort with errorcode 0 after the run finished)
           "mpi_healthy_help_mpiabort", "mpi_healthy_localabort_stats",
           "mpi_healthy_will_now_abort_notice", "mpi_mpiabort_errorcode0_after_finish",
           # a hub request retried (huggingface_hub's backoff quotes urllib3's "Max retries
           # exceeded" and tries again), a background upload thread's failure the training
           # went on past, a side service's retry loop, DDP's healthy unused-parameter warning,
           # a spot handler and set-up commands that only name a platform's stop words
           "hub_retry_then_trained_healthy", "hub_timeout_warning_healthy",
           "upload_thread_failed_then_trained_healthy", "vllm_hub_warning_healthy",
           "wandb_retry_loop_healthy", "ddp_find_unused_warning_healthy",
           "spot_handler_polling_healthy", "gce_preempted_filter_healthy",
           "spot_eventbridge_rule_healthy",
           # Marian's own progress lines; MPI lines that only mention buffer sizes
           "marian_training_healthy", "mpi_buffer_sizes_healthy",
           # AWS Neuron's runtime INFO lines and a JVM's GC note
           "neuron_nrt_info_healthy",
           # TensorFlow's allocator saying its own shortfall "is not a failure"
           "tf_allocator_warnings_healthy",
           # a metrics thread that could not bind its port while training went on
           "bind_thread_then_trained_healthy")

# probe -> (the category it must have, a word its culprit must hold, or "" for no check)
CAUSES: dict[str, tuple[Category, str]] = {
    "ckpt_skip": (Category.STORAGE_IO, ""),  # "…; skipping this save" hides no disk failure
    # endpoints the job's clients could not reach: httpx, a bare OSError's errno, a DataLoader
    # worker's object store, through a proxy
    "httpx_connect_refused": (Category.NETWORK, ""),
    "oserror_enetunreach": (Category.NETWORK, ""),
    "oserror_ehostunreach": (Category.NETWORK, ""),
    "dataloader_s3_unreached": (Category.NETWORK, ""),
    "hub_proxy_refused": (Category.NETWORK, "proxy"),
    # storage in an OSError's and its writers' words: a FUSE or Lustre mount gone, a
    # DataLoader worker's own errno, datasets' space check, pandas' and PIL's missing directory
    "fuse_mount_gone": (Category.STORAGE_IO, "rank 0"),
    "lustre_eshutdown": (Category.STORAGE_IO, ""),
    "dataloader_fuse_gone": (Category.STORAGE_IO, ""),
    "dataloader_eio": (Category.STORAGE_IO, ""),
    "datasets_not_enough_disk": (Category.STORAGE_IO, ""),
    "pandas_missing_dir": (Category.STORAGE_IO, ""),
    "fnf_pil_save_missing_dir": (Category.STORAGE_IO, ""),
    "fnf_write_missing_dir": (Category.STORAGE_IO, ""),
    "h5py_truncated": (Category.DATA, ""),
    # the first failure in its own file wins over a later hub timeout in another; a banner
    # after an exception is no cause of its own; DDP's error tail names its rank
    "keyerror_file_then_hub_file": (Category.SOFTWARE, ""),
    "segv_banner_after_keyerror": (Category.SOFTWARE, "rank 0"),
    "ddp_error_tail_only": (Category.SOFTWARE, "rank 3"),
    # one collective, two sizes, one rank on each side: a desync with no culprit
    "allreduce_two_sizes_1v1": (Category.COLLECTIVE_DESYNC, ""),
    # a platform's own sentences for stopping the job, and its stop words after a real error
    "k8s_preempted_by_pod": (Category.INFRASTRUCTURE, "llm-train-worker-3"),
    "k8s_node_two_conditions": (Category.INFRASTRUCTURE, ""),
    "spot_notice_after_keyerror": (Category.SOFTWARE, ""),
    # an empty exception line reads only its own writer's lines below it: TensorFlow's
    # allocator warning and another rank's MemoryError are no message of its
    "assert_then_tf_allocator_warning": (Category.SOFTWARE, ""),
    "assert_rank0_memoryerror_rank1": (Category.SOFTWARE, "rank 0"),
    "paddle_oom_summary": (Category.OOM, ""),
    "paddle_oom_under_runtimeerror": (Category.OOM, ""),
    "paddle_badalloc_systemerror": (Category.OOM, ""),
    # MPI's size check after another process failed is that failure's consequence; alone,
    # in a collective, it is a desync
    "mpi_truncate_after_cuda_error": (Category.GPU_CUDA, "rank 2"),
    "mpi_truncate_after_exception": (Category.SOFTWARE, "rank 2"),
    "mpi_bcast_truncated": (Category.COLLECTIVE_DESYNC, ""),
    # the CUDA runtime's teardown is no GPU failure; a what() ends at a blank line; a C++
    # message that goes on to a CUDA failure is the GPU's
    "cuda_teardown_after_keyerror": (Category.SOFTWARE, ""),
    "marian_gpuassert_illegal_access": (Category.GPU_CUDA, ""),
    "datasets_map_worker_died": (Category.UNDETERMINED, ""),
    # a launcher's exit under its worker's own last words is their family; a port in use
    # raised alone is the network's; Ascend's EL0004 is memory
    "exit_under_ddp_error_tail": (Category.SOFTWARE, "local_rank 0"),
    "exit_under_disk_full": (Category.STORAGE_IO, "local_rank 0"),
    "bind_address_in_use": (Category.NETWORK, ""),
    "ascend_el0004_memory": (Category.OOM, ""),
    "dataloader_keyerror_then_restart_bind": (Category.SOFTWARE, ""),
    "handled_bind_then_nameerror": (Category.SOFTWARE, ""),
    # ... but not another rank's line, one the job went on after, a warning, a fallback
    "exit_after_other_ranks_skipped_sample": (Category.UNDETERMINED, "local_rank 0"),
    "table_after_other_ranks_bad_record": (Category.UNDETERMINED, "rank 0"),
    "exit_after_other_ranks_skipped_oom": (Category.UNDETERMINED, "local_rank 0"),
    "exit_after_tf_dso_warning": (Category.UNDETERMINED, "local_rank 0"),
    "exit_after_ld_preload_ignored": (Category.UNDETERMINED, "local_rank 1"),
    "exit_after_raylet_disk_warning": (Category.UNDETERMINED, "local_rank 1"),
    "deepspeed_exit_after_scratch_fallback": (Category.UNDETERMINED, ""),
    "orchestrator_retry": (Category.OOM, ""),  # a retry counter hides no OOMKilled
    "retry_then_fraction": (Category.STORAGE_IO, ""),
    # EAGAIN outside a collective: the OS refused (a lock another process holds, the process
    # limit), the job's setup and no disk's fault, nor a peer's
    "h5py_lock_record": (Category.SOFTWARE, ""),
    "fork_eagain_ddp": (Category.SOFTWARE, ""),
    "real_dist_eagain": (Category.UNDETERMINED, ""),  # EAGAIN inside one: a peer's story
    "exhausted_other_rank_progress": (Category.NETWORK, "minio.internal:9000"),
    "setup_event_two_pods": (Category.NETWORK, ""),  # another pod's process with the same pid
    "ofi_runtime_then_newcomm": (Category.NETWORK, ""),  # a proxy thread's failure, no fallback
    "ofi_runtime_noroute_then_newcomm": (Category.NETWORK, ""),
    "git_publickey_then_bug": (Category.SOFTWARE, ""),
    "wandb_then_bug": (Category.SOFTWARE, ""),  # a side service's retries are no cause
    "skip_then_real_failure": (Category.NETWORK, ""),
    "dataloader_keyerror": (Category.SOFTWARE, ""),
    "skip_then_real_disk": (Category.STORAGE_IO, ""),
    "samepid_two_pods": (Category.NETWORK, ""),
    "error_then_new_comm": (Category.NETWORK, ""),
    "warn_then_new_comm": (Category.NETWORK, ""),
    "libfabric_then_new_comm": (Category.NETWORK, ""),
    "samepid_pods_warn": (Category.NETWORK, ""),
    "save_disk_frames_in_shm": (Category.STORAGE_IO, ""),  # /dev/shm in frames, a real disk
    "two_ranks_disk_and_shm_neighbour": (Category.STORAGE_IO, "rank 0"),
    "disk_full_tmpdir_shm": (Category.STORAGE_IO, "rank 0"),
    "adjacent": (Category.STORAGE_IO, "rank 0"),
    "enforce_frames": (Category.STORAGE_IO, "rank 0"),
    "unpickling_allgather": (Category.SOFTWARE, "rank 1"),  # a device mix-up, not bad data
    # batch 34's rules, reviewed against these
    "paddle_segv_signal": (Category.UNDETERMINED, ""),  # a segfault alone shows no cause
    "check_timeout_variable": (Category.SOFTWARE, ""),  # `rpc_timeout_ms > 0` is a config check
    "check_connected_graph": (Category.SOFTWARE, ""),  # a connected graph is no connection
    "bar_then_unknown_total_bar": (Category.DATA, ""),  # `Validation: 0it […]` is no exception
    "bar_in_traceback": (Category.SOFTWARE, ""),
    "spawn_report_cuda": (Category.GPU_CUDA, "process 0"),
    "subprocess_broken_pipe": (Category.SOFTWARE, "rank 0"),  # its own pipe to ffmpeg
    # batch 35's rules, reviewed against these
    "oom_two_ranks_interleaved": (Category.OOM, "rank 7 on GPU 7"),  # not rank 6's GPU
    "retries_out_after_paragraph": (Category.STORAGE_IO, ""),  # a blank line is no traceback
    "hedged_preemption": (Category.UNDETERMINED, ""),
    "pyxis_failed_to_start": (Category.INFRASTRUCTURE, "dgx-a100-014"),
    "hccl_listen_newer_wording": (Category.NETWORK, ""),
    # crash handlers naming their process, and NCCL's trace of a failed call, reviewed
    "crash_one_pid_threads": (Category.UNDETERMINED, "pid 18080 on gpu7"),
    "crash_ucx_small_pid": (Category.UNDETERMINED, "pid 87 on"),  # UCX pads the pid to five
    "crash_ucx_and_ompi_same_process": (Category.UNDETERMINED, "rank 1"),
    "crash_after_cuda_error": (Category.GPU_CUDA, ""),
    "nccl_trace_connect_failed": (Category.NETWORK, "node3:7001"),
    "nccl_trace_with_strerror": (Category.NETWORK, "n122-246-085:12246"),
    "nccl_shm_then_other_process_abort": (Category.INFRASTRUCTURE, ""),
    "xla_oom_last_warning": (Category.OOM, ""),
    "xla_shm_last_warning": (Category.INFRASTRUCTURE, ""),  # the warning XLA quotes
    "xla_shm_with_other_trace": (Category.INFRASTRUCTURE, ""),
    "xla_duplicate_gpu": (Category.SOFTWARE, ""),
    # batch 37's rules, reviewed against these
    "tf_groupsize_named": (Category.COLLECTIVE_DESYNC, ""),  # TF 2.5: the op's name shown
    "tf_groupsize_joining": (Category.COLLECTIVE_DESYNC, ""),  # newer TF's wording
    "tf_shape_user_exc": (Category.COLLECTIVE_DESYNC, ""),
    "hvd_old_store_wording": (Category.INIT_TIMEOUT, ""),  # gloo's `Wait timeout for key(s)`
    "hvd_store_after_crash": (Category.SOFTWARE, "rank 1"),  # a wait after a peer's exception
    "torch_store_analog_keys": (Category.SOFTWARE, "rank 1"),  # the same at start-up
    "tpu_halted_jax_traceback": (Category.GPU_CUDA, ""),
    "tpu_halted_torchxla_runtimeerror": (Category.GPU_CUDA, ""),
    "ib_notice_then_fault": (Category.NETWORK, ""),
    "ib_device_fatal": (Category.NETWORK, "mlx5_3:1"),
    "ib_newnccl_port_error_watchdog": (Category.NETWORK, "mlx5_2:1"),  # `Got async error event`
    "amd_reset_after_oomkill": (Category.OOM, ""),  # a reset after another cause: that cause
    "amd_reset_after_kill_slurm": (Category.INFRASTRUCTURE, ""),
    "amd_reset_after_user_exc": (Category.SOFTWARE, "rank 3"),
    "amd_reset_with_hip_exc": (Category.GPU_CUDA, "rank 3"),
    "cancelled_during_handling": (Category.SOFTWARE, "rank 2"),  # cancelled under a real bug
    "cancelled_taskgroup_user_bug": (Category.SOFTWARE, ""),
    "grpc_future_cancelled_user": (Category.SOFTWARE, ""),
    "vllm_nested_prefix": (Category.GPU_CUDA, "720"),  # the worker's pid, not its engine's
    "vllm_tp_prefix_oom": (Category.OOM, "269"),
    # batch 38's rules, reviewed against these (the KeyboardInterrupt rule they broke was
    # withdrawn: a Ctrl-C after a failure is that failure's story)
    "ki_after_ib_port_error": (Category.NETWORK, "mlx5_2:1"),
    "ki_after_retries_exhausted": (Category.STORAGE_IO, ""),
    "ki_after_xid79": (Category.GPU_CUDA, ""),
    "ki_after_nccl_cuda_warn": (Category.GPU_CUDA, ""),
    "ki_init_hang_store_barrier": (Category.INIT_TIMEOUT, ""),
    "cpp_unexpected_pos": (Category.STORAGE_IO, ""),
    "cpp_shm_nospace": (Category.INFRASTRUCTURE, ""),  # /dev/shm, not a disk
    "ray_outofdisk": (Category.STORAGE_IO, ""),
    "mpi_err_other_ucx": (Category.NETWORK, ""),  # MPI_ERR_OTHER relays UCX's failure
    "mpi_err_truncate": (Category.SOFTWARE, ""),  # a caller's mistake stays the job's
    "killed_after_exception": (Category.SOFTWARE, ""),  # `Killed` after the exception line
    "killed_interleaved": (Category.SOFTWARE, ""),
    # batch 39's rules, reviewed against these
    "mpi_pyexc_then_mpiabort": (Category.SOFTWARE, "rank 1"),  # the exception, not the abort
    "mpi_oomkill_then_mpiabort": (Category.OOM, ""),
    "mpi_before_mpi_init": (Category.SOFTWARE, ""),
    "mpi_own_assert": (Category.SOFTWARE, "pid 2222"),
    "mpi_ggml_assert_own": (Category.SOFTWARE, ""),
    "mpi_good_vllm_shm": (Category.INFRASTRUCTURE, "3985"),
    "mpi_lasterror_other_rank_shm": (Category.GPU_CUDA, ""),  # another writer's /dev/shm note
    "mpi_lasterror_then_shm_warning": (Category.GPU_CUDA, ""),
    # storage, input data and start-up waits as their tools print them (torch.save, DCP,
    # safetensors, the hub, object stores, NFS and Lustre, HDF5, Arrow, webdataset, the
    # DataLoader, c10d's store, torchrun's rendezvous, JAX, Horovod)
    "io_s01_streamwriter_file_write_failed": (Category.STORAGE_IO, "rank 3"),
    "io_s02_unexpected_pos_enospc": (Category.STORAGE_IO, "rank 0"),
    "io_s03_parent_dir_missing": (Category.STORAGE_IO, "rank 0"),
    "io_s04_enospc_python": (Category.STORAGE_IO, "rank 5"),
    "io_s05_edquot": (Category.STORAGE_IO, "rank 2"),
    "io_s06_erofs": (Category.STORAGE_IO, "rank 0"),
    "io_s07_estale": (Category.STORAGE_IO, "rank 1"),
    "io_s08_eio_write": (Category.STORAGE_IO, "rank 3"),
    "io_s09_dcp_checkpointexception_real": (Category.STORAGE_IO, ""),
    "io_s10_dcp_enospc_rank3": (Category.STORAGE_IO, "rank 3"),
    "io_s11_safetensors_enospc": (Category.STORAGE_IO, "rank 0"),
    "io_s12_s3_slowdown": (Category.STORAGE_IO, "rank 0"),
    "io_s13_s3_accessdenied": (Category.STORAGE_IO, "rank 0"),
    "io_s14_s3fs_nosuchbucket": (Category.STORAGE_IO, "rank 0"),
    "io_s15_s3fs_slowdown": (Category.STORAGE_IO, "rank 2"),
    "io_s18_nfs_not_responding_hang": (Category.STORAGE_IO, "fs01"),
    "io_s19_lustre_ost_write": (Category.STORAGE_IO, "rank 0"),
    "io_s20_enospc_then_watchdog": (Category.STORAGE_IO, "rank 3"),
    "io_d01_torch_load_corrupt": (Category.DATA, "rank 0"),
    "io_d02_safetensors_header": (Category.DATA, "rank 1"),
    "io_d03_pil_cannot_identify": (Category.DATA, "rank 5"),
    "io_d04_pil_truncated": (Category.DATA, "rank 2"),
    "io_d05_h5py_corrupt": (Category.DATA, "rank 1"),
    "io_d06_arrow_corrupt": (Category.DATA, "rank 0"),
    "io_d07_parquet_corrupt": (Category.DATA, "rank 3"),
    "io_d08_webdataset_tar": (Category.DATA, "rank 0"),
    "io_d11_pil_then_nccl": (Category.DATA, "rank 5"),
    "io_l01_dataloader_timeout": (Category.DATALOADER_STALL, "rank 2"),
    "io_l02_worker_killed_no_oom": (Category.UNDETERMINED, ""),
    "io_l03_worker_killed_oom": (Category.OOM, "rank 1"),
    "io_l04_worker_bus_error_shm": (Category.INFRASTRUCTURE, ""),
    "io_l05_worker_bus_error_only": (Category.INFRASTRUCTURE, ""),
    "io_l06_worker_exited_unexpectedly": (Category.UNDETERMINED, ""),
    "io_l07_worker_exit_code": (Category.UNDETERMINED, ""),
    "io_l08_caught_keyerror": (Category.SOFTWARE, "rank 3"),
    "io_l09_pin_memory_thread": (Category.UNDETERMINED, ""),
    "io_l10_nfs_then_dataloader_timeout": (Category.STORAGE_IO, "nfs-data01"),
    "io_i01_store_waiting_for_clients": (Category.INIT_TIMEOUT, ""),
    "io_i02_store_wait_keys": (Category.INIT_TIMEOUT, ""),
    "io_i03_socket_timeout": (Category.INIT_TIMEOUT, ""),
    "io_i04_store_based_barrier": (Category.INIT_TIMEOUT, ""),
    "io_i05_rendezvous_timeout": (Category.INIT_TIMEOUT, ""),
    "io_i07_jax_barrier_timeout": (Category.INIT_TIMEOUT, ""),
    "io_i08_horovod_start_timeout": (Category.INIT_TIMEOUT, ""),
    "io_i09_store_unreachable": (Category.NETWORK, "10.0.0.5"),
    "io_i10_edquot_then_store_timeout": (Category.STORAGE_IO, "rank 8"),
    # the job's own bugs and device faults as frameworks and accelerator runtimes print
    # them (torch, Triton, DeepSpeed, Megatron, Lightning, transformers, JAX, TensorFlow,
    # Paddle, MindSpore, CUDA, ROCm, Level Zero, Habana, TPU, Xid lines, nvidia-smi, DCGM)
    "sw_sw_torch_mat1_mat2": (Category.SOFTWARE, ""),
    "sw_sw_torch_backward_twice": (Category.SOFTWARE, ""),
    "sw_sw_torch_inplace_modified": (Category.SOFTWARE, ""),
    "sw_sw_torch_element0_nograd": (Category.SOFTWARE, ""),
    "sw_sw_ddp_unused_parameters": (Category.SOFTWARE, ""),
    "sw_sw_ddp_param_count_mismatch": (Category.SOFTWARE, "rank 1"),
    "sw_sw_dataloader_collate_stack_rank2": (Category.SOFTWARE, "rank 2"),
    "sw_sw_dataloader_collate_pil": (Category.SOFTWARE, ""),
    "sw_sw_dataloader_worker_keyerror_rank1": (Category.SOFTWARE, "rank 1"),
    "sw_sw_autograd_anomaly_nan_rank0": (Category.SOFTWARE, "rank 0"),
    "sw_sw_load_state_dict_mismatch": (Category.SOFTWARE, ""),
    "sw_sw_default_pg_not_initialized": (Category.SOFTWARE, ""),
    "sw_sw_dtensor_mixed_tensor": (Category.SOFTWARE, ""),
    "sw_sw_dynamo_unsupported_fullgraph": (Category.SOFTWARE, ""),
    "sw_sw_inductor_invalid_cxx": (Category.SOFTWARE, ""),
    "sw_sw_hf_tokenizer_no_pad_token": (Category.SOFTWARE, ""),
    "sw_sw_hf_unable_to_create_tensor": (Category.SOFTWARE, ""),
    "sw_sw_tokenizers_truncation_error": (Category.SOFTWARE, ""),
    "sw_sw_hf_trainingargs_multiline": (Category.SOFTWARE, ""),
    "sw_sw_accelerate_device_map_distributed": (Category.SOFTWARE, ""),
    "sw_sw_lightning_misconfiguration": (Category.SOFTWARE, ""),
    "sw_sw_lightning_anomaly_nan_rank1": (Category.SOFTWARE, "rank 1"),
    "sw_sw_jax_concretization_type_error": (Category.SOFTWARE, ""),
    "sw_sw_jax_runtime_callback_shape": (Category.SOFTWARE, ""),
    "sw_sw_tf_invalid_argument_label": (Category.SOFTWARE, ""),
    "sw_sw_tf_failed_precondition": (Category.SOFTWARE, ""),
    "sw_sw_triton_compilation_error": (Category.SOFTWARE, ""),
    "sw_data_pil_truncated_image_rank1": (Category.DATA, "rank 1"),
    "sw_data_pil_unidentified_image_rank0": (Category.DATA, "rank 0"),
    "sw_sw_record_assert_error_file_rank1": (Category.SOFTWARE, "rank 1"),
    "sw_sw_deepspeed_batch_assert": (Category.SOFTWARE, ""),
    "sw_sw_deepspeed_param_reduced_twice": (Category.SOFTWARE, ""),
    "sw_sw_deepspeed_loss_scale_minimum": (Category.SOFTWARE, ""),
    "sw_sw_deepspeed_pydantic_config": (Category.SOFTWARE, ""),
    "sw_sw_megatron_nan_grad_norm_rank5": (Category.SOFTWARE, "rank 5"),
    "sw_sw_megatron_world_size_assert": (Category.SOFTWARE, ""),
    "sw_sw_fairseq_min_loss_scale_spawn": (Category.SOFTWARE, ""),
    "sw_sw_paddle_invalid_argument_hint": (Category.SOFTWARE, ""),
    "sw_sw_mindspore_biasadd_shape": (Category.SOFTWARE, ""),
    "sw_sw_jax_xla_invalid_argument": (Category.SOFTWARE, ""),
    "sw_sw_dynamo_backend_compiler_failed": (Category.SOFTWARE, ""),
    "sw_sw_triton_out_of_resources": (Category.SOFTWARE, ""),
    "sw_data_torch_load_truncated_checkpoint": (Category.DATA, ""),
    "sw_gpu_device_assert_nll_loss_rank1": (Category.GPU_CUDA, "rank 1"),
    "sw_gpu_device_assert_index_after_tokenizer_warning": (Category.GPU_CUDA, "rank 2"),
    "sw_gpu_illegal_address_acceleratorerror_rank3": (Category.GPU_CUDA, "rank 3"),
    "sw_gpu_illegal_address_watchdog_sigabrt_rank1": (Category.GPU_CUDA, "rank 1"),
    "sw_gpu_cublas_execution_failed_rank5": (Category.GPU_CUDA, "rank 5"),
    "sw_gpu_cudnn_internal_error_rank2": (Category.GPU_CUDA, "rank 2"),
    "sw_gpu_illegal_instruction_rank0": (Category.GPU_CUDA, "rank 0"),
    "sw_gpu_triton_misaligned_address_rank6": (Category.GPU_CUDA, "rank 6"),
    "sw_gpu_unspecified_launch_failure_rank4": (Category.GPU_CUDA, "rank 4"),
    "sw_gpu_uncorrectable_ecc_rank4": (Category.GPU_CUDA, "rank 4"),
    "sw_gpu_nccl_cuda_failure_rank3": (Category.GPU_CUDA, ""),
    "sw_gpu_jax_cuda_error_illegal_address": (Category.GPU_CUDA, ""),
    "sw_rocm_hip_illegal_address_rank1": (Category.GPU_CUDA, "rank 1"),
    "sw_rocm_memory_access_fault_sigabrt": (Category.GPU_CUDA, ""),
    "sw_rocm_amdgpu_page_fault_then_access_fault": (Category.GPU_CUDA, ""),
    "sw_intel_xpu_device_lost_rank2": (Category.GPU_CUDA, "rank 2"),
    "sw_habana_device_acquire_failed_rank6": (Category.GPU_CUDA, "rank 6"),
    "sw_neuron_uncorrectable_memory_error": (Category.GPU_CUDA, ""),
    "sw_tpu_accelerator_device_halted": (Category.GPU_CUDA, ""),
    "sw_xid79_fallen_off_bus_then_watchdog": (Category.GPU_CUDA, "0000:3b:00"),
    "sw_xid48_dbe_then_ecc_error": (Category.GPU_CUDA, "rank 4"),
    "sw_xid94_contained_ecc_pid_matches_rank2": (Category.GPU_CUDA, "rank 2"),
    "sw_xid95_uncontained_ecc_then_watchdog": (Category.GPU_CUDA, "rank 0"),
    "sw_xid13_graphics_exception_then_cuda_error": (Category.GPU_CUDA, "rank 5"),
    "sw_xid31_mmu_fault_pid_matches_rank2": (Category.GPU_CUDA, "rank 2"),
    "sw_xid43_gpu_stopped_processing_rank1": (Category.GPU_CUDA, "rank 1"),
    "sw_xid63_row_remap_pending_then_cuda_error": (Category.GPU_CUDA, "rank 3"),
    "sw_dcgmi_diag_pending_remaps_after_ecc": (Category.GPU_CUDA, "rank 3"),
    "sw_xid119_gsp_timeout_then_watchdog": (Category.GPU_CUDA, "0000:9b:00"),
    "sw_dcgm_health_dbe_after_watchdog": (Category.GPU_CUDA, "rank 3"),
    "sw_nvidia_smi_unable_to_determine_handle": (Category.GPU_CUDA, "0000:3B:00.0"),
    "sw_xid94_then_anomaly_nan_rank2": (Category.GPU_CUDA, "0000:00:08"),
    "sw_xid94_then_megatron_nan_rank5": (Category.GPU_CUDA, "0000:bb:00"),
    "sw_xid13_misaligned_then_triton_error_rank6": (Category.GPU_CUDA, "rank 6"),
    "sw_rocm_amdgpu_page_fault_then_hip_error": (Category.GPU_CUDA, "rank 1"),
    "sw_gpu_triton_illegal_address_rank2": (Category.GPU_CUDA, "rank 2"),
    # a review of the device and framework readings against probes of its own
    "rv44_p21_rank1_cuda_oom_then_rank3_cudnn_internal": (Category.OOM, "1"),
    "rv44_p22_fairseq_oom_skip_then_cudnn_internal": (Category.OOM, ""),
    "rv44_p23_rocm_fault_rank5_then_watchdog_timeouts": (Category.GPU_CUDA, "5"),
    "rv44_p24_mpirun_triton_rank2_then_rank5_abort_reported": (Category.GPU_CUDA, "2"),
    "rv44_p25_torchrun_triton_rank1_rootcause_rank4_sigabrt": (Category.GPU_CUDA, "1"),
    "rv44_p26_srun_label_triton_task3_then_task5_exit": (Category.GPU_CUDA, "3"),
    "rv44_p27_habana_acquire_rank6_then_store_timeouts": (Category.GPU_CUDA, "6"),
    "rv44_p29_cudnn_internal_rank2_then_gloo_peer_reset": (Category.GPU_CUDA, "2"),
    "rv44_p30_torchxla_F_resource_exhausted_hbm": (Category.OOM, ""),
    "rv44_p32_mpspawn_two_nodes_process2_cudnn_internal": (Category.GPU_CUDA, "process 2"),
    "rv44_p33_ray_train_worker_triton_error": (Category.GPU_CUDA, "51207"),
    "rv44_p34_deepspeed_pdsh_worker1_triton_error": (Category.GPU_CUDA, "worker-1"),
    "rv44_p35_mpirun_habana_rank6_device_acquire": (Category.GPU_CUDA, "6"),
    "rv44_p36_torchrun_node1_rocm_fault_unlabelled_rank11_local3": (Category.GPU_CUDA, ""),
    "rv44_p37_rocm_fault_unlabelled_two_ranks_sigabrt": (Category.GPU_CUDA, ""),
    "rv44_p38_lexicon_network_line_then_reporter_host_named": (Category.NETWORK, ""),
    # a review of those readings against probes of its own: healthy runs that print their
    # words, and failures whose earlier cause must win
    "rv43_p30_slurm2505_scancel_after_progress": (Category.INFRASTRUCTURE, ""),
    "rv43_p31_slurm2505_cancel_after_own_keyerror": (Category.SOFTWARE, ""),
    "rv43_p32_srun_label_other_task_ib_error": (Category.NETWORK, "10.20.0.14"),
    "rv43_p33_srun_unlabelled_curl_refused_then_task_exit": (Category.UNDETERMINED, "3"),
    "rv43_p34_mpirun_own_keyerror_then_peer_reset": (Category.SOFTWARE, "3"),
    "rv43_p35_mpirun_sigkill_own_pushgateway_line": (Category.UNDETERMINED, "2"),
    "rv43_p36_mpirun_sigkill_own_nvml_notsupported": (Category.UNDETERMINED, "1"),
    "rv43_p38_mpirun_own_line_closed_by_peer": (Category.UNDETERMINED, ""),
    "rv43_p39_mpirun_cuda_oom_then_gloo_refused": (Category.OOM, "2"),
    "rv43_p40_xid79_then_gloo_refused": (Category.GPU_CUDA, "0000:3b:00"),
    "rv43_p41_gloo_pair_refused_alone": (Category.NETWORK, "10.0.0.2:896"),
    "rv43_p42_peer_bug_then_gloo_refused": (Category.SOFTWARE, "1"),
    "rv43_p43_nccl_trace_peer_task_killed": (Category.UNDETERMINED, ""),
    "rv43_p44_nccl_init_trace_only": (Category.NETWORK, "gpu-a-07"),
    "rv43_p46_store_timeout_in_train_loop_fn_at_startup": (Category.INIT_TIMEOUT, ""),
    "rv43_p47_lazy_p2p_store_wait_in_train_step": (Category.UNDETERMINED, ""),
    "rv43_p48_orte_daemons_full_help_alone": (Category.INFRASTRUCTURE, ""),
    "rv43_p49_orte_daemons_ssh_dns": (Category.NETWORK, "gpu-node-9"),
    "rv43_p50_pbs_walltime_after_illegal_memory": (Category.GPU_CUDA, ""),
    "rv43_p51_pbs_walltime_after_progress": (Category.INFRASTRUCTURE, ""),
    "rv43_p54_flux_cancel_after_own_exception": (Category.SOFTWARE, "1"),
    "rv43_p55_htcondor_gone_over_memory": (Category.OOM, ""),
    "rv43_p56_htcondor_condor_rm": (Category.INFRASTRUCTURE, ""),
    "rv43_p58_k8s_pod_active_deadline": (Category.INFRASTRUCTURE, ""),
    "rv43_p59_tf_unavailable_socket_closed": (Category.UNDETERMINED, ""),
    "rv43_p60_tf_unavailable_after_ps_oomkilled": (Category.OOM, ""),
    "rv43_p61_jax_leader_preempted_died_restarted": (Category.UNDETERMINED, ""),
    "rv43_p63_compose_trainer_exit1_after_traceback": (Category.SOFTWARE, ""),
    "rv43_p64_pytorchjob_worker_exit137_no_oom": (Category.UNDETERMINED, "mnist-worker-1"),
    "rv43_p65_k8s_json_reason_oomkilled": (Category.OOM, ""),
    "rv43_p67_ray_gcs_unreachable_true": (Category.NETWORK, "172.23.15.13:20000"),
    "rv43_p75_gloo_pair_refused_rank_prefixed": (Category.NETWORK, "10.1.0.12:35817"),
    "rv43_p68_ray_gcs_fail_after_head_oom": (Category.OOM, ""),
    "rv43_p69_rccl_socketpollconnect_exceeded": (Category.NETWORK, ""),
    "rv43_p70_ucx_unreachable_after_own_bug": (Category.SOFTWARE, "1"),
    "rv43_p71_ray_actor_node_died": (Category.INFRASTRUCTURE, ""),
    "rv43_p72_slurmctld_requeue_node_failure": (Category.INFRASTRUCTURE, "gpu-7"),
    "rv43_p73_grpc_dns_failed_jax_init": (Category.NETWORK, ""),
    "rv43_p74_horovod_warning_own_then_exit": (Category.COLLECTIVE_DESYNC, "0"),
    # real wordings of network stacks and of schedulers, clouds, containers and kernels,
    # read from their own sources (UCX, libfabric/EFA, Open MPI, MPICH, gRPC, JAX, Gloo,
    # RCCL, Slurm, PBS, Flux, HTCondor, Kubernetes, Ray, SageMaker, docker, Linux), each in
    # the lines a job prints around it
    "net_u01_ucx_transport_retry_exceeded_ib": (Category.NETWORK, ""),
    "net_u02_ucx_remote_access_error_roce": (Category.NETWORK, ""),
    "net_u03_ucx_rnr_retry_exceeded": (Category.NETWORK, ""),
    "net_u04_ucx_endpoint_timeout_not_handled": (Category.NETWORK, ""),
    "net_u05_ucx_tcp_connection_reset_alone": (Category.UNDETERMINED, ""),
    "net_u05b_ucx_tcp_connection_reset_after_oom": (Category.OOM, ""),
    "net_u06_ucx_socket_connect_no_route": (Category.NETWORK, "10.0.3.17"),
    "net_u07_ucx_tcp_conn_establishment_unsuccessful": (Category.NETWORK, ""),
    "net_u08_ucx_ib_async_qp_fatal": (Category.NETWORK, ""),
    "net_e01_aws_ofi_nccl_efa_unreachable_security_group": (Category.NETWORK, "i-07b5d2e8c1f0a9b34"),
    "net_e03_aws_ofi_nccl_efa_conn_reset_by_remote_peer": (Category.UNDETERMINED, ""),
    "net_e03b_aws_ofi_nccl_conn_reset_after_cgroup_oom": (Category.OOM, "51207"),
    "net_e04_mpich_ofi_poll_failed_no_route": (Category.NETWORK, ""),
    "net_e05_mpich41_ofi_poll_failed_eio": (Category.NETWORK, ""),
    "net_e06_oneccl_fi_cq_readerr_verbs_retry": (Category.NETWORK, ""),
    "net_o01_ompi_btl_tcp_readv_timed_out": (Category.NETWORK, ""),
    "net_o02_ompi_btl_tcp_client_connect_fail": (Category.NETWORK, "10.20.1.17"),
    "net_o03_ompi_btl_tcp_peer_hung_up_alone": (Category.UNDETERMINED, ""),
    "net_o03b_ompi_peer_hung_up_after_cuda_error": (Category.GPU_CUDA, ""),
    "net_o04_ompi_openib_retry_count_exceeded": (Category.NETWORK, ""),
    "net_o05_orte_lost_communication_remote_daemon": (Category.INFRASTRUCTURE, "gpu-r1-07"),
    "net_o06_prrte_lost_communication_node_died": (Category.INFRASTRUCTURE, "gpu-a-006"),
    "net_o07_orte_daemon_launch_ssh_no_route": (Category.NETWORK, "gpu-r2-14"),
    "net_h01_hydra_proxy_unable_to_connect_server": (Category.NETWORK, ""),
    "net_h02_simple_pmi_connect_refused": (Category.NETWORK, ""),
    "net_h03_simple_pmi_unable_to_get_host_entry": (Category.NETWORK, ""),
    "net_j01_jax_init_failed_to_connect_all_addresses": (Category.NETWORK, "10.128.0.12:8476"),
    "net_j02_jax_heartbeat_timeout_tasks_unhealthy": (Category.UNDETERMINED, ""),
    "net_j02b_jax_heartbeat_timeout_after_task_oom": (Category.OOM, ""),
    "net_j03_jax_failed_to_send_rpc_socket_closed": (Category.UNDETERMINED, ""),
    "net_j04_jax_register_barrier_timed_out": (Category.INIT_TIMEOUT, ""),
    "net_j05_tf_ps_socket_closed_alone": (Category.UNDETERMINED, ""),
    "net_j05b_tf_ps_socket_closed_after_oom": (Category.OOM, "30771"),
    "net_j06_tf_worker_failed_to_connect_no_route": (Category.NETWORK, "10.244.3.19"),
    "net_j07_grpc_dns_resolution_failed_cares": (Category.NETWORK, ""),
    "net_j08_tf_cluster_check_alive_failed": (Category.UNDETERMINED, ""),
    "net_hv02_horovod_http_store_wait_timeout": (Category.INIT_TIMEOUT, ""),
    "net_hv03_horovodrun_ssh_not_successful": (Category.NETWORK, "node-17"),
    "net_hv04_horovodrun_timed_out_waiting_tasks_start": (Category.INIT_TIMEOUT, ""),
    "net_hv05_horovod_gloo_connection_closed_by_peer": (Category.UNDETERMINED, ""),
    "net_d02_pdsh_ssh_no_route": (Category.NETWORK, "gpu-node-03"),
    "net_d03_pdsh_ssh_could_not_resolve_hostname": (Category.NETWORK, "worker-1"),
    "net_d04_ssh_connection_refused_port22": (Category.NETWORK, "172.31.14.88"),
    "net_p01_c10d_gai_name_or_service_not_known": (Category.NETWORK, "trainer-master-0.trainer"),
    "net_p02_c10d_gai_temporary_failure_name_resolution": (Category.NETWORK, "a5d94fbf3cac"),
    "net_p03_python_gaierror_temporary_failure_urllib3": (Category.NETWORK, ""),
    "net_p04_python_oserror_113_no_route_etcd": (Category.NETWORK, ""),
    "net_p05_python_oserror_101_network_unreachable": (Category.NETWORK, ""),
    "net_p06_python_connection_refused_111": (Category.NETWORK, ""),
    "net_g01_gloo_connection_closed_by_peer_alone": (Category.UNDETERMINED, ""),
    "net_g01b_gloo_closed_by_peer_after_keyerror": (Category.SOFTWARE, ""),
    "net_g02_gloo_timed_out_waiting_recv": (Category.UNDETERMINED, ""),
    "net_g03_gloo_connect_connection_refused": (Category.NETWORK, "10.0.0.12"),
    "net_g04_gloo_timed_out_connecting_so_error": (Category.NETWORK, ""),
    "net_g05_gloo_read_error_connection_reset": (Category.UNDETERMINED, ""),
    "net_g06_gloo_socket_address_family_not_supported": (Category.NETWORK, ""),
    "net_g07_gloo_connect_network_unreachable": (Category.NETWORK, ""),
    "net_r01_rccl_net_ib_completion_status12": (Category.NETWORK, "10.1.4.17"),
    "net_r02_rccl_socket_closed_by_remote_peer_alone": (Category.UNDETERMINED, ""),
    "net_r02b_rccl_closed_by_peer_after_hip_error": (Category.GPU_CUDA, ""),
    "net_r03_rccl_socket_start_connect_no_route": (Category.NETWORK, "10.7.0.44"),
    "net_r04_rccl_net_ib_async_event_port_error": (Category.NETWORK, ""),
    "net_r05_rccl_getaddrinfo_name_not_known": (Category.NETWORK, ""),
    "net_g08_gloo_connectfullmesh_no_error_loopback": (Category.NETWORK, ""),
    "net_u01b_ucx_retry_exceeded_after_node_failure": (Category.INFRASTRUCTURE, "gpu-node-14"),
    "net_u09_ompi_pml_ucx_destination_unreachable": (Category.NETWORK, ""),
    "net_hv05b_horovod_gloo_closed_by_peer_after_oom": (Category.OOM, ""),
    "net_r06_rccl_connect_refused_exceeded_retries": (Category.NETWORK, ""),
    "net_r07_rccl_socket_poll_connect_timed_out": (Category.NETWORK, "10.7.0.51"),
    "net_p07_python_gaierror_name_or_service_not_known": (Category.NETWORK, ""),
    "infra_slurm_time_limit": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_preemption": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_node_failure_srun_and_stepd": (Category.INFRASTRUCTURE, "gpu-a18"),
    "infra_slurm_node_failure_stepd_only": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_job_requeue": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_due_to_signal_2505": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_cancelled_scancel_pre2505": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_cancelled_after_traceback_pre2505": (Category.SOFTWARE, ""),
    "infra_slurm_task_failure_2505_no_trace": (Category.UNDETERMINED, ""),
    "infra_slurm_task_failure_2505_with_trace": (Category.SOFTWARE, ""),
    "infra_slurm_failed_nonzero": (Category.UNDETERMINED, ""),
    "infra_slurm_oom_kill_event_new": (Category.OOM, ""),
    "infra_slurm_oom_kill_event_old": (Category.OOM, ""),
    "infra_slurm_jobacct_mem_limit": (Category.OOM, ""),
    "infra_slurm_task_launch_failed": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_task_launch_node_comm": (Category.INFRASTRUCTURE, "gpu-a18"),
    "infra_slurm_force_terminated": (Category.INFRASTRUCTURE, ""),
    "infra_slurm_unable_create_step": (Category.INFRASTRUCTURE, ""),
    "infra_slurmctld_requeue_node_fail": (Category.INFRASTRUCTURE, "gpu-a18"),
    "infra_slurm_stepd_terminated_not_ending": (Category.INFRASTRUCTURE, ""),
    "infra_pbs_walltime": (Category.INFRASTRUCTURE, ""),
    "infra_pbs_mem_exceeded": (Category.OOM, ""),
    "infra_torque_vmem_exceeded": (Category.OOM, ""),
    "infra_flux_timeout": (Category.INFRASTRUCTURE, ""),
    "infra_flux_node_failure": (Category.INFRASTRUCTURE, ""),
    "infra_flux_cancel": (Category.INFRASTRUCTURE, ""),
    "infra_htcondor_evicted": (Category.INFRASTRUCTURE, ""),
    "infra_htcondor_held_memory": (Category.OOM, ""),
    "infra_htcondor_aborted_condor_rm": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_evicted_memory_pressure": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_evicted_ephemeral_storage": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_oomkilled": (Category.OOM, ""),
    "infra_k8s_pod_active_deadline": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_job_deadline": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_nodelost": (Category.INFRASTRUCTURE, "gpu-node-7"),
    "infra_k8s_preempted_by_scheduler": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_node_shutdown": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_taint_manager_eviction": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_sigterm_torchrun_in_pod": (Category.INFRASTRUCTURE, ""),
    "infra_kubeflow_replica_failed_alone": (Category.UNDETERMINED, ""),
    "infra_kubeflow_replica_failed_after_oomkilled": (Category.OOM, ""),
    "infra_kueue_preempted": (Category.INFRASTRUCTURE, ""),
    "infra_kueue_podsready_timeout": (Category.INFRASTRUCTURE, ""),
    "infra_volcano_evict_preempt": (Category.INFRASTRUCTURE, ""),
    "infra_ray_node_marked_dead": (Category.INFRASTRUCTURE, "10.0.3.17"),
    "infra_ray_actor_node_died": (Category.INFRASTRUCTURE, ""),
    "infra_ray_actor_worker_died_system_error": (Category.UNDETERMINED, ""),
    "infra_ray_memory_monitor_kill": (Category.OOM, ""),
    "infra_ray_raylet_terminated": (Category.UNDETERMINED, ""),
    "infra_ray_local_raylet_died": (Category.UNDETERMINED, ""),
    "infra_aws_spot_nth": (Category.INFRASTRUCTURE, ""),
    "infra_aws_spot_imds_instance_action": (Category.INFRASTRUCTURE, ""),
    "infra_gce_instance_preempted": (Category.INFRASTRUCTURE, ""),
    "infra_azure_scheduled_event_preempt": (Category.INFRASTRUCTURE, ""),
    "infra_docker_compose_exit_137": (Category.UNDETERMINED, ""),
    "infra_docker_compose_exit_137_oomkilled": (Category.OOM, ""),
    "infra_docker_oci_nvml_driver_not_loaded": (Category.GPU_CUDA, ""),
    "infra_dataloader_shm_bus_error": (Category.INFRASTRUCTURE, ""),
    "infra_dataloader_shm_torch_file": (Category.INFRASTRUCTURE, ""),
    "infra_kernel_oom_killer_global": (Category.OOM, ""),
    "infra_kernel_memcg_oom": (Category.OOM, ""),
    "infra_kernel_oom_old_sacrifice_child": (Category.OOM, ""),
    "infra_torchrun_sigkill_no_oom_line": (Category.UNDETERMINED, ""),
    "infra_kernel_hard_lockup_panic": (Category.INFRASTRUCTURE, "gpu-a18"),
    "infra_kernel_fatal_mce_panic": (Category.INFRASTRUCTURE, "gpu-a18"),
    "infra_systemd_stop_sigterm_timeout_kill": (Category.INFRASTRUCTURE, ""),
    "infra_torchrun_sigterm_death_signal": (Category.INFRASTRUCTURE, ""),
    "infra_torchrun_sighup_death_signal": (Category.INFRASTRUCTURE, ""),
    "infra_torchrun_old_format_death_signal": (Category.INFRASTRUCTURE, ""),
    "infra_torchrun_closing_signal_after_cuda_oom": (Category.OOM, ""),
    "infra_torchrun_sigterm_after_slurm_timelimit": (Category.INFRASTRUCTURE, ""),
}

# probe (a file, or a folder of one job's files) -> processes that crashed alike: a cause they
# share, nobody named
SHARED_CRASH = ("crash_two_pids_alike", "crash_two_small_pids_alike", "crash_same_pid_two_pods",
                "crash_same_pid_two_pods_ucx", "crash_two_nodes_segv", "crash_two_address_lines",
                "crash_same_pid_two_containers")

# probe -> a category it must not be given (a guess that would page someone wrongly)
NOT: dict[str, Category] = {
    # pyarrow's `Parquet magic bytes not found in footer`: a failure (read as the job's own
    # exception; the file it read may be corrupt, or not a Parquet file at all)
    "sw_data_parquet_magic_bytes_rank1": Category.NONE,
    "kubelet_skipping": Category.NONE,  # "Error syncing pod, skipping: nvml error" is a failure
    "kubelet_skipping_structured": Category.NONE,
    "ray_exit_actor_healthy": Category.INFRASTRUCTURE,  # an actor that exited on purpose
    "ray_actor_oom_context": Category.INFRASTRUCTURE,  # its node did not die
    "ray2_info_stamp_exit": Category.INFRASTRUCTURE,
    "git_interleaved_255": Category.INFRASTRUCTURE,  # git refusals are no failed launch
    "rpc_timeout_error": Category.STORAGE_IO,  # a TimeoutError is a wait, not a disk
    # a /dev/shm or preemption word before srun's task exit is not the node failing to start it
    "srun_exit_after_shm_notice": Category.INFRASTRUCTURE,
    "srun_exit_other_node_shm": Category.INFRASTRUCTURE,
    "srun_exit_after_vllm_preemption": Category.INFRASTRUCTURE,
    # a system error whose socket trace a peer's exit, an abort, NCCL < 2.13 (where a closed
    # peer was code 2 too), a local IPC socket or another reason explains: not this host's
    # network
    "nccl_trace_old_peer_closed": Category.NETWORK,
    "nccl_trace_abort_after_peer_closed": Category.NETWORK,
    "nccl_trace_old_version_only": Category.NETWORK,
    "nccl_trace_ipc_socket": Category.NETWORK,
    "nccl_trace_ipc_socket_warned": Category.NETWORK,
    "nccl_shm_segment_then_abort": Category.NETWORK,
    "nccl_shm_extend_then_abort": Category.NETWORK,
    "nccl_trace_remote_code": Category.NETWORK,
    "xla_remote_error": Category.NETWORK,
    "segfault_then_peer_socket_error": Category.NETWORK,
    # a store's wait after a peer crashed mid-run is no start-up wait; an application's own
    # cache wait is none either; a shutdown's cancelled task is no bug
    "hvd_store_after_segv": Category.INIT_TIMEOUT,
    "job_wait_timeout_keys_other": Category.INIT_TIMEOUT,
    "cancelled_vllm_shutdown": Category.SOFTWARE,
    # a Ctrl-C after a finished run or another rank's death is no stop asked for on a healthy
    # job; MPI's relayed failure and a shell's report are no exception of the job's
    "ki_after_training_finished": Category.INFRASTRUCTURE,
    "ki_other_rank_glibc": Category.INFRASTRUCTURE,
    "ki_other_rank_silent": Category.INFRASTRUCTURE,
    "ki_clock_domains": Category.INFRASTRUCTURE,
    "mpich_other_error_stack": Category.SOFTWARE,
    "mpi_err_other_alone": Category.SOFTWARE,
    "killed_cuts_traceback": Category.SOFTWARE,
    "terminated_cuts_traceback": Category.SOFTWARE,
    "hangup_cuts_traceback": Category.SOFTWARE,
    "cpp_reader_file_not_found": Category.STORAGE_IO,  # a load that found no file
    # an assertion is no cause of another process's crash, of a crash by another signal, nor
    # when it is glibc's own check; a wait after a node left mid-run is no start-up wait
    "mpi_assert_other_pid_before_segv": Category.SOFTWARE,
    "mpi_heap_assert": Category.SOFTWARE,
    "mpi_pthread_mutex_assert_after_nccl": Category.SOFTWARE,
    "mpi_startup_wait_midrun": Category.INIT_TIMEOUT,
    # an endpoint that answered (403, 429) or was never tried (offline mode) is no network
    # fault; a refusal after a peer's crash in another file is that crash's story
    "hub_answered_403": Category.NETWORK,
    "hub_answered_429": Category.NETWORK,
    "hub_offline_not_cached": Category.NETWORK,
    "datasets_offline_mode": Category.NETWORK,
    "refused_after_peer_segv": Category.NETWORK,
    # a missing file that was read (also under a write on the same line or an outer frame),
    # or a missing program, is no missing directory
    "fnf_read_and_write_one_line": Category.STORAGE_IO,
    "fnf_read_under_write": Category.STORAGE_IO,
    "fnf_missing_program": Category.STORAGE_IO,
    # an all-to-all's uneven splits are no desync; too many open files is no /dev/shm
    "alltoall_uneven_timeout": Category.COLLECTIVE_DESYNC,
    "nccl_shm_emfile": Category.INFRASTRUCTURE,
    "mpi_truncate_after_segv": Category.COLLECTIVE_DESYNC,
    "cpp_what_then_other_lines": Category.GPU_CUDA,
    # a restart that could not bind the port a crashed run held is the crash's story; a
    # device hidden by the job's own setting is no device failure
    "segfault_then_restart_bind": Category.NETWORK,
    "ascend_visible_devices_config": Category.GPU_CUDA,
}


# Audits of wordings read from the tools' own sources and made by real runs, each case's answer
# written by its labeller before triage read it; the cases triage reads as their labeller did.
CAUSES.update({
    # `ncclw_*`: NCCL's failure lines and how torch wraps them
    "ncclw_01_ib_nccl278_completion_noPeer": (Category.NETWORK, ""),
    "ncclw_02_ib_nccl2103_completion_peer_torch112": (Category.NETWORK, "10.1.4.22"),
    "ncclw_03_ib_nccl2193_completion_roce_gid_torch22": (Category.NETWORK, "10.20.1.7"),
    "ncclw_04_ib_nccl2205_status12_lastError_only": (Category.NETWORK, "10.6.1.12"),
    "ncclw_05_ib_nccl2262_ts_hca_torch27": (Category.NETWORK, "10.3.0.12"),
    "ncclw_06_ib_nccl2289_named_status_multirank": (Category.NETWORK, "10.8.2.41"),
    "ncclw_07_ib_nccl2215_status10_remote_access": (Category.NETWORK, "10.42.7.33"),
    "ncclw_08_multirank_cuda_first_then_ib_flush": (Category.GPU_CUDA, "rank 3"),
    "ncclw_09_ib_async_port_error": (Category.NETWORK, "gpu-b12"),
    "ncclw_10_ibv_modify_qp_einval_proxy_connect": (Category.NETWORK, ""),
    "ncclw_12_ib_gid_roce_version_read_failed": (Category.NETWORK, ""),
    "ncclw_13_ibv_reg_mr_bad_address": (Category.NETWORK, ""),
    "ncclw_15_ib_collective_mismatch_size": (Category.COLLECTIVE_DESYNC, ""),
    "ncclw_16_socket_nccl278_connect_refused_torch18": (Category.NETWORK, "10.148.3.247"),
    "ncclw_18_socket_no_route_to_host_multirank": (Category.NETWORK, "192.168.19.14"),
    "ncclw_19_socket_exceeded_retries_refused": (Category.NETWORK, ""),
    "ncclw_20_socket_nccl2275_refused_root_multirank": (Category.NETWORK, "10.0.0.5"),
    "ncclw_22_socket_recv_reset_by_peer_alone": (Category.UNDETERMINED, ""),
    "ncclw_23_socket_closed_by_remote_peer_alone": (Category.UNDETERMINED, ""),
    "ncclw_24_multirank_oomkill_then_closed_by_peer": (Category.OOM, "rank 6"),
    "ncclw_25_socket_message_truncated_multirank": (Category.COLLECTIVE_DESYNC, ""),
    "ncclw_28_real_bootstrap_no_socket_interface": (Category.NETWORK, ""),
    "ncclw_29_real_invalid_nccl_comm_id": (Category.NETWORK, "gpu-head-0"),
    "ncclw_31_bootstrap_root_rank_count_mismatch": (Category.SOFTWARE, ""),
    "ncclw_33_multirank_cuda_first_proxy_call_failed": (Category.GPU_CUDA, "rank 1"),
    "ncclw_34_proxy_service_closed_localrank_no_cause": (Category.UNDETERMINED, ""),
    "ncclw_35_shm_nccl2103_posix_fallocate_docker": (Category.INFRASTRUCTURE, ""),
    "ncclw_36_shm_nccl2193_failed_to_extend": (Category.INFRASTRUCTURE, ""),
    "ncclw_37_shm_nccl283_enospc_trap": (Category.INFRASTRUCTURE, ""),
    "ncclw_38_cuda_oom_calloc_nccl2193": (Category.OOM, "rank 5"),
    "ncclw_39_multirank_cumem_oom_rank3_others_timeout": (Category.OOM, "rank 3"),
    "ncclw_40_nccltests_peer_access_not_supported": (Category.GPU_CUDA, ""),
    "ncclw_44_cuda_driverapi_719_single_rank": (Category.GPU_CUDA, "rank 2"),
    "ncclw_45_real_cuda_driver_insufficient": (Category.GPU_CUDA, ""),
    "ncclw_47_unhandled_cuda_illegal_address_lasterror": (Category.GPU_CUDA, "rank 6"),
    "ncclw_48_duplicate_gpu_multirank": (Category.SOFTWARE, ""),
    "ncclw_49_mismatched_nccl_version_two_nodes": (Category.SOFTWARE, ""),
    "ncclw_50_cupy_invalid_root": (Category.SOFTWARE, ""),
    "ncclw_53_ras_version_mismatch_remote_peer": (Category.SOFTWARE, ""),
    "ncclw_55_remote_process_exited_alone": (Category.UNDETERMINED, ""),
    "ncclw_56_unhandled_system_error_alone_torch110": (Category.UNDETERMINED, ""),
    "ncclw_57_internal_error_alone_nccl2141": (Category.UNDETERMINED, ""),
    "ncclw_58_comm_aborted_timeouts_rank2_silent": (Category.UNDETERMINED, ""),
    "ncclw_59_heartbeat_after_ib_error": (Category.NETWORK, "10.77.0.41"),
    "ncclw_60_mismatched_collective_fingerprint": (Category.COLLECTIVE_DESYNC, ""),
    "ncclw_62_multirank_software_first_then_remote_error": (Category.SOFTWARE, "rank 5"),
    "ncclw_63_multirank_preemption_first_then_closed": (Category.INFRASTRUCTURE, ""),
    # `mpiw_*`: MPI's own reports of aborts and failed calls
    "mpiw_c02_mpich_abort_bare": (Category.UNDETERMINED, "rank 3"),
    "mpiw_c05_mpich_keyerror_unlabelled": (Category.SOFTWARE, ""),
    "mpiw_c06_mpich_killed9": (Category.UNDETERMINED, ""),
    "mpiw_c07_mpich_killed9_oomkiller": (Category.OOM, "48211"),
    "mpiw_c08_mpich_segv": (Category.UNDETERMINED, ""),
    "mpiw_c09_mpich_early_exit0": (Category.UNDETERMINED, ""),
    "mpiw_c10_mpich_bcast_truncated_fatal": (Category.COLLECTIVE_DESYNC, ""),
    "mpiw_c11_mpich3_bcast_truncated_fatal": (Category.COLLECTIVE_DESYNC, ""),
    "mpiw_c13_mpich_allreduce_truncated": (Category.COLLECTIVE_DESYNC, ""),
    "mpiw_c14_mpich_gather_truncated": (Category.COLLECTIVE_DESYNC, ""),
    "mpiw_c15_mpich_invalid_root": (Category.SOFTWARE, "rank 2"),
    "mpiw_c16_mpich3_invalid_root_nolabel": (Category.SOFTWARE, "rank 2"),
    "mpiw_c18_mpich3_invalid_comm_fatal": (Category.SOFTWARE, "rank 1"),
    "mpiw_c19_mpich_invalid_rank": (Category.SOFTWARE, "rank 1"),
    "mpiw_c20_mpich3_invalid_tag": (Category.SOFTWARE, "rank 1"),
    "mpiw_c25_impi_all_killed9": (Category.UNDETERMINED, ""),
    "mpiw_c29_impi_invalid_root": (Category.SOFTWARE, "rank 2"),
    "mpiw_c30_impi_recv_truncated_fatal": (Category.SOFTWARE, "rank 1"),
    "mpiw_c31_impi_early_exit": (Category.UNDETERMINED, ""),
    "mpiw_c34_ompi5_fatal_bcast_truncate": (Category.COLLECTIVE_DESYNC, ""),
    "mpiw_c35_ompi5_fatal_err_root": (Category.SOFTWARE, "rank 2"),
    "mpiw_c36_ompi5_fatal_err_rank": (Category.SOFTWARE, "rank 1"),
    "mpiw_c37_ompi5_signal9": (Category.UNDETERMINED, "rank 2"),
    "mpiw_c38_ompi5_segv_backtrace": (Category.UNDETERMINED, "rank 1"),
    "mpiw_c39_ompi5_exit_improperly": (Category.UNDETERMINED, "rank 3"),
    "mpiw_c40_ompi5_nonzero_exit": (Category.UNDETERMINED, "rank 3"),
    "mpiw_c42_ompi5_tagged_keyerror_hang": (Category.SOFTWARE, "rank 2"),
    "mpiw_c43_ompi5_timestamp_tag_abort_bare": (Category.UNDETERMINED, "rank 1"),
    "mpiw_c46_ompi5_err_root_exception_unlabelled": (Category.SOFTWARE, ""),
    "mpiw_c48_ompi4_signal9": (Category.UNDETERMINED, "rank 2"),
    "mpiw_c49_ompi4_ucx_segv": (Category.UNDETERMINED, "rank 1"),
    "mpiw_c50_ompi4_nonzero_exit": (Category.UNDETERMINED, "rank 3"),
    "mpiw_c52_ompi4_tagged_fatal_allreduce": (Category.COLLECTIVE_DESYNC, ""),
    "mpiw_c53_ompi4_tagged_mpi4py_abort": (Category.SOFTWARE, "rank 1"),
    "mpiw_c55_ompi4_fatal_err_root": (Category.SOFTWARE, "rank 2"),
    "mpiw_c56_cray_abort_after_traceback": (Category.SOFTWARE, "rank 5"),
    "mpiw_c57_cray_invalid_count": (Category.SOFTWARE, "rank 0"),
    "mpiw_c59_cray_abort_bare_many": (Category.UNDETERMINED, "rank 616"),
    "mpiw_c60_pals_cuda_oom_signal6": (Category.OOM, "rank 2"),
    "mpiw_c61_pals_signal9_bare": (Category.UNDETERMINED, "rank 6"),
    "mpiw_c65_horovod_rank_raises": (Category.SOFTWARE, "rank 1"),
    "mpiw_c66_horovod_shutdown_after_kill": (Category.UNDETERMINED, "rank 3"),
    # `schedw_*`: schedulers' own reports (LSF, Grid Engine, Cobalt, ALPS, PALS, Slurm's
    # clients, cloud batch services)
    "schedw_slurm_real_time_limit_srun_l": (Category.INFRASTRUCTURE, ""),
    "schedw_slurm_real_traceback_rank3_kill_on_bad_exit": (Category.SOFTWARE, "rank 3"),
    "schedw_slurm_real_salloc_revoked_scancel": (Category.INFRASTRUCTURE, ""),
    "schedw_slurm_real_node_failure_requeue": (Category.INFRASTRUCTURE, "gpu-a18"),
    "schedw_slurm_real_task_launch_timeout_node": (Category.INFRASTRUCTURE, "gpu-a18"),
    "schedw_slurm_real_jobacct_exceeded_memory_limit": (Category.OOM, ""),
    "schedw_slurm_real_ctld_down_inside_batch": (Category.INFRASTRUCTURE, ""),
    "schedw_slurm_real_munge_key_mismatch_node": (Category.INFRASTRUCTURE, "gpu-a18"),
    "schedw_slurm_real_prolog_failure": (Category.INFRASTRUCTURE, "gpu-a18"),
    "schedw_slurm_real_partition_inactive": (Category.INFRASTRUCTURE, ""),
    "schedw_slurm_real_ctld_unreachable_sbatch": (Category.INFRASTRUCTURE, ""),
    "schedw_slurm_src_oom_kill_event_task_oom_nccl": (Category.OOM, ""),
    "schedw_slurm_src_old_oomkill_events_with_traceback_first": (Category.OOM, "rank 2"),
    "schedw_lsf_term_runlimit": (Category.INFRASTRUCTURE, ""),
    "schedw_lsf_term_memlimit": (Category.OOM, ""),
    "schedw_lsf_term_owner_bkill": (Category.INFRASTRUCTURE, ""),
    "schedw_lsf_term_admin": (Category.INFRASTRUCTURE, ""),
    "schedw_lsf_term_preempt": (Category.INFRASTRUCTURE, ""),
    "schedw_lsf_term_load": (Category.INFRASTRUCTURE, ""),
    "schedw_lsf_exit1_after_rank_traceback": (Category.SOFTWARE, "rank 6"),
    "schedw_lsf_runlimit_after_cuda_oom_hang": (Category.OOM, "rank 2"),
    "schedw_summit_jsrun_rank_traceback_pmix": (Category.DATA, "rank 3"),
    "schedw_sge_h_rt_exceeded_execd_qacct": (Category.INFRASTRUCTURE, ""),
    "schedw_sge_h_vmem_exceeds_hard_limit": (Category.OOM, ""),
    "schedw_sge_qsub_sync_exit1_after_traceback": (Category.SOFTWARE, "rank 1"),
    "schedw_alps_pe_rank_segfault": (Category.UNDETERMINED, ""),
    "schedw_cobalt_max_execution_time_exceeded": (Category.INFRASTRUCTURE, ""),
    "schedw_cobalt_user_delete_signal": (Category.INFRASTRUCTURE, ""),
    "schedw_cobalt_completed_normally_exit1_after_traceback": (Category.SOFTWARE, "rank 5"),
    "schedw_pals_rank_exited_code1_enospc": (Category.STORAGE_IO, "rank 16"),
    "schedw_aws_batch_host_ec2_terminated": (Category.INFRASTRUCTURE, "i-0a1b2c3d4e5f67890"),
    "schedw_aws_batch_oom_container_killed": (Category.OOM, ""),
    "schedw_aws_batch_essential_exit_after_traceback": (Category.SOFTWARE, "rank 5"),
    "schedw_aws_batch_attempt_timeout": (Category.INFRASTRUCTURE, ""),
    "schedw_vertex_replica_ran_out_of_memory": (Category.OOM, "workerpool1-2"),
    "schedw_vertex_replica_exit137_oomkilled_reason": (Category.OOM, "workerpool0-0"),
    "schedw_vertex_replica_exit1_after_traceback": (Category.SOFTWARE, "rank 3"),
    "schedw_vertex_replica_exit1_no_logs": (Category.UNDETERMINED, ""),
    "schedw_gcp_batch_spot_preemption_50001": (Category.INFRASTRUCTURE, "7306941512398174062"),
    "schedw_gcp_batch_max_runtime_50005": (Category.INFRASTRUCTURE, ""),
    "schedw_gcp_batch_vm_reporting_timeout_50002": (Category.INFRASTRUCTURE, "5518203349987421150"),
    "schedw_azureml_preemption_error_labelled_usererror": (Category.INFRASTRUCTURE, ""),
    "schedw_azureml_jobfailed_after_rank_traceback": (Category.SOFTWARE, "rank 1"),
    "schedw_kubeflow_mpijob_failed_after_launcher_traceback": (Category.SOFTWARE, "rank 2"),
    # `launchw_*`: launchers' reports beside a failed process's own output, every line from a
    # real run
    "launchw_tr_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tr_keyerror_r0": (Category.SOFTWARE, "rank 0"),
    "launchw_tr_assert_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tr_shape_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tr_exit3_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_tr_abort_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_tr_segv_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_tr_sigkill_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_tr_dlworker_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tr_record_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tr_linger_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tr4_linger_shape_r2": (Category.SOFTWARE, "rank 2"),
    "launchw_tr4_valueerror_r2": (Category.SOFTWARE, "rank 2"),
    "launchw_tr4_sigkill_r3": (Category.UNDETERMINED, "rank 3"),
    "launchw_tr_sigterm_launcher": (Category.INFRASTRUCTURE, ""),
    "launchw_tee_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tee_segv_r0": (Category.UNDETERMINED, "rank 0"),
    "launchw_tee_record_keyerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_tee_sigterm_launcher": (Category.INFRASTRUCTURE, ""),
    "launchw_redir_valueerror_r1_console_only": (Category.UNDETERMINED, "rank 1"),
    "launchw_redir_record_assert_r0_console_only": (Category.SOFTWARE, "rank 0"),
    "launchw_lrf_valueerror_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_lrf_record_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_lrf_segv_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_legacy_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_legacy_segv_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_nn2_valueerror_r3": (Category.SOFTWARE, "rank 3"),
    "launchw_nn2_sigkill_r2": (Category.UNDETERMINED, "rank 2"),
    "launchw_spawn_segv_p1": (Category.UNDETERMINED, "process 1"),
    "launchw_spawn_sigkill_p0": (Category.UNDETERMINED, "process 0"),
    "launchw_spawn_exit3_p1": (Category.UNDETERMINED, "process 1"),
    "launchw_spawn_linger_valueerror_p1": (Category.UNDETERMINED, ""),
    "launchw_acc_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_acc_segv_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_acc_sigkill_r0": (Category.UNDETERMINED, "rank 0"),
    "launchw_acc_dlworker_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_acc_mpirun_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_pl_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_pl_keyerror_r0": (Category.SOFTWARE, "rank 0"),
    "launchw_pl_sigkill_r1": (Category.UNDETERMINED, ""),
    "launchw_ompi_tag_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_ompi_notag_valueerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_ompi_tag_segv_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_ompi_exit3_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_ompi_tag_sigkill_r0": (Category.UNDETERMINED, "rank 0"),
    "launchw_ompi_m4_abort_r1": (Category.UNDETERMINED, "rank 1"),
    "launchw_ompi_m4mod_keyerror_r1": (Category.SOFTWARE, "rank 1"),
    "launchw_ompi_m4_keyerror_r1_hang": (Category.SOFTWARE, "rank 1"),
    "launchw_mpich_m4_valueerror_hang": (Category.SOFTWARE, ""),
    "launchw_mpich_m4_segv_r1": (Category.UNDETERMINED, "32436"),
    "launchw_mpich_l_sigkill_r1": (Category.UNDETERMINED, "32465"),
    "launchw_mpich_m4_abort_r1": (Category.UNDETERMINED, "rank 1"),
    # `ownw_*`: the job's own failures in the words of Python, C++, the JVM and config tools
    "ownw_sw_chain_during_handling_rank1": (Category.SOFTWARE, "rank 1"),
    "ownw_sw_recursionerror_rank0": (Category.SOFTWARE, "rank 0"),
    "ownw_sw_attributeerror_redirects_rank1": (Category.SOFTWARE, "rank 1"),
    "ownw_sw_pyo3_panic_tokenizers_rank2": (Category.SOFTWARE, "rank 2"),
    "ownw_sw_rust_unwrap_subprocess_rank0": (Category.SOFTWARE, "rank 0"),
    "ownw_sw_importerror_undefined_symbol_4ranks": (Category.SOFTWARE, "rank 0"),
    "ownw_sw_omegaconf_interpolation_rank0": (Category.SOFTWARE, "rank 0"),
    "ownw_sw_py313_ansi_colour_rank3": (Category.SOFTWARE, "rank 3"),
    "ownw_undet_segfault_bare_table_rank2": (Category.UNDETERMINED, "rank 2"),
    "ownw_data_unpicklingerror_rank0": (Category.DATA, "rank 0"),
    "ownw_data_pil_unidentified_image_tee_rank1": (Category.DATA, "rank 1"),
    "ownw_data_gzip_eof_rank1": (Category.DATA, "rank 1"),
    "ownw_storage_enospc_metrics_rank0": (Category.STORAGE_IO, "rank 0"),
    "ownw_oom_python_memoryerror_rank3": (Category.OOM, "rank 3"),
    "ownw_node0": (Category.INIT_TIMEOUT, ""),
    "ownw_sw_multinode_attributeerror_rank3": (Category.SOFTWARE, "rank 3"),
    "ownw_sw_spark_python_udf_keyerror": (Category.SOFTWARE, ""),
    "ownw_sw_spark_insufficient_driver_memory_config": (Category.SOFTWARE, ""),
    "ownw_oom_spark_java_heap_space_jvm_died": (Category.OOM, ""),
    "ownw_storage_permissionerror_checkpoint_dir_rank0": (Category.STORAGE_IO, "rank 0"),
    # `rv45_*`: a blind review of the readings these audits led to, against probes of its own
    "rv45_r1_02_xid79_then_ib278_completion": (Category.GPU_CUDA, "0000:41:00"),
    "rv45_r1_03_rank5_cuda_oom_then_ib278_completion": (Category.OOM, "rank 5"),
    "rv45_r1_04_ib_collective_mismatch_2183_rank3_reports": (Category.COLLECTIVE_DESYNC, ""),
    "rv45_r1_06_socketStartConnect_exceeded_2193": (Category.NETWORK, ""),
    "rv45_r2_01_bootstrap_root_rank_count_then_timelimit": (Category.SOFTWARE, ""),
    "rv45_r2_02_mismatched_version_rank8_named": (Category.SOFTWARE, ""),
    "rv45_r2_03_ras_version_mismatch_then_init_refusal": (Category.SOFTWARE, ""),
    "rv45_r2_04_module_banner_quotes_mismatch_then_cuda_oom": (Category.OOM, "rank 2"),
    "rv45_r2_05_bootstrap_rank_count_with_later_watchdog_noise": (Category.SOFTWARE, ""),
    "rv45_r2_06_version_mismatch_with_torchrun_table_rank8": (Category.SOFTWARE, ""),
    "rv45_r3_01_peer_access_217_mpspawn_torch112": (Category.GPU_CUDA, ""),
    "rv45_r4_03_retry_then_connect_failed_timed_out": (Category.NETWORK, "10.0.0.5"),
    "rv45_r4_04_retry_other_pids_complete_this_pid_fails": (Category.NETWORK, "10.10.2.31"),
    "rv45_r4_05_retry_init_complete_then_time_limit": (Category.INFRASTRUCTURE, ""),
    "rv45_r5_02_restart_then_second_oom_exhausts": (Category.OOM, "rank 1"),
    "rv45_r5_06_appended_logs_old_success_new_cuda_failure": (Category.GPU_CUDA, "rank 2"),
    "rv45_r6_02_cray_abort_alone_rank0": (Category.UNDETERMINED, "rank 0"),
    "rv45_r6_05_ompi5_abort_rank3_prterun_abort_alone": (Category.UNDETERMINED, "rank 3"),
    "rv45_r6_06_ompi5_process_name_exit1_after_rank3_cuda_oom": (Category.OOM, "rank 3"),
    "rv45_r6_07_mpich_several_ranks_abort": (Category.UNDETERMINED, ""),
    "rv45_r6_08_pals_rank6_died_signal9_alone": (Category.UNDETERMINED, "rank 6"),
    "rv45_r6_09_pbs_walltime_then_pals_rank_died": (Category.INFRASTRUCTURE, ""),
    "rv45_r7_01_mpich_invalid_root_rank2": (Category.SOFTWARE, "rank 2"),
    "rv45_r7_02_ompi_err_root_reported_by_process_2": (Category.SOFTWARE, "rank 2"),
    "rv45_r7_03_mpich_message_truncated_in_bcast": (Category.COLLECTIVE_DESYNC, ""),
    "rv45_r7_04_ompi_err_truncate_in_recv_p2p_rank1": (Category.SOFTWARE, "rank 1"),
    "rv45_r7_05_ompi_err_truncate_in_bcast_process_5": (Category.COLLECTIVE_DESYNC, ""),
    "rv45_r7_06_rank3_logged_exception_then_truncate": (Category.SOFTWARE, "rank 3"),
    "rv45_r8_01_rank3_traceback_above_time_limit": (Category.SOFTWARE, "rank 3"),
    "rv45_r8_02_sigterm_traceback_below_time_limit": (Category.INFRASTRUCTURE, ""),
    "rv45_r9_01_table_record_valueerror_rank11": (Category.SOFTWARE, "rank 11"),
    "rv45_r9_02_table_record_cuda_oom_rank11": (Category.OOM, "rank 11"),
    "rv45_r9_04_table_no_traceback_exit1_rank11": (Category.UNDETERMINED, "rank 11"),
    "rv45_r9_05_table_two_failures_no_tracebacks": (Category.UNDETERMINED, ""),
    "rv45_r9_06_table_sigkill_no_oom_line": (Category.UNDETERMINED, "rank 11"),
    "rv45_r9_07_table_dataloader_killed_with_oom_killer_line": (Category.OOM, "rank 11"),
    "rv45_r10_01_lsf_term_runlimit": (Category.INFRASTRUCTURE, ""),
    "rv45_r10_02_lsf_term_memlimit": (Category.OOM, ""),
    "rv45_r10_04_lsf_term_owner_with_rank_traceback_in_output": (Category.SOFTWARE, "rank 2"),
    "rv45_r10_05_sge_h_vmem_exceeded": (Category.OOM, ""),
    "rv45_r10_06_sge_hard_wallclock": (Category.INFRASTRUCTURE, ""),
    "rv45_r10_07_cobalt_max_execution_time": (Category.INFRASTRUCTURE, ""),
    "rv45_r10_08_pals_shepherd_died_signal9": (Category.INFRASTRUCTURE, ""),
    "rv45_r10_10_aws_batch_attempt_timeout": (Category.INFRASTRUCTURE, ""),
    "rv45_r10_11_gcp_batch_no_vm_updates": (Category.INFRASTRUCTURE, ""),
    "rv45_r10_13_srun_step_cannot_contact_controller": (Category.INFRASTRUCTURE, ""),
    # `hg_*`: hangs as torch itself reports them (its c10d sources, 1.10-2.9; real gloo runs)
    "hg_01_nccl110_bare_watchdog_single_rank": (Category.UNDETERMINED, ""),
    "hg_02_nccl111_blocking_wait_python_raise": (Category.UNDETERMINED, ""),
    "hg_03_nccl113_two_ranks_both_inside": (Category.COLLECTIVE_HANG, ""),
    "hg_04_nccl20_silent_rank_others_timeout": (Category.UNDETERMINED, ""),
    "hg_05_nccl22_same_seq_different_op": (Category.COLLECTIVE_DESYNC, ""),
    "hg_06_nccl23_counters_rank3_never_entered": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "hg_07_nccl26_8ranks_rank5_observer_not_entered": (Category.COLLECTIVE_DESYNC, "rank 5"),
    "hg_08_nccl26_2ranks_rank1_behind": (Category.COLLECTIVE_DESYNC, "rank 1"),
    "hg_09_nccl27_all_inside_one_rank_ahead": (Category.COLLECTIVE_HANG, ""),
    "hg_10_nccl24_desync_report_rank1_lagging": (Category.COLLECTIVE_DESYNC, "rank 1"),
    "hg_11_nccl113_desync_report_rank6_joined_not_finished": (Category.COLLECTIVE_DESYNC, "rank 6"),
    "hg_12_nccl21_desync_report_rank3_never_joined": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "hg_14_nccl24_heartbeat_stuck_rank5": (Category.UNDETERMINED, "rank 5"),
    "hg_18_nccl26_tp_subgroup_global_rank6_keyerror": (Category.SOFTWARE, "rank 6"),
    "hg_19_nccl26_remote_error_propagated_from_rank0": (Category.UNDETERMINED, ""),
    "hg_20_nccl110_aborted_comm_key_observer": (Category.UNDETERMINED, ""),
    "hg_22_nccl112_init_uniqueid_socket_timeout": (Category.INIT_TIMEOUT, ""),
    "hg_23_nccl24_init_store_connection_closed": (Category.UNDETERMINED, ""),
    "hg_24_nccl24_rank0_eio_others_broadcast_timeout": (Category.STORAGE_IO, "rank 0"),
    "hg_25_nccl22_rank2_cuda_oom_others_timeout": (Category.OOM, "rank 2"),
    "hg_26_nccl24_rank1_dataloader_worker_killed": (Category.UNDETERMINED, ""),
    "hg_27_gloo_real_rank1_late_2r": (Category.UNDETERMINED, ""),
    "hg_28_gloo_real_rank3_late_4r": (Category.UNDETERMINED, ""),
    "hg_29_gloo_real_monitored_barrier_rank1": (Category.COLLECTIVE_DESYNC, "rank 1"),
    "hg_30_gloo_real_monitored_barrier_ranks2_3": (Category.COLLECTIVE_DESYNC, ""),
    "hg_31_gloo_real_mismatch_optype_2r": (Category.COLLECTIVE_DESYNC, ""),
    "hg_32_gloo_real_mismatch_shape_4r": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "hg_33_gloo_real_keyerror_peer_closed": (Category.SOFTWARE, "rank 1"),
    "hg_34_gloo_real_sigkill_peer_reset": (Category.UNDETERMINED, "rank 1"),
    "hg_35_gloo_real_p2p_recv_timeout": (Category.UNDETERMINED, ""),
    "hg_36_store_real_wait_timeout": (Category.INIT_TIMEOUT, ""),
    "hg_37_store_real_master_waiting_clients": (Category.INIT_TIMEOUT, ""),
    "hg_38_store_real_client_connect_timeout": (Category.NETWORK, "10.42.0.11"),
    "hg_39_rdzv_real_c10d_join_timeout": (Category.INIT_TIMEOUT, ""),
    "hg_40_rdzv_real_static_waiting_clients": (Category.INIT_TIMEOUT, ""),
    "hg_41_ddp_real_unused_all_ranks": (Category.SOFTWARE, ""),
    "hg_42_ddp_real_unused_rank1_only": (Category.SOFTWARE, "rank 1"),
    "hg_43_ddp_real_unused_debug_info": (Category.SOFTWARE, ""),
    "hg_44_ddp_real_param_count_2r": (Category.SOFTWARE, ""),
    "hg_45_ddp_real_param_count_4r": (Category.SOFTWARE, "rank 1"),
    "hg_50_nccl24_net_ib_error_before_timeouts": (Category.NETWORK, "10.11.0.9"),
    "hg_51_torchrun_summary_only_rank3_sigabrt": (Category.UNDETERMINED, "rank 3"),
    "hg_52_gloo_init_connectfullmesh_timeout": (Category.NETWORK, ""),
    "hg_54_nccl20_pasted_8ranks_rank3_missing": (Category.UNDETERMINED, ""),
    "hg_55_init_store_based_barrier_timeout_1x": (Category.INIT_TIMEOUT, ""),
    "hg_56_gloo1x_barrier_send_timeout": (Category.UNDETERMINED, ""),
    # `fw_*`: distributed training outside torch's launchers (Paddle, TensorFlow, Horovod,
    # MindSpore, ps-lite, OneFlow, Colossal-AI; real Paddle and TensorFlow CPU runs)
    "fw_02_paddle_launcher_only_gloo_timeout": (Category.UNDETERMINED, ""),
    "fw_09_paddle_dataloader_killed_by_oom_killer": (Category.OOM, ""),
    "fw_12_tf_mwms_collective_timeout_one_file": (Category.UNDETERMINED, ""),
    "fw_15_paddle_fleetrun_abort_only": (Category.UNDETERMINED, "rank 3"),
    "fw_17_paddle_nccl_ib_completion_error": (Category.NETWORK, "10.20.0.12<52113>"),
    "fw_18_paddle_nccl_remote_error_alone": (Category.UNDETERMINED, ""),
    "fw_19_paddle_nccl_shm_enospc": (Category.INFRASTRUCTURE, ""),
    "fw_23_tf_ps_unavailable_socket_closed": (Category.UNDETERMINED, "/job:ps/replica:0/task:1"),
    "fw_29_tf_coordination_leader_unreachable": (Category.NETWORK, "10.4.2.20:2222"),
    "fw_32_hvd_stall_shutdown_rank3": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "fw_33_hvd_gloo_keyerror_rank2": (Category.SOFTWARE, "rank 2"),
    "fw_34_hvd_shutdown_message_only": (Category.UNDETERMINED, ""),
    "fw_35_hvd_mpirun_rank5_signal9": (Category.UNDETERMINED, "rank 5"),
    "fw_36_hvd_ncclallreduce_ib_error": (Category.NETWORK, "10.30.0.14<38417>"),
    "fw_37_hvd_tf_oom_rank1": (Category.OOM, "rank 1"),
    "fw_38_hvd_mpirun_exit_summary_only": (Category.UNDETERMINED, "rank 6"),
    "fw_49_mxnet_kvstore_cuda_oom": (Category.OOM, ""),
    "fw_51_oneflow_launch_missing_dataset_file": (Category.SOFTWARE, ""),
    "fw_52_oneflow_child_sigkill": (Category.UNDETERMINED, ""),
    "fw_53_colossalai_run_ssh_unreachable": (Category.NETWORK, "10.0.5.12"),
    "fw_54_colossalai_run_checkpoint_write_failed": (Category.STORAGE_IO, "rank 2"),
    # `sv_*`: multi-GPU inference servers and RL trainers (vLLM, SGLang, TGI, TensorRT-LLM,
    # DeepSpeed-MII, Ray, verl, OpenRLHF; real Ray runs)
    "sv_05_vllm_all_workers_same_load_assertion": (Category.SOFTWARE, ""),
    "sv_06_vllm_ray_worker_nccl_ib_completion_error": (Category.NETWORK, ""),
    "sv_13_vllm_execute_model_rpc_timeout": (Category.UNDETERMINED, ""),
    "sv_15_vllm_ray_worker_cuda_oom_profile_run": (Category.OOM, "2313"),
    "sv_19_vllm_api_server_engine_dead_only": (Category.UNDETERMINED, ""),
    "sv_20_vllm_tp_nccl_watchdog_timeout_both_ranks": (Category.UNDETERMINED, ""),
    "sv_21_vllm_hf_hub_unreachable": (Category.NETWORK, ""),
    "sv_27_sglang_scheduler_watchdog_timeout_tp3": (Category.UNDETERMINED, ""),
    "sv_28_sglang_multinode_ib_completion_error": (Category.NETWORK, ""),
    "sv_29_sglang_health_check_detokenizer_timeout": (Category.UNDETERMINED, ""),
    "sv_33_tgi_warmup_oom_webserver_crashed": (Category.OOM, ""),
    "sv_37_tgi_rendezvous_wait_timeout": (Category.INIT_TIMEOUT, ""),
    "sv_40_trtllm_mpi_abort_missing_engine_rank1": (Category.SOFTWARE, "rank 1"),
    "sv_41_trtllm_mpirun_rank2_signal9": (Category.UNDETERMINED, "rank 2"),
    "sv_43_mii_rank1_cuda_oom_server_crashed": (Category.OOM, "rank 1"),
    "sv_44_mii_server_crashed_no_cause": (Category.UNDETERMINED, ""),
    "sv_45_ray_actor_died_system_error_oom_hint_only": (Category.UNDETERMINED, "24518"),
    "sv_46_verl_workerdict_cuda_oom_ray_task_error": (Category.OOM, "24518"),
    "sv_47_ray_memory_monitor_host_oom": (Category.OOM, "10.0.3.8"),
    "sv_48_ray_actor_creation_task_error_config": (Category.SOFTWARE, ""),
    "sv_52_ray_actor_node_preempted": (Category.INFRASTRUCTURE, ""),
    "sv_53_openrlhf_policy_actor_rank3_cuda_oom": (Category.OOM, "rank 3"),
    "sv_56_vllm_worker_store_unreachable": (Category.NETWORK, "10.0.1.11"),
    "sv_57_sglang_multinode_store_wait_timeout": (Category.INIT_TIMEOUT, ""),
    "sv_63_ray_multinode_folder_kernel_oom": (Category.OOM, "24518"),
    # `r46_*`: a blind review of the readings these audits led to, against probes of its own
    "r46_01_blockingwait_t110": (Category.UNDETERMINED, ""),
    "r46_02_blockingwait_t18_noseq": (Category.UNDETERMINED, ""),
    "r46_04_blockingwait_after_bug": (Category.SOFTWARE, "rank 2"),
    "r46_06_desync_joined_single": (Category.COLLECTIVE_DESYNC, "rank 5"),
    "r46_07_desync_joined_multi": (Category.COLLECTIVE_DESYNC, ""),
    "r46_09_desync_joined_by_peer_file": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "r46_70_desync_joined_all_ranks": (Category.UNDETERMINED, ""),
    "r46_11_tf_unknown_heading_oom": (Category.OOM, "rank 2"),
    "r46_12_mxnet_heading_oom": (Category.OOM, "rank 1"),
    "r46_13_tf_heading_hvd_shutdown": (Category.DATA, "rank 3"),
    "r46_14_tf_heading_after_bfc_warning": (Category.SOFTWARE, ""),
    "r46_16_mindspore_memory_not_enough": (Category.OOM, ""),
    "r46_17_mindspore_alloc_failed_mpi": (Category.OOM, "rank 5"),
    "r46_18_mxnet1_cudamalloc_old": (Category.OOM, "rank 1"),
    "r46_20_alloc_failed_after_ib_error": (Category.NETWORK, ""),
    "r46_21_paramiko_colossal": (Category.NETWORK, "10.20.0.17"),
    "r46_25_oom_process_other": (Category.OOM, "rank 3"),
    "r46_27_oom_in_torchrun_table": (Category.OOM, "rank 5"),
    "r46_29_vllm_root_cause_oom": (Category.OOM, ""),
    "r46_30_vllm_root_cause_bug": (Category.SOFTWARE, ""),
    "r46_31_mii_crashed_for_some_reason": (Category.OOM, "rank 0"),
    "r46_32_vllm_root_cause_missing": (Category.UNDETERMINED, ""),
    "r46_33_vllm_root_cause_only_warning": (Category.UNDETERMINED, ""),
    "r46_34_nccl_shm_extend_dataloader_nospace": (Category.INFRASTRUCTURE, ""),
    "r46_35_nccl_shm_segment_posix_fallocate": (Category.INFRASTRUCTURE, ""),
    "r46_36_real_disk_full_nccl_info_shm": (Category.STORAGE_IO, "rank 0"),
    "r46_37_nccl_shm_far_above": (Category.STORAGE_IO, "rank 0"),
    "r46_40_c10d_warn_then_oom": (Category.OOM, ""),
    "r46_43_same_exc_all_ranks": (Category.SOFTWARE, ""),
    "r46_44_same_exc_numbers_differ": (Category.SOFTWARE, ""),
    "r46_46_ddp_unused_two_ranks": (Category.SOFTWARE, ""),
    "r46_47_ddp_unused_one_rank": (Category.SOFTWARE, "rank 2"),
    "r46_48_ddp_model_mutual": (Category.SOFTWARE, ""),
    "r46_49_ddp_model_majority": (Category.SOFTWARE, "rank 3"),
    "r46_50_same_exc_then_first_elsewhere": (Category.SOFTWARE, "rank 1"),
    "r46_53_hvd_stall_no_steps_after": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "r46_54_tf_deadline_collective": (Category.UNDETERMINED, ""),
    "r46_55_tf_coord_barrier_init": (Category.INIT_TIMEOUT, ""),
    "r46_56_tf_deadline_after_worker_oom": (Category.OOM, ""),
    "r46_57_store_lost_rank0_silent": (Category.UNDETERMINED, ""),
    "r46_58_store_lost_after_rank0_oom": (Category.OOM, "rank 0"),
    "r46_59_store_lost_single_peer_file": (Category.UNDETERMINED, ""),
    "r46_62_sglang_retract_then_real_oom": (Category.OOM, ""),
    "r46_63_sglang_retract_then_kill": (Category.UNDETERMINED, ""),
    "r46_64_torchrun_gloo_recv_timeout": (Category.UNDETERMINED, ""),
    "r46_65_torchrun_watchdog_timeout": (Category.UNDETERMINED, ""),
    "r46_66_torchrun_monitored_barrier_peer": (Category.UNDETERMINED, ""),
    "r46_67_torchrun_monitored_barrier_names": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "r46_69_torchrun_timeout_but_oom_elsewhere": (Category.OOM, "rank 10"),
    "r46_71_torchrun_timeout_desync_names": (Category.COLLECTIVE_DESYNC, "rank 6"),
})
HEALTHY += ("ncclw_11_healthy_ibv_modify_qp_retry", "ncclw_14_healthy_no_ib_device_socket_fallback",
            "ncclw_17_healthy_connect_timedout_retry_nccl212",
            "ncclw_21_healthy_socket_refused_retry_then_ok",
            "ncclw_26_healthy_real_wrong_magic_ignored",
            "ncclw_32_healthy_unexpected_connections_at_teardown",
            "ncclw_42_healthy_nvls_bind_info_proceeding", "ncclw_51_healthy_xml_topo_file_missing",
            "ncclw_54_healthy_ras_client_socket_failed",
            "ncclw_61_healthy_ib_error_then_elastic_restart_completes",
            "mpiw_c45_ompi5_truncate_caught_healthy", "mpiw_c58_cray_warning_healthy",
            "mpiw_c69_ompi_fork_warning_healthy", "mpiw_c70_mpich_abort0_success_healthy",
            "mpiw_c74_impi_pmi_warning_healthy", "mpiw_c75_cray_xpmem_warning_healthy",
            "schedw_slurm_real_step_busy_retry_then_ok",
            "schedw_slurm_healthy_queued_allocated_finished", "schedw_lsf_successfully_completed",
            "schedw_sge_qsub_sync_exit0", "schedw_cobalt_completed_normally_exit0",
            "launchw_tr_clean", "launchw_tee_clean", "launchw_lrf_clean", "launchw_legacy_clean",
            "launchw_nn2_clean", "launchw_spawn_clean", "launchw_acc_clean",
            "launchw_acc_mpirun_clean", "launchw_pl_clean", "launchw_ompi_tag_clean",
            "launchw_mpich_l_clean", "ownw_none_faulthandler_dump_traceback_later",
            "ownw_none_glibcxx_optional_extension_fallback",
            "ownw_none_omegaconf_missing_mandatory_warning_tee",
            "ownw_none_slurm_nvidia_smi_not_found_then_trains",
            "rv45_r1_05_healthy_grep_for_ib_wordings_in_epilog",
            "rv45_r4_01_healthy_212_connect_timedout_retry_init_complete",
            "rv45_r5_01_healthy_restart_after_rank1_exception_succeeds",
            "rv45_r5_05_healthy_restart_after_sigkill_then_success",
            "rv45_r6_03_ompi4_abort_errorcode_0_on_purpose",
            "rv45_r6_04_ompi5_abort_errorcode_0_two_lines_down",
            "rv45_r7_07_healthy_help_banner_quotes_truncate",
            "rv45_r10_03_lsf_success_script_comment_quotes_memlimit",
            # the three audits' healthy runs: warnings, retries and stalls the jobs went past
            "hg_16_healthy_fr_dump_on_request", "hg_46_healthy_real_gloo_slow_rank",
            "hg_47_healthy_nccl26_info_env_lines", "hg_48_healthy_nccl24_pg_not_destroyed_warning",
            "hg_49_healthy_store_connect_warning_then_ok", "fw_06_paddle_healthy_retry_connect",
            "fw_14_tf_mwms_healthy_waiting_for_tasks",
            "fw_22_paddle_peer_node_stopped_by_launcher", "fw_31_hvd_stall_warning_then_progress",
            "fw_39_hvd_elastic_host_replaced", "fw_47_pslite_ack_resend_then_progress",
            "sv_09_vllm_preemption_recompute_healthy",
            "sv_10_vllm_custom_allreduce_disabled_warning_healthy", "sv_11_vllm_clean_shutdown",
            "sv_12_vllm_shm_broadcast_wait_warning_recovered",
            "sv_26_sglang_decode_retract_healthy", "sv_31_sglang_clean_shutdown_ctrl_c",
            "sv_36_tgi_graceful_shutdown_sigterm", "sv_42_trtllm_serve_healthy_shutdown",
            "sv_50_ray_pending_resources_warning_then_ok", "sv_55_verl_healthy_run_with_warnings",
            # and the review's
            "r46_19_mindspore_memory_warning_healthy", "r46_23_paramiko_retry_then_ok",
            "r46_24_paramiko_sidecar_warning", "r46_68_crashed_for_some_reason_resume",
            "r46_38_c10d_client_socket_then_hf_steps", "r46_39_c10d_new_stamp_then_tqdm",
            "r46_41_c10d_warn_only_rank0_logs_steps", "r46_51_hvd_stall_then_training",
            "r46_52_hvd_stalled_old_then_steps", "r46_61_sglang_decode_retract",)

def _triage(name: str) -> Diagnosis:
    job = PROBES / name
    # (a folder holds each process's file as its launcher named it: `rank1.log`, Paddle's
    # `workerlog.1`)
    files = sorted(f for f in job.iterdir() if f.is_file()) if job.is_dir() else [
        PROBES / f"{name}.log"]
    scans, problems, _ = read_inputs([str(f) for f in files])
    return diagnose(scans, problems)


def test_every_probe_has_an_expectation() -> None:
    named = {*HEALTHY, *CAUSES, *NOT, *SHARED_CRASH, *ANOTHER_PROCESS, "hf_offline_progress",
             "spawn_restart_then_cuda"}
    assert named == {p.stem for p in PROBES.glob("*.log")} | {
        p.name for p in PROBES.iterdir() if p.is_dir()}


# rank 1's failed assertion, then rank 0's crash by another signal: the assertion is rank 1's
# story, never pinned on rank 0
ANOTHER_PROCESS = ("mpi_assert_rank1_abort_rank0_segv", "mpi_ucx_caught_signal_assert_other")


@pytest.mark.parametrize("name", ANOTHER_PROCESS)
def test_an_assertion_is_never_pinned_on_another_process(name: str) -> None:
    diagnosis = _triage(name)
    assert not (diagnosis.category is Category.SOFTWARE and 0 in diagnosis.culprit_ranks), (
        diagnosis.summary)


@pytest.mark.parametrize("name", SHARED_CRASH)
def test_processes_that_crashed_alike_share_a_cause(name: str) -> None:
    diagnosis = _triage(name)
    assert (diagnosis.category, diagnosis.culprits) == (Category.UNDETERMINED, ()), (
        diagnosis.summary)
    assert "all crashed" in diagnosis.findings[0], diagnosis.findings


@pytest.mark.parametrize("name", HEALTHY)
def test_a_healthy_probe_is_healthy(name: str) -> None:
    diagnosis = _triage(name)
    assert (diagnosis.category, diagnosis.culprits) == (Category.NONE, ())


@pytest.mark.parametrize("name", sorted(CAUSES))
def test_a_failing_probe_keeps_its_cause(name: str) -> None:
    category, culprit = CAUSES[name]
    diagnosis = _triage(name)
    assert diagnosis.category is category, diagnosis.summary
    if culprit:
        assert any(culprit in c for c in diagnosis.culprits), diagnosis.culprits


@pytest.mark.parametrize("name", sorted(NOT))
def test_a_probe_is_not_given_a_cause_its_lines_do_not_show(name: str) -> None:
    diagnosis = _triage(name)
    assert diagnosis.category is not NOT[name], diagnosis.summary
    assert not any("github.com" in c for c in diagnosis.culprits)


def test_a_hub_that_could_not_be_reached_while_the_job_went_on_names_no_culprit() -> None:
    diagnosis = _triage("hf_offline_progress")
    assert diagnosis.category in (Category.UNDETERMINED, Category.NONE)
    assert diagnosis.culprits == ()


def test_a_worker_reported_dead_before_a_restart_is_not_named_for_the_later_cuda_error() -> None:
    """mp.spawn's `process 3` died in a first attempt; after a restart `Process 0` raised the
    CUDA error: two workers are reported, so neither is named."""
    diagnosis = _triage("spawn_restart_then_cuda")
    assert diagnosis.category is Category.GPU_CUDA
    assert not any("process" in c for c in diagnosis.culprits), diagnosis.culprits


def test_a_timeout_error_is_not_the_jobs_bug() -> None:
    assert _triage("rpc_timeout_error").category is Category.UNDETERMINED


# No one rank is to blame: a blocking wait that timed out, an observer of another rank's abort,
# a store that went away, the first rank to notice a hang, every rank's own DDP error alike, two
# DDP reports that name each other, Horovod's shutdown word to every rank, and a server wrapper
# that points at a cause printed before it
NO_RANK = ("hg_02_nccl111_blocking_wait_python_raise", "hg_20_nccl110_aborted_comm_key_observer",
           "hg_23_nccl24_init_store_connection_closed", "hg_27_gloo_real_rank1_late_2r",
           "hg_41_ddp_real_unused_all_ranks", "hg_43_ddp_real_unused_debug_info",
           "hg_44_ddp_real_param_count_2r", "fw_34_hvd_shutdown_message_only",
           "sv_05_vllm_all_workers_same_load_assertion", "sv_44_mii_server_crashed_no_cause",
           "r46_43_same_exc_all_ranks", "r46_44_same_exc_numbers_differ",
           "r46_64_torchrun_gloo_recv_timeout", "r46_66_torchrun_monitored_barrier_peer")


@pytest.mark.parametrize("name", NO_RANK)
def test_a_failure_no_one_rank_is_to_blame_for_names_no_rank(name: str) -> None:
    diagnosis = _triage(name)
    assert diagnosis.culprit_ranks == (), diagnosis.summary
    assert diagnosis.category is CAUSES[name][0], diagnosis.summary

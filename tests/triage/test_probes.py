"""Constructed probes (tests/data/triage_probes): healthy lines and failures in the shapes the
lexicon's and the rules' newer wordings read. Each states what triage must say of it: a healthy
job stays healthy, a guess names no culprit, and a real failure keeps its cause."""

from __future__ import annotations

import pytest

from monitor.model import Category
from monitor.triage.analysis import Diagnosis
from tests.triage.texts import PROBES, triage_probe

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
    "io_s09_dcp_checkpointexception_real": (Category.STORAGE_IO, "rank 0"),
    # every rank raises the distributed checkpoint's gathered exception; it lists rank 2's
    "sa_dcp_missing_key_rank2_relayed": (Category.SOFTWARE, "rank 2"),
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
    "rv43_p58_k8s_pod_active_deadline": (Category.INFRASTRUCTURE, "trainer-worker-3"),
    "rv43_p59_tf_unavailable_socket_closed": (Category.UNDETERMINED, ""),
    "rv43_p60_tf_unavailable_after_ps_oomkilled": (Category.OOM, "ctr-ps-0"),
    "rv43_p61_jax_leader_preempted_died_restarted": (Category.UNDETERMINED, ""),
    "rv43_p63_compose_trainer_exit1_after_traceback": (Category.SOFTWARE, ""),
    "rv43_p64_pytorchjob_worker_exit137_no_oom": (Category.UNDETERMINED, "mnist-worker-1"),
    "rv43_p65_k8s_json_reason_oomkilled": (Category.OOM, "trainer-0"),
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
    "infra_k8s_oomkilled": (Category.OOM, "llama-ft-worker-3"),
    "infra_k8s_pod_active_deadline": (Category.INFRASTRUCTURE, "llama-ft-worker-3"),
    "infra_k8s_job_deadline": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_nodelost": (Category.INFRASTRUCTURE, "gpu-node-7"),
    "infra_k8s_preempted_by_scheduler": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_node_shutdown": (Category.INFRASTRUCTURE, "gpu-node-7"),
    "infra_k8s_taint_manager_eviction": (Category.INFRASTRUCTURE, ""),
    "infra_k8s_sigterm_torchrun_in_pod": (Category.INFRASTRUCTURE, ""),
    "infra_kubeflow_replica_failed_alone": (Category.UNDETERMINED, ""),
    "infra_kubeflow_replica_failed_after_oomkilled": (Category.OOM, "llama-ft-worker-2"),
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
    # a requeue whose file then shows a few buffered steps and no end: no recovery shown
    "hw_10_requeue_then_buffered_steps": Category.NONE,
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
    "schedw_lsf_term_runlimit": (Category.INFRASTRUCTURE, "gpu-n-62-18-13"),
    "schedw_lsf_term_memlimit": (Category.OOM, "gpu-n-62-18-14"),
    "schedw_lsf_term_owner_bkill": (Category.INFRASTRUCTURE, "gpu-n-62-20-2"),
    "schedw_lsf_term_admin": (Category.INFRASTRUCTURE, "gpu-n-62-20-7"),
    "schedw_lsf_term_preempt": (Category.INFRASTRUCTURE, "gpu-n-62-31-3"),
    "schedw_lsf_term_load": (Category.INFRASTRUCTURE, "cn0312"),
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
    "rv45_r10_01_lsf_term_runlimit": (Category.INFRASTRUCTURE, "gpu-g12"),
    "rv45_r10_02_lsf_term_memlimit": (Category.OOM, "gpu-g12"),
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
    "hg_04_nccl20_silent_rank_others_timeout": (Category.UNDETERMINED, "rank 2 (did not report"),
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
    # `nd_*`: the node, the GPU, the fabric and the kernel under a job (NVRM, AER, EDAC, DCGM,
    # NVSwitch, Lustre, NFS, mlx5; two real CPU runs)
    "nd_02_xid79_dmesg_paste_ranks_timeout": (Category.GPU_CUDA, "0000:3b:00"),
    "nd_03_xid48_dbe_rank5": (Category.GPU_CUDA, "rank 5"),
    "nd_04_xid94_contained_ecc_rank2": (Category.GPU_CUDA, "rank 2"),
    "nd_08_xid64_row_remap_failed_rank13": (Category.GPU_CUDA, "rank 13"),
    "nd_09_xid74_nvlink_rank6": (Category.GPU_CUDA, "rank 6"),
    "nd_10_xid119_gsp_rpc_timeout": (Category.GPU_CUDA, "0000:cb:00"),
    "nd_11_xid13_job_own_illegal_address_rank4": (Category.GPU_CUDA, "rank 4"),
    "nd_12_xid31_mmu_fault_rank9": (Category.GPU_CUDA, "rank 9"),
    "nd_14_xid79_xid154_syslog": (Category.GPU_CUDA, "0000:db:00"),
    "nd_17_nvsmi_device_handle_epilog": (Category.GPU_CUDA, "0000:3B:00"),
    "nd_20_dcgm_health_dbe_epilog": (Category.GPU_CUDA, "GPU 5"),
    "nd_21_dcgm_diag_pass_keyerror_rank3": (Category.SOFTWARE, "rank 3"),
    "nd_27_aer_surprise_down_gpu_lost": (Category.GPU_CUDA, "0000:3b:00"),
    "nd_29_aer_corrected_then_cuda_oom_rank6": (Category.OOM, "rank 6"),
    "nd_31_edac_ue_panic_node_fail": (Category.INFRASTRUCTURE, "gpu018"),
    "nd_33_corrected_mce_then_shape_bug_rank5": (Category.SOFTWARE, "rank 5"),
    "nd_36_hard_lockup_node_fail": (Category.INFRASTRUCTURE, "gpu018"),
    "nd_37_global_oom_killer_rank13": (Category.OOM, "rank 13"),
    "nd_38_memcg_oom_slurm_task9": (Category.OOM, "task 9"),
    "nd_39_oom_killer_dataloader_worker_rank2": (Category.OOM, "rank 2"),
    "nd_58_xid79_gpu018_rank0_observer": (Category.GPU_CUDA, "0000:5d:00"),
    # `rc_*`: restarts, requeues and retries across stacks, recovered or failed again (real torchrun,
    # Ray Tune, Ray Train and Lightning CPU runs)
    "rc_06_torchrun_tee_restart_hung_killed": (Category.SOFTWARE, "rank 1"),
    "rc_07_torchrun_logdir_attempts": (Category.SOFTWARE, "rank 1"),
    "rc_09_torchrun_keyerror_every_attempt": (Category.SOFTWARE, "rank 0"),
    "rc_12_tune_trial_retries_exhausted": (Category.SOFTWARE, ""),
    "rc_17_lightning_crash_again_after_resume": (Category.SOFTWARE, ""),
    "rc_23_slurm_preempt_then_timelimit": (Category.INFRASTRUCTURE, ""),
    "rc_25_lightning_requeue_failed_timelimit": (Category.INFRASTRUCTURE, ""),
    "rc_32_k8s_crashloop_importerror": (Category.SOFTWARE, "trainer-7d9f8-0"),
    "rc_41_skypilot_user_error_restart_failed": (Category.SOFTWARE, "rank 0"),
    "rc_51_nccl_connect_retries_exhausted": (Category.NETWORK, ""),
    "rc_53_ib_error_each_attempt_exhausted": (Category.NETWORK, ""),
    "rc_61_hf_disk_full_then_bad_resume": (Category.STORAGE_IO, "rank 0"),
    "rc_63_hub_download_retries_exhausted": (Category.NETWORK, ""),
    "rc_65_ckpt_write_retries_exhausted": (Category.STORAGE_IO, "rank 0"),
    "rc_75_aws_batch_oom_each_attempt": (Category.OOM, ""),
    "rc_81_tcpstore_client_never_connected": (Category.NETWORK, "bert-ft-master-0:23456"),
    "rc_84_torchrun_oomkiller_each_attempt": (Category.OOM, "rank 1"),
    "rc_87_nccl_watchdog_every_attempt": (Category.UNDETERMINED, ""),
    "rc_88_slurm_requeue_cuda_oom_again": (Category.OOM, "rank 3"),
    "rc_91_tune_trial_ray_oom_each_retry": (Category.OOM, "10.0.1.17"),
    "rc_92_disk_quota_each_requeue": (Category.STORAGE_IO, "rank 0"),
    # `r47_*`: a blind review of those two audits' readings, against probes of its own
    "r47_10_interleaved_others_steps_cut": (Category.SOFTWARE, "rank 2"),
    "r47_11_interleaved_others_fail_later": (Category.SOFTWARE, "rank 1"),
    "r47_12_oom_then_other_rank_steps": (Category.OOM, "rank 5"),
    "r47_13_gpu_err_then_steps_same_file_cut": (Category.GPU_CUDA, "rank 3"),
    "r47_16_other_job_tail_after": (Category.OOM, "rank 5"),
    "r47_17_earlier_run_pasted_after": (Category.GPU_CUDA, "rank 1"),
    "r47_18_validation_bars_after_crash": (Category.SOFTWARE, "rank 1"),
    "r47_19_val_loss_lines_after_crash": (Category.SOFTWARE, "rank 1"),
    "r47_20_one_step_after": (Category.OOM, "rank 2"),
    "r47_21_step_words_no_loss": (Category.SOFTWARE, "rank 3"),
    "r47_22_loading_bars_after": (Category.OOM, "rank 0"),
    "r47_23_folder_one_file_not_recovered": (Category.OOM, "rank 3"),
    "r47_24_node_file_cut_after_steps": (Category.UNDETERMINED, "rank 3"),
    "r47_25_buffered_stdout_after_tb": (Category.OOM, ""),
    "r47_26_fail_restart_fail_again": (Category.OOM, "rank 3"),
    "r47_28_eval_process_steps_after": (Category.OOM, "rank 3"),
    "r47_29_other_job_same_node_steps": (Category.OOM, "rank 2"),
    "r47_30_side_failure_then_job_fails": (Category.SOFTWARE, "rank 0"),
    "r47_34_aer_corrected_then_oom": (Category.OOM, "rank 1"),
    "r47_35_aer_uncorrected_nic_then_nccl": (Category.NETWORK, ""),
    "r47_36_aer_uncorrected_gpu_nic_info_elsewhere": (Category.GPU_CUDA, "3b:00"),
    "r47_37_aer_uncorrected_nic_alone": (Category.NETWORK, ""),
    "r47_41_xid63_then_xid48": (Category.GPU_CUDA, "3b:00"),
    "r47_42_xid64": (Category.GPU_CUDA, "3b:00"),
    "r47_46_nfs_ok_other_server": (Category.STORAGE_IO, ""),
    "r47_47_nfs_ok_then_again": (Category.STORAGE_IO, ""),
    "r47_48_nfs_ok_in_other_file": (Category.STORAGE_IO, ""),
    "r47_49_nccl_then_node_failure": (Category.INFRASTRUCTURE, ""),
    "r47_50_oom_then_node_failure": (Category.OOM, "rank 2"),
    "r47_51_srun_node_failure_after_resets": (Category.INFRASTRUCTURE, "gpu018"),
    "r47_52_keyerror_then_node_failure": (Category.SOFTWARE, "rank 1"),
    "r47_53_xid79_then_node_failure": (Category.GPU_CUDA, "3b:00"),
    "r47_54_node_failure_alone": (Category.INFRASTRUCTURE, ""),
    "r47_55_timeout_then_node_failure_store": (Category.INFRASTRUCTURE, ""),
    "r47_56_nfs_then_node_failure": (Category.STORAGE_IO, ""),
    "r47_57_cuda_launch_failure_then_node_failure": (Category.GPU_CUDA, "rank 0"),
    "r47_58_watchdog_cuda_exc_then_node_failure": (Category.GPU_CUDA, "rank 0"),
    "r47_59_oom_then_nan_steps": (Category.OOM, "rank 0"),
    "r47_60_time_limit_after_cuda_error": (Category.GPU_CUDA, "rank 0"),
    # the kernel sent a rank SIGBUS for host memory gone bad (mm/memory-failure.c), in the
    # same file as torchrun's table, in the node's own dmesg file, beside the agent's line; EDAC's
    # uncorrected error alone; the same words about another process leave the rank's SIGBUS
    # unexplained
    "hw_01_memory_failure_sigbus_torchrun_table": (Category.INFRASTRUCTURE,
                                                   "rank 1 (pid 48214) on gpu-node-07"),
    "hw_02_memory_failure_dmesg_beside_torchrun": (Category.INFRASTRUCTURE, "rank 1"),
    "hw_03_memory_failure_agent_line": (Category.INFRASTRUCTURE, "pid 5512"),
    "hw_04_edac_ue_kernel_only": (Category.INFRASTRUCTURE, ""),
    "hw_06_memory_failure_of_another_process": (Category.UNDETERMINED, "rank 1"),
    # an NVSwitch's fatal error, in its kernel driver's and in Fabric Manager's words
    "hw_07_nvswitch_fatal_sxid_alone": (Category.GPU_CUDA, "0000:86:00.0"),
    "hw_08_fabric_manager_nvswitch_fatal": (Category.GPU_CUDA, "86:00.0"),
    # a port that came back but the job did not train on; a peer's IB error before its
    # launcher reported the peer's own CUDA error
    "hw_09_ib_port_back_then_watchdog": (Category.NETWORK, "mlx5_0"),
    "hw_11_ib_error_before_the_peer_died": (Category.NETWORK, "10.30.0.2"),
    # a job that stops itself over a loss gone non-finite, or whose loss scaler can go no lower
    "nan_01_loss_nan_stopping_training": (Category.SOFTWARE, "pid 9921"),
    "nan_02_deepspeed_loss_scale_at_minimum": (Category.SOFTWARE, ""),
    "nan_03_fairseq_minimum_loss_scale": (Category.SOFTWARE, ""),
    # a second blind review, of the readings that pass a failure over or recover a job
    # (`rv49_*`), and an audit of exceptions a process relays from a peer, a worker, a pipe or
    # a stop (`ra_*`)
    "rv49_a_flush_lower_steps": (Category.SOFTWARE, "rank 3"),
    "rv49_a_flush_ts_before_error": (Category.SOFTWARE, "rank 3"),
    "rv49_a_pasted_runs_table": (Category.OOM, "rank 0"),
    "rv49_a_hook_exc_table_names_rank": (Category.SOFTWARE, "rank 2"),
    "rv49_a_caught_wandb_then_oom": (Category.OOM, "rank 5"),
    "rv49_a_other_rank_steps_after": (Category.SOFTWARE, "rank 3"),
    "rv49_a_tqdm_flush_after": (Category.GPU_CUDA, "rank 1"),
    "rv49_b_del_after_oom": (Category.OOM, "rank 2"),
    "rv49_b_del_then_real_tb": (Category.GPU_CUDA, "rank 1"),
    "rv49_b_del_then_oom_line": (Category.OOM, "rank 1"),
    "rv49_b_del_interleaved_rank5": (Category.GPU_CUDA, "rank 5"),
    "rv49_b_del_kbint_scancel": (Category.INFRASTRUCTURE, ""),
    "rv49_c_feeder_eio_stall": (Category.STORAGE_IO, "rank 3"),
    "rv49_c_feeder_retries_stall": (Category.STORAGE_IO, "rank 1"),
    "rv49_c_thread_others_steps": (Category.STORAGE_IO, "rank 2"),
    "rv49_c_wandb_thread_then_oom": (Category.OOM, "rank 4"),
    "rv49_c_ckpt_thread_reraised": (Category.STORAGE_IO, "rank 0"),
    "rv49_c_uploader_thread_then_ecc": (Category.GPU_CUDA, "rank 6"),
    "rv49_c_thread_no_steps_after": (Category.STORAGE_IO, "rank 3"),
    "rv49_d_exit_then_nccl": (Category.SOFTWARE, "rank 1"),
    "rv49_d_exit_no_tb_then_nccl": (Category.UNDETERMINED, "rank 1"),
    "rv49_d_nccl_before_exit": (Category.UNDETERMINED, ""),
    "rv49_d_launcher_no_ts": (Category.UNDETERMINED, ""),
    "rv49_d_exit_is_nccl_victim": (Category.UNDETERMINED, ""),
    "rv49_d_multinode_local_rank": (Category.UNDETERMINED, ""),
    "rv49_d_table_after_nccl": (Category.UNDETERMINED, ""),
    "rv49_d_watchdog_abort_reported": (Category.UNDETERMINED, ""),
    "rv49_d_oomkill_then_nccl": (Category.OOM, "rank 2"),
    "rv49_e_own_exc_then_ib": (Category.SOFTWARE, "rank 9"),
    "rv49_e_ib_before_exc": (Category.NETWORK, "10.0.1.11"),
    "rv49_e_scancel_kbint": (Category.INFRASTRUCTURE, ""),
    "rv49_e_ecc_then_ib": (Category.GPU_CUDA, "rank 12"),
    "rv49_e_oom_then_closed": (Category.OOM, "rank 12"),
    "rv49_f_preempt_then_crash": (Category.GPU_CUDA, "rank 2"),
    "rv49_f_finish_other_job": (Category.INFRASTRUCTURE, ""),
    "rv49_f_finish_word_in_config": (Category.OOM, "rank 3"),
    "rv49_f_finish_then_save_fails": (Category.STORAGE_IO, "rank 0"),
    "rv49_f_fit_stopped_before_requeue": (Category.INFRASTRUCTURE, ""),
    "rv49_f_epoch_complete_then_oom": (Category.OOM, "rank 1"),
    "rv49_f_eta_line_preempted_again": (Category.INFRASTRUCTURE, ""),
    "rv49_f_nan_abort_finished_word": (Category.SOFTWARE, "rank 0"),
    "ra_dl_worker_keyerror_folder": (Category.SOFTWARE, "rank 1"),
    "ra_dl_worker_pil_single_node_log": (Category.DATA, "rank 2"),
    "ra_dl_worker_killed_no_oom": (Category.UNDETERMINED, "rank 0"),
    "ra_dl_worker_killed_oom": (Category.OOM, "4242"),
    "ra_dl_worker_exited_unexpectedly": (Category.UNDETERMINED, ""),
    "ra_dl_queue_empty_exited": (Category.UNDETERMINED, "rank 1"),
    "ra_dl_timeout_rank1": (Category.DATALOADER_STALL, "rank 1"),
    "ra_dl_keyerror_buffered_order_log": (Category.SOFTWARE, "rank 1"),
    "ra_spawn_raised_keyerror_no_node_info": (Category.SOFTWARE, ""),
    "ra_spawn_exited_sigkill": (Category.UNDETERMINED, ""),
    "ra_spawn_sigkill_with_oom": (Category.OOM, "19306"),
    "ra_spawn_raised_relay_only": (Category.UNDETERMINED, ""),
    "ra_spawn_raised_oom": (Category.OOM, ""),
    "ra_pool_broken_no_cause": (Category.UNDETERMINED, ""),
    "ra_pool_broken_oom": (Category.OOM, "22817"),
    "ra_mpqueue_brokenpipe_after_oom_log": (Category.OOM, "rank 0"),
    "ra_mpqueue_eoferror_alone": (Category.UNDETERMINED, ""),
    "ra_mpqueue_connreset_cause_later_log": (Category.STORAGE_IO, "rank 0"),
    "ra_gloo_closed_by_peer_real_run": (Category.SOFTWARE, "rank 1"),
    "ra_gloo_closed_by_peer_alone": (Category.UNDETERMINED, ""),
    "ra_gloo_timeout_childfailed_real": (Category.UNDETERMINED, ""),
    "ra_gloo_pair_closure_only": (Category.UNDETERMINED, ""),
    "ra_gloo_pair_closure_after_peer_raise": (Category.SOFTWARE, "rank 3"),
    "ra_ddp_unused_rank3_others_timeout": (Category.SOFTWARE, "rank 3"),
    "ra_accelerate_calledprocess_after_oom": (Category.OOM, ""),
    "ra_accelerate_calledprocess_sigkill_only": (Category.UNDETERMINED, ""),
    "ra_datasets_map_remote_traceback": (Category.SOFTWARE, "rank 0"),
    "ra_ray_taskerror_keyerror": (Category.SOFTWARE, ""),
    "ra_ray_actordied_own_exception": (Category.SOFTWARE, ""),
    "ra_ray_actordied_unexpected_no_cause": (Category.UNDETERMINED, ""),
    "ra_ray_oom_then_actordied": (Category.OOM, "10.0.0.13"),
    "ra_vllm_engine_init_with_cause": (Category.OOM, ""),
    "ra_vllm_engine_init_without_cause": (Category.UNDETERMINED, ""),
    "ra_vllm_engine_init_cause_after": (Category.SOFTWARE, ""),
    "ra_vllm_engine_dead_cuda": (Category.GPU_CUDA, ""),
    "ra_childfailed_root_is_relay": (Category.OOM, "rank 3"),
    "ra_sigterm_printed_before_cause_log": (Category.STORAGE_IO, "rank 5"),
    "ra_sigterm_slurm_time_limit": (Category.INFRASTRUCTURE, ""),
    "ra_deepspeed_launcher_kills_after_rank1_log": (Category.SOFTWARE, "rank 1"),
    "ra_lightning_zombie_no_traceback": (Category.UNDETERMINED, ""),
    "ra_lightning_zombie_with_traceback": (Category.SOFTWARE, "rank 1"),
    "ra_dl_worker_connreset_in_worker_log": (Category.UNDETERMINED, ""),
    "ra_childfailed_sigkill_peer_relay": (Category.UNDETERMINED, "rank 1"),
    "ra_ddp_param_mismatch_reported_by_rank0": (Category.SOFTWARE, "rank 2"),
    "ra_mpconn_brokenpipe_alone_log": (Category.UNDETERMINED, ""),
    "ra_dl_worker_caught_eof_manager_log": (Category.UNDETERMINED, ""),
    "ra_spawn_raised_brokenpipe_log": (Category.UNDETERMINED, ""),
    # a blind review of this round's readings (must fire, must not, another process's words,
    # recovered: `rv48_*`), and an audit of the job's own exceptions and crashes across torch,
    # FSDP, DTensor, dynamo, DeepSpeed, Megatron, transformers, PEFT, TRL, TransformerEngine,
    # apex, Triton and JAX, 10 of them real runs (`sa_*`)
    "rv48_r1_mf_same_file": (Category.INFRASTRUCTURE, "48214"),
    "rv48_r1_mf_other_pid": (Category.UNDETERMINED, "rank 3"),
    "rv48_r1_edac_ce_then_oom": (Category.OOM, "rank 5"),
    "rv48_r2_loss_nan_stop": (Category.SOFTWARE, "rank 0"),
    "rv48_r2_deepspeed_min_scale": (Category.SOFTWARE, ""),
    "rv48_r2_anomaly_nan": (Category.SOFTWARE, "rank 2"),
    "rv48_r2_config_echo_lookalike": (Category.OOM, "rank 6"),
    "rv48_r2_fairseq_min_scale": (Category.SOFTWARE, ""),
    "rv48_r3_sxid_nonfatal_oom": (Category.OOM, "rank 2"),
    "rv48_r3_sxid_after_job_end": (Category.OOM, "rank 1"),
    "rv48_r4_requeue_then_oom": (Category.OOM, "rank 2"),
    "rv48_r4_requeue_resume_timelimit": (Category.INFRASTRUCTURE, ""),
    "rv48_r4_finish_before_preempt": (Category.INFRASTRUCTURE, ""),
    "rv48_r4_requeue_other_file_no_resume": (Category.INFRASTRUCTURE, ""),
    "rv48_r5_srun_ctrlc": (Category.INFRASTRUCTURE, ""),
    "rv48_r5_srun_ctrlc_oldwording": (Category.INFRASTRUCTURE, ""),
    "rv48_r5_ctrlc_after_cuda_error": (Category.GPU_CUDA, "rank 3"),
    "rv48_r5_ctrlc_prior_step_then_oom": (Category.OOM, "rank 4"),
    "rv48_r6_flux_timeout": (Category.INFRASTRUCTURE, ""),
    "rv48_r6_flux_cancel": (Category.INFRASTRUCTURE, ""),
    "rv48_r6_flux_timeout_after_oom": (Category.OOM, "rank 2"),
    "rv48_r7_ofi_rc107": (Category.NETWORK, ""),
    "rv48_r7_ofi_unresponsive": (Category.NETWORK, ""),
    "rv48_r7_ofi_info_only_oom": (Category.OOM, "rank 5"),
    "rv48_r7_ofi_after_storage_error": (Category.STORAGE_IO, "rank 2"),
    "rv48_r8_ucx_warn_lookalike": (Category.UNDETERMINED, ""),
    "rv48_r8_ucx_other_pid_cuda_abort": (Category.GPU_CUDA, ""),
    "rv48_r8_ucx_after_abort": (Category.UNDETERMINED, ""),
    "rv48_r8_ucx_unhandled_timeout": (Category.NETWORK, ""),
    "rv48_r9_grpc_unavailable": (Category.NETWORK, "10.0.5.5:6379"),
    "rv48_r9_grpc_resource_exhausted": (Category.SOFTWARE, ""),
    "rv48_r9_grpc_after_oom": (Category.OOM, "rank 1"),
    "rv48_r10_flap_then_completion_error": (Category.NETWORK, "10.0.1.12"),
    "rv48_r10_active_on_other_port": (Category.NETWORK, "mlx5_0"),
    "rv48_r10_active_before_error": (Category.NETWORK, "mlx5_0"),
    "rv48_r10_active_but_no_training": (Category.NETWORK, "mlx5_0"),
    "rv48_r11_oom_before_ib12": (Category.OOM, "rank 3"),
    "rv48_r11_cuda_err_failed_line_first": (Category.GPU_CUDA, "rank 2"),
    "rv48_r11_ib_before_cuda": (Category.NETWORK, "10.0.1.10"),
    "rv48_r11_oom_caught_then_ib": (Category.NETWORK, "10.0.1.12"),
    "rv48_r12_ssh_noroute": (Category.NETWORK, "worker-3"),
    "rv48_r12_ssh_timeout": (Category.NETWORK, "worker-2"),
    "rv48_r12_ssh_after_store": (Category.INIT_TIMEOUT, ""),
    "rv48_r12_ssh_retry_ok_then_oom": (Category.OOM, "rank 9"),
    "rv48_r13_kubectl_evicted": (Category.INFRASTRUCTURE, "trainer-worker-3"),
    "rv48_r13_ray_node_died": (Category.INFRASTRUCTURE, "10.0.3.21"),
    "rv48_r13_ray_worker_died_lookalike": (Category.UNDETERMINED, ""),
    "rv48_r13_ray_node_sigterm": (Category.INFRASTRUCTURE, "10.0.3.22"),
    "rv48_v1_mf_kernlog_beside_table": (Category.INFRASTRUCTURE, "48214"),
    "rv48_v2_loss_nan_plain": (Category.SOFTWARE, "rank 0"),
    "rv48_v5_srun_ctrlc_minimal": (Category.INFRASTRUCTURE, ""),
    "rv48_v8_ucx_fatal_unhandled_timeout": (Category.NETWORK, ""),
    "rv48_v12_ssh_minimal": (Category.NETWORK, "worker-3"),
    "sa_real_shape_mismatch_one_rank": (Category.SOFTWARE, "rank 1"),
    "sa_real_shape_mismatch_all_ranks": (Category.SOFTWARE, ""),
    "sa_real_load_state_dict_all_ranks": (Category.SOFTWARE, ""),
    "sa_real_dtype_mismatch_rank3": (Category.SOFTWARE, "rank 3"),
    "sa_real_dynamo_unsupported_all": (Category.SOFTWARE, ""),
    "sa_real_dtensor_mixed_all": (Category.SOFTWARE, ""),
    "sa_real_dtype_mismatch_folder": (Category.SOFTWARE, "rank 3"),
    "sa_real_relay_only_with_table": (Category.UNDETERMINED, "rank 1"),
    "sa_real_relay_only_no_table": (Category.UNDETERMINED, ""),
    "sa_fsdp_inconsistent_device_rank5": (Category.SOFTWARE, "rank 5"),
    "sa_fsdp_training_state_all_ranks": (Category.SOFTWARE, ""),
    "sa_tp_view_invalid_all_ranks": (Category.SOFTWARE, ""),
    "sa_deepspeed_batch_assert_all": (Category.SOFTWARE, ""),
    "sa_megatron_gbs_divisible": (Category.SOFTWARE, ""),
    "sa_megatron_heads_divisible": (Category.SOFTWARE, ""),
    "sa_hf_no_config_json_all": (Category.SOFTWARE, ""),
    "sa_hf_pad_token_all_ranks_2nodes": (Category.SOFTWARE, ""),
    "sa_peft_target_modules_accelerate": (Category.SOFTWARE, ""),
    "sa_trl_sft_missing_text_field": (Category.SOFTWARE, ""),
    "sa_hf_hidden_not_multiple_heads": (Category.SOFTWARE, ""),
    "sa_te_fp8_on_a100_all": (Category.SOFTWARE, ""),
    "sa_te_fp8_dims_rank6": (Category.SOFTWARE, "rank 6"),
    "sa_apex_missing_extension": (Category.SOFTWARE, ""),
    "sa_jax_invalid_argument": (Category.SOFTWARE, ""),
    "sa_jax_resource_exhausted_lookalike": (Category.OOM, ""),
    "sa_inductor_backend_compiler_failed_all": (Category.SOFTWARE, ""),
    "sa_inductor_error_all": (Category.SOFTWARE, ""),
    "sa_triton_compilation_error_all": (Category.SOFTWARE, ""),
    "sa_triton_out_of_resources_smem": (Category.SOFTWARE, ""),
    "sa_dcp_size_mismatch_all_ranks": (Category.SOFTWARE, ""),
    "sa_dcp_save_enospc_rank1_lookalike": (Category.STORAGE_IO, "rank 1"),
    "sa_ddp_unused_params_all": (Category.SOFTWARE, ""),
    "sa_ddp_unused_params_rank3_then_timeouts": (Category.SOFTWARE, "rank 3"),
    "sa_keyerror_collate_rank4_2nodes": (Category.SOFTWARE, "rank 4"),
    "sa_device_mismatch_rank1": (Category.SOFTWARE, "rank 1"),
    "sa_attributeerror_rank0_relays": (Category.SOFTWARE, "rank 0"),
    "sa_nccl_remote_error_relay_only": (Category.UNDETERMINED, ""),
    "sa_traceback_cut_no_rank": (Category.UNDETERMINED, ""),
    "sa_childfailed_table_only": (Category.UNDETERMINED, "rank 5"),
    "sa_segv_table_only": (Category.UNDETERMINED, "rank 2"),
    "sa_mp_spawn_process_raised": (Category.SOFTWARE, ""),
    "sa_mp_spawn_sigkill": (Category.UNDETERMINED, ""),
    "sa_dataloader_worker_exited_lookalike": (Category.UNDETERMINED, "rank 1"),
    "sa_cuda_oom_rank3_lookalike": (Category.OOM, "rank 3"),
    "sa_cuda_ecc_rank6_lookalike": (Category.GPU_CUDA, "rank 6"),
    "sa_collective_mismatch_lookalike": (Category.COLLECTIVE_DESYNC, ""),
    "sa_collective_misuse_cpu_tensor_nccl": (Category.SOFTWARE, ""),
    "sa_eval_callback_after_train_rank0": (Category.SOFTWARE, "rank 0"),
    "sa_pipeline_last_stage_attr_rank1": (Category.SOFTWARE, "rank 1"),
    "sa_embedding_index_all_ranks": (Category.SOFTWARE, ""),
    "sa_lightning_misconfiguration": (Category.SOFTWARE, ""),
    # two audits' cases, each labelled before triage read it: the network's failures and their
    # look-alikes across NCCL 2.7-2.28, RCCL, aws-ofi-nccl, UCX, Open MPI, gloo, the c10d store
    # and gRPC (`na_*`); stops from outside across Slurm, PBS, LSF, HTCondor, Flux,
    # Kubernetes, the clouds, Ray and the launchers, 13 of them real runs (`ia_*`)
    "na_ib_completion_err12_v214": (Category.NETWORK, "10.2.0.5"),
    "na_roce_completion_status_v221": (Category.NETWORK, "172.16.40.18"),
    "na_ib_completion_named_status_v227": (Category.NETWORK, "10.153.235.13"),
    "na_ib_completion_nopeer_v27": (Category.NETWORK, ""),
    "na_net_socket_progress_after_reset": (Category.UNDETERMINED, ""),
    "na_net_socket_progress_no_route": (Category.NETWORK, "172.31.10.8"),
    "na_rccl_proxy_call_failed_alone": (Category.UNDETERMINED, ""),
    "na_ray_worker_connection_eof": (Category.UNDETERMINED, ""),
    "na_ib_local_catastrophic_async": (Category.NETWORK, "gpu-b07"),
    "na_ib_async_fatal_event_v221": (Category.NETWORK, "h100-pod-12"),
    "na_ib_port_error_linkdown": (Category.NETWORK, "a100-r3-n07"),
    "na_ibv_modify_qp_fail_v27": (Category.NETWORK, ""),
    "na_socket_connect_refused_v27": (Category.NETWORK, "10.3.2.7"),
    "na_socket_no_route_v219": (Category.NETWORK, "10.1.0.12"),
    "na_socket_net_unreachable_v217": (Category.NETWORK, "192.168.78.2"),
    "na_bootstrap_connect_refused_retries_v221": (Category.NETWORK, ""),
    "na_bootstrap_connect_refused_addr_v226": (Category.NETWORK, "10.82.101.249"),
    "na_proxy_service_from_rank14_v219": (Category.NETWORK, "10.20.0.31"),
    "na_ofi_efa_unresponsive_receiver": (Category.NETWORK, ""),
    "na_ofi_completed_error_old": (Category.NETWORK, ""),
    "na_rccl_ib_completion": (Category.NETWORK, "10.150.4.44"),
    "na_rccl_socket_no_route": (Category.NETWORK, "10.70.9.2"),
    "na_ucx_transport_retry_exceeded": (Category.NETWORK, ""),
    "na_ucx_endpoint_timeout": (Category.NETWORK, ""),
    "na_ompi_btl_tcp_refused": (Category.NETWORK, "10.0.1.11"),
    "na_ompi_btl_tcp_no_route": (Category.NETWORK, "192.168.108.14"),
    "na_gloo_connect_refused": (Category.NETWORK, "10.0.0.21"),
    "na_gloo_no_route_folder": (Category.NETWORK, "192.168.50.12"),
    "na_tcpstore_refused_connect_timeout": (Category.NETWORK, "10.0.0.1"),
    "na_tcpstore_dns_name_unknown": (Category.NETWORK, "job-master-0.job-svc"),
    "na_grpc_unavailable_gcs": (Category.NETWORK, "10.0.5.5"),
    "na_conn_reset_by_peer_alone": (Category.UNDETERMINED, ""),
    "na_conn_closed_by_remote_peer": (Category.UNDETERMINED, ""),
    "na_remote_error_no_detail": (Category.UNDETERMINED, ""),
    "na_unhandled_system_error_no_reason": (Category.UNDETERMINED, ""),
    "na_unhandled_system_error_with_ib_warn_v210": (Category.NETWORK, "10.240.3.9"),
    "na_store_wait_clients_timeout": (Category.INIT_TIMEOUT, ""),
    "na_peer_cuda_error_first_then_ib": (Category.GPU_CUDA, "rank 3"),
    "na_peer_oom_first_then_reset": (Category.OOM, "rank 2"),
    "na_gloo_closed_by_peer_alone": (Category.UNDETERMINED, ""),
    "na_tcpstore_reset_alone": (Category.UNDETERMINED, ""),
    "na_pdsh_ssh_no_route_worker3": (Category.NETWORK, "worker-3"),
    "ia_real_slurm_time_limit_srun": (Category.INFRASTRUCTURE, ""),
    "ia_real_slurm_scancel_srun": (Category.INFRASTRUCTURE, ""),
    "ia_real_slurm_scancel_torchrun": (Category.INFRASTRUCTURE, ""),
    "ia_real_slurm_requeue_torchrun": (Category.INFRASTRUCTURE, ""),
    "ia_real_slurm_node_down": (Category.INFRASTRUCTURE, "vm"),
    "ia_real_torchrun_agent_sigterm": (Category.INFRASTRUCTURE, ""),
    "ia_real_torchrun_ctrl_c": (Category.INFRASTRUCTURE, ""),
    "ia_real_srun_ctrl_c": (Category.INFRASTRUCTURE, ""),
    "ia_real_torchrun_crash_sigterm_collateral": (Category.SOFTWARE, "rank 1"),
    "ia_real_torchrun_sigkill_no_oom": (Category.UNDETERMINED, "rank 1"),
    "ia_real_slurm_time_limit_torchrun": (Category.INFRASTRUCTURE, ""),
    "ia_slurm_preemption_two_nodes": (Category.INFRASTRUCTURE, ""),
    "ia_slurm_node_failure_with_watchdog_first": (Category.INFRASTRUCTURE, "gpu-b-042"),
    "ia_slurm_node_failure_single": (Category.INFRASTRUCTURE, "gpu-c-007"),
    "ia_slurm_oom_cgroup_event": (Category.OOM, "task 5 on gpu-a-003"),
    "ia_slurm_exceeded_job_memory_limit": (Category.OOM, ""),
    "ia_slurm_task_killed_no_cause": (Category.UNDETERMINED, "rank 3"),
    "ia_slurm_scancel_with_reason": (Category.INFRASTRUCTURE, ""),
    "ia_pbs_walltime": (Category.INFRASTRUCTURE, ""),
    "ia_pbs_mem_limit": (Category.OOM, ""),
    "ia_lsf_runlimit": (Category.INFRASTRUCTURE, "gpu-f-21"),
    "ia_lsf_owner_kill": (Category.INFRASTRUCTURE, ""),
    "ia_lsf_preempt": (Category.INFRASTRUCTURE, ""),
    "ia_lsf_memlimit": (Category.OOM, ""),
    "ia_htcondor_evicted": (Category.INFRASTRUCTURE, ""),
    "ia_htcondor_condor_rm": (Category.INFRASTRUCTURE, ""),
    "ia_flux_time_limit": (Category.INFRASTRUCTURE, ""),
    "ia_flux_cancel": (Category.INFRASTRUCTURE, ""),
    "ia_k8s_evicted_node_memory_pressure": (Category.INFRASTRUCTURE, "gke-train-a100-pool-7c1e-x2kq"),
    "ia_k8s_evicted_ephemeral_storage": (Category.INFRASTRUCTURE, "ip-10-0-12-71.ec2.internal"),
    "ia_k8s_preempted_by_scheduler": (Category.INFRASTRUCTURE, ""),
    "ia_k8s_node_notready_taint_eviction": (Category.INFRASTRUCTURE, "gke-train-a100-pool-7c1e-p0qz"),
    "ia_ray_node_marked_dead": (Category.INFRASTRUCTURE, "10.0.3.17"),
    "ia_ray_actor_node_terminated_sigterm": (Category.INFRASTRUCTURE, "10.0.3.21"),
    "ia_ray_actor_node_preempted": (Category.INFRASTRUCTURE, "10.0.3.21"),
    "ia_ray_raylet_sigterm_folder": (Category.INFRASTRUCTURE, "10.0.3.21"),
    "ia_lightning_sigterm_preemption": (Category.INFRASTRUCTURE, ""),
    "ia_lightning_auto_requeue_only": (Category.INFRASTRUCTURE, ""),
    "ia_deepspeed_launcher_sigint": (Category.INFRASTRUCTURE, ""),
    "ia_deepspeed_child_sigkill_no_oom": (Category.UNDETERMINED, ""),
    "ia_accelerate_launch_sigterm": (Category.INFRASTRUCTURE, ""),
    "ia_torchrun_multinode_crash_then_sigterm": (Category.SOFTWARE, "rank 5"),
    "ia_torchrun_cuda_oom_then_sigterm": (Category.OOM, "rank 3"),
    # srun's lines a moment apart for one node's tasks that died of one signal are one
    # failure; another node's later abort is not part of it
    "s1_srun_aborted_two_lines_one_node": (Category.UNDETERMINED, "task 8-11 on n07"),
    "s1_srun_aborted_other_node_later": (Category.UNDETERMINED, "task 8-9 on n07"),
    # mp.spawn's own raise before torch 1.5 (a plain Exception), the worker's traceback cut
    "s1_spawn_join_old_torch_cut": (Category.SOFTWARE, "process 2"),
    # three audits, each case labelled before triage read it: a failed process known with its
    # cause shown or not (uk_), culprits that are not ranks (id_), endpoints that could not
    # be reached and their look-alikes (ur_)
    "id_spark_executor_id_only": (Category.OOM, "executor 12"),
    "id_spark_lost_node": (Category.INFRASTRUCTURE, "ip-10-26-140-7.ec2.internal"),
    "id_spark_container_preempted": (Category.INFRASTRUCTURE, ""),
    "id_k8s_describe_oomkilled": (Category.OOM, "llama-ft-worker-3"),
    "id_k8s_evicted_memory": (Category.INFRASTRUCTURE, "ddp-train-worker-1"),
    "id_k8s_node_notready": (Category.INFRASTRUCTURE, "gpu-a100-19"),
    "id_k8s_preempted": (Category.INFRASTRUCTURE, "train-worker-5"),
    "id_kubeflow_pytorchjob_worker_oom": (Category.OOM, "bert-ft-worker-2"),
    "id_mpijob_rank_signal9": (Category.UNDETERMINED, "rank 5"),
    "id_slurm_node_failure_two_nodes": (Category.INFRASTRUCTURE, "gpu-a-023"),
    "id_slurm_node_failure_tasks_killed": (Category.INFRASTRUCTURE, "gpu-b-004"),
    "id_slurm_oom_task_on_node": (Category.OOM, "task 3 on gpu-12"),
    "id_slurm_time_limit_reporter": (Category.INFRASTRUCTURE, ""),
    "id_slurm_preemption_reporter": (Category.INFRASTRUCTURE, ""),
    "id_pbs_sister_mom_eof": (Category.INFRASTRUCTURE, "n314"),
    "id_tpu_gcloud_worker_exit": (Category.UNDETERMINED, "worker 3"),
    "id_xid79_pci": (Category.GPU_CUDA, "0000:3b:00"),
    "id_xid48_dbe": (Category.GPU_CUDA, "0000:8a:00"),
    "id_xid48_rank_mapped": (Category.GPU_CUDA, "rank 13"),
    "id_nvidia_smi_lost_gpu": (Category.GPU_CUDA, "0000:CB:00.0"),
    "id_pcie_aer_fatal_gpu": (Category.GPU_CUDA, "0000:81:00"),
    "id_nccl_ib_completion_peer": (Category.NETWORK, "10.0.1.12"),
    "id_nccl_ib_completion_gid": (Category.NETWORK, "10.5.0.34"),
    "id_nccl_ib_async_fatal_hca": (Category.NETWORK, "mlx5_2"),
    "id_nccl_socket_reset_lookalike": (Category.UNDETERMINED, ""),
    "id_c10d_store_unreachable": (Category.NETWORK, "trainer-master-0"),
    "id_ray_memory_monitor_kill": (Category.OOM, "10.0.22.131"),
    "id_deepspeed_pdsh_host_oom": (Category.OOM, "worker-2"),
    "id_deepspeed_pdsh_no_route": (Category.NETWORK, "worker-5"),
    "id_horovod_gloo_rank_shown": (Category.OOM, "rank 3"),
    "id_torchelastic_rank_host_oom": (Category.OOM, "rank 27"),
    "id_torchelastic_sigkill_no_oom": (Category.UNDETERMINED, "rank 50"),
    "id_torchelastic_sigkill_dmesg_pid": (Category.OOM, "rank 50"),
    "id_vllm_tp_worker_oom_pid": (Category.OOM, "384550"),
    "id_vllm_worker_died_no_cause": (Category.UNDETERMINED, "VllmWorker-1"),
    "id_folder_hca_fatal_two_nodes": (Category.NETWORK, "mlx5_1"),
    "id_folder_xid_dmesg_node": (Category.GPU_CUDA, "0000:3b:00"),
    "ur_real_static_store_connect_timeout": (Category.NETWORK, "127.0.0.1"),
    "ur_real_static_store_dns_fail": (Category.NETWORK, "nonexistent-master.invalid"),
    "ur_real_c10d_rdzv_endpoint_down": (Category.NETWORK, "127.0.0.1"),
    "ur_real_c10d_join_timeout": (Category.INIT_TIMEOUT, ""),
    "ur_real_store_wait_timeout": (Category.INIT_TIMEOUT, ""),
    "ur_real_gloo_peer_keyerror": (Category.SOFTWARE, "rank 1"),
    "ur_real_gloo_closed_by_peer_alone": (Category.UNDETERMINED, ""),
    "ur_real_urllib_reward_refused": (Category.NETWORK, ""),
    "ur_tcpstore_no_route_alone": (Category.NETWORK, "gpu-node-00"),
    "ur_tcpstore_timeout_user_init_above_table": (Category.NETWORK, "10.0.3.7"),
    "ur_tcpstore_unreachable_before_store_wait": (Category.NETWORK, "10.0.3.7"),
    "ur_tcpstore_gai_rank_prefix": (Category.NETWORK, "trainer-master-0.trainer-svc"),
    "ur_torchrun_etcd_unreachable": (Category.NETWORK, "etcd-0.etcd"),
    "ur_nccl_bootstrap_refused_exceeded_v221": (Category.NETWORK, ""),
    "ur_nccl_refused_addr_v223_rankprefix": (Category.NETWORK, "10.0.4.21"),
    "ur_nccl_no_route_v210": (Category.NETWORK, "192.168.10.3"),
    "ur_nccl_startconnect_no_route_then_watchdogs": (Category.NETWORK, "10.0.5.9"),
    "ur_nccl_closed_by_remote_peer_alone": (Category.UNDETERMINED, ""),
    "ur_nccl_recv_reset_alone": (Category.UNDETERMINED, ""),
    "ur_peer_oom_then_nccl_reset": (Category.OOM, "rank 6"),
    "ur_tcpstore_should_dump_reset_alone": (Category.UNDETERMINED, ""),
    "ur_store_get_wait_timeout": (Category.INIT_TIMEOUT, ""),
    "ur_tf_grpc_failed_to_connect": (Category.NETWORK, ""),
    "ur_tf_grpc_socket_closed_lookalike": (Category.UNDETERMINED, ""),
    "ur_dask_timed_out_connect_refused": (Category.NETWORK, "10.0.7.3"),
    "ur_dask_commclosed_lookalike": (Category.UNDETERMINED, ""),
    "ur_ray_gcs_unreachable": (Category.NETWORK, "10.0.8.2"),
    "ur_lightgbm_recv_reset_lookalike": (Category.UNDETERMINED, ""),
    "ur_spark_shuffle_connect_refused": (Category.NETWORK, "10.0.10.5"),
    "ur_ompi_btl_tcp_refused": (Category.NETWORK, "10.0.11.5"),
    "ur_ompi_btl_tcp_timed_out": (Category.NETWORK, "172.23.4.1"),
    "ur_mpich_hydra_no_route": (Category.NETWORK, "node04"),
    "ur_deepspeed_pdsh_ssh_no_route": (Category.NETWORK, "node3"),
    "ur_requests_reward_refused": (Category.NETWORK, "10.0.12.9"),
    "ur_requests_reward_dns_fail": (Category.NETWORK, "reward-svc.rl.svc.cluster.local"),
    "ur_hf_hub_dns_couldnt_connect": (Category.NETWORK, "huggingface.co"),
    "ur_hf_offline_mode_lookalike": (Category.SOFTWARE, ""),
    "ur_hf_hub_404_lookalike": (Category.SOFTWARE, ""),
    "ur_real_static_master_wait_clients": (Category.INIT_TIMEOUT, ""),
    "uk_tr_sigkill_full": (Category.UNDETERMINED, "rank 1"),
    "uk_tr_sigkill_cut_top": (Category.UNDETERMINED, "rank 1"),
    "uk_tr_sigkill_cut_bottom_standalone": (Category.UNDETERMINED, "rank 1"),
    "uk_tr_segv_full": (Category.UNDETERMINED, "rank 2"),
    "uk_tr_abrt_full": (Category.UNDETERMINED, "rank 3"),
    "uk_tr_exit3_norecord": (Category.UNDETERMINED, "rank 1"),
    "uk_tr_hang_gloo_timeout": (Category.UNDETERMINED, ""),
    "uk_tr_all_sigkill_same_second": (Category.UNDETERMINED, ""),
    "uk_tr_segv_with_survivor_reset": (Category.UNDETERMINED, "rank 2"),
    "uk_tr_agent_sigterm": (Category.INFRASTRUCTURE, ""),
    "uk_tr_ctrl_c": (Category.INFRASTRUCTURE, ""),
    "uk_mn_sigkill_two_nodes": (Category.UNDETERMINED, "rank 3"),
    "uk_mn_sigkill_cut_localrank": (Category.UNDETERMINED, "13905"),
    "uk_spawn_sigkill": (Category.UNDETERMINED, "process 2"),
    "uk_spawn_exit2": (Category.UNDETERMINED, "process 2"),
    "uk_spawn_raise_device_mismatch": (Category.SOFTWARE, "process 2"),
    "uk_tr_multi_fail_exit1_first": (Category.UNDETERMINED, "rank 6"),
    "uk_tr_oomkiller_above_table": (Category.OOM, "rank 1"),
    "uk_mn_cgroup_oom_above_table": (Category.OOM, "rank 3"),
    "uk_legacy_launch_sigkill_lastcmd": (Category.UNDETERMINED, ""),
    "uk_legacy_launch_exit1_cuda_oom": (Category.OOM, "GPU 5"),
    "uk_deepspeed_launcher_minus9": (Category.UNDETERMINED, ""),
    "uk_deepspeed_launcher_minus9_dmesg": (Category.OOM, "40414"),
    "uk_ompi_signal9": (Category.UNDETERMINED, "rank 5"),
    "uk_ompi_exit3_first_process": (Category.UNDETERMINED, "rank 3"),
    "uk_ompi_exit1_cuda_illegal": (Category.GPU_CUDA, "rank 2"),
    "uk_ompi_signal9_oomkiller": (Category.OOM, "rank 5"),
    "uk_ompi_segv_rank14": (Category.UNDETERMINED, "rank 14"),
    "uk_srun_task_killed": (Category.UNDETERMINED, "rank 13"),
    "uk_srun_task_oom": (Category.OOM, "task 13 on gpu-node03"),
    "uk_srun_task_traceback_ecc": (Category.GPU_CUDA, "rank 13"),
    "uk_srun_scancel": (Category.INFRASTRUCTURE, ""),
    "uk_srun_time_limit": (Category.INFRASTRUCTURE, ""),
    "uk_slurm_bash_killed_line": (Category.UNDETERMINED, ""),
    "uk_horovod_exit137": (Category.UNDETERMINED, "rank 3"),
    "uk_horovod_typeerror": (Category.SOFTWARE, "rank 1"),
    "uk_ray_actor_died_no_rank": (Category.UNDETERMINED, "2370037"),
    "uk_k8s_oomkilled": (Category.OOM, "llama-ft-worker-2"),
    "uk_mn_launcher_then_nccl_survivors": (Category.UNDETERMINED, "rank 5"),
    "uk_nccl_survivors_only": (Category.UNDETERMINED, ""),
})
HEALTHY += ("id_pcie_aer_corrected_lookalike", "id_xid63_row_remap_lookalike",
            "ur_nccl_refused_retry_then_recovered")
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
            "r46_52_hvd_stalled_old_then_steps", "r46_61_sglang_decode_retract",
            "nd_06_xid63_row_remap_pending_healthy", "nd_07_xid92_sbe_rate_healthy",
            "nd_16_gpu_reset_succeeded_healthy", "nd_25_nvswitch_nonfatal_sxid_healthy",
            "nd_26_aer_corrected_noise_healthy", "nd_30_mce_edac_corrected_healthy",
            "nd_34_soft_lockup_healthy", "nd_43_nfs_not_responding_then_ok_healthy",
            "nd_45_lustre_connection_restored_healthy", "nd_48_ib_link_flap_recovered_healthy",
            "nd_60_nvsmi_remap_pending_after_finish_healthy",
            "nd_64_pcie_link_downtrained_info_healthy",
            "rc_01_torchrun_raise_restart_recovered", "rc_08_torchrun_segv_restart_recovered",
            "rc_10_torchrun_elastic_node_lost_reformed",
            "rc_20_slurm_preempt_requeue_finished", "rc_21_slurm_scontrol_requeue_finished",
            "rc_22_slurm_node_fail_requeue_finished", "rc_43_skypilot_status_refresh_retry",
            "rc_50_nccl_connect_retry_succeeded", "rc_52_ib_retry_exceeded_then_recovered",
            "rc_62_hub_download_retry_succeeded",
            "rc_64_ckpt_write_retry_succeeded", "rc_70_etcd_rdzv_reform_fewer_nodes",
            "rc_72_deepspeed_elastic_scale_up", "rc_77_sagemaker_spot_interrupted_completed",
            "rc_80_tcpstore_client_retry_succeeded",
            "rc_83_hf_auto_find_batch_size", "rc_86_nccl_watchdog_attempt0_recovered",
            "rc_89_xid79_node_replaced_recovered", "rc_90_dataloader_killed_restart_recovered",
            "rc_97_urllib3_retry_upload_succeeded",
            "r47_01_elastic_restart_steps", "r47_06_hf_trainer_dicts",
            "r47_07_megatron_iters_after", "r47_02_oom_then_resume_steps",
            "r47_04_lightning_tqdm_after", "r47_05_finished_after",
            "r47_08_folder_each_file_recovers", "r47_09_slurm_requeue_append",
            "r47_31_retry_succeeded_steps", "r47_32_ckpt_save_failed_then_ok",
            "r47_33_aer_corrected_gpu_alone", "r47_38_aer_corrected_nic_then_steps",
            "r47_39_xid63_alone", "r47_40_xid92_alone", "r47_43_smi_q_all_zero",
            "r47_45_nfs_recovered", "hw_05_memory_failure_recovered_healthy",
            # early stopping in words (`stopping early`), and a run whose loss went nan but which
            # ran to its end: no process failed
            "nan_04_early_stopping_healthy", "nan_05_trainer_nan_loss_finished",
            # the two audits' healthy and recovered runs
            "rv49_a_caught_trace_then_done",
            "rv49_a_elastic_restart_done",
            "rv49_b_del_then_done",
            "rv49_c_pusher_thread_done",
            "rv49_f_requeue_same_file_finished",
            "rv49_f_lightning_restored_fit",
            "rv49_f_oom_requeue_done",
            "rv48_r1_mf_recovered_page",
            "rv48_r2_early_stopping",
            "rv48_r2_nan_logged_ran_on",
            "rv48_r3_sxid_nonfatal_healthy",
            "rv48_r4_requeue_same_file_done",
            "rv48_r4_lightning_requeue_restored",
            "rv48_r9_grpc_retry_then_ok",
            "rv48_r10_port_flap_recovered",
            "rv48_v10_port_flap_stamped",
            "sa_real_thread_exception_survived",
            "sa_eval_error_caught_training_continues",
            "sa_shutdown_exception_ignored_after_success",
            "sa_bg_upload_thread_failed_training_continues",
            "na_ib_port_flap_recovered_none",
            "na_nccl_info_network_setup_healthy",
            "na_transient_connect_retry_recovered",
            "ia_real_slurm_requeue_then_complete",
            "ia_real_torchrun_graceful_complete",
            "ia_slurm_preempted_requeued_completed",
            "ia_ray_train_node_lost_recovered",
            "ia_lightning_auto_requeue_resumed",)

# Three more audits' cases triage reads as labelled (storage and data; hangs as other
# frameworks report them; out of memory in its forms), kept as regression checks
CAUSES.update({
    "sx_real_torch_save_write_fail_rank2": (Category.STORAGE_IO, "rank 2"),
    "sx_srun_streamwriter_write_failed_rank3": (Category.STORAGE_IO, "rank 3"),
    "sx_ds_hf_trainer_state_quota_rank0": (Category.STORAGE_IO, "rank 0"),
    "sx_hf_safetensors_enospc_rank0": (Category.STORAGE_IO, "rank 0"),
    "sx_real_dcp_enospc_rank3": (Category.STORAGE_IO, "rank 3"),
    "sx_real_dcp_eio_ranks_5_7": (Category.STORAGE_IO, "rank 5"),
    "sx_megatron_torch_dist_enospc_two_nodes": (Category.STORAGE_IO, "rank 12"),
    "sx_lightning_ckpt_stale_handle_rank0": (Category.STORAGE_IO, "rank 0"),
    "sx_nfs_not_responding_hang_watchdog": (Category.STORAGE_IO, ""),
    "sx_gpfs_permission_denied_resume_rank0": (Category.STORAGE_IO, "rank 0"),
    "sx_s3_slowdown_upload_rank0": (Category.STORAGE_IO, "rank 0"),
    "sx_s3_access_denied_worker_rank4": (Category.STORAGE_IO, "rank 4"),
    "sx_gcsfs_503_worker_rank6": (Category.STORAGE_IO, "rank 6"),
    "sx_hf_hub_connect_timeout": (Category.NETWORK, "huggingface.co"),
    "sx_hf_datasets_cache_stale_rank1": (Category.STORAGE_IO, "rank 1"),
    "sx_hf_datasets_generation_json_rank0": (Category.DATA, "rank 0"),
    "sx_parquet_magic_rank3": (Category.DATA, "rank 3"),
    "sx_pil_unidentified_single_gpu": (Category.DATA, ""),
    "sx_arrow_ipc_truncated_rank6": (Category.DATA, "rank 6"),
    "sx_torch_load_corrupt_resume_rank0": (Category.DATA, "rank 0"),
    "sx_safetensors_header_rank2_folder": (Category.DATA, "rank 2"),
    "sx_worker_killed_oom_dmesg": (Category.OOM, "rank 2"),
    "sx_real_dataloader_timeout_rank2": (Category.DATALOADER_STALL, "rank 2"),
    "sx_worker_exited_unexpectedly": (Category.UNDETERMINED, ""),
    "sx_datasets_not_enough_disk_rank0": (Category.STORAGE_IO, "rank 0"),
    "sx_hf_gated_401_rank0": (Category.SOFTWARE, "rank 0"),
    "sx_pasted_shell_megatron_eio_gpfs": (Category.STORAGE_IO, "rank 0"),
    "fh_ds_pdsh_watchdog_all_same_seq": (Category.UNDETERMINED, ""),
    "fh_ds_pdsh_rank13_oom_then_timeouts": (Category.OOM, "rank 13"),
    "fh_nemo_dump_signal_from_rank8_all_equal": (Category.UNDETERMINED, ""),
    "fh_megatron_srun_watchdog_then_time_limit": (Category.UNDETERMINED, ""),
    "fh_horovod_shutdown_cascade_cuda_rank2": (Category.GPU_CUDA, "rank 2"),
    "fh_horovod_gloo_rank2_exit137_no_oom": (Category.UNDETERMINED, "rank 2"),
    "fh_openmpi_timeout_alone": (Category.INFRASTRUCTURE, ""),
    "fh_intelmpi_rank7_invalid_communicator": (Category.SOFTWARE, "rank 7"),
    "fh_openmpi_rank6_sigkill_with_oom_killer": (Category.OOM, "rank 6"),
    "fh_lightning_gloo_timeout_rank3_silent": (Category.UNDETERMINED, ""),
    "fh_lightning_detail_mismatch_rank1_broadcast": (Category.COLLECTIVE_DESYNC, "rank 1"),
    "fh_lightning_detail_shape_mismatch_rank2": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "fh_accelerate_watchdog_broadcast_all_ranks": (Category.UNDETERMINED, ""),
    "fh_ray_train_watchdog_all_workers": (Category.UNDETERMINED, ""),
    "fh_jax_missing_heartbeats_no_task_named": (Category.UNDETERMINED, ""),
    "fh_torchxla_rendezvous_socket_closed": (Category.UNDETERMINED, ""),
    "fh_torchxla_rendezvous_deadline_exceeded": (Category.UNDETERMINED, ""),
    "fh_megatron_node1_cgroup_oom_pid": (Category.OOM, "9107"),
    "fh_ds_ckpt_rank6_quota_then_barrier_timeouts": (Category.STORAGE_IO, "rank 6"),
    "mo_torch25_rank_prefix_oom": (Category.OOM, "rank 3"),
    "mo_srun_labels_torch21_oom": (Category.OOM, "rank 3"),
    "mo_pasted_single_gpu_torch20_oom": (Category.OOM, ""),
    "mo_deepspeed_pdsh_rank9_oom": (Category.OOM, "rank 9"),
    "mo_megatron_oom_then_watchdogs": (Category.OOM, "rank 12"),
    "mo_folder_two_nodes_oom_earlier": (Category.OOM, "rank 13"),
    "mo_vllm_worker_tp_oom_pid": (Category.OOM, "41234"),
    "mo_cuda_error_out_of_memory_rank1": (Category.OOM, "rank 1"),
    "mo_nccl_cuda_calloc_oom_rank7": (Category.OOM, "rank 7"),
    "mo_pin_memory_thread_oom_rank6": (Category.OOM, "rank 6"),
    "mo_real_cpu_allocator_enomem_rank2": (Category.OOM, "rank 2"),
    "mo_real_memoryerror_rank3": (Category.OOM, "rank 3"),
    "mo_folder_torchrun_sigkill_plus_dmesg": (Category.OOM, "rank 11"),
    "mo_pasted_torchrun_then_dmesg_memcg": (Category.OOM, "rank 5"),
    "mo_syslog_memcg_oom_pid": (Category.OOM, "77120"),
    "mo_slurm_oom_kill_event_task5": (Category.OOM, ""),
    "mo_slurm_old_oomkill_batch_step": (Category.OOM, ""),
    "mo_k8s_describe_worker_oomkilled": (Category.OOM, "bert-pretrain-worker-2"),
    "mo_ray_train_memory_monitor_kill": (Category.OOM, "10.0.3.17"),
    "mo_jax_gpu_resource_exhausted": (Category.OOM, ""),
    "mo_jax_tpu_hbm_compile_oom": (Category.OOM, ""),
    "mo_tf_multiworker_oom_task1": (Category.OOM, "task:1"),
    "mo_tf_keras_single_gpu_oom": (Category.OOM, ""),
    "mo_oom_first_then_nccl_remote_errors": (Category.OOM, "rank 21"),
    "mo_two_ranks_oom_same_step": (Category.OOM, "rank 2"),
    "mo_old_launch_multinode_localrank_only": (Category.OOM, ""),
    "mo_lookalike_illegal_memory_access": (Category.GPU_CUDA, "rank 2"),

})
HEALTHY += ("sx_boto_retry_upload_ok", "sx_tokenizers_fork_warning", "sx_dataloader_worker_count_warning", "sx_nfs_not_responding_then_ok", "sx_wds_warn_and_continue", "sx_pil_decompression_bomb_warning", "fh_ds_zero3_cache_flush_warning_healthy", "fh_ds_checkpoint_pause_resumed", "fh_megatron_ckpt_slow_iteration_healthy", "fh_horovod_gloo_stall_warning_recovered", "fh_lightning_slow_sanity_and_first_step_healthy", "fh_accelerate_kernel_warning_healthy", "fh_jax_very_slow_compile_healthy", "fh_xla_constant_folding_alarm_healthy", "fh_tf_mwms_seems_down_retry_recovered", "mo_healthy_tf_bfc_not_a_failure", "mo_healthy_deepspeed_cache_flush_warnings", "mo_healthy_vllm_kv_preemption", "mo_healthy_caught_oom_retry_smaller_batch", "mo_healthy_expandable_segments_warning", "mo_healthy_torchrun_restart_after_oom", "mo_healthy_xla_remat_warning",)


# Two more audits' cases triage reads as labelled (start-up and configuration failures; jobs
# that recovered or never failed though their logs print failure words, and their look-alikes)
CAUSES.update({
    "su_env_rank_missing_shell_prompt": (Category.SOFTWARE, ""),
    "su_env_master_addr_missing_srun_both_tasks": (Category.SOFTWARE, ""),
    "su_tcpstore_server_waiting_for_clients": (Category.INIT_TIMEOUT, ""),
    "su_torchrun_c10d_rendezvous_timeout": (Category.INIT_TIMEOUT, ""),
    "su_torchrun_static_store_clients_timeout": (Category.INIT_TIMEOUT, ""),
    "su_store_client_connect_timeout_ip": (Category.NETWORK, "10.0.3.17"),
    "su_store_client_name_resolution": (Category.NETWORK, "node-17.cluster.invalid"),
    "su_store_refused_old_torch_warning_then_timeout": (Category.NETWORK, "master-0.train.svc"),
    "su_c10d_connection_reset_at_init": (Category.UNDETERMINED, ""),
    "su_init_process_group_twice_rank0": (Category.SOFTWARE, "rank 0"),
    "su_nccl_backend_cpu_tensor_rank0": (Category.SOFTWARE, "rank 0"),
    "su_dist_not_initialized_plain_python": (Category.SOFTWARE, ""),
    "su_nccl_bootstrap_rank_count_mismatch": (Category.SOFTWARE, ""),
    "su_module_not_found_rank1_torchrun": (Category.SOFTWARE, "rank 1"),
    "su_deepspeed_hostfile_bad_entry": (Category.SOFTWARE, ""),
    "su_deepspeed_batch_size_assert_all_ranks": (Category.SOFTWARE, ""),
    "su_deepspeed_num_nodes_no_hostfile": (Category.SOFTWARE, ""),
    "su_pdsh_ssh_connect_timed_out_worker2": (Category.NETWORK, "worker-2"),
    "su_horovod_ssh_not_successful_node5": (Category.NETWORK, "node-5"),
    "su_srun_requested_node_config_unavailable": (Category.SOFTWARE, ""),
    "su_srun_invalid_gres_spec": (Category.SOFTWARE, ""),
    "su_srun_step_after_time_limit": (Category.INFRASTRUCTURE, ""),
    "su_accelerate_multi_gpu_one_process": (Category.SOFTWARE, ""),
    "su_accelerate_deepspeed_config_file_conflict": (Category.SOFTWARE, "rank 0"),
    "hy_watchdog_timeout_no_async_handling_final_save_finished": (Category.UNDETERMINED, ""),
    "hy_real_torchrun_restarts_exhausted_sigkill": (Category.UNDETERMINED, "rank 1"),
    "hy_real_torchrun_restart_eio_exhausted": (Category.STORAGE_IO, "rank 2"),
    "hy_slurm_requeued_then_time_limit": (Category.INFRASTRUCTURE, ""),
    "hy_slurm_preempted_not_requeued": (Category.INFRASTRUCTURE, ""),
    "hy_hf_hub_upload_retries_exhausted": (Category.NETWORK, ""),
    "hy_s3_checkpoint_retries_exhausted": (Category.STORAGE_IO, "rank 0"),
    "hy_nccl_shutdown_barrier_hang_watchdog_abort": (Category.UNDETERMINED, ""),
    "hy_heartbeat_monitor_kill_at_exit": (Category.UNDETERMINED, "rank 3"),
    "hy_dataloader_worker_respawn_exhausted": (Category.UNDETERMINED, "rank 3"),
    "hy_dataloader_worker_killed_slurm_oom_event": (Category.OOM, "rank 2"),
    "hy_sglang_retract_then_kv_leak_crash": (Category.SOFTWARE, "TP0"),
    "hy_ray_task_retries_exhausted_worker_crashed": (Category.UNDETERMINED, "10.0.7.33"),
    "hy_ray_train_max_failures_exhausted_cuda_oom": (Category.OOM, "10.0.3.14"),
    "hy_spark_fetchfailed_stage_aborted": (Category.NETWORK, "10.0.1.9"),
    "hy_tf_oom_resource_exhausted_after_bfc_warnings": (Category.OOM, ""),
    "hy_deepspeed_loss_scale_at_minimum_exit": (Category.SOFTWARE, ""),
    "hy_wandb_unreachable_init_crashed": (Category.NETWORK, "wandb.internal.corp"),
    "hy_async_checkpoint_thread_enospc_reraised": (Category.STORAGE_IO, "rank 0"),
    "hy_eval_oom_ended_job": (Category.OOM, "rank 0"),
})
HEALTHY += ("su_ok_c10d_errno99_warning_then_training", "su_ok_srun_step_retry_then_created", "su_ok_deepspeed_no_hostfile_async_io_warnings", "su_ok_launch_deprecated_futurewarning", "su_ok_barrier_device_unknown_and_nccl_plugin_info", "su_ok_accelerate_defaults_warning", "su_ok_pg_not_destroyed_after_finish", "su_ok_elastic_restart_after_store_refused", "hy_real_torchrun_restart_then_finished", "hy_torchelastic_two_nodes_restart_then_finished", "hy_torchelastic_new_node_membership_restart", "hy_slurm_preempted_requeued_completed", "hy_lightning_slurm_auto_requeue_completed", "hy_hf_hub_upload_retry_succeeded", "hy_s3_checkpoint_own_retry_succeeded", "hy_vllm_kv_preemption_serving_continues", "hy_sglang_retract_serving_continues", "hy_ray_task_oom_killed_retried_job_succeeded", "hy_spark_fetchfailed_resubmitted_job_finished", "hy_yarn_container_preempted_task_rerun_succeeded", "hy_tf_bfc_allocator_not_a_failure_training_continues", "hy_deepspeed_fp16_overflow_skipped_steps", "hy_megatron_skipped_nan_iteration_continues", "hy_fairseq_gradient_overflow_loss_scale", "hy_tensorboard_upload_thread_exception_training_continues", "hy_eval_callback_error_job_completed", "hy_dataloader_del_assertion_at_exit0",)


# Two more audits' cases triage reads as labelled (GPU, CUDA and node hardware; inference
# servers and the RL trainers built on them)
CAUSES.update({
    "gx_illegal_mem_torch22_rank5": (Category.GPU_CUDA, "rank 5"),
    "gx_unspecified_launch_failure_torch113_srun": (Category.GPU_CUDA, "rank 3"),
    "gx_device_side_assert_nll_rank2": (Category.GPU_CUDA, "rank 2"),
    "gx_device_side_assert_indexing_torch1x_single": (Category.GPU_CUDA, ""),
    "gx_misaligned_address_per_rank_files": (Category.GPU_CUDA, "rank 1"),
    "gx_ecc_uncorrectable_rank12_two_nodes": (Category.GPU_CUDA, "rank 12"),
    "gx_launch_timeout_pasted_workstation": (Category.GPU_CUDA, ""),
    "gx_illegal_instruction_accelerator_error_rank0": (Category.GPU_CUDA, "rank 0"),
    "gx_jax_illegal_address_xla_runtime": (Category.GPU_CUDA, ""),
    "gx_tf_event_poll_illegal_address_abort": (Category.GPU_CUDA, ""),
    "gx_cublas_execution_failed_rank6": (Category.GPU_CUDA, "rank 6"),
    "gx_cudnn_execution_failed_rank1": (Category.GPU_CUDA, "rank 1"),
    "gx_nccl_unhandled_cuda_with_reason_rank4": (Category.GPU_CUDA, "rank 4"),
    "gx_nccl_warn_cuda_failure_rank11_info_map": (Category.GPU_CUDA, "rank 11"),
    "gx_nccl_watchdog_thread_cuda_error_rank3_torch21": (Category.GPU_CUDA, "rank 3"),
    "gx_deepspeed_pdsh_illegal_mem_rank18": (Category.GPU_CUDA, "rank 18"),
    "gx_megatron_index_assert_rank13_srun": (Category.GPU_CUDA, "rank 13"),
    "gx_xid13_warp_exception_rank3": (Category.GPU_CUDA, "rank 3"),
    "gx_xid31_mmu_fault_pid_rank5": (Category.GPU_CUDA, "rank 5"),
    "gx_xid43_after_device_assert_rank1": (Category.GPU_CUDA, "rank 1"),
    "gx_xid94_contained_ecc_rank7": (Category.GPU_CUDA, "rank 7"),
    "gx_xid95_uncontained_pci_only": (Category.GPU_CUDA, "0000:cb:00"),
    "gx_xid74_nvlink_rank2_mapped": (Category.GPU_CUDA, "rank 2"),
    "gx_xid119_gsp_timeout_all_ranks_hang": (Category.GPU_CUDA, "0000:19:00"),
    "gx_gpu_hang_all_watchdog_no_cause": (Category.UNDETERMINED, ""),
    "gx_aer_uncorrected_fatal_gpu_pci": (Category.GPU_CUDA, "0000:4e:00"),
    "gx_dcgm_health_dbe_gpu3_after_crash": (Category.GPU_CUDA, "rank 3"),
    "gx_nvidia_smi_gpu_is_lost_pasted": (Category.GPU_CUDA, "0000:3B:00.0"),
    "gx_amdgpu_ring_timeout_reset_rank4": (Category.GPU_CUDA, "rank 4"),
    "gx_gaudi_device_critical_error_rank5": (Category.GPU_CUDA, "rank 5"),
    "gx_gaudi_graph_compile_failed_software": (Category.SOFTWARE, "rank 6"),
    "gx_tpu_core_halted_torch_xla": (Category.GPU_CUDA, ""),
    "gx_ascend_aicore_exception_rank9": (Category.GPU_CUDA, "rank 9"),
    "is_vllm_worker_sigkill_dmesg_oom": (Category.OOM, "88121"),
    "is_vllm_ray_worker_oom_remote_node": (Category.OOM, "7731"),
    "is_vllm_ray_tp16_ib_completion_peer": (Category.NETWORK, "10.0.1.12"),
    "is_vllm_ray_pp_socket_reset_only": (Category.UNDETERMINED, ""),
    "is_vllm_tp_heads_not_divisible": (Category.SOFTWARE, ""),
    "is_sglang_two_node_srun_ib_error": (Category.NETWORK, "10.1.0.11"),
    "is_tgi_warmup_prefill_oom": (Category.OOM, ""),
    "is_trtllm_mpirun_rank3_oom_tagged": (Category.OOM, "rank 3"),
    "is_trtllm_mpirun_rank6_signal9": (Category.UNDETERMINED, "rank 6"),
    "is_triton_python_stub_unhealthy": (Category.UNDETERMINED, ""),
    "is_mii_server_crashed_gpu_oom": (Category.OOM, ""),
    "is_ray_serve_deploy_failed_cuda_oom": (Category.OOM, "2729922"),
    "is_ok_ray_serve_replica_restarted_served": (Category.UNDETERMINED, ""),
    "is_verl_workerdict_actor_died_no_cause": (Category.UNDETERMINED, "23186"),
    "is_verl_rollout_raytaskerror_oom": (Category.OOM, "41822"),
    "is_verl_creation_task_import_error": (Category.SOFTWARE, "9120"),
    "is_verl_total_gpus_less_than_desired": (Category.SOFTWARE, ""),
    "is_verl_workerdict_dmesg_oom": (Category.OOM, "87687"),
    "is_verl_xid79_folder": (Category.GPU_CUDA, "0000:9b:00"),
    "is_openrlhf_critic_actor_died_no_cause": (Category.UNDETERMINED, "375881"),
    "is_openrlhf_weight_sync_store_timeout": (Category.INIT_TIMEOUT, ""),
    "is_openrlhf_deepspeed_watchdog_all_ranks": (Category.UNDETERMINED, ""),
})
HEALTHY += ("gx_healthy_corrected_ecc_counts", "gx_healthy_aer_corrected_rxerr", "gx_healthy_cuda_warning_at_exit", "gx_healthy_elastic_restart_after_cuda_error", "gx_healthy_dcgm_pass_then_train", "gx_healthy_row_remap_pending_warning", "is_ok_vllm_preemption_recompute_serving", "is_ok_vllm_client_abort", "is_ok_vllm_shm_broadcast_slow_first_request", "is_ok_sglang_retract_then_serving", "is_ok_tgi_slow_shard_start_then_serving", "is_ok_triton_pinned_memory_warning_serving", "is_ok_ray_serve_pending_then_autoscaled", "is_ok_trl_server_retry_then_up", "is_ok_ray_many_workers_warning_training",)

CAUSES.update({
    "is_vllm_mp_worker3_ecc_pid": (Category.GPU_CUDA, "51234"),
    "is_trl_vllm_server_unreachable": (Category.NETWORK, "10.0.0.2:8000"),
})


# Probes from this round's eight audits (networks, platforms, native runtimes, consequences,
# ranks, collectives out of step, the job's Python failures, out of memory): the cases
# triage reads as their frozen labels say
CAUSES.update({
    "n2_nccl_commid_getaddrinfo_v218": (Category.NETWORK, "trainer-0.ddp-svc"),
    "n2_nccl_pollconnect_timedout_exceeded_v228": (Category.NETWORK, "10.4.1.22"),
    "n2_nccl_startconnect_exceeded_timeouts_v218": (Category.NETWORK, ""),
    "n2_nccl_recv_timedout_established_v221": (Category.NETWORK, "10.3.0.14"),
    "n2_real_tcpstore_host_gone": (Category.UNDETERMINED, ""),
    "n2_gloo_read_error_reset_alone": (Category.UNDETERMINED, ""),
    "n2_gloo_recv_wait_timeout_alone": (Category.UNDETERMINED, ""),
    "n2_ucx_rdmacm_unreachable": (Category.NETWORK, "10.12.0.9"),
    "n2_ompi_btl_tcp_readv_reset_after_segv": (Category.UNDETERMINED, "rank 1"),
    "n2_orte_lost_daemon_after_node_failure": (Category.INFRASTRUCTURE, "node1001"),
    "n2_efa_unreach_remote_eq_error": (Category.NETWORK, ""),
    "n2_ray_gcs_dns_resolution_failed": (Category.NETWORK, "ray-head-svc.ml.svc.cluster.local"),
    "n2_tf_grpc_deadline_exceeded_collective": (Category.UNDETERMINED, ""),
    "n2_grpc_recvmsg_reset_alone": (Category.UNDETERMINED, ""),
    "n2_dask_handshake_timeout_unresponsive": (Category.UNDETERMINED, ""),
    "n2_dask_tls_context_config": (Category.SOFTWARE, ""),
    "n2_urllib3_v1_temp_name_resolution_mlflow": (Category.NETWORK, "mlflow.internal"),
    "n2_curl_could_not_resolve_prologue": (Category.NETWORK, "artifacts.corp.example"),
    "n2_real_tls_cert_verify_selfsigned": (Category.SOFTWARE, ""),
    "n2_real_httpx_connect_refused": (Category.NETWORK, "127.0.0.1:28001"),
    "n2_aiohttp_cannot_connect_host": (Category.NETWORK, "10.0.14.3"),
    "n2_requests_remote_disconnected_alone": (Category.UNDETERMINED, ""),
    "n2_openai_client_read_timeout": (Category.UNDETERMINED, ""),
    "n2_folder_rdzv_peer_unreachable_two_nodes": (Category.NETWORK, "10.7.0.21"),
    "i2_slurm_prolog_failure_srun": (Category.INFRASTRUCTURE, "gpu-a-113"),
    "i2_slurm_timelimit_then_unkillable": (Category.INFRASTRUCTURE, ""),
    "i2_slurm_cancel_due_to_signal": (Category.INFRASTRUCTURE, ""),
    "i2_slurm_step_cgroup_create_failed": (Category.INFRASTRUCTURE, "gpu-d-004"),
    "i2_slurm_selfcancel_after_oom": (Category.OOM, "rank 2"),
    "i2_pbs_ncpus_exceeded": (Category.INFRASTRUCTURE, ""),
    "i2_torque_vmem_exceeded": (Category.OOM, ""),
    "i2_lsf_term_external_signal": (Category.UNDETERMINED, ""),
    "i2_lsf_term_requeue_admin": (Category.INFRASTRUCTURE, ""),
    "i2_condor_held_cgroup_memory": (Category.OOM, ""),
    "i2_condor_execute_duration_hold": (Category.INFRASTRUCTURE, ""),
    "i2_condor_normal_exit_code_1": (Category.SOFTWARE, ""),
    "i2_k8s_cluster_autoscaler_scaledown": (Category.INFRASTRUCTURE, "gpt-ft-worker-3"),
    "i2_k8s_job_deadline_exceeded": (Category.INFRASTRUCTURE, ""),
    "i2_k8s_backofflimit_app_error": (Category.SOFTWARE, ""),
    "i2_kubeflow_trainjob_jobset_oom": (Category.OOM, "rank 13"),
    "i2_spark_k8s_kubelet_preempting": (Category.INFRASTRUCTURE, "100.110.242.89"),
    "i2_spark_heartbeat_timeout_lost": (Category.UNDETERMINED, "wn-0231.hdp.internal"),
    "i2_yarn_app_killed_by_user": (Category.INFRASTRUCTURE, ""),
    "i2_yarn_am_exitcode_1_lookalike": (Category.SOFTWARE, ""),
    "i2_ray_node_health_check_failed": (Category.INFRASTRUCTURE, "10.0.5.17"),
    "i2_ray_autoscaler_outdated_midrun": (Category.INFRASTRUCTURE, "10.0.7.33"),
    "i2_ray_task_error_user_code": (Category.SOFTWARE, ""),
    "i2_skypilot_preempted_no_capacity": (Category.INFRASTRUCTURE, ""),
    "i2_skypilot_user_job_failed_oom": (Category.OOM, "rank 3"),
    "i2_aws_batch_host_terminated": (Category.INFRASTRUCTURE, "i-0f3a9c2b7d1e48a65"),
    "nt_real_gloo_enforce_collective_mismatch": (Category.COLLECTIVE_DESYNC, ""),
    "nt_real_faulthandler_segv_rank1": (Category.UNDETERMINED, "rank 1"),
    "nt_real_cpu_alloc_enforce_rank0": (Category.OOM, "rank 0"),
    "nt_real_timeout_wrapper_sigterm_paste": (Category.INFRASTRUCTURE, ""),
    "nt_lightgbm_mpi_check_failed_rank2": (Category.SOFTWARE, "rank 2"),
    "nt_xgboost_dask_dmlc_terminate_worker": (Category.SOFTWARE, ""),
    "nt_xgboost_python_checkfailed_reused_dmatrix": (Category.SOFTWARE, ""),
    "nt_xla_glog_check_shape_tree_two_hosts": (Category.SOFTWARE, ""),
    "nt_torch_xla_check_failed_sigabrt_same_pid": (Category.SOFTWARE, ""),
    "nt_jax_ret_check_internal": (Category.SOFTWARE, ""),
    "nt_jax_dnn_library_init_failed": (Category.SOFTWARE, ""),
    "nt_ompi_err_truncate_tagged_rank2": (Category.SOFTWARE, "rank 2"),
    "nt_intelmpi_recv_truncated_srun_rank5": (Category.SOFTWARE, "rank 5"),
    "nt_ompi_mpi_abort_after_keyerror_rank1": (Category.SOFTWARE, "rank 1"),
    "nt_ompi_mpi_abort_alone_rank3": (Category.UNDETERMINED, "rank 3"),
    "nt_ompi_sigkill_oomkiller_pid_rank3": (Category.OOM, "rank 3"),
    "nt_horovod_mismatched_allreduce_shapes": (Category.COLLECTIVE_DESYNC, ""),
    "nt_horovod_mismatched_broadcast_root": (Category.COLLECTIVE_DESYNC, ""),
    "nt_horovod_shutdown_relay_only": (Category.UNDETERMINED, ""),
    "nt_tf_mwms_collective_shape_mismatch": (Category.COLLECTIVE_DESYNC, ""),
    "nt_tf_failed_precondition_uninitialized": (Category.SOFTWARE, ""),
    "nt_tf_incompatible_shapes_invalid_argument": (Category.SOFTWARE, ""),
    "nt_tf_resource_exhausted_oom": (Category.OOM, ""),
    "nt_triton_llvm_error_sigabrt_all_ranks": (Category.SOFTWARE, ""),
    "nt_triton_ptxas_unsupported_arch": (Category.SOFTWARE, ""),
    "nt_rust_tokenizers_missing_token_panic": (Category.SOFTWARE, ""),
    "nt_rust_tokenizers_bad_split_dataloader_rank5": (Category.SOFTWARE, "rank 5"),
    "nt_xgboost4j_spark_barrier_check_failed": (Category.SOFTWARE, ""),
    "nt_jvm_hs_err_sigsegv_executor_lost": (Category.UNDETERMINED, ""),
    "nt_spark_java_heap_oom_executor": (Category.OOM, ""),
    "nt_absl_sigterm_slurm_timelimit": (Category.INFRASTRUCTURE, ""),
    "nt_sigbus_hw_memory_corruption_rank6": (Category.INFRASTRUCTURE, "gpu-node-14"),
    "nt_horovodrun_slurm_preemption": (Category.INFRASTRUCTURE, ""),
    "cq_mbar_rank3_quota_real": (Category.STORAGE_IO, "rank 3"),
    "cq_nccl_remote_closed_after_rank5_oom": (Category.OOM, "rank 5"),
    "cq_nccl_remote_closed_alone": (Category.UNDETERMINED, ""),
    "cq_nccl_comm_aborted_watchdog_only": (Category.UNDETERMINED, ""),
    "cq_xid79_then_dump_signals_folder": (Category.GPU_CUDA, "0000:b5:00"),
    "cq_some_nccl_ops_failed_after_rank2_launch_failure": (Category.GPU_CUDA, "rank 2"),
    "cq_some_nccl_ops_failed_alone": (Category.UNDETERMINED, ""),
    "cq_heartbeat_after_rank3_segv_two_nodes": (Category.UNDETERMINED, "rank 3"),
    "cq_heartbeat_monitor_alone": (Category.UNDETERMINED, ""),
    "cq_ib_completion_then_dump_signals": (Category.NETWORK, "10.0.2.61"),
    "cq_store_closed_after_master_attributeerror": (Category.SOFTWARE, "rank 0"),
    "cq_store_closed_alone_worker_pod": (Category.UNDETERMINED, ""),
    "cq_exit_barrier_after_peer_host_oom": (Category.OOM, "rank 8"),
    "cq_store_barrier_timeout_after_rank6_import": (Category.SOFTWARE, "rank 6"),
    "cq_store_barrier_timeout_alone": (Category.INIT_TIMEOUT, ""),
    "cq_uniqueid_reset_after_rank0_busy_gpu": (Category.GPU_CUDA, "rank 0"),
    "cq_horovod_shutdown_after_rank2_tf_oom": (Category.OOM, "rank 2"),
    "cq_mpi_abort_rank4_keyerror": (Category.SOFTWARE, "rank 4"),
    "cq_jax_errors_after_slurm_preemption": (Category.INFRASTRUCTURE, ""),
    "cq_tf_heartbeat_task1_no_cause": (Category.UNDETERMINED, "task:1"),
    "cq_tf_collective_aborted_after_task1_oom": (Category.OOM, "task:1"),
    "cq_lightning_deadlock_rank1_shape_bug": (Category.SOFTWARE, "rank 1"),
    "cq_srun_first_task_exited_nvlink_task5": (Category.GPU_CUDA, "rank 5"),
    "cq_srun_first_task_exited_no_cause": (Category.UNDETERMINED, "rank 3"),
    "cq_sighup_after_ssh_broken_pipe": (Category.INFRASTRUCTURE, ""),
    "cq_megatron_sigterm_save_preempted": (Category.INFRASTRUCTURE, ""),
    "cq_submitit_node_fail": (Category.INFRASTRUCTURE, "learnfair0412"),
    "cq_submitit_failed_task3_no_grad": (Category.SOFTWARE, "rank 3"),
    "cq_rpc_eof_after_ps_oomkill": (Category.OOM, "51873"),
    "r2_tr_real_two_node_consoles": (Category.SOFTWARE, "rank 3"),
    "r2_tr_logdir_tree_real": (Category.SOFTWARE, "rank 3"),
    "r2_tr_real_nodeB_default_prefix_only": (Category.SOFTWARE, "23911"),
    "r2_tr_node_dirs_sharded_ckpt_quota": (Category.STORAGE_IO, "rank 11"),
    "r2_ompi_tag_output_abort_rank0_assert": (Category.SOFTWARE, "rank 0"),
    "r2_mpich_hydra_old_pid_only": (Category.UNDETERMINED, "28488"),
    "r2_srun_l_two_nodes_keyerror": (Category.SOFTWARE, "rank 13"),
    "r2_srun_l_node_gpus_busy_tasks_4_7": (Category.GPU_CUDA, "rank 4"),
    "r2_srun_l_torchrun_per_node_rank_prefix": (Category.SOFTWARE, "rank 13"),
    "r2_accelerate_state_per_process_nccl_oom": (Category.OOM, "rank 11"),
    "r2_first_line_env_dump_single_file": (Category.GPU_CUDA, "rank 9"),
    "r2_nccl_prefix_host_pid_dev_oom": (Category.OOM, "gpu-node-3"),
    "d2_t113_srun_rank2_broadcast_others_allreduce": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "d2_t28_fsdp_reduce_scatter_all_equal": (Category.UNDETERMINED, ""),
    "d2_blocking_wait_rank3_allgather_vs_allreduce": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "d2_desync_report_assert_pp_recv": (Category.UNDETERMINED, ""),
    "d2_fr_type_mismatch_culprit_rank2": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "d2_fr_no_errors_found": (Category.UNDETERMINED, ""),
    "d2_nccl_ib_collective_mismatch_error": (Category.COLLECTIVE_DESYNC, ""),
    "d2_ds_zero3_rank5_skipped_batch_nan": (Category.COLLECTIVE_DESYNC, "rank 5"),
    "d2_multinode_rank11_broadcast_per_node_files": (Category.COLLECTIVE_DESYNC, "rank 11"),
    "d2_ds_zero3_generate_rank0_only": (Category.COLLECTIVE_DESYNC, "rank 0"),
    "py_real_inplace_autograd_rank1": (Category.SOFTWARE, "rank 1"),
    "py_real_anomaly_nan_all_ranks": (Category.SOFTWARE, ""),
    "py_real_fp16_gradscaler_all_ranks": (Category.SOFTWARE, ""),
    "py_real_dynamo_fake_tensor_all": (Category.SOFTWARE, ""),
    "py_real_inplace_per_rank_files": (Category.SOFTWARE, "rank 1"),
    "py_megatron_nan_grad_norm_rank13_srun": (Category.SOFTWARE, "rank 13"),
    "py_megatron_rerun_nan_loss_all_ranks": (Category.SOFTWARE, ""),
    "py_megatron_pp_layers_not_divisible": (Category.SOFTWARE, ""),
    "py_megatron_dist_ckpt_missing_keys": (Category.SOFTWARE, ""),
    "py_deepspeed_hf_config_mismatch_all": (Category.SOFTWARE, ""),
    "py_deepspeed_loss_scale_minimum": (Category.SOFTWARE, ""),
    "py_deepspeed_zero_offload_client_optimizer": (Category.SOFTWARE, ""),
    "py_deepspeed_pdsh_batch_size_rank11": (Category.SOFTWARE, "rank 11"),
    "py_hf_load_best_strategy_mismatch": (Category.SOFTWARE, ""),
    "py_hf_unable_create_tensor_task2_srun": (Category.SOFTWARE, "rank 2"),
    "py_tokenizers_truncation_error_rank5_worker": (Category.SOFTWARE, "rank 5"),
    "py_datasets_cast_error_columns": (Category.DATA, ""),
    "py_datasets_map_arrow_length": (Category.SOFTWARE, ""),
    "py_peft_target_modules_unspecified": (Category.SOFTWARE, ""),
    "py_fsdp_uniform_dtype_all_ranks": (Category.SOFTWARE, ""),
    "py_fsdp_integer_dtype_2nodes": (Category.SOFTWARE, ""),
    "py_dtensor_no_sharding_strategy": (Category.SOFTWARE, ""),
    "py_clip_grad_nonfinite_all_ranks": (Category.SOFTWARE, ""),
    "py_flash_attn_fp32_all_ranks": (Category.SOFTWARE, ""),
    "py_rope_size_mismatch_task3_srun": (Category.SOFTWARE, "rank 3"),
    "py_lightning_val_check_interval_srun": (Category.SOFTWARE, ""),
    "py_lightning_restore_optimizer_keyerror": (Category.SOFTWARE, ""),
    "py_lightning_unused_params_ddp": (Category.SOFTWARE, ""),
    "py_hydra_key_not_in_struct": (Category.SOFTWARE, ""),
    "py_jax_debug_nans_multihost": (Category.SOFTWARE, ""),
    "py_tf_check_numerics_nan_worker": (Category.SOFTWARE, ""),
    "py_torchrun_table_error_file_rank6": (Category.SOFTWARE, "rank 6"),
    "py_collate_stack_rank6_two_node_files": (Category.SOFTWARE, "rank 6"),
    "o2_cgv1_sacrifice_child_torchrun_standalone": (Category.OOM, "rank 6"),
    "o2_cgv2_memory_events_pasted": (Category.OOM, ""),
    "o2_slurm_jobacct_exceeded_ckpt_save": (Category.OOM, ""),
    "o2_seff_out_of_memory_state": (Category.OOM, ""),
    "o2_k8s_systemoom_event_victim_pid": (Category.OOM, "88231"),
    "o2_systemd_oomd_unit_killed": (Category.OOM, "llm-finetune.service"),
    "o2_earlyoom_sigterm_rank2": (Category.OOM, "rank 2"),
    "o2_cuda_oom_all_ranks_first_step": (Category.OOM, "rank 0"),
    "o2_megatron_pp_last_stage_oom_srun": (Category.OOM, "rank 15"),
    "o2_horovod_tag_output_oom_rank5": (Category.OOM, "rank 5"),
    "o2_rocm_hip_oom_rank3": (Category.OOM, "rank 3"),
    "o2_xpu_oom_perrank_files_node1": (Category.OOM, "rank 5"),
    "o2_hpu_pt_devmem_rank5": (Category.OOM, "rank 5"),
    "o2_jax_gpu_remat_then_out_of_memory": (Category.OOM, ""),
    "o2_nccl_host_alloc_pinned_rank12": (Category.OOM, "rank 12"),
    "o2_oom_in_allgather_into_tensor_rank9": (Category.OOM, "rank 9"),
    "o2_ckpt_load_torch_load_onto_gpu0_rank3": (Category.OOM, "rank 3"),
    "o2_ckpt_save_fsdp_full_state_dict_rank0": (Category.OOM, "rank 0"),
    "o2_ckpt_save_stream_writer_failed_rank0": (Category.STORAGE_IO, "rank 0"),
    "o2_dataloader_fork_enomem_rank1": (Category.OOM, "rank 1"),
    "o2_real_dl_worker_memoryerror_rank1": (Category.OOM, "rank 1"),
    "o2_numpy_array_memory_error_srun_task4": (Category.OOM, "rank 4"),
    "o2_torchrun_restarts_exhausted_oom_rank3": (Category.OOM, "rank 3"),
    "o2_vllm_v1_kv_cache_too_small": (Category.OOM, ""),
    "o2_sglang_not_enough_memory_startup": (Category.OOM, "TP0"),
    "o2_triton_out_of_resources_shared_memory": (Category.SOFTWARE, ""),
    "o2_rocm_memory_access_fault_rank5": (Category.GPU_CUDA, "rank 5"),
    "o2_timelimit_after_memory_reports": (Category.INFRASTRUCTURE, ""),
})
HEALTHY += ("n2_nccl_ib_gid_change_event_healthy_v221", "n2_nccl_ib_no_device_socket_fallback_healthy", "n2_tcpstore_ipv6_gai_warning_healthy", "n2_ucx_net_device_warn_healthy", "n2_k8s_init_nslookup_wait_healthy", "n2_hf_hub_read_timeout_retry_recovered", "n2_wandb_network_retry_healthy", "i2_slurm_epilog_drain_after_success", "i2_slurm_step_busy_retry_ok", "i2_condor_disconnect_reconnected_ok", "i2_ray_autoscaler_idle_after_done", "i2_skypilot_recovered_succeeded", "i2_aws_rebalance_recommendation_ok", "nt_absl_sigterm_from_pid_no_reason", "nt_healthy_deepspeed_async_io_warning", "nt_healthy_tf_bfc_allocator_not_a_failure", "nt_healthy_inductor_autotune_ignoring_choice", "nt_healthy_xla_slow_compile_alarm", "nt_healthy_tf_cpu_feature_guard_info", "cq_preempt_requeue_resumed", "cq_elastic_restart_recovered", "cq_destroy_pg_warning_after_success", "cq_resource_tracker_warning_after_success", "cq_wandb_retry_loop_training_continues", "cq_client_socket_refused_then_joined", "r2_deepspeed_overflow_rank0_healthy", "r2_megatron_report_memory_healthy", "r2_submitit_timeout_requeue_healthy", "r2_srun_l_warnings_completed", "r2_mpirun_tag_output_warning_completed", "r2_torchrun_restart_recovered", "r2_paddle_launch_completed_with_warning", "r2_lightning_rank_prefixed_info_finished", "d2_nccl_ras_healthy_check", "d2_xla_rendezvous_stuck_then_unstuck_healthy", "d2_ds_fp16_overflow_skips_healthy", "d2_megatron_straggler_report_healthy", "d2_elastic_restart_after_timeout_recovered", "d2_ds_pipe_partial_batch_warning_healthy", "d2_hf_ddp_find_unused_warning_healthy", "d2_tf_collective_ops_slow_warning_healthy", "py_megatron_spiky_loss_warning_healthy", "py_megatron_skipped_iter_loss_scale_healthy", "py_deepspeed_overflow_skips_healthy", "py_hf_weights_not_used_healthy", "py_hf_missing_keys_resume_healthy", "py_hf_token_length_warning_healthy", "py_dynamo_recompile_limit_healthy", "py_torchrun_restart_then_success_healthy", "o2_healthy_sglang_decode_retract", "o2_healthy_slurm_exceeded_at_some_point_completed", "o2_healthy_megatron_memory_report", "o2_healthy_inductor_autotune_out_of_resources", "o2_healthy_vllm_kv_cache_usage_high", "o2_healthy_k8s_last_state_oomkilled_running", "o2_real_caught_cpu_alloc_retry",)


# Probes from this round's last three audits (less common frameworks, the node under the
# job, excerpts pasted as their last lines)
CAUSES.update({
    "f3_paddle_nccl_error5_invalid_usage_all": (Category.SOFTWARE, ""),
    "f3_paddle_fatal_segfault_cpp_traceback_rank2": (Category.UNDETERMINED, "rank 2"),
    "f3_paddle_cuda700_tail_workerlog1_paste": (Category.GPU_CUDA, "rank 1"),
    "f3_paddle_inplace_permission_denied_all": (Category.SOFTWARE, ""),
    "f3_ms_cpu_kernel_alloc_failed_single": (Category.OOM, ""),
    "f3_colossal_hybrid_plugin_world_size_all": (Category.SOFTWARE, ""),
    "f3_colossal_ssh_refused_second_host": (Category.NETWORK, "10.20.0.12"),
    "f3_oneflow_glog_cudacheck_oom_single": (Category.OOM, ""),
    "f3_mxnet_horovod_cudamalloc_retry_rank2": (Category.OOM, "rank 2"),
    "f3_mxnet_recordio_kmagic_corrupt_jpeg": (Category.DATA, ""),
    "f3_mxnet_invalid_recordio_format_paste": (Category.DATA, ""),
    "f3_alpa_meshhostworker_died_eof": (Category.UNDETERMINED, "10.32.13.122"),
    "f3_fairscale_flatten_requires_grad_all": (Category.SOFTWARE, ""),
    "f3_mii_server_crashed_alone": (Category.UNDETERMINED, ""),
    "f3_megads_index_file_format_all": (Category.SOFTWARE, ""),
    "f3_megads_srun_rank6_stale_file_handle": (Category.STORAGE_IO, "rank 6"),
    "f3_hvd_spark_timed_out_waiting_tasks": (Category.INIT_TIMEOUT, ""),
    "f3_hvd_spark_mpirun_not_found": (Category.SOFTWARE, ""),
    "f3_chainermn_cupy_oom_rank2_mpiexec": (Category.OOM, "rank 2"),
    "f3_cupy_ecc_uncorrectable_tag_rank9": (Category.GPU_CUDA, "rank 9"),
    "f3_caffe2_enforce_context_gpu_oom": (Category.OOM, ""),
    "f3_jax_tpu_hbm_compile_oom_all_workers": (Category.OOM, ""),
    "f3_jax_tpu_slicebuilder_grpc_channel": (Category.NETWORK, "10.130.0.4"),
    "n3_netconsole_oops_fatal_exception_node": (Category.INFRASTRUCTURE, "gpu-n17"),
    "n3_mce_processor_context_corrupt": (Category.INFRASTRUCTURE, "gpu-q22"),
    "n3_softlockup_panic_nodes_not_responding": (Category.INFRASTRUCTURE, "hpc-g-045"),
    "n3_slurm_node_unexpectedly_rebooted": (Category.INFRASTRUCTURE, "gpu-c-118"),
    "n3_thermal_zone_critical_shutdown": (Category.INFRASTRUCTURE, "gpu-t04"),
    "n3_journal_power_key_poweroff": (Category.INFRASTRUCTURE, "gpu-p11"),
    "n3_nfs_soft_timed_out_eio_rank1": (Category.STORAGE_IO, "rank 1"),
    "n3_lustre_client_evicted_ost_rank1": (Category.STORAGE_IO, "rank 1"),
    "n3_btrfs_forced_readonly_rank0": (Category.STORAGE_IO, "rank 0"),
    "n3_scsi_medium_error_worker_rank2": (Category.STORAGE_IO, "rank 2"),
    "n3_nvme_removed_two_nodes_rank13": (Category.STORAGE_IO, "rank 13"),
    "n3_k8s_npd_readonly_filesystem_rank2": (Category.STORAGE_IO, "rank 2"),
    "n3_s3_request_time_too_skewed_rank0": (Category.CLOCK, "rank 0"),
    "n3_gcs_invalid_jwt_clock_single": (Category.CLOCK, ""),
    "n3_pyxis_enroot_nvml_version_mismatch": (Category.INFRASTRUCTURE, "gpu-e-12"),
    "n3_oom_first_then_node_panic_later": (Category.OOM, "rank 3"),
    "n3_throttle_lines_then_unexplained_watchdog": (Category.UNDETERMINED, ""),
    "n3_mce_corrected_then_valueerror_rank2": (Category.SOFTWARE, "rank 2"),
    "n3_slurm_nodes_not_responding_then_back_oom": (Category.OOM, "rank 12"),
    "n3_kernel_panic_other_job_node_lookalike": (Category.SOFTWARE, "rank 5"),
    "t3_real_enospc_rank1_tail": (Category.STORAGE_IO, "rank 1"),
    "t3_real_enospc_last30_table_only": (Category.UNDETERMINED, "rank 1"),
    "t3_real_enospc_from_rank0_relay": (Category.UNDETERMINED, "rank 1"),
    "t3_real_cat_rank2_cut_before_table": (Category.SOFTWARE, "rank 2"),
    "t3_real_cat_starts_at_exception_line": (Category.SOFTWARE, "rank 2"),
    "t3_real_cat_only_rank1_relay_and_table": (Category.UNDETERMINED, "rank 2"),
    "t3_nccl_alloc_oom_rank6_then_watchdogs": (Category.OOM, "rank 6"),
    "t3_nccl_ib_port_error_then_timeouts": (Category.NETWORK, "gpu-st-p4d-12"),
    "t3_xid119_gsp_dmesg_then_torch": (Category.GPU_CUDA, "0000:9d:00"),
    "t3_hydra_exit139_rank5": (Category.UNDETERMINED, "rank 5"),
    "t3_jax_resource_exhausted_task2_srun": (Category.OOM, "rank 2"),
    "t3_jax_srun_summary_only": (Category.UNDETERMINED, "rank 2"),
    "t3_ray_train_failed_tail_no_cause": (Category.UNDETERMINED, ""),
    "t3_diststore_waiting_for_clients_srun": (Category.INIT_TIMEOUT, ""),
    "t3_rdzv_closed_node_b_tail": (Category.UNDETERMINED, ""),
    "t3_k8s_client_socket_timeout_master": (Category.NETWORK, "llm-sft-master-0"),
    "t3_megatron_watchdog_exception_only": (Category.UNDETERMINED, ""),
    "t3_watchdog_thread_reset_table_root_is_reporter": (Category.UNDETERMINED, ""),
    "t3_sigbus_root_cause_table_only": (Category.UNDETERMINED, "rank 4"),
    "t3_desync_fingerprint_mismatch": (Category.COLLECTIVE_DESYNC, ""),
    "t3_quota_exceeded_printed_last": (Category.STORAGE_IO, "rank 2"),
    "t3_perrank_files_rank2_eio": (Category.STORAGE_IO, "rank 2"),
    "t3_srun_glibcxx_task6": (Category.SOFTWARE, "rank 6"),
    "t3_slurm_node_failure_after_nccl_cascade": (Category.INFRASTRUCTURE, "gpu-q-112"),
    "t3_pbs_walltime_exceeded": (Category.INFRASTRUCTURE, ""),
    "t3_pbs_mem_exceeded": (Category.OOM, ""),
    "t3_lsf_runlimit_report": (Category.INFRASTRUCTURE, "gpu-lsf-21"),
    "t3_lsf_memlimit_report": (Category.OOM, ""),
    "t3_lightning_auto_requeue_signal": (Category.INFRASTRUCTURE, ""),
})
HEALTHY += ("f3_paddle_gpu_resources_note_healthy", "f3_ms_msrun_completed_healthy", "f3_mxnet_cudnn_autotune_healthy", "f3_byteps_benchmark_healthy", "f3_alpa_profile_workers_killed_recovered", "f3_mii_waiting_then_started_healthy", "f3_megads_overflow_skip_healthy", "f3_chainer_printreport_healthy", "f3_jax_tpu_pod_init_healthy", "n3_cpu_package_throttle_healthy", "n3_gpu_hw_thermal_slowdown_healthy", "n3_mce_corrected_events_logged_healthy", "n3_mlx5_link_flap_recovered_healthy", "n3_nvme_abort_recovered_healthy", "n3_chrony_step_before_job_healthy", "n3_clocksource_tsc_unstable_healthy", "n3_apptainer_localtime_warning_healthy", "n3_node_rebooted_requeued_completed", "t3_ok_deepspeed_overflow_then_success", "t3_ok_elastic_success_tail", "t3_ok_nccl_ib_missing_socket_fallback", "t3_ok_hf_missing_keys_then_train_done", "t3_ok_gloo_loopback_warning", "t3_ok_dataloader_worker_count_warning", "t3_ok_urllib3_reset_retry_then_training", "t3_ok_megatron_skipped_iteration", "t3_ok_lightning_fit_stopped_max_epochs",)


# ... and the cases this round's later rules read as labelled
CAUSES.update({
    "i2_slurm_task_failure_per_rank": (Category.SOFTWARE, "rank 1"),
    "r2_ompi_output_filename_tree": (Category.GPU_CUDA, "rank 6"),
    "r2_srun_l_single_node_oom": (Category.OOM, "rank 3"),
    "f3_oneflow_cuda_oom_runtime_exception_rank1": (Category.OOM, "rank 1"),
    "r2_intel_mpi_abort_node_means_rank": (Category.SOFTWARE, "rank 6"),
    "r2_ray_worker_pid_no_rank": (Category.OOM, "23112"),
    "r2_nccl_init_line_maps_pid_rank": (Category.OOM, "rank 9"),
    "d2_desync_report_rank3_broadcast_snapshot": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "d2_tf_nccl_socket_message_truncated": (Category.COLLECTIVE_DESYNC, ""),
    "py_ray_train_keyerror_workers": (Category.SOFTWARE, ""),
})


# Probes from the round's last audits (stalls by phase, storage and checkpoints, GPU faults)
CAUSES.update({
    "sp4_nfs_soft_timeout_worker_eio_rank3": (Category.STORAGE_IO, "rank 3"),
    "sp4_megatron_ckpt_save_then_time_limit": (Category.INFRASTRUCTURE, ""),
    "sp4_jax_cluster_registration_failed": (Category.INIT_TIMEOUT, ""),
    "sp4_first_step_seq1_all_ranks_equal": (Category.UNDETERMINED, ""),
    "sp4_fr_dumped_all_ranks_no_analysis": (Category.UNDETERMINED, ""),
    "sp4_k8s_active_deadline_during_data_prep": (Category.INFRASTRUCTURE, ""),
    "so4_real_dcp_load_truncated_shard_rank1": (Category.DATA, "rank 1"),
    "so4_tf_saver_resource_exhausted_enospc": (Category.STORAGE_IO, ""),
    "so4_h5py_truncated_srun_task6": (Category.DATA, "rank 6"),
    "so4_safetensors_header_too_large_all_ranks": (Category.DATA, ""),
    "so4_torch_load_invalid_load_key_rank0": (Category.DATA, "rank 0"),
    "so4_ext4_htree_index_full_enospc_rank2": (Category.STORAGE_IO, "rank 2"),
    "so4_inductor_tmp_enospc_rank1": (Category.STORAGE_IO, "rank 1"),
    "so4_zero_optim_shard_invalid_header_rank2": (Category.DATA, "rank 2"),
    "so4_fsx_lustre_ost_read_failed_rank12": (Category.STORAGE_IO, "rank 12"),
    "so4_orbax_destination_exists_software": (Category.SOFTWARE, ""),
    "so4_s3fs_internal_error_rank6": (Category.STORAGE_IO, "rank 6"),
    "so4_lightning_fsspec_enospc_rank3_folder": (Category.STORAGE_IO, "rank 3"),
    "so4_cephfs_dir_quota_datasets_rank0": (Category.STORAGE_IO, "rank 0"),
    "so4_hf_hub_download_cache_enospc_rank0": (Category.STORAGE_IO, "rank 0"),
    "so4_ckpt_save_then_watchdog_no_cause": (Category.UNDETERMINED, ""),
    "g4_xid48_dbe_pid_maps_rank6_watchdog_exc": (Category.GPU_CUDA, "rank 6"),
    "g4_xid48_unknown_pid_pci_only_all_timeouts": (Category.GPU_CUDA, "0000:07:00"),
    "g4_xid45_cleanup_after_rank2_oom": (Category.OOM, "rank 2"),
    "g4_xid43_after_slurm_preemption": (Category.INFRASTRUCTURE, ""),
    "g4_xid61_62_microcontroller_halt_hang": (Category.GPU_CUDA, "0000:19:00"),
    "g4_xid62_busid_maps_rank1_nccl_init": (Category.GPU_CUDA, "rank 1"),
    "g4_xid64_row_remap_failure_rank3_single_node": (Category.GPU_CUDA, "rank 3"),
    "g4_xid120_gsp_error_pid_maps_rank5": (Category.GPU_CUDA, "rank 5"),
    "g4_xid31_mmu_fault_srun_task5": (Category.GPU_CUDA, "rank 5"),
    "g4_nvswitch_sxid_fatal_all_ranks_nccl": (Category.GPU_CUDA, "0000:05:00"),
    "g4_driver_too_old_for_wheel_single_node": (Category.SOFTWARE, ""),
    "g4_cpu_only_wheel_on_gpu_job_real": (Category.SOFTWARE, ""),
    "g4_devices_busy_exclusive_process_rank2": (Category.GPU_CUDA, "rank 2"),
    "g4_nccl_duplicate_gpu_all_ranks_software": (Category.SOFTWARE, ""),
    "g4_k8s_device_plugin_xid79_unhealthy_rank3": (Category.GPU_CUDA, "rank 3"),
    "g4_no_gpus_in_container_forgot_gpus_flag": (Category.SOFTWARE, ""),
    "g4_amdgpu_ras_umc_uncorrectable_pci": (Category.GPU_CUDA, "0000:c1:00"),
    "g4_xpu_ur_device_lost_rank1_engine_reset": (Category.GPU_CUDA, "rank 1"),
    "g4_ipex_native_api_device_lost_single": (Category.GPU_CUDA, ""),
})
HEALTHY += ("sp4_hf_streaming_disconnect_retry_recovered", "sp4_tf_shuffle_buffer_fill_slow_healthy", "sp4_megatron_slow_ckpt_load_timers_healthy", "sp4_hf_long_eval_all_ranks_healthy", "sp4_jax_log_compiles_slow_compile_healthy", "sp4_inductor_max_autotune_first_step_healthy", "sp4_nccl_init_timings_slow_bootstrap_healthy", "sp4_torch_guessing_device_id_warning_healthy", "sp4_fr_dump_pipe_on_demand_healthy", "sp4_faulthandler_sigusr1_dump_healthy", "so4_megatron_no_tracker_file_fresh_start", "so4_lightning_ckpt_dir_not_empty_warning", "so4_hf_trainer_save_total_limit_rotation", "so4_hf_hub_backoff_retry_ok", "so4_cephfs_caps_stale_renewed", "so4_torch_load_weights_only_futurewarning", "so4_lightning_resume_after_preemption_ok", "g4_xid92_high_sbe_rate_training_finished", "g4_nvswitch_sxid_nonfatal_healthy", "g4_mps_control_log_healthy", "g4_page_retirement_counts_healthy", "g4_rccl_iommu_warning_healthy", "g4_cublas_no_context_warning_healthy", "g4_nvlink_replay_counters_healthy",)
# who names the failed node, pod or process (schedulers, orchestrators, servers); exceptions
# that relay a failure versus the job's own
CAUSES.update({
    "w5_k8s_nodelost_describe": (Category.INFRASTRUCTURE, "gpu-h100-23"),
    "w5_volcano_pod_failed_maxretry_software": (Category.SOFTWARE, "rank 3"),
    "w5_kueue_workload_preempted": (Category.INFRASTRUCTURE, ""),
    "w5_mpijob_first_process_rank_oom": (Category.OOM, "rank 5"),
    "w5_prrte_rank_segv": (Category.UNDETERMINED, "rank 6"),
    "w5_hydra_bad_termination_sigkill": (Category.UNDETERMINED, "rank 11"),
    "w5_hydra_bad_termination_with_kernel_oom": (Category.OOM, "rank 11"),
    "w5_horovod_mpi_tag_output_tf_oom": (Category.OOM, "rank 6"),
    "w5_slurm_sacct_node_fail_scontrol_node": (Category.INFRASTRUCTURE, "gpu-f-03"),
    "w5_slurm_gres_drain_after_gpu_loss": (Category.GPU_CUDA, "rank 13"),
    "w5_slurm_scontrol_boot_fail": (Category.INFRASTRUCTURE, "cloud-h100-3"),
    "w5_lsf_term_rc_reclaim": (Category.INFRASTRUCTURE, ""),
    "w5_condor_docker_memory_hold": (Category.OOM, ""),
    "w5_spark_rpc_client_disassociated": (Category.UNDETERMINED, "10.12.4.77"),
    "w5_spark_k8s_exit137_oomkilled": (Category.OOM, "100.86.155.194"),
    "w5_gce_host_error_system_event": (Category.INFRASTRUCTURE, "a3-train-4"),
    "w5_vertex_replica_oom_sigkill": (Category.OOM, "workerpool1-2"),
    "w5_vertex_replica_exit1_software": (Category.SOFTWARE, ""),
    "w5_vllm_v0_worker_died_sigkill": (Category.UNDETERMINED, "40312"),
    "w5_sglang_dp_scheduler_illegal_address": (Category.GPU_CUDA, "DP1 TP1"),
    "x5_real_dcp_ckpt_enospc_rank1": (Category.STORAGE_IO, "rank 1"),
    "x5_real_dcp_rank0_view_only": (Category.STORAGE_IO, "rank 1"),
    "x5_real_diststore_waiting_for_clients": (Category.INIT_TIMEOUT, ""),
    "x5_real_pool_maybe_encoding_task0": (Category.SOFTWARE, "rank 0"),
    "x5_ray_worker_crashed_alone": (Category.UNDETERMINED, "31902"),
    "x5_ray_actor_node_missing_heartbeats": (Category.INFRASTRUCTURE, "10.0.12.41"),
    "x5_ray_actor_node_terminated_sigterm": (Category.INFRASTRUCTURE, "10.0.12.42"),
    "x5_ray_owner_died_object_lost": (Category.UNDETERMINED, "10.0.3.7"),
    "x5_ray_out_of_disk_object_store": (Category.STORAGE_IO, "10.0.5.22"),
    "x5_ray_taskerror_wraps_cuda_oom": (Category.OOM, "48211"),
    "x5_ray_tune_trials_did_not_complete": (Category.UNDETERMINED, ""),
    "x5_threadpool_ckpt_upload_slowdown": (Category.STORAGE_IO, "rank 0"),
    "x5_threadpool_no_credentials_rank0": (Category.SOFTWARE, "rank 0"),
    "x5_accelerate_debug_gather_shape_mismatch": (Category.SOFTWARE, ""),
    "x5_deepspeed_pdsh_stale_file_handle_rank17": (Category.STORAGE_IO, "rank 17"),
    "x5_distnetwork_client_connect_timeout": (Category.NETWORK, "10.10.12.11"),
    "x5_distbackend_duplicate_gpu_all_ranks": (Category.SOFTWARE, ""),
    "x5_distbackend_ecc_rank5": (Category.GPU_CUDA, "rank 5"),
    "x5_distbackend_nccl_cuda_oom_rank2": (Category.OOM, "rank 2"),
    "x5_distbackend_remote_after_rank11_oom_two_nodes": (Category.OOM, "rank 11"),
    "x5_requests_remote_disconnected_alone": (Category.UNDETERMINED, ""),
    "x5_requests_disconnected_after_server_oom": (Category.OOM, ""),
    "x5_teardown_destroy_pg_after_oom_rank2": (Category.OOM, "rank 2"),
    "x5_teardown_fatal_stderr_after_rank4_save": (Category.STORAGE_IO, "rank 4"),
    "x5_aiohttp_server_disconnected_alone": (Category.UNDETERMINED, ""),
    "x5_rendezvous_timeout_alone": (Category.INIT_TIMEOUT, ""),
    "x5_ray_get_timeout_alone": (Category.UNDETERMINED, ""),
    "x5_grpc_unavailable_param_server": (Category.NETWORK, "10.0.2.9"),
    "x6_real_tar_shard_truncated_rank1": (Category.DATA, "rank 1"),
    "x6_s3_slowdown_ckpt_upload_rank0": (Category.STORAGE_IO, "rank 0"),
    "x6_s3_internal_error_srun_task5": (Category.STORAGE_IO, "rank 5"),
    "x6_gcs_503_download_rank4": (Category.STORAGE_IO, "rank 4"),
    "x6_gcsfs_anonymous_caller_rank0": (Category.SOFTWARE, "rank 0"),
    "x6_s3_param_validation_empty_bucket_rank0": (Category.SOFTWARE, "rank 0"),
    "x6_azure_server_busy_rank2": (Category.STORAGE_IO, "rank 2"),
    "x6_hf_hub_504_snapshot_rank0": (Category.STORAGE_IO, "rank 0"),
    "x6_hf_push_500_after_training_rank0": (Category.STORAGE_IO, "rank 0"),
    "x6_hf_offline_mode_not_cached_task0": (Category.SOFTWARE, "rank 0"),
    "x6_nfs_estale_worker_rank7": (Category.STORAGE_IO, "rank 7"),
    "x6_edquot_node_files_rank8": (Category.STORAGE_IO, "rank 8"),
    "x6_h5py_eio_read_rank3": (Category.STORAGE_IO, "rank 3"),
    "x6_h5py_signature_not_found_rank6": (Category.DATA, "rank 6"),
    "x6_h5py_no_write_intent_rank0": (Category.SOFTWARE, "rank 0"),
    "x6_zarr_blosc_decompress_rank1": (Category.DATA, "rank 1"),
    "x6_nfs_estale_import_rank13": (Category.STORAGE_IO, "rank 13"),
    "x6_ckpt_buffer_closed_file_rank0": (Category.SOFTWARE, "rank 0"),
    "x6_torch_save_to_directory_rank0": (Category.SOFTWARE, "rank 0"),
    "x6_s3_request_time_skewed_rank6": (Category.CLOCK, "rank 6"),
    "x7_real_torchrun_exit3_no_errfile": (Category.UNDETERMINED, "rank 1"),
    "x7_real_torchrun_keyerror_errfile": (Category.SOFTWARE, "rank 1"),
    "x7_real_torchrun_sigkill_dmesg_oom": (Category.OOM, "rank 1"),
    "x7_real_spawn_race_peer_relay_only": (Category.UNDETERMINED, ""),
    "x7_real_pool_broken_alone": (Category.UNDETERMINED, ""),
    "x7_pool_broken_cgroup_oom": (Category.OOM, ""),
    "x7_real_torchrun_ctrl_c_paste": (Category.INFRASTRUCTURE, ""),
    "x7_ctrlc_workers_after_rank1_device_error": (Category.SOFTWARE, "rank 1"),
    "x7_real_keyerror_then_atexit_del_noise": (Category.SOFTWARE, "rank 1"),
    "x7_oom_rank3_then_stdout_brokenpipe": (Category.OOM, "rank 3"),
    "x7_hydra_srun_oom_task2": (Category.OOM, "rank 2"),
    "x7_hydra_dataloader_worker_exited_task3": (Category.UNDETERMINED, "rank 3"),
    "x7_hydra_locate_target_all_tasks": (Category.SOFTWARE, ""),
    "x7_lightning_slurm_time_limit_sigterm": (Category.INFRASTRUCTURE, ""),
    "x7_accelerate_simple_child_enospc": (Category.STORAGE_IO, ""),
    "x7_accelerate_died_sigkill_slurm_oom_kill": (Category.OOM, ""),
    "x7_accelerate_multigpu_childfailed_rank2": (Category.SOFTWARE, "rank 2"),
    "x7_deepspeed_sigkill_handler_alone": (Category.UNDETERMINED, ""),
    "x7_deepspeed_rank1_assert_last_cmd_rank3": (Category.SOFTWARE, "rank 1"),
    "x7_deepspeed_pdsh_rank9_state_dict_mismatch": (Category.SOFTWARE, "rank 9"),
    "x7_old_launch_two_nodes_illegal_mem": (Category.GPU_CUDA, ""),
    "x7_old_launch_died_sigkill_node1": (Category.UNDETERMINED, ""),
    "x7_mpirun_first_process_alone": (Category.UNDETERMINED, "rank 3"),
    "x7_mpirun_horovod_truncated_image_rank5": (Category.DATA, "rank 5"),
    "x7_srun_task3_exit_killonbadexit": (Category.UNDETERMINED, "rank 3"),
    "x7_torchrun_argparse_exit2_all": (Category.SOFTWARE, ""),
    "x7_slurm_time_limit_calledprocess_sigterm": (Category.INFRASTRUCTURE, ""),
    "x7_scancel_then_dataloader_killed_terminated": (Category.INFRASTRUCTURE, ""),
    "f8_real_tz_two_nodes_rank3_shape": (Category.SOFTWARE, "rank 3"),
    "f8_real_sigkill_two_nodes_rank3": (Category.UNDETERMINED, "rank 3"),
    "f8_real_sigkill_node1_dmesg_oom": (Category.OOM, "rank 3"),
    "f8_real_rdzv_timeout_node1_empty": (Category.INIT_TIMEOUT, ""),
    "f8_real_srun_labels_are_nodes_rank3_shape": (Category.SOFTWARE, "rank 3"),
    "f8_real_two_tables_only_sigkill_rank3": (Category.UNDETERMINED, "rank 3"),
    "f8_node1_log_cut_short_no_cause": (Category.UNDETERMINED, ""),
    "f8_node1_log_empty_watchdogs": (Category.UNDETERMINED, ""),
    "f8_perrank_offset_stamps_oom_rank2": (Category.OOM, "rank 2"),
    "f8_twonode_utc_vs_cest_ecc_rank9": (Category.GPU_CUDA, "rank 9"),
    "f8_twonode_naive_jst_vs_utc_oom_rank12": (Category.OOM, "rank 12"),
    "f8_tables_only_two_nodes_earliest_rank9": (Category.UNDETERMINED, "rank 9"),
    "f8_tables_two_nodes_sigabrt_vs_oom_rank14": (Category.OOM, "rank 14"),
    "f8_timeouts_node1_broadcast_node0_allreduce": (Category.COLLECTIVE_DESYNC, ""),
    "f8_timeouts_all_same_two_formats": (Category.UNDETERMINED, ""),
    "f8_gloo_recv_timeouts_both_nodes": (Category.UNDETERMINED, ""),
    "f8_kubeflow_worker2_rank27_illegal_mem": (Category.GPU_CUDA, "rank 27"),
    "f8_local_rank_files_rank13_segfault": (Category.UNDETERMINED, "rank 13"),
    "f8_ray_worker_node_oom_ip": (Category.OOM, "10.0.0.12"),
    "f8_slurm_per_node_files_task5_oom_kill": (Category.OOM, ""),
    "f8_slurm_time_limit_node_files_cut": (Category.INFRASTRUCTURE, ""),
    "f8_slurm_preemption_node1_first": (Category.INFRASTRUCTURE, ""),
    "f8_ib_port_error_node1_completion_node0": (Category.NETWORK, "gpu-b02"),
    "f8_k8s_worker_cannot_resolve_master": (Category.NETWORK, "llama-ft-master-0"),
    "f8_each_node_reset_by_the_other": (Category.UNDETERMINED, ""),
    "f8_perrank_rank5_empty_launcher_sigkill": (Category.UNDETERMINED, "rank 5"),
    "f8_nccl_bootstrap_no_route_to_node1": (Category.NETWORK, "10.1.2.4"),
    "n8_ld_undefined_symbol_flash_attn_all_ranks": (Category.SOFTWARE, ""),
    "n8_real_ctypes_missing_plugin_rank1": (Category.SOFTWARE, "rank 1"),
    "n8_glibcxx_not_found_torchrun_both": (Category.SOFTWARE, ""),
    "n8_real_missing_script_torchrun": (Category.SOFTWARE, ""),
    "n8_glog_check_failed_ps_worker": (Category.SOFTWARE, ""),
    "n8_terminate_watchdog_timeout_distbackend": (Category.UNDETERMINED, ""),
    "n8_torch_driver_too_old_all_ranks": (Category.SOFTWARE, ""),
    "n8_ompi_segv_rank3_then_peer_disconnect": (Category.UNDETERMINED, "rank 3"),
    "n8_ompi_tcp_connect_firewall_remote": (Category.NETWORK, "gpu-n06"),
    "n8_real_segv_torchrun_rank1": (Category.UNDETERMINED, "rank 1"),
    "n8_dmesg_segfault_libnccl_rank2": (Category.UNDETERMINED, "rank 2"),
    "n8_traps_gpf_libc_rank5": (Category.UNDETERMINED, "rank 5"),
    "n8_hung_task_nfs_not_responding": (Category.STORAGE_IO, "nas-01"),
    "n8_kernel_oom_killer_pid_rank3": (Category.OOM, "rank 3"),
    "n8_kernel_oops_gpf_nvidia_panic_node": (Category.INFRASTRUCTURE, "gpu-h100-07"),
    "a9_rocm_hip_oom_rank5_torchrun": (Category.OOM, "rank 5"),
    "a9_amdgpu_umc_uncorrectable_pci_only": (Category.GPU_CUDA, "0000:c1:00"),
    "a9_amdgpu_mes_hang_reset_two_workstations": (Category.GPU_CUDA, "0000:c5:00"),
    "a9_rocm_no_device_rank9_set_device": (Category.GPU_CUDA, "rank 9"),
    "a9_rccl_ib_completion_error_peer": (Category.NETWORK, "10.3.0.17"),
    "a9_rccl_unhandled_system_error_noreason": (Category.UNDETERMINED, ""),
    "a9_rocm_host_oom_killer_rank3_paste": (Category.OOM, "rank 3"),
    "a9_rocm_segfault_rank2_only": (Category.UNDETERMINED, "rank 2"),
    "a9_rocm_store_connect_refused_master": (Category.NETWORK, "mi300-node01"),
    "a9_gaudi_pt_devmem_oom_rank3": (Category.OOM, "rank 3"),
    "a9_gaudi_device_already_acquired_rank10": (Category.GPU_CUDA, "rank 10"),
    "a9_gaudi_slurm_time_limit": (Category.INFRASTRUCTURE, ""),
    "a9_ascend_npu_oom_rank6": (Category.OOM, "rank 6"),
    "a9_ascend_stream_sync_timeout_507046": (Category.UNDETERMINED, ""),
    "a9_ascend_store_timeout_24_of_32": (Category.INIT_TIMEOUT, ""),
    "a9_ascend_sigkill_no_cause_rank5": (Category.UNDETERMINED, "rank 5"),
    "a9_jax_tpu_mesh_reshape_bug": (Category.SOFTWARE, ""),
    "a9_tpu_vmem_compile_oom_pallas": (Category.OOM, ""),
    "a9_xpu_oom_rank2": (Category.OOM, "rank 2"),
    "a9_oneccl_no_ofi_provider_all_ranks": (Category.SOFTWARE, ""),
    "a9_xpu_ur_device_lost_rank5": (Category.GPU_CUDA, "rank 5"),
    "a9_oneccl_worker_affinity_einval": (Category.SOFTWARE, ""),
    "a9_neuron_unsupported_collectives_topology": (Category.SOFTWARE, ""),
    "a9_neuron_tensor_allocate_failure_rank3": (Category.OOM, "rank 3"),
    "r9_jax_slurm_preemption": (Category.INFRASTRUCTURE, ""),
    "r9_jax_segv_task3_srun": (Category.UNDETERMINED, "rank 3"),
    "r9_tf_mwms_worker1_oom_then_chief_abort": (Category.OOM, "/job:worker/replica:0/task:1"),
    "r9_tf_mwms_socket_closed_relay_only": (Category.UNDETERMINED, ""),
    "r9_tf_coordination_heartbeat_task2": (Category.UNDETERMINED, "/job:worker/replica:0/task:2"),
    "r9_tf_ps_task0_connection_refused": (Category.NETWORK, "10.0.2.5"),
    "r9_tf_worker2_evicted_memory_pressure": (Category.INFRASTRUCTURE, "tfjob-wd-worker-2"),
    "r9_ray_memory_monitor_killed_worker": (Category.OOM, "10.0.62.231"),
    "r9_ray_actor_node_preempted": (Category.INFRASTRUCTURE, "10.0.5.21"),
    "r9_ray_node_terminated_expectedly_sigterm": (Category.INFRASTRUCTURE, "10.0.7.14"),
    "r9_ray_worker_eof_plus_dmesg_oom": (Category.OOM, "23186"),
    "r9_dask_worker_heartbeat_closed": (Category.UNDETERMINED, "10.0.4.31"),
    "r9_spark_torchdistributor_rank3_illegal_access": (Category.GPU_CUDA, "rank 3"),
    "r9_horovod_stall_rank3_dataloader_timeout": (Category.DATALOADER_STALL, "rank 3"),
    "r9_horovod_gloo_rank2_illegal_memory": (Category.GPU_CUDA, "rank 2"),
    "r9_horovod_mpirun_rank5_keyerror": (Category.SOFTWARE, "rank 5"),
    "r9_horovod_elastic_no_hosts_left_sigkill": (Category.UNDETERMINED, "gpu-node-2"),
    "r9_jax_multinode_nccl_ib_completion_error": (Category.NETWORK, ""),
    "r9_spark_barrier_lost_node": (Category.INFRASTRUCTURE, "ip-10-26-140-7.ec2.internal"),
    "r9_jax_slurm_time_limit": (Category.INFRASTRUCTURE, ""),
    "s9_real_torchrun_sigterm_agent": (Category.INFRASTRUCTURE, ""),
    "s9_real_torchrun_sigterm_worker_saved_checkpoint": (Category.INFRASTRUCTURE, ""),
    "s9_real_torchrun_ctrl_c": (Category.INFRASTRUCTURE, ""),
    "s9_slurm_scancel_srun_labelled": (Category.INFRASTRUCTURE, ""),
    "s9_slurm_time_limit_megatron_per_node": (Category.INFRASTRUCTURE, ""),
    "s9_slurm_preempted_lightning_sigterm": (Category.INFRASTRUCTURE, ""),
    "s9_kubectl_delete_pytorchjob_worker_logs": (Category.INFRASTRUCTURE, ""),
    "s9_k8s_pod_terminated_node_shutdown_spot": (Category.INFRASTRUCTURE, ""),
    "s9_ray_node_marked_dead_actor_died": (Category.INFRASTRUCTURE, "10.0.3.17"),
    "s9_slurm_node_failure_srun": (Category.INFRASTRUCTURE, "gpu-c-011"),
    "s9_lightning_slurm_auto_requeue_not_resumed": (Category.INFRASTRUCTURE, ""),
    "s9_sigterm_preemption_checkpoint_save_timeout": (Category.INFRASTRUCTURE, ""),
    "s9_real_torchrun_oom_rank1_others_sigterm": (Category.OOM, "rank 1"),
    "s9_cuda_illegal_access_then_scancel_hang": (Category.GPU_CUDA, "rank 5"),
    "s9_kernel_oom_killer_rank2_sigkill": (Category.OOM, "rank 2"),
    "s9_slurm_oom_kill_event_srun_task6": (Category.OOM, ""),
    "s9_torchrun_sigkill_minus9_no_oom_line": (Category.UNDETERMINED, "rank 3"),
    "s9_k8s_oomkilled_worker_pod": (Category.OOM, "llama-ft-worker-2"),
    "s9_torchrun_restarts_exhausted_net_ib_error": (Category.NETWORK, ""),
    "s9_ctrl_c_after_watchdog_timeouts": (Category.UNDETERMINED, ""),
    "s9_c10d_client_connect_no_route_timeout": (Category.NETWORK, "gpu-node-01"),
    "s9_store_wait_timeout_clients_joined": (Category.INIT_TIMEOUT, ""),
    "s9_should_dump_warnings_after_rank0_eval_oom": (Category.OOM, "rank 0"),
    "s9_early_stopping_then_last_ckpt_enospc": (Category.STORAGE_IO, "rank 0"),
    "s9_torchrun_restart_loop_same_rank_ecc": (Category.GPU_CUDA, "rank 6"),
    "s9_kubectl_delete_after_import_error_crashloop": (Category.SOFTWARE, ""),
    "s9_destroy_warning_after_attribute_error_rank0": (Category.SOFTWARE, "rank 0"),
    "s9_deepspeed_launcher_kills_after_rank4_eio": (Category.STORAGE_IO, "rank 4"),
    "s9_connection_reset_alone_then_scancel": (Category.UNDETERMINED, ""),
    "s9_slurm_cancelled_by_user_but_task_oom_first": (Category.OOM, ""),
    "so4_dcp_missing_key_model_changed_software": (Category.SOFTWARE, ""),
    "a18_real_tr_same_valueerror_every_attempt": (Category.SOFTWARE, "rank 1"),
    "a18_real_tr_valueerror_then_oom_rank0": (Category.OOM, "rank 0"),
    "a18_real_tr_eio_then_cuda_illegal_access": (Category.GPU_CUDA, "rank 0"),
    "a18_real_tr_logdir_keyerror_then_sigkill_rank2": (Category.UNDETERMINED, "rank 2"),
    "a18_real_tr_pasted_tail_last_attempt": (Category.SOFTWARE, "rank 1"),
    "a18_tr_two_node_same_oom_every_attempt": (Category.OOM, "rank 5"),
    "a18_tr_grep_excerpt_attempts_oom_rank3": (Category.OOM, "rank 3"),
    "a18_tr_segfault_each_attempt_rank1": (Category.UNDETERMINED, "rank 1"),
    "a18_tr_store_timeout_then_assertion": (Category.SOFTWARE, "rank 3"),
    "a18_slurm_torchx_requeue_same_corrupt_parquet": (Category.DATA, "rank 3"),
    "a18_slurm_preempt_requeue_then_ib_error": (Category.NETWORK, ""),
    "a18_lightning_requeue_then_oom_rank1": (Category.OOM, "rank 1"),
    "a18_megatron_requeue_same_node_launch_failure": (Category.GPU_CUDA, "rank 12"),
    "a18_slurm_torchx_requeue_watchdog_each_time": (Category.UNDETERMINED, ""),
    "a18_k8s_pytorchjob_backoff_same_import_error": (Category.SOFTWARE, "rank 5"),
    "a18_k8s_crashloop_oomkilled_backoff": (Category.OOM, "llm-pretrain-worker-2"),
    "a18_k8s_restarts_same_node_ecc": (Category.GPU_CUDA, "rank 27"),
    "a18_ray_train_v2_max_failures_same_error": (Category.SOFTWARE, ""),
    "a18_ray_tune_memory_killer_all_retries": (Category.OOM, "10.0.1.7"),
    "a18_attempt_files_oom_then_enospc": (Category.STORAGE_IO, "rank 0"),
    "f17_megatron_srun_label_oom_rank13": (Category.OOM, "rank 13"),
    "f17_megatron_rerun_disabled_nan_loss_rank5": (Category.SOFTWARE, "rank 5"),
    "f17_megatron_ckpt_torch_save_enospc_rank0": (Category.STORAGE_IO, "rank 0"),
    "f17_megatron_exit_signal_sigterm_preempted": (Category.INFRASTRUCTURE, ""),
    "f17_megatron_nccl_ib_completion_error": (Category.NETWORK, "10.12.4.19"),
    "f17_megatron_desync_rank11_optype": (Category.COLLECTIVE_DESYNC, "rank 11"),
    "f17_nemo_preemption_callback_sigterm": (Category.INFRASTRUCTURE, ""),
    "f17_nemo_two_node_oom_global14": (Category.OOM, "rank 14"),
    "f17_nemo_run_slurm_node_failure": (Category.INFRASTRUCTURE, "h100-pod3-117"),
    "f17_nemo_dcp_save_eio_rank3": (Category.STORAGE_IO, "rank 3"),
    "f17_titan_oom_rank5_torchrun": (Category.OOM, "rank 5"),
    "f17_titan_watchdog_all_ranks_no_cause": (Category.UNDETERMINED, ""),
    "f17_titan_role_rank_localprefix_node1": (Category.OOM, "rank 8"),
    "f17_ds_loss_scale_min_exception": (Category.SOFTWARE, ""),
    "f17_hf_trainer_safetensors_storagefull_rank0": (Category.STORAGE_IO, "rank 0"),
    "f17_accelerate_oom_rank3_tqdm": (Category.OOM, "rank 3"),
    "f17_accelerate_ddp_unused_params_all_ranks": (Category.SOFTWARE, ""),
    "f17_lightning_time_limit_sigterm_localrank": (Category.INFRASTRUCTURE, ""),
    "f17_lightning_auto_requeue_usr1": (Category.INFRASTRUCTURE, ""),
    "f17_lightning_node1_oom_global6": (Category.OOM, "rank 6"),
    "f17_axolotl_two_node_oom_rank13": (Category.OOM, "rank 13"),
    "f17_llamafactory_json_parse_rank0": (Category.DATA, "rank 0"),
    "f17_raytrain_node_oom_killed": (Category.OOM, "10.0.4.17"),
    "f17_raytrain_worker_died_system_error": (Category.UNDETERMINED, "5521"),
    "f17_raytrain_rank_prefix_oom_rank5": (Category.OOM, "rank 5"),
    "f17_verl_workerdict_rollout_oom": (Category.OOM, "43211"),
    "f17_openrlhf_vllm_actor_node_died": (Category.INFRASTRUCTURE, "10.1.3.8"),
    "hy_ray_train_failure_config_restored_completed": (Category.UNDETERMINED, ""),
    "l16_pip_index_dns_setx": (Category.NETWORK, "pypi.internal.corp.example"),
    "l16_pip_index_refused_srun": (Category.NETWORK, "10.0.3.17"),
    "l16_pip_flash_attn_needs_torch": (Category.SOFTWARE, ""),
    "l16_conda_http000_dns": (Category.NETWORK, "conda.anaconda.org"),
    "l16_conda_package_not_found": (Category.SOFTWARE, ""),
    "l16_git_clone_dns": (Category.NETWORK, "github.internal.example"),
    "l16_git_clone_ssh_refused": (Category.NETWORK, "gitlab.corp.example"),
    "l16_hf_download_dns_endpoint_not_in_line": (Category.NETWORK, ""),
    "l16_hf_gated_401": (Category.SOFTWARE, ""),
    "l16_aws_s3_endpoint_unreachable": (Category.NETWORK, "10.40.1.9"),
    "l16_gsutil_access_denied": (Category.SOFTWARE, ""),
    "l16_rsync_ssh_no_route": (Category.NETWORK, "data-node-3"),
    "l16_scp_host_unresolved": (Category.NETWORK, "archive-01.hpc.example"),
    "l16_wget_refused": (Category.NETWORK, "10.1.4.22"),
    "l16_curl_resolve_fail": (Category.NETWORK, "models.internal.example"),
    "l16_ninja_ext_compile_error": (Category.SOFTWARE, ""),
    "l16_cc1plus_killed_no_oom_line": (Category.UNDETERMINED, ""),
    "l16_cc1plus_killed_with_cgroup_oom": (Category.OOM, ""),
    "l16_deepspeed_cpu_adam_ld": (Category.SOFTWARE, ""),
    "l16_pyxis_enroot_registry_dns": (Category.NETWORK, "nvcr.io"),
    "l16_srun_node_failure": (Category.INFRASTRUCTURE, "gpu-st-p4d-24xlarge-12"),
    "l16_time_limit_during_upload": (Category.INFRASTRUCTURE, ""),
    "l16_pdsh_ssh_no_route": (Category.NETWORK, "gpu-node-07"),
    "l16_python_c_import_undefined_symbol": (Category.SOFTWARE, ""),
    "l16_python_c_import_missing_module_srun": (Category.SOFTWARE, ""),
    "l16_nvidia_smi_gpu_lost": (Category.GPU_CUDA, "0000:3B:00.0"),
    "l16_setx_exit_no_cause": (Category.UNDETERMINED, ""),
    "c15_real_enospc_errno28_rank1": (Category.STORAGE_IO, "rank 1"),
    "c15_real_erofs_errno30_rank2": (Category.STORAGE_IO, "rank 2"),
    "c15_real_torch_load_central_directory_rank1": (Category.DATA, "rank 1"),
    "c15_real_tcpstore_connect_timed_out": (Category.NETWORK, "127.0.0.2"),
    "c15_nccl_bootstrap_ehostunreach_srun": (Category.NETWORK, "10.0.0.4"),
    "c15_c10d_store_errno113_no_route": (Category.NETWORK, "gpu-n07"),
    "c15_jax_coordinator_unavailable_refused": (Category.NETWORK, "10.130.0.12"),
    "c15_hadoop_connect_timeout_namenode_tony": (Category.NETWORK, "namenode.hdfs.svc"),
    "c15_mpi_operator_kubectl_exec_io_timeout": (Category.NETWORK, "10.1.4.22"),
    "c15_nccl_ib_retry_exceeded_error12": (Category.NETWORK, "10.8.0.14"),
    "c15_gloo_read_econnreset_alone": (Category.UNDETERMINED, ""),
    "c15_go_exec_write_broken_pipe_alone": (Category.UNDETERMINED, ""),
    "c15_ncclremoteerror_closed_by_peer_one_node": (Category.UNDETERMINED, ""),
    "c15_ncclsystemerror_no_reason": (Category.UNDETERMINED, ""),
    "c15_eio_fuse_dataloader_srun_task5": (Category.STORAGE_IO, "rank 5"),
    "c15_dcp_edquot_rank4_checkpointexception": (Category.STORAGE_IO, "rank 4"),
    "c15_estale_dataloader_worker_rank6": (Category.STORAGE_IO, "rank 6"),
    "c15_s3_slowdown_503_rank0_upload": (Category.STORAGE_IO, "rank 0"),
    "c15_s3_403_forbidden_rank0_resume": (Category.STORAGE_IO, "rank 0"),
    "c15_inductor_subprocess_enomem_rank2": (Category.OOM, "rank 2"),
    "c15_nccl_cuda_failure_oom_rank5": (Category.OOM, "rank 5"),
    "c15_cuda_illegal_address_rank3_torchrun": (Category.GPU_CUDA, "rank 3"),
    "c15_nccl_cuda_failure_illegal_address_rank6": (Category.GPU_CUDA, "rank 6"),
    "c15_jax_cuda_error_illegal_address_single": (Category.GPU_CUDA, ""),
    "c15_hip_no_device_task2_srun": (Category.GPU_CUDA, "rank 2"),
    "c15_cuda_devices_unavailable_rank1": (Category.GPU_CUDA, "rank 1"),
    "c15_grpc_resource_exhausted_message_too_large": (Category.SOFTWARE, "rank 0"),
    "c15_mpi_err_truncate_rank3": (Category.SOFTWARE, "rank 3"),
    "c15_isadirectory_resume_all_ranks": (Category.SOFTWARE, ""),
    "c15_hf_404_repository_not_found": (Category.SOFTWARE, ""),
    "c15_safetensors_incomplete_buffer_rank2_files": (Category.DATA, "rank 2"),
    "c15_diststore_timed_out_waiting_clients": (Category.INIT_TIMEOUT, ""),
    "c15_jax_deadline_exceeded_register_barrier": (Category.INIT_TIMEOUT, ""),
    "h14_k8s_describe_crashloop_error": (Category.UNDETERMINED, "bert-large-worker-2"),
    "h14_k8s_describe_lastate_oomkilled": (Category.OOM, "llama-sft-worker-5"),
    "h14_k8s_get_pods_wide_oomkilled": (Category.OOM, "gpt-neox-worker-1"),
    "h14_k8s_get_pods_error": (Category.UNDETERMINED, "resnet-ddp-worker-3"),
    "h14_k8s_evicted_memory_pressure": (Category.INFRASTRUCTURE, "t5-pretrain-worker-0"),
    "h14_k8s_node_shutdown": (Category.INFRASTRUCTURE, "vit-huge-worker-4"),
    "h14_k8s_logs_previous_cuda_oom": (Category.OOM, "rank 3"),
    "h14_pytorchjob_failed_exitcode_137": (Category.UNDETERMINED, "bert-large-worker-3"),
    "h14_tfjob_ps_oomkilled": (Category.OOM, "mnist-dist-ps-0"),
    "h14_mpijob_launcher_first_process": (Category.UNDETERMINED, "rank 5"),
    "h14_ray_actor_died_connection_error": (Category.UNDETERMINED, "41822"),
    "h14_ray_task_oom_memory_monitor": (Category.OOM, "10.0.12.7"),
    "h14_ray_train_worker_cuda_oom": (Category.OOM, "5512"),
    "h14_ray_node_terminated_sigterm": (Category.INFRASTRUCTURE, "10.0.7.31"),
    "h14_dask_killed_worker_memory": (Category.OOM, "10.1.0.14"),
    "h14_dask_worker_killed_signal9": (Category.UNDETERMINED, "10.1.0.22"),
    "h14_openmpi_first_process_exit": (Category.UNDETERMINED, "rank 6"),
    "h14_openmpi_signal9_oom_dmesg": (Category.OOM, "rank 3"),
    "h14_intelmpi_bad_termination": (Category.UNDETERMINED, "rank 12"),
    "h14_horovod_mpirun_tf_oom": (Category.OOM, "rank 2"),
    "h14_horovodrun_gloo_process_exit": (Category.UNDETERMINED, "rank 3"),
    "h14_srun_task_exit_code": (Category.UNDETERMINED, "rank 13"),
    "h14_srun_oom_kill_event": (Category.OOM, ""),
    "h14_srun_labelled_traceback": (Category.SOFTWARE, "rank 3"),
    "h14_srun_segfault": (Category.UNDETERMINED, "rank 6"),
    "h14_srun_time_limit": (Category.INFRASTRUCTURE, ""),
    "h14_srun_node_failure": (Category.INFRASTRUCTURE, "gpu-09"),
    "h14_torchrun_sigkill_root_cause": (Category.UNDETERMINED, "rank 13"),
    "h14_torchrun_exitcode1_no_trace": (Category.UNDETERMINED, "rank 6"),
    "h14_torchrun_rank_traceback_software": (Category.SOFTWARE, "rank 1"),
    "h14_torchrun_two_node_folder": (Category.UNDETERMINED, "rank 11"),
    "h14_deepspeed_pdsh_local_rank_sigkill": (Category.UNDETERMINED, "worker-3"),
    "h14_deepspeed_pdsh_cuda_oom_rank9": (Category.OOM, "rank 9"),
    "h14_tf_coordination_heartbeat_timeout": (Category.UNDETERMINED, "/job:worker/replica:0/task:2"),
    "h14_tf_worker_oom_folder": (Category.OOM, "/job:worker/replica:0/task:1"),
    "h14_jax_unhealthy_task": (Category.UNDETERMINED, "/job:jax_worker/replica:0/task:3"),
    "h14_jax_leader_unreachable": (Category.UNDETERMINED, ""),
    "h14_sagemaker_mpirank_cuda_oom": (Category.OOM, "rank 13"),
    "h14_per_rank_dataloader_killed": (Category.UNDETERMINED, "rank 2"),
    "h14_per_rank_disk_full": (Category.STORAGE_IO, "rank 5"),
    "n11_kafka_java_broker_unavailable_metadata_timeout": (Category.NETWORK, "kafka-0.kafka-headless.data.svc"),
    "n11_etcd_client_dial_refused": (Category.NETWORK, "10.42.5.11"),
    "n11_gcsfuse_dns_lookup_io_timeout": (Category.NETWORK, "storage.googleapis.com"),
    "n11_nslookup_no_servers_master_addr": (Category.NETWORK, ""),
    "o12_containerd_shim_deadline_worker_pending": (Category.INFRASTRUCTURE, "gpu-a100-14"),
    "o12_containerd_pull_extract_enospc_var": (Category.STORAGE_IO, "gpu-l40s-07"),
    "o12_kubelet_unregistered_device_admission": (Category.INFRASTRUCTURE, "gpu-h100-17"),
    "o12_device_plugin_xid48_unhealthy_node": (Category.GPU_CUDA, "gpu-a100-31"),
    "o12_csi_fsx_driver_not_registered": (Category.STORAGE_IO, "ip-10-1-77-203.ec2.internal"),
    "o12_csi_nfs_mount_deadline_exceeded": (Category.STORAGE_IO, "gpu-3090-05"),
    "p11_sm_exitcode_137_empty_message": (Category.UNDETERMINED, ""),
    "p11_vertex_workerpool1_1_hf_hub_unreachable": (Category.NETWORK, "huggingface.co"),
    "p11_aiplatform_master0_ran_out_of_memory": (Category.OOM, "master 0"),
    "p11_gcp_batch_spot_preemption_50001": (Category.INFRASTRUCTURE, "8213466771256740125"),
    "p11_databricks_driver_down_exit_137": (Category.UNDETERMINED, ""),
    "w11_hydra_could_not_override_torchrun_4ranks": (Category.SOFTWARE, ""),
    "sx_hf_hub_429_streaming_rank2": (Category.STORAGE_IO, "rank 2"),
    "i2_lsf_term_load_host": (Category.INFRASTRUCTURE, "gpu-h100-12"),
    "i2_k8s_unexpected_admission_gpu": (Category.INFRASTRUCTURE, "gpu-h100-node-09"),
    "x6_azure_connection_reset_alone": (Category.UNDETERMINED, ""),
    "gx_xid79_fallen_off_bus_srun_rank13": (Category.GPU_CUDA, "rank 13"),
    "o12_docker_overlay_enospc_rank0_checkpoint": (Category.STORAGE_IO, "rank 0"),
    "o12_kubelet_pleg_notready_taint_eviction": (Category.INFRASTRUCTURE, "gpu-h100-09"),
    "o12_kubelet_eviction_nodefs_var_log": (Category.INFRASTRUCTURE, "gpu-t4-02"),
    "o12_dcgm_policy_xid79_rank13_folder": (Category.GPU_CUDA, "rank 13"),
    "o12_fuse_enotconn_rank1_torchrun": (Category.STORAGE_IO, "rank 1"),
    "o12_slurm_prolog_failed_task_launch": (Category.INFRASTRUCTURE, "gpu-b-044"),
    "o12_deepspeed_jit_tmp_enospc_rank0": (Category.STORAGE_IO, "rank 0"),
    "o12_healthcheck_killed_watchdog_no_cause": (Category.UNDETERMINED, ""),
    "o12_torch_oom_rank2_with_service_noise": (Category.OOM, "rank 2"),
    "j12_jax_concretization_all_hosts_srun": (Category.SOFTWARE, ""),
    "j12_jax_tracer_bool_single_host_paste": (Category.SOFTWARE, ""),
    "j12_jax_unexpected_tracer_per_host_files": (Category.SOFTWARE, ""),
    "j12_jax_mesh_devices_mismatch_all": (Category.SOFTWARE, ""),
    "j12_jax_hlo_remat_then_oom_single": (Category.OOM, ""),
    "j12_jax_coordinator_connection_refused": (Category.NETWORK, "10.42.3.17"),
    "j12_jax_donated_buffer_deleted_all": (Category.SOFTWARE, ""),
    "j12_jax_dot_general_shape_all_per_rank": (Category.SOFTWARE, ""),
    "j12_flax_scope_param_shape_restore": (Category.SOFTWARE, ""),
    "j12_optax_tree_structure_mismatch_srun": (Category.SOFTWARE, ""),
    "j12_jax_nccl_unhandled_system_error_all": (Category.UNDETERMINED, ""),
    "j12_tf_failedprecondition_could_not_find_variable": (Category.SOFTWARE, ""),
    "j12_tf_function_singleton_variables_horovod": (Category.SOFTWARE, ""),
    "j12_tf_operator_not_allowed_in_graph": (Category.SOFTWARE, ""),
    "j12_keras_input_incompatible_layer_workers": (Category.SOFTWARE, ""),
    "j12_tf_ckpt_no_space_resourceexhausted": (Category.STORAGE_IO, ""),
    "j12_tf_outofrange_custom_loop_crash": (Category.SOFTWARE, ""),
    "j12_tf_grpc_connection_refused_mwms_start": (Category.NETWORK, "10.2.0.11"),
    "j12_tf_collective_deadline_exceeded": (Category.UNDETERMINED, ""),
    "j12_paddle_mul_enforce_invalidargument_all": (Category.SOFTWARE, ""),
    "j12_mxnet_recordio_decoding_failed": (Category.DATA, ""),
    "j12_tf_xla_jit_unsupported_op": (Category.SOFTWARE, ""),
    "n11_boost_asio_connect_refused_param_server": (Category.NETWORK, "ps-3.sparse.internal"),
    "n11_real_urllib_lb_502_rank1": (Category.UNDETERMINED, ""),
    "n11_httpx_judge_504_gateway_timeout": (Category.UNDETERMINED, "judge.internal.example"),
    "ur_real_urllib_reward_503": (Category.UNDETERMINED, ""),
    "p11_sm_capacity_error_before_start": (Category.INFRASTRUCTURE, ""),
    "p11_sm_internal_server_error_mid_training": (Category.INFRASTRUCTURE, ""),
    "p11_vertex_resources_insufficient_region": (Category.INFRASTRUCTURE, ""),
    "w11_jax_executable_expected_shape_all_hosts": (Category.SOFTWARE, ""),
    "m10_cw_tail_sagemaker_mpirank11_oom": (Category.OOM, "rank 11"),
    "m10_gcp_textpayload_multiline_device_mismatch_rank3": (Category.SOFTWARE, "rank 3"),
    "m10_ansi_stern_merged_segv_rank11": (Category.UNDETERMINED, "rank 11"),
    "n11_hadoop_ipc_namenode_refused_pyarrow": (Category.NETWORK, "namenode-0.hdfs"),
    "n11_yarn_rm_connect_timeout_tony": (Category.NETWORK, "rm-0.yarn.internal"),
    "n11_kafka_ssl_pkix_truststore": (Category.SOFTWARE, ""),
    "n11_mpi_operator_kubectl_apiserver_timeout": (Category.NETWORK, "10.96.0.1"),
    "n11_minio_mc_no_such_host": (Category.NETWORK, "minio.storage.svc"),
    "n11_reqwest_sandbox_refused": (Category.NETWORK, "10.0.12.40"),
    "n11_tonic_connection_reset_alone": (Category.UNDETERMINED, ""),
    "n11_tf_ps_grpc_cares_domain_not_found": (Category.NETWORK, "ps-1.wide-deep.svc"),
    "n11_grpc_goaway_too_many_pings": (Category.SOFTWARE, ""),
    "n11_grpc_socket_closed_alone": (Category.UNDETERMINED, ""),
    "n11_proxy_407_auth_required_hub": (Category.SOFTWARE, ""),
    "p11_sm_torchrun_rank1_attributeerror_algorithmerror": (Category.SOFTWARE, "rank 1"),
    "p11_sm_multinode_algo2_rank5_cuda_oom": (Category.OOM, "rank 5"),
    "p11_sm_stop_training_job_by_operator": (Category.INFRASTRUCTURE, ""),
    "p11_sm_mpi_rank3_zerodivision_orted": (Category.SOFTWARE, "rank 3"),
    "p11_vertex_job_cancelled_sigterm": (Category.INFRASTRUCTURE, ""),
    "p11_azureml_preemptionerror_lowpri": (Category.INFRASTRUCTURE, ""),
    "p11_azureml_std_log_process_2_shape_error": (Category.SOFTWARE, "rank 2"),
    "p11_azureml_jobfailed_nonzero_exit_only": (Category.UNDETERMINED, ""),
    "p11_aws_batch_host_ec2_terminated": (Category.INFRASTRUCTURE, "i-0e234208f6fc9291f"),
    "p11_aws_batch_container_oom_killed": (Category.OOM, ""),
    "p11_aws_batch_attempt_timeout": (Category.INFRASTRUCTURE, ""),
    "p11_aws_batch_mnp_node2_rank9_illegal_access": (Category.GPU_CUDA, "rank 9"),
    "p11_gcp_batch_task_exit_137_no_reason": (Category.UNDETERMINED, ""),
    "p11_databricks_python_kernel_unresponsive": (Category.UNDETERMINED, ""),
    "p11_determined_container_137_after_restart": (Category.UNDETERMINED, ""),
    "p11_anyscale_ray_train_node_preempted": (Category.INFRASTRUCTURE, "10.0.45.12"),
    "p11_skypilot_user_program_failed_rank0": (Category.SOFTWARE, "rank 0"),
    "p11_skypilot_restarts_exhausted_rank3_oom": (Category.OOM, "rank 3"),
    "p11_lambda_1cc_srun_labelled_rank6_ecc": (Category.GPU_CUDA, "rank 6"),
    "p11_together_sbatch_node_fail_pasted": (Category.INFRASTRUCTURE, "tg-h100-117"),
    "p11_coreweave_sunk_scancel_operator": (Category.INFRASTRUCTURE, ""),
    "w11_tf_check_failed_ndims_two_workers": (Category.SOFTWARE, ""),
    "w11_tf_gpu_launch_config_empty_batch": (Category.SOFTWARE, ""),
    "w11_tf_data_loss_corrupted_tfrecord": (Category.DATA, ""),
    "w11_tf_embedding_index_not_in_vocab": (Category.SOFTWARE, ""),
    "w11_tf_nan_in_summary_histogram": (Category.SOFTWARE, ""),
    "w11_xla_ptxas_sm90a_unknown_all_ranks": (Category.SOFTWARE, ""),
    "w11_triton_mlir_pipeline_failed_all_ranks": (Category.SOFTWARE, ""),
    "w11_triton_incompatible_dimensions_user_kernel": (Category.SOFTWARE, ""),
    "w11_inductor_cpp_compile_error_cpu_ray": (Category.SOFTWARE, ""),
    "w11_nccl_watchdog_ecc_rank6_perrank": (Category.GPU_CUDA, "rank 6"),
    "w11_torch_check_mat1_mat2_cpp_frames_all": (Category.SOFTWARE, ""),
    "w11_nccl_duplicate_gpu_invalid_usage": (Category.SOFTWARE, ""),
    "w11_cudnn_frontend_no_plans_all_ranks": (Category.SOFTWARE, ""),
    "w11_nemo_model_instantiation_failed": (Category.SOFTWARE, ""),
    "w11_deepspeed_pydantic_zero_config_float": (Category.SOFTWARE, ""),
    "w11_fairseq_min_loss_scale_distributed": (Category.SOFTWARE, ""),
    "w11_pil_truncated_image_rank4_worker": (Category.DATA, "rank 4"),
    "w11_megatron_disabled_mode_nan_rank13_folder": (Category.SOFTWARE, "rank 13"),
    "r9_dask_memory_budget_three_workers_killed": (Category.OOM, "10.0.4.12"),
    "r9_dask_killedworker_alone": (Category.UNDETERMINED, ""),
    "s9_deepspeed_launcher_ctrl_c": (Category.INFRASTRUCTURE, ""),
    "l10_verl_ref_logprob_cuda_oom_pid": (Category.OOM, "48812"),
    "l10_verl_update_actor_oom_peers_watchdog": (Category.OOM, "22401"),
    "l10_verl_checkpoint_enospc": (Category.STORAGE_IO, ""),
    "l10_verl_batch_not_divisible_config": (Category.SOFTWARE, ""),
    "l10_verl_xid119_gsp_timeout_folder": (Category.GPU_CUDA, "0000:4e:00"),
    "l10_verl_worker_segfault_no_cause_folder": (Category.UNDETERMINED, "31177"),
    "l10_openrlhf_remote_rm_connection_refused": (Category.NETWORK, "10.0.6.30"),
    "l10_openrlhf_remote_rm_read_timeout_alone": (Category.UNDETERMINED, ""),
    "l10_openrlhf_weight_sync_dtype_mismatch": (Category.SOFTWARE, ""),
    "l10_openrlhf_weight_sync_ibv_modify_qp_timeout": (Category.NETWORK, ""),
    "l10_openrlhf_weight_sync_ib_completion_peer": (Category.NETWORK, "172.19.162.122"),
    "l10_openrlhf_deepspeed_dpo_rank5_oom": (Category.OOM, "rank 5"),
    "l10_openrlhf_reward_actor_creation_modulenotfound": (Category.SOFTWARE, "70330"),
    "l10_trl_grpo_reward_fn_rank1_real": (Category.SOFTWARE, "rank 1"),
    "l10_trl_colocate_vllm_free_memory_rank3": (Category.OOM, "rank 3"),
    "l10_trl_server_update_param_server_oom_folder": (Category.OOM, "5531"),
    "l10_trl_communicator_store_connect_timeout": (Category.NETWORK, "10.0.0.2"),
    "l10_trl_grpo_watchdog_all_ranks_gather": (Category.UNDETERMINED, ""),
    "l10_slime_weight_broadcast_ib_peer": (Category.NETWORK, "10.0.8.5"),
    "l10_colocated_weight_sync_duplicate_gpu": (Category.SOFTWARE, ""),
    "l10_rollout_enginecore_illegal_memory_relay": (Category.GPU_CUDA, "9101"),
    "l10_rollout_engine_dead_alone": (Category.UNDETERMINED, ""),
    "l10_reward_service_dns_resolution_failed": (Category.NETWORK, "reward-judge.rl.svc.cluster.local"),
    "l10_ray_head_gcs_oom_killed_folder": (Category.OOM, "20311"),
    "l10_ray_gcs_lost_no_cause": (Category.UNDETERMINED, ""),
    "l10_ray_on_slurm_node_preempted": (Category.INFRASTRUCTURE, ""),
    "l10_kuberay_worker_pod_oomkilled": (Category.OOM, "rl-cluster-gpu-group-worker-7x2kq"),
    "l10_ray_memory_monitor_kills_reward_worker": (Category.OOM, "10.0.5.14"),
    "l10_nemo_aligner_actor_srun_task11_ecc": (Category.GPU_CUDA, "rank 11"),
    "m10_cri_rank5_cuda_oom_single_pod": (Category.OOM, "rank 5"),
    "m10_cri_partial_lines_ecc_rank2": (Category.GPU_CUDA, "rank 2"),
    "m10_cri_pytorchjob_worker0_ib_completion_peer": (Category.NETWORK, "10.42.3.17"),
    "m10_cri_dataloader_pil_unidentified_rank3": (Category.DATA, "rank 3"),
    "m10_docker_json_real_sigkill_rank1": (Category.UNDETERMINED, "rank 1"),
    "m10_docker_json_real_shape_rank1": (Category.SOFTWARE, "rank 1"),
    "m10_docker_json_enospc_rank0_checkpoint": (Category.STORAGE_IO, "rank 0"),
    "m10_docker_json_dataloader_timeout_rank2": (Category.DATALOADER_STALL, "rank 2"),
    "m10_docker_json_nccl_remote_error_alone": (Category.UNDETERMINED, ""),
    "m10_journal_iso_oom_killer_pid_rank13": (Category.OOM, "rank 13"),
    "m10_journal_json_xid79_pci": (Category.GPU_CUDA, "0000:b3:00"),
    "m10_cw_filter_events_json_escaped_illegal_access_rank2": (Category.GPU_CUDA, "rank 2"),
    "m10_cw_insights_csv_ib_peer": (Category.NETWORK, "10.1.9.41"),
    "m10_cw_tail_sagemaker_s3_skew_rank6": (Category.CLOCK, "rank 6"),
    "m10_gcp_sink_jsonl_store_wait_clients_timeout": (Category.INIT_TIMEOUT, ""),
    "m10_logcli_newest_first_oom_rank9": (Category.OOM, "rank 9"),
    "m10_logcli_jsonl_store_connect_timeout_master": (Category.NETWORK, "llm-pretrain-master-0"),
    "m10_ansi_logcli_color_watchdog_no_cause": (Category.UNDETERMINED, ""),
    "m10_crlf_workstation_cuda_oom_rank1": (Category.OOM, "rank 1"),
    "m10_crlf_srun_labels_eio_rank6": (Category.STORAGE_IO, "rank 6"),
    "m10_screen_wrapped_ib_error_peer": (Category.NETWORK, "10.0.17.34"),
    "m10_tmux_ctrl_c_operator_stop": (Category.INFRASTRUCTURE, ""),
    "m10_collector_ts_slurm_time_limit": (Category.INFRASTRUCTURE, ""),
    "m10_kubectl_prefix_merged_ddp_unused_rank12": (Category.SOFTWARE, "rank 12"),
    "m10_fluentd_two_nodes_illegal_access_rank9": (Category.GPU_CUDA, "rank 9"),
    "g10_gh_oom_reporter_blames_nccl": (Category.OOM, "rank 3"),
    "g10_gh_oom_killer_in_details_dmesg": (Category.OOM, "rank 5"),
    "g10_gh_oom_two_nodes_pasted_same_error": (Category.OOM, "rank 13"),
    "g10_gh_k8s_pytorchjob_worker_oomkilled": (Category.OOM, "llm-ft-worker-2"),
    "g10_gh_collect_env_above_illegal_memory_rank1": (Category.GPU_CUDA, "rank 1"),
    "g10_gh_nvidia_smi_paste_xid79": (Category.GPU_CUDA, "0000:b1:00"),
    "g10_gh_srun_ecc_task6_guess_dataloader": (Category.GPU_CUDA, "rank 6"),
    "g10_gh_second_attempt_nccl_debug_ib_retry_exceeded": (Category.NETWORK, "10.20.1.14"),
    "g10_gh_store_connect_refused_master": (Category.NETWORK, "gpu-master-0"),
    "g10_gh_k8s_gai_name_not_known": (Category.NETWORK, "trainer-0.trainer"),
    "g10_gh_nccl_socket_connect_no_route": (Category.NETWORK, "172.31.5.20"),
    "g10_gh_slurm_timelimit_reporter_says_deadlock": (Category.INFRASTRUCTURE, ""),
    "g10_gh_slurm_node_failure_other_node": (Category.INFRASTRUCTURE, "gpu-c-017"),
    "g10_gh_k8s_spot_node_shutdown_pod": (Category.INFRASTRUCTURE, "llm-train-worker-3"),
    "g10_gh_slurm_preempted_requeue": (Category.INFRASTRUCTURE, ""),
    "g10_gh_ckpt_no_space_rank0_df": (Category.STORAGE_IO, "rank 0"),
    "g10_gh_nfs_server_not_responding": (Category.STORAGE_IO, "nas01"),
    "g10_gh_lustre_eio_rank7": (Category.STORAGE_IO, "rank 7"),
    "g10_gh_srun_quota_exceeded_task3": (Category.STORAGE_IO, "rank 3"),
    "g10_gh_c10d_rendezvous_timeout_firewall_guess": (Category.INIT_TIMEOUT, ""),
    "g10_gh_diststore_clients_joined_3_of_4": (Category.INIT_TIMEOUT, ""),
    "g10_gh_flash_attn_undefined_symbol_pip_list": (Category.SOFTWARE, ""),
    "g10_gh_ddp_no_attribute_generate_rank0": (Category.SOFTWARE, "rank 0"),
    "g10_gh_nccl_duplicate_gpu_detected": (Category.SOFTWARE, ""),
    "g10_gh_deepspeed_batch_assert_all_ranks": (Category.SOFTWARE, ""),
    "g10_gh_ddp_unused_parameters_all_ranks": (Category.SOFTWARE, ""),
    "g10_gh_real_valueerror_rank2_gloo_guess": (Category.SOFTWARE, "rank 2"),
    "g10_gh_pil_truncated_rank2_quoted_reply": (Category.DATA, "rank 2"),
    "g10_gh_dataloader_timeout_rank3_others_watchdog": (Category.DATALOADER_STALL, "rank 3"),
    "g10_gh_real_detail_collective_mismatch": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "g10_gh_optype_mismatch_same_seqnum_elided": (Category.COLLECTIVE_DESYNC, "rank 5"),
    "g10_gh_watchdog_only_reporter_blames_dataloader": (Category.UNDETERMINED, ""),
    "g10_gh_sigkill_no_oom_line_free_output": (Category.UNDETERMINED, "rank 2"),
    "g10_gh_segfault_rank3_faulthandler": (Category.UNDETERMINED, "rank 3"),
    "g10_gh_gloo_connection_closed_alone": (Category.UNDETERMINED, ""),
    "g10_gh_truncated_log_summary_only_rank6": (Category.UNDETERMINED, "rank 6"),
    "g10_gh_s3_request_time_skewed_rank0_timedatectl": (Category.CLOCK, "rank 0"),
})
HEALTHY += ("w5_k8s_yaml_oomkilled_restarted_recovered", "w5_volcano_restart_then_completed", "w5_slurm_sstat_running_healthy", "w5_lsf_job_report_success_with_warning", "w5_spark_dynalloc_idle_removed_ok", "w5_gce_live_migration_ok", "w5_vllm_shm_broadcast_warning_ok", "w5_sglang_kv_retract_ok", "x5_thread_excepthook_upload_training_continues", "x5_accelerate_kernel_version_warning_healthy", "x5_hf_hub_push_retry_healthy", "x5_urllib3_retry_then_ok_healthy", "x5_teardown_dataloader_del_healthy", "x5_ray_spill_warning_healthy",)
CAUSES["f8_real_node1_startup_only_rank0_relay"] = (Category.UNDETERMINED, "")  # (no rank: the root cause only relays a lost peer)
CAUSES["f8_openmpi_output_dirs_rank5_oom"] = (Category.OOM, "rank 5")  # (its own failure before Horovod's stall report)
CAUSES["f8_mpirun_tag_output_rank6_eio"] = (Category.STORAGE_IO, "rank 6")  # (its own failure before Horovod's stall report)
CAUSES["f8_real_enospc_rank0_la_time"] = (Category.STORAGE_IO, "rank 0")  # (the rank from its own line, quoted again in the table)
HEALTHY += ("fh_torchxla_slow_first_steps_recompile_healthy",)
HEALTHY += ("n8_healthy_k8s_oci_hook_failed_rescheduled",)  # (a training operator's job that succeeded after a node's failed start)  # (read as healthy since a warning the steps went on after is passed)
HEALTHY += ("x6_hf_hub_retry_then_ok", "x6_botocore_retry_then_ok", "x6_wandb_network_retry_resolved", "x6_lustre_connection_lost_restored", "x6_datasets_stream_disconnect_retry_ok", "x6_urllib3_retry_mlflow_then_ok", "x6_otel_grpc_unavailable_export_retry", "x6_estale_reopened_by_job_ok", "x7_healthy_finish_atexit_brokenpipe", "x7_lightning_requeue_resumed_healthy", "x7_healthy_elastic_restart_recovered", "x7_healthy_deepspeed_all_exit_success", "x7_healthy_hf_trainer_pool_resourcewarning", "x7_healthy_nvidia_smi_calledprocesserror_warning", "x7_healthy_del_dataloader_after_eval",)
HEALTHY += ("f8_real_late_node_join_healthy", "f8_real_node1_started_first_healthy", "f8_perrank_only_rank0_logs_healthy", "f8_node1_shorter_log_both_finished", "f8_tz_mismatch_teardown_warning_healthy", "f8_perrank_corrupt_sample_skipped_healthy", "f8_elastic_scale_up_late_node_healthy", "n8_healthy_ld_preload_ignored", "n8_healthy_nccl_net_plugin_not_found", "n8_healthy_tf_trt_libnvinfer_missing", "n8_healthy_ucx_fork_warning", "n8_healthy_dmesg_segfault_unrelated_daemon", "n8_healthy_hung_task_then_nfs_ok", "n8_healthy_module_command_not_found_batch",)
HEALTHY += ("a9_ok_rccl_no_ib_falls_back_to_socket", "a9_ok_fairseq_hip_oom_recovered", "a9_ok_oneccl_warns_training_done", "a9_ok_libtpu_in_use_warning_multicore", "a9_ok_neuron_fp_underflow_notifications", "a9_ok_ascend_hccl_timeout_warning", "a9_ok_torchrun_restart_after_hip_error", "a9_ok_tf_rocm_bfc_not_a_failure", "r9_jax_live_devices_recovered", "r9_spark_preempted_task_retried_healthy", "r9_horovod_stall_warning_transient", "s9_lightning_early_stopping_ddp_nccl_destroy_warn", "s9_keras_multiworker_early_stopping_restore", "s9_real_torchrun_restart_resumed_from_checkpoint", "s9_hf_hub_download_retry_then_training", "s9_megatron_exit_duration_in_mins_checkpoint_saved", "s9_cuda_ipc_producer_warning_after_finish",)
HEALTHY += ("s9_c10d_client_connect_refused_retry_then_joined", "s9_megatron_preempt_requeue_resumed_training", "l10_ok_vllm_sleep_wake_cycle", "l10_ok_ray_resource_request_then_scaled", "l10_ok_weight_sync_nccl_plugin_notice", "l10_ok_vllm_preemption_recompute_rollout", "l10_ok_destroy_pg_warning_after_finish", "l10_ok_ray_object_spilling_during_rollout", "l10_ok_store_connect_retry_then_synced", "l10_ok_sglang_retract_rollout", "m10_cri_store_refused_retry_then_trains_healthy", "m10_cri_deepspeed_overflow_skips_healthy", "m10_docker_json_hf_hub_retry_healthy", "m10_journal_iso_ib_link_flap_healthy", "m10_journal_json_xid63_row_remap_healthy", "m10_cw_tail_nccl_connect_retry_healthy", "m10_gcp_stderr_severity_error_healthy", "m10_ansi_lightning_rich_healthy", "m10_crlf_elastic_restart_recovered_healthy", "m10_tmux_wrapped_ddp_warning_healthy", "g10_ok_barrier_device_unknown_warning", "g10_ok_pg_not_destroyed_after_finish", "g10_ok_deepspeed_overflow_skip_and_cache_flush", "g10_ok_elastic_restart_then_trains", "g10_ok_env_dump_socket_fallback_slow_question", "g10_ok_hf_hub_read_timeout_retried", "g10_ok_dataloader_worker_count_warning",)
HEALTHY += ("n11_hadoop_ipc_retry_then_connected_healthy", "n11_etcd_leader_changed_retry_healthy", "n11_reqwest_retry_middleware_recovered_healthy", "n11_tenacity_503_retry_recovered_healthy", "n11_preflight_ibstat_all_active_healthy", "n11_ethtool_pause_counters_zero_healthy", "n11_mlx5_link_flap_recovered_healthy", "p11_sm_spot_interrupted_then_completed", "p11_runai_preempted_then_resumed", "p11_skypilot_preempted_recovered_succeeded", "p11_modal_worker_preemption_restarted", "w11_healthy_ddp_reducer_warnings", "w11_healthy_pg_not_destroyed_at_exit", "w11_healthy_fairseq_overflow_recovered", "w11_healthy_dynamo_wont_convert_fallback", "w11_healthy_inductor_sms_and_xla_ptxas_warning", "w11_healthy_xla_driver_older_than_ptxas",)
HEALTHY += ("p11_sm_training_success_with_nccl_warnings", "p11_gcp_batch_preempted_retry_succeeded",)
HEALTHY += ("j12_jax_remat_and_donation_warnings_healthy", "j12_xla_constant_folding_alarm_healthy", "j12_tf_end_of_sequence_info_healthy", "j12_keras_input_ran_out_healthy", "j12_tf_bfc_not_a_failure_healthy", "j12_tf_mwms_autoshard_retracing_healthy", "j12_paddle_pod_completed_warnings_healthy",)
HEALTHY += ("o12_docker_inspect_exit137_oomkilled_false", "o12_dockerd_live_restore_restart_healthy", "o12_device_plugin_other_gpu_unhealthy_healthy", "o12_gpu_operator_driver_pod_crashloop_healthy", "o12_dcgm_health_pcie_replay_warning_healthy", "o12_dcgm_policy_thermal_violation_healthy", "o12_nhc_munged_drain_job_completes_healthy", "o12_chrony_no_sources_then_reselected_healthy",)
HEALTHY += ("n11_hdfs_pipeline_excluded_datanode_healthy", "n11_kafka_fetch_disconnect_recovered_healthy", "sx_ckpt_save_failed_but_continued", "so4_tee_log_enospc_training_continues",)
# (a failing line the job then trained past, in the same file: no failure, no guess)
HEALTHY += ("hy_wandb_network_retry_training_continues", "gx_healthy_nvidia_smi_on_login_node",)
HEALTHY += ("h14_k8s_all_completed", "h14_k8s_crashloop_recovered", "h14_pytorchjob_restart_then_succeeded", "h14_spark_executor_lost_retried_ok", "h14_openmpi_openib_warning_ok", "h14_torchrun_elastic_restart_ok",)
HEALTHY += ("c15_c10d_refused_then_joined_healthy", "c15_hf_hub_429_retried_ok_healthy", "c15_s3_slowdown_retried_uploaded_healthy", "c15_xla_bfc_not_a_failure_healthy", "c15_unicode_bad_sample_skipped_healthy", "c15_wandb_network_error_resolved_healthy",)
HEALTHY += ("l16_pip_resolver_warning_healthy", "l16_pip_retry_then_ok_healthy", "l16_git_lfs_optional_fail_healthy", "l16_hf_retry_then_ok_healthy", "l16_cpp_ext_warning_healthy", "l16_docker_pull_retry_healthy", "l16_srun_step_busy_healthy", "l16_ssh_known_hosts_warning_healthy", "l16_wandb_install_fail_skipped_healthy", "l16_conda_newer_version_healthy",)
HEALTHY += ("f17_megatron_spiky_loss_nonfatal_healthy", "f17_megatron_straggler_report_healthy", "f17_megatron_exit_duration_healthy", "f17_megatron_after_training_done_healthy", "f17_nemo_warnings_healthy", "f17_titan_relooped_healthy", "f17_ds_overflow_and_flush_healthy", "f17_lightning_seed_warnings_healthy", "f17_llamafactory_healthy_warnings", "f17_composer_automicrobatch_recovered", "f17_verl_healthy_repeated_warnings",)
HEALTHY += ("a18_real_tr_two_sigkills_then_finished", "a18_real_tr_logdir_eio_then_finished", "a18_real_tr_dataloader_killed_once_recovered", "a18_tr_membership_change_regrow_recovered", "a18_tr_per_node_restart_then_finished", "a18_slurm_node_failure_requeue_completed", "a18_lightning_requeue_resumed_completed", "a18_ray_train_v1_restart_recovered", "a18_ray_train_v2_node_preempted_then_finished", "a18_torchft_group_lost_and_healed",)
# blind audits of stops from outside (i21_) and of network failures beyond NCCL (n19_)
CAUSES.update({
    "i21_slurm_timelimit_lightning": (Category.INFRASTRUCTURE, ''),  # (Training was progressing normally until 'slurmstepd: error: *** JOB 771203 ON gpu-node-012)
    "i21_slurm_preempt_torchrun_sigterm": (Category.INFRASTRUCTURE, ''),  # ('*** JOB 88123 ON a100-n07 CANCELLED AT 2024-03-22T02:55:10 DUE TO PREEMPTION ***' comes f)
    "i21_slurm_node_failure_megatron": (Category.INFRASTRUCTURE, 'gpu-node-17'),  # ('srun: error: Node failure on gpu-node-17' then 'STEP 1943824.0 ON gpu-node-14 CANCELLED .)
    "i21_slurm_scancel_accelerate": (Category.INFRASTRUCTURE, ''),  # ('*** JOB 5521 ON hpc-gpu03 CANCELLED AT 2024-05-02T12:46:20 ***' with no DUE TO reason, an)
    "i21_slurm_cgroup_oom_task5": (Category.OOM, "task 5"),  # ('slurmstepd: error: Detected 1 oom_kill event in StepId=66102.0. Some of the step tasks ha)
    "i21_slurm_label_task6_indexerror": (Category.SOFTWARE, 'rank 6'),  # (Task 6 (srun --label '6:', 'rank 6/8') raises 'IndexError: index 8 is out of range' in the)
    "i21_slurm_exception_hang_timelimit": (Category.SOFTWARE, 'rank 2'),  # (At 01:21 rank/task 2 dies on 'ZeroDivisionError: division by zero' in the user's compute_m)
    "i21_pcluster_node_fail_sacct": (Category.INFRASTRUCTURE, 'train-q-dy-p4d24xlarge-2'),  # ('srun: error: Node failure on train-q-dy-p4d24xlarge-2', step and job 'CANCELLED ... DUE T)
    "i21_k8s_evicted_ephemeral_storage": (Category.INFRASTRUCTURE, 'llama-sft-worker-1'),  # (Pod llama-sft-worker-1: 'Status: Failed / Reason: Evicted / Message: The node was low on r)
    "i21_k8s_preempted_by_priority": (Category.INFRASTRUCTURE, 'resnet-ddp-worker-2'),  # (Event 'Preempted by pod 3c1f7a52-... on node gpu-pool-b-4' for resnet-ddp-worker-2 with Di)
    "i21_k8s_node_notready_taint_eviction": (Category.INFRASTRUCTURE, 'gpu-node-b12'),  # ('Node gpu-node-b12 status is now: NodeNotReady' (Kubelet stopped posting node status) at 0)
    "i21_gke_spot_node_shutdown": (Category.INFRASTRUCTURE, 'gke-train-spot-a100-5c2e91d4-7hqz'),  # (Pod on spot node gke-train-spot-a100-5c2e91d4-7hqz: 'Reason: Terminated / Message: Pod was)
    "i21_k8s_oomkilled_worker": (Category.OOM, 'vit-giant-worker-2'),  # (vit-giant-worker-2 container 'State: Terminated / Reason: OOMKilled / Exit Code: 137' (mem)
    "i21_k8s_pod_error_python_exception": (Category.SOFTWARE, 'rank 7'),  # (In t5-distill-worker-0, [rank7] raises 'TypeError: unsupported operand type(s) for +: 'Ten)
    "i21_k8s_sigkill_no_reason": (Category.UNDETERMINED, 'rank 10'),  # (torchrun reports 'failed (exitcode: -9) local_rank: 2' / 'rank : 10 ... Signal 9 (SIGKILL))
    "i21_vllm_serving_pod_preempted": (Category.INFRASTRUCTURE, 'llm-serve-7b-6c9d7f5b8-2xkqp'),  # (Serving pod llm-serve-7b-6c9d7f5b8-2xkqp: 'Preempted by pod 9a4e2c71-... on node gpu-l4-po)
    "i21_k8s_oomkilled_then_unrelated_drain": (Category.OOM, 'sd-xl-ft-worker-0'),  # (sd-xl-ft-worker-0 terminated with reason OOMKilled, exitCode 137 at 10:12:44 (right after )
    "i21_ray_train_node_missed_heartbeats": (Category.INFRASTRUCTURE, '10.0.1.57'),  # ('The node with node id: 6a1c... and address: 10.0.1.57 ... has been marked dead because th)
    "i21_ray_node_drained_preemption": (Category.INFRASTRUCTURE, '10.12.0.38'),  # (RayTrainWorker on 10.12.0.38 died: 'The actor died because its node has died ... the actor)
    "i21_ray_memory_monitor_kills_worker": (Category.OOM, '192.168.10.7'),  # (raylet on 192.168.10.7: '1 Workers (tasks / actors) killed due to memory pressure (OOM)', )
    "i21_gce_preemptible_node_relay": (Category.INFRASTRUCTURE, 'train-node-2'),  # (train-node-2 journal shows the ACPI power-off at 03:12:40 and gcloud lists 'compute.instan)
})
HEALTHY += ("i21_ok_submitit_preempt_requeue_done", "i21_ok_skypilot_spot_recovered", "i21_ok_drain_unrelated_node", "i21_ok_torchelastic_restart_completed", "i21_ok_nth_spot_itn_other_node", "i21_ok_spark_inference_executor_preempted", "i21_ok_disk_pressure_reclaimed", "i21_ok_lightning_auto_requeue_resumed",)
CAUSES.update({
    "n19_torchrun_rdzv_dns_unresolvable": (Category.NETWORK, 'trainer-master-0.trainer-headless.ml.svc.cluster.local'),  # (c10d cannot retrieve addresses of (trainer-master-0.trainer-headless.ml.svc.cluster.local,)
    "n19_torchrun_static_store_connect_timeout": (Category.NETWORK, '10.20.3.11:29411'),  # (TCP client failed to connect/validate to host 10.20.3.11:29411 - timed out; DistNetworkErr)
    "n19_torchrun_c10d_join_timeout": (Category.INIT_TIMEOUT, ''),  # (The agent hosts the c10d store at 10.20.4.2:29400, waits in Rendezvous'ing worker group wi)
    "n19_gloo_peer_sigkill_reset": (Category.UNDETERMINED, 'rank 1'),  # (rank 1 ends with exitcode -9 (SIGKILL) and no OOM/memory line; rank 0 only relays gloo 'Re)
    "n19_dask_scheduler_unreachable": (Category.NETWORK, '10.12.0.4:8786'),  # (worker: 'Waiting to connect to: tcp://10.12.0.4:8786' then 'Timed out starting worker'; dr)
    "n19_torchelastic_etcd_refused": (Category.NETWORK, '10.96.14.2'),  # (urllib3 NewConnectionError: HTTPConnection(host='10.96.14.2', port=2379): Failed to establ)
    "n19_jax_coordinator_refused": (Category.NETWORK, '10.130.0.12:8476'),  # (Processes 1 and 2 fail in jax.distributed.initialize: 'UNAVAILABLE: failed to connect to a)
    "n19_jax_barrier_missing_task": (Category.INIT_TIMEOUT, 'task:2'),  # (Coordinator shows tasks 0, 1, 3 connected; both pasted processes fail with 'DEADLINE_EXCEE)
    "n19_tf_ring_reduce_socket_closed": (Category.UNDETERMINED, ''),  # (Both workers log 'Aborting RingReduce with Unavailable: Socket closed' at the same instant)
    "n19_tf_coordination_heartbeat_timeout": (Category.UNDETERMINED, 'task:1'),  # (Chief: 'Task /job:worker/replica:0/task:1 heartbeat timeout. This indicates that the remot)
    "n19_ray_gcs_connect_failed": (Category.NETWORK, '10.8.0.2:6379'),  # ('Failed to connect to GCS at address 10.8.0.2:6379 within 5 seconds.', 'Failed to get clus)
    "n19_ray_train_node_marked_dead": (Category.INFRASTRUCTURE, '10.128.0.103'),  # ('The node with node id ... and address: 10.128.0.103 ... has been marked dead because the )
    "n19_ray_owner_died": (Category.UNDETERMINED, ''),  # (Tasks fail with 'OwnerDiedError ... The object's owner has exited'; nothing in the driver )
    "n19_gloo_newgroup_connect_refused": (Category.NETWORK, '172.31.71.170'),  # (Ranks 4, 5 and 6 all fail in dist.new_group(backend='gloo') with 'connect [172.31.71.170]:)
    "n19_gloo_recv_timeout_no_cause": (Category.UNDETERMINED, ''),  # (All four ranks raise 'Timed out waiting 1800000ms for recv operation to complete'; no rank)
    "n19_ompi_btl_tcp_no_route": (Category.NETWORK, '10.102.1.194'),  # ('connect() to 10.102.1.194 failed: No route to host (113)' from two ranks on ivy08; the jo)
    "n19_ompi_orted_tcp_connect": (Category.NETWORK, 'gpu-node-03'),  # ('A process or daemon was unable to complete a TCP connection to another process: Local hos)
    "n19_ucx_transport_retry_exceeded": (Category.NETWORK, ''),  # (Four processes on master log 'ib_mlx5_log.c:139 Transport retry count exceeded on mlx5_0:1)
    "n19_mooncake_pd_retry_exceeded": (Category.NETWORK, '10.93.81.13'),  # (Mooncake 'Worker: Process failed for slice (... peer_nic: 10.93.81.13:15729@mlx5_0 ...): t)
    "n19_spark_fetchfailed_shuffle_refused": (Category.NETWORK, '10.0.3.41'),  # (FetchFailedException: Failed to connect to ip-10-0-3-41.ec2.internal/10.0.3.41:7337 caused)
    "n19_hf_proxy_refused_all_ranks": (Category.NETWORK, ''),  # (Both ranks fail alike with requests ProxyError('Unable to connect to proxy', NewConnection)
    "n19_grpc_tls_triton_client": (Category.NETWORK, '10.40.2.8:8001'),  # ('Handshake failed with fatal error SSL_ERROR_SSL ... CERTIFICATE_VERIFY_FAILED', then _Ina)
    "n19_deepspeed_pdsh_unresolvable_host": (Category.NETWORK, 'worker-3'),  # ('worker-3: ssh: Could not resolve hostname worker-3: Name or service not known' / 'ssh exi)
    "n19_slurm_node_failure_gloo_closed": (Category.INFRASTRUCTURE, 'gpu-node-12'),  # (Ranks 0, 1, 3 see gloo 'Connection closed by peer [10.3.0.112]', then 'srun: error: Node f)
})
HEALTHY += ("n19_torchrun_restart_then_finished", "n19_jax_late_joiner_healthy", "n19_tf_ps_startup_refused_retry_healthy", "n19_horovod_stall_warning_healthy", "n19_ompi_tcp_handshake_warning_healthy", "n19_spark_fetch_retry_healthy", "n19_c10d_ipv6_gai_warning_healthy", "n19_c10d_errno99_warning_healthy", "n19_vllm_gloo_loopback_warning_healthy",)

HEALTHY += ("i21_ok_ray_autoscaler_removes_idle_after_fit",)
# a blind audit of software failures in multi-process jobs and their healthy look-alikes (s20_)
CAUSES.update({
    "s20_torchrun_record_keyerror": (Category.SOFTWARE, 'rank 1'),  # (rank 1 raised KeyError: 'weight_decay' in main() and the torchrun Root Cause entry is rank)
    "s20_torchrun_assert_heads_notrace": (Category.SOFTWARE, 'rank 0'),  # ([rank0] AssertionError: hidden size 1000 not divisible by num_heads 12 while building the )
    "s20_torchrun_2node_misleading_table": (Category.SOFTWARE, 'rank 3'),  # (On gpu-a02 global rank 3 raised ValueError: Invalid weight_decay value: -0.01 (torch.optim)
    "s20_torchrun_import_all_ranks": (Category.SOFTWARE, ''),  # (Both workers print ModuleNotFoundError: No module named 'flash_attn' at import; the failur)
    "s20_torchrun_argparse_all_ranks": (Category.SOFTWARE, ''),  # (Every rank prints 'train.py: error: unrecognized arguments: --gradient-accumulation-steps )
    "s20_lightning_keyerror_rank1": (Category.SOFTWARE, 'rank 1'),  # ([rank1] KeyError: 'sidewalk' raised in training_step (self.class_weights lookup); rank 0 t)
    "s20_torchrun_state_dict_rank0": (Category.SOFTWARE, 'rank 0'),  # ([rank0] RuntimeError: Error(s) in loading state_dict for GPT: size mismatch for wte.weight)
    "s20_torchrun_logdir_recursion_rank1": (Category.SOFTWARE, 'rank 1'),  # (attempt_0/1/stderr.log (local_rank 1 = rank 1 on the single node) ends in RecursionError: )
    "s20_torchrun_cpp_check_rank2": (Category.SOFTWARE, 'rank 2'),  # ([rank2] RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x4096 and 4608x4096), a )
    "s20_deepspeed_batch_assert_all": (Category.SOFTWARE, ''),  # (All four ranks raise the same AssertionError 'Check batch related parameters ... 256 != 8 )
    "s20_deepspeed_pdsh_rank9_relay": (Category.SOFTWARE, 'rank 9'),  # (worker-1 [rank9] TypeError: can only concatenate list (not 'tuple') to list in collate_pac)
    "s20_deepspeed_rank_logs_rank2": (Category.SOFTWARE, 'rank 2'),  # (Only 20250302164059_rank2.log ends in a traceback: [rank2] UnboundLocalError: cannot acces)
    "s20_horovod_gloo_rank2": (Category.SOFTWARE, 'rank 2'),  # ([2]<stderr> ValueError: Expected input batch_size (64) to match target batch_size (32) in )
    "s20_mpirun_tag_mpi4py_rank5": (Category.SOFTWARE, 'rank 5'),  # ([1,5]<stderr> ValueError: operands could not be broadcast together with shapes (512,256) ()
    "s20_srun_label_typeerror_rank6": (Category.SOFTWARE, 'rank 6'),  # (Task 6 ('6: [rank6]:') raised TypeError: unsupported operand type(s) for *: 'NoneType' and)
    "s20_dataloader_worker_internal_assert_rank1": (Category.SOFTWARE, 'rank 1'),  # ([rank1] 'Caught RuntimeError in DataLoader worker process 3' from worker_init_fn: pool INT)
    "s20_jax_srun_retcheck_alike": (Category.SOFTWARE, ''),  # (Processes 1, 2 and 3 each fail with the same XLA 'RET_CHECK failure (...gpu_executable_run)
    "s20_vllm_tp_exceeds_gpus": (Category.SOFTWARE, ''),  # (vLLM startup with tensor_parallel_size=8 fails in initialize_cluster: 'ValueError: The num)
    "s20_cuda_invalid_ordinal_alike": (Category.GPU_CUDA, ''),  # (nvidia-smi lists 4 GPUs but 8 processes were launched; local ranks 4-7 all fail alike in t)
    "s20_transformers_needs_accelerate_alike": (Category.SOFTWARE, ''),  # (Each of the four processes raises ImportError: Using the `Trainer` with `PyTorch` requires)
    "s20_accelerate_wandb_rank0": (Category.SOFTWARE, 'rank 0'),  # (Only the main process runs wandb.init via init_trackers: [rank0] wandb.errors.errors.Usage)
    "s20_megatron_world_size_alike": (Category.SOFTWARE, ''),  # (All 12 tasks raise RuntimeError: world_size (12) is not divisible by tensor_model_parallel)
    "s20_hydra_missing_key_alike": (Category.SOFTWARE, ''),  # (Four identical 'Error executing job with overrides' blocks: omegaconf.errors.ConfigAttribu)
    "s20_torchrun_2node_rank5_watchdog_relay": (Category.SOFTWARE, 'rank 5'),  # (moe-node-1: [rank5] RuntimeError: shape '[8, -1, 4096]' is invalid for input of size 57630)
    "s20_spark_executors_missing_module": (Category.SOFTWARE, ''),  # (Every task attempt on executors 1, 3, 5 and 7 fails with ModuleNotFoundError: No module na)
    "s20_horovodrun_mpi_rank3": (Category.SOFTWARE, 'rank 3'),  # ([1,3]<stderr> KeyError: 'acc5' in log_metrics is the first error; ranks 6 and 0 then hit ')
})
HEALTHY += ("s20_ok_lightning_callback_caught", "s20_ok_mpspawn_eval_caught", "s20_ok_torchrun_warnings", "s20_ok_torchrun_restart_finished", "s20_ok_deepspeed_caught_eval_error", "s20_ok_spark_task_retry", "s20_ok_mpirun_openfabrics_warning",)
CAUSES.update({
    "s20_torchrun_dataloader_badjson": (Category.DATA, 'rank 2'),  # (rank 2: 'Caught JSONDecodeError in DataLoader worker process 0' ... 'Invalid control chara)
})
HEALTHY += ("s20_ok_horovod_gloo_fallback",)
# (its batch-size finder's `Batch size 16 failed, trying batch size 8`, then a run to its end)
HEALTHY += ("mo_healthy_lightning_batch_size_finder",)
# a blind audit of out-of-memory failures and who ran out (o22_)
CAUSES.update({
    "o22_torchrun_sft7b_2node": (Category.OOM, 'rank 3'),  # ([rank3] raises torch.OutOfMemoryError 'GPU 3 has a total capacity of 79.15 GiB'; the torch)
    "o22_ddp_vit_two_node_logs": (Category.OOM, 'rank 5'),  # (gpu-b02 shows [rank5] CUDA out of memory at 09:14:03 (table: rank 5, local_rank 1); gpu-b0)
    "o22_moe_alltoall_two_nodes": (Category.OOM, 'rank 6'),  # (gpu-c02 device [2] logs 'NCCL WARN Cuda failure 2 'out of memory'' and [rank6] DistBackend)
    "o22_jax_tpu_v4_32_compile": (Category.OOM, ''),  # (Every TPU worker fails compiling train_step with 'RESOURCE_EXHAUSTED: XLA:TPU compile perm)
    "o22_sglang_gemma27b_tp2": (Category.OOM, ''),  # (Both TP0 and TP1 schedulers raise RuntimeError: Not enough memory. Please try to increase )
    "o22_torchrun_zero_offload_dmesg": (Category.OOM, 'rank 2'),  # (torchrun table: rank 2 exitcode -9 (pid 48213); dmesg: 'Out of memory: Killed process 4821)
    "o22_torchrun_asr_node1": (Category.UNDETERMINED, 'rank 5'),  # (Rank 5 (local_rank 1) exits with -9 / 'Signal 9 (SIGKILL) received by PID 9991' and no OOM)
    "o22_megatron_srun_two_nodes": (Category.OOM, "task 5"),  # (slurmstepd: Detected 1 oom_kill event in StepId=4412871.0; srun: error: gpu-n017: task 5: )
    "o22_det_two_gpu_workers12": (Category.UNDETERMINED, 'rank 1'),  # ([rank1] DataLoader worker (pid 2477) is killed by signal: Killed; nothing in the files say)
    "o22_openclip_node1_with_dmesg": (Category.OOM, 'rank 6'),  # ([rank6] DataLoader worker (pid 91544) is killed by signal: Killed; node1 dmesg: 'Out of me)
    "o22_k8s_pytorchjob_llama_ft": (Category.OOM, 'llama-ft-worker-2'),  # (Pod llama-ft-worker-2: State Terminated, Reason OOMKilled, Exit Code 137 (limit 480Gi); Py)
    "o22_k8s_statefulset_bert": (Category.INFRASTRUCTURE, 'gke-ml-a2-pool-3c9f1e2d-x7qp'),  # (Pod Evicted: 'The node was low on resource: memory. Threshold quantity: 100Mi' with node M)
    "o22_openrlhf_ppo_ray": (Category.UNDETERMINED, '288692'),  # (Actor worker PID 288692 died: 'Worker unexpectedly exits with a connection error code 2 ..)
    "o22_horovod_mpirun_two_hosts": (Category.OOM, 'rank 5'),  # (mpirun noticed that process rank 5 with PID 22817 on node worker-03 exited on signal 9; wo)
    "o22_gloo_embedding_cpu": (Category.UNDETERMINED, ''),  # (Only rank 0's log: RuntimeError ... Connection closed by peer [10.1.3.22]:52211; rss numbe)
    "o22_dit_node0_only": (Category.UNDETERMINED, ''),  # (Ranks 0-3 on node0 all report Watchdog caught collective operation timeout on SeqNum=88417)
    "o22_accelerate_fsdp_machine1": (Category.OOM, 'rank 9'),  # ([rank9] torch.OutOfMemoryError in FSDP unshard (Process index: 9, GPU 1); torchrun table: )
    "o22_lightning_video_srun": (Category.OOM, 'rank 2'),  # (srun task 2 (GLOBAL_RANK 2) raises torch.cuda.OutOfMemoryError in validation_step; srun: e)
    "o22_mp_spawn_gnn_node1": (Category.OOM, '40722'),  # (Two-node mp.spawn: node 1 'process 2 terminated with signal SIGKILL'; the script maps loca)
    "o22_pretrain_index_build": (Category.OOM, 'rank 0'),  # ([rank0] numpy._core._exceptions._ArrayMemoryError: Unable to allocate 652. GiB while build)
    "o22_tokenize_stage": (Category.OOM, ''),  # (Single-process tokenize step fails with a bare MemoryError in all_ids.extend(ids); the pip)
    "o22_deepspeed_pdsh_two_nodes": (Category.OOM, 'rank 12'),  # (gpu-p02 [rank12] torch.OutOfMemoryError (local_rank 4); gpu-p01 rank 3 then gets ncclRemot)
    "o22_torchrun_longctx_restarts": (Category.OOM, 'rank 3'),  # (Rank 3 hits CUDA out of memory on GPU 3; elastic restarts once and rank 3 OOMs again at th)
})
HEALTHY += ("o22_whisper_auto_micro_batch", "o22_lightning_convnext_bsf", "o22_deepspeed_z3_70b_sft", "o22_keras_effnet_4090", "o22_vllm_r1_distill_bench", "o22_ray_data_embed_corpus", "o22_k8s_eval_job_mmlu", "o22_torchrun_sdxl_restarts", "o22_ray_tune_resnet", "o22_slurm_pretrain_1b3_sacct",)
CAUSES.update({
    "o22_slurm_video_single_gpu": (Category.OOM, '73122'),  # (RuntimeError: DataLoader worker (pid 73122) is killed by signal: Killed, and slurmstepd re)
})
# a review's cases, each a failed job a rule of this round first misread (rv_)
CAUSES.update({
    "rv_another_jobs_pod_evicted": (Category.INFRASTRUCTURE, ""),
    "rv_connect_failed_trained_then_time_limit": (Category.INFRASTRUCTURE, ""),
    "rv_connected_to_a_longer_address": (Category.NETWORK, "10.0.3.5"),
    "rv_connected_to_another_host": (Category.SOFTWARE, ""),
    "rv_could_not_connect_to_the_endpoint": (Category.NETWORK, ""),
    "rv_crash_after_a_skip_warning": (Category.SOFTWARE, ""),
    "rv_crash_after_a_will_retry_warning": (Category.SOFTWARE, ""),
    "rv_double_free_then_others_watchdogs": (Category.UNDETERMINED, "rank 2"),
    "rv_logged_then_reraised_twice": (Category.SOFTWARE, "rank 1"),
    "rv_operator_log_another_job_succeeded": (Category.UNDETERMINED, ""),
    "rv_ray_idle_removed_then_training_node_lost": (Category.INFRASTRUCTURE, "172.31.14.88"),
    "rv_spark_one_job_finished_next_failed": (Category.UNDETERMINED, ""),
    "rv_spark_oom_rerun_then_keyerror": (Category.SOFTWARE, ""),
    "rv_stall_again_then_time_limit": (Category.COLLECTIVE_DESYNC, "rank 1"),
    "rv_stall_got_past_then_oom": (Category.OOM, "rank 1"),
})
CAUSES.update({
    "i21_spark_torchdistributor_lost_node": (Category.INFRASTRUCTURE, 'dn-gpu-07.corp.local'),  # ('Container marked as failed: container_e07_..._000004 on host: dn-gpu-07.corp.local. Exit )
    "i21_spark_barrier_executor_preempted": (Category.INFRASTRUCTURE, 'dn-gpu-03.corp.local'),  # ('Container container_e21_..._000006 on host: dn-gpu-03.corp.local was preempted.' (exit st)
})
CAUSES.update({
    "n19_spark_yarn_lost_node": (Category.INFRASTRUCTURE, 'ip-10-0-5-17.ec2.internal'),  # (Executors 12 and 13 lost: 'Container marked as failed ... on host: ip-10-0-5-17.ec2.intern)
})
CAUSES.update({
    # the SIGTERM is in the pod's own log; its node is in the drain's and the listing's output
    "i21_eks_nth_spot_itn_worker_node": (Category.INFRASTRUCTURE, "ip-10-0-3-12"),
    "i21_k8s_admin_drain_evicts_worker": (Category.INFRASTRUCTURE, "gpu-node-c03"),
})

CAUSES.update({
    "j23_dataloader_worker_dmesg": (Category.OOM, 'rank 1'),  # (Rank 1's stderr: 'RuntimeError: DataLoader worker (pid 14149) is killed by signal: Killed.)
    "j23_dataloader_worker_syslog": (Category.UNDETERMINED, 'rank 0'),  # (Rank 0: 'RuntimeError: DataLoader worker (pid 18929) is killed by signal: Killed.' and the)
    "j23_ds_each_rank_log": (Category.GPU_CUDA, 'rank 5'),  # (logs/..._rank5.log: 'RuntimeError: CUDA error: an illegal memory access was encountered' i)
    "j23_ds_two_node_zero3": (Category.OOM, 'rank 11'),  # (node-2.log: '[rank11]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 )
    "j23_gpt_sft_rendezvous": (Category.INIT_TIMEOUT, ''),  # (The agent reached the c10d store and waited in next_rendezvous until 'torch.distributed.el)
    "j23_horovod_mpirun_tagged": (Category.OOM, 'rank 5'),  # (mpirun: 'process rank 5 with PID 23311 on node host-b exited on signal 9 (Killed)'; host-b)
    "j23_k8s_hf_trainer_pods": (Category.STORAGE_IO, 'rank 0'),  # (While saving checkpoint-2000, rank 0 fails with 'safetensors_rust.SafetensorError: Error w)
    "j23_k8s_llm_ft_master_pod": (Category.INFRASTRUCTURE, 'llm-ft-7b-master-0'),  # (Training was progressing (step 10/40) when the agent logged 'Received 15 death signal, shu)
    "j23_k8s_sd_train_pods": (Category.INFRASTRUCTURE, 'sd-train-worker-0'),  # (kubelet evicted sd-train-worker-0: 'Reason: Evicted / The node was low on resource: epheme)
    "j23_k8s_trainer_pods_crashloop": (Category.SOFTWARE, 'trainer-worker-2'),  # (trainer-worker-2 crashes on import with 'ModuleNotFoundError: No module named 'flash_attn')
    "j23_llama_ft_logdir": (Category.SOFTWARE, 'rank 3'),  # (Root Cause table names rank 3 (local_rank 3, exitcode 1); attempt_0/3/stderr.log shows '[r)
    "j23_mae_sigsegv_journal": (Category.UNDETERMINED, 'rank 2'),  # (Root Cause: 'rank : 2 (local_rank: 2) exitcode : -11 (pid: 12113) (SIGSEGV)'; the journal )
    "j23_mpirun_three_hosts": (Category.NETWORK, 'host-c'),  # ('ssh: connect to host host-c port 22: No route to host' followed by 'ORTE was unable to re)
    "j23_resnet_kill_dmesg": (Category.OOM, 'rank 1'),  # (torchrun Root Cause: 'rank : 1 (local_rank: 1) exitcode : -9 (pid: 11938) (SIGKILL)'; the )
    "j23_sft_debug_detail": (Category.COLLECTIVE_DESYNC, 'rank 3'),  # (With TORCH_DISTRIBUTED_DEBUG=DETAIL ranks 0, 1 and 2 all run ALLREDUCE SequenceNumber=4 an)
    "j23_slurm_2node_c10d_rdzv": (Category.NETWORK, '10.42.0.11:29400'),  # (gpu-node-22 could not reach the rendezvous store: 'The client socket has timed out after 6)
    "j23_slurm_4412_label": (Category.OOM, 'task 11'),  # (slurmstepd reports 'Detected 1 oom_kill event in StepId=4412.0' and srun 'gpu-node-03: tas)
    "j23_slurm_5521_label": (Category.INFRASTRUCTURE, 'gpu-node-12'),  # (srun: 'Node failure on gpu-node-12' and slurmstepd '*** STEP 5521.0 ... CANCELLED ... DUE )
    "j23_slurm_88123_multinode": (Category.INFRASTRUCTURE, ''),  # (slurmstepd: '*** JOB 88123 ON gpu-node-01 CANCELLED AT 2024-06-02T08:00:14 DUE TO TIME LIM)
    "j23_torchrun_logdir_ecc": (Category.GPU_CUDA, 'rank 3'),  # (attempt_0/3/stderr.log: '[rank3]: RuntimeError: CUDA error: uncorrectable ECC error encoun)
    "j23_two_node_watchdog_same_seq": (Category.UNDETERMINED, ''),  # (All eight ranks report the same 'Watchdog caught collective operation timeout: WorkNCCL(Se)
    "j23_unet_ckpt_save": (Category.STORAGE_IO, 'rank 0'),  # (Rank 0 fails in torch.save: 'RuntimeError: Parent directory /mnt/ckpt/run42/step_3 does no)
    "j23_vit_two_node_consoles": (Category.SOFTWARE, 'rank 3'),  # (gpu-node-b.log: '[rank3]: ValueError: Expected input batch_size (8) to match target batch_)
    "j23_vllm_tp4_server": (Category.GPU_CUDA, 'rank 2'),  # (The single-node TP server's '(VllmWorker rank=2 pid=225)' raises 'RuntimeError: CUDA error)
})
HEALTHY += ("j23_bert_mlm_elastic_restart", "j23_ckpt_upload_retry_run",
            "j23_ds_pdsh_two_node_run", "j23_k8s_bert_job_pods", "j23_mpirun_openfabrics_run",
            "j23_ray_job_preprocess_train", "j23_resnet_ddp_two_node", "j23_slurm_77001_requeue",
           )
CAUSES.update({
    "u24_torchrun_keyerror_then_gloo_relay": (Category.SOFTWARE, 'rank 1'),  # (rank1 raises KeyError: 'labels' first; rank0 then fails with gloo 'Connection closed by pe)
    "u24_torchrun_errorfile_table_only": (Category.SOFTWARE, 'rank 1'),  # (Only the launcher tail is pasted; the Root Cause entry for rank 1 carries the error_file t)
    "u24_torchrun_exit1_table_only": (Category.UNDETERMINED, 'rank 1'),  # (Only the launcher tail: rank 1 'failed (exitcode: 1)' and the table says 'To enable traceb)
    "u24_torchrun_sigkill_no_memory_line": (Category.UNDETERMINED, 'rank 1'),  # (rank 1 exits with 'exitcode: -9 ... Signal 9 (SIGKILL) received by PID 11179'; rank 0 only)
    "u24_torchrun_sigkill_dmesg_oom": (Category.OOM, 'rank 1'),  # (train.log shows rank 1 (pid 21258) 'exitcode: -9 ... SIGKILL'; the node's dmesg shows 'Out)
    "u24_torchrun_segfault_alone": (Category.UNDETERMINED, 'rank 1'),  # (rank 1 dies with 'exitcode: -11 ... Signal 11 (SIGSEGV) received by PID 11190'; nothing el)
    "u24_gloo_recv_timeout_alone": (Category.UNDETERMINED, ''),  # (rank 0 fails with gloo 'Timed out waiting 15000ms for recv operation to complete'; rank 1 )
    "u24_tcpstore_wait_clients_timeout": (Category.INIT_TIMEOUT, ''),  # (rank 0 hosts the store and raises 'DistStoreError: Timed out after 21 seconds waiting for )
    "u24_tcpstore_client_connect_timeout": (Category.NETWORK, '10.20.0.11:29500'),  # (rank 1 cannot reach the store: 'TCP client failed to connect/validate to host 10.20.0.11:2)
    "u24_rdzv_endpoint_unresolvable": (Category.NETWORK, 'master-node-0.cluster.internal:29400'),  # (the agent cannot resolve/reach the rendezvous endpoint: 'gai error: -2 - Name or service n)
    "u24_rdzv_join_timeout_one_node": (Category.INIT_TIMEOUT, ''),  # (launch configs say min_nodes 2; the agent starts 'Rendezvous'ing worker group' on its own )
    "u24_dataloader_worker_killed_alone": (Category.UNDETERMINED, '15277'),  # ('RuntimeError: DataLoader worker (pid 15277) is killed by signal: Killed.' with a Connecti)
    "u24_dataloader_worker_killed_cgroup_oom": (Category.OOM, '22107'),  # (train.log: 'DataLoader worker (pid 22107) is killed by signal: Killed.'; kern.log: 'Memory)
    "u24_pgwrapper_collective_mismatch": (Category.COLLECTIVE_DESYNC, 'rank 2'),  # (With TORCH_DISTRIBUTED_DEBUG=DETAIL, rank 0 and rank 1 both report 'Detected mismatch betw)
    "u24_torchrun_checkpoint_enospc_rank0": (Category.STORAGE_IO, 'rank 0'),  # (rank 0 fails while writing the checkpoint: 'OSError: [Errno 28] No space left on device' i)
    "u24_torchrun_dataloader_corrupt_shard": (Category.DATA, 'rank 1'),  # (rank 1 reads shards ... part-00003.jsonl and raises 'Caught UnicodeDecodeError in DataLoad)
    "u24_nccl_watchdog_all_ranks_agree": (Category.UNDETERMINED, ''),  # (All eight ranks on both nodes report the same 'Watchdog caught collective operation timeou)
    "u24_nccl_watchdog_after_remote_rank_oom": (Category.OOM, 'rank 6'),  # (node1's log shows '[rank6]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate )
    "u24_mpi_segfault_alone": (Category.UNDETERMINED, 'rank 13'),  # (Only 'mpirun noticed that process rank 13 with PID 48213 on node cn-0207 exited on signal )
    "u24_deepspeed_rank5_cuda_oom": (Category.OOM, 'rank 5'),  # ('[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 5 ..)
    "u24_lightning_two_nodes_illegal_memory_access": (Category.GPU_CUDA, 'rank 6'),  # (gpu-b-07's log: '[rank6]: RuntimeError: CUDA error: an illegal memory access was encounter)
    "u24_accelerate_conn_reset_only": (Category.UNDETERMINED, ''),  # (Only node_rank 1's log: all four local ranks (4-7) fail alike in gather_for_metrics with ')
    "u24_megatron_net_ib_completion_error": (Category.NETWORK, ''),  # ('NCCL WARN NET/IB : Got completion from peer 10.12.3.44<52114> with status=12 opcode=0 len)
    "u24_xid79_kernel_log_with_timeouts": (Category.GPU_CUDA, '0000:9d:00'),  # (train.log only has identical watchdog timeouts (SeqNum=7764 _REDUCE_SCATTER_BASE) on all 8)
    "u24_vllm_tp_worker_died_sigkill": (Category.UNDETERMINED, '3283517'),  # ('Worker VllmWorkerProcess pid 3283517 died, exit code: -9' then 'Killing local vLLM worker)
    "u24_sglang_tp1_illegal_memory_access": (Category.GPU_CUDA, 'TP1'),  # ('[... TP1] Scheduler hit an exception: ... RuntimeError: CUDA error: an illegal memory acc)
    "u24_jax_heartbeat_timeout_task3": (Category.UNDETERMINED, 'task:3'),  # (The coordinator reports '/job:jax_worker/replica:0/task:3 ... heartbeat timeout' and every)
})
HEALTHY += ("u24_ok_torchelastic_restart_then_finished", "u24_ok_hf_trainer_warnings_finished",
            "u24_ok_deepspeed_overflow_skips_finished", "u24_ok_vllm_kv_preemption_warnings",
            "u24_ok_hf_hub_read_timeout_retried", "u24_ok_nccl_socket_fallback_pg_not_destroyed",
            "u24_ok_openmpi_openfabrics_warning_finished",
            "u24_ok_c10d_ipv6_socket_warnings_finished",
            "u24_ok_skipped_corrupt_samples_finished",)
CAUSES.update({
    "e25_azure_blob_account_unresolvable": (Category.NETWORK, 'trainingdata01.blob.core.windows.net'),  # (The data-prep job's list_blobs request to https://trainingdata01.blob.core.windows.net fai)
    "e25_c10d_rdzv_endpoint_timeout": (Category.NETWORK, 'rdzv-head.internal:29400'),  # (torchrun's c10d rendezvous cannot reach its store: 'TCP client failed to connect/validate )
    "e25_c10d_refused_then_timeout_torch21": (Category.NETWORK, 'gpu-node-00.cluster.local'),  # (Node 2's TCPStore client is refused repeatedly ('failed to connect to [gpu-node-00.cluster)
    "e25_c10d_static_master_unresolvable": (Category.NETWORK, 'trainer-master-0:29500'),  # (The worker node cannot resolve the master: 'The IPv6 network addresses of (trainer-master-)
    "e25_c10d_store_waiting_for_clients": (Category.INIT_TIMEOUT, ''),  # (The master node's TCPStore was up but peers never arrived: 'DistStoreError: Timed out afte)
    "e25_deepspeed_pdsh_ssh_refused": (Category.NETWORK, 'gpu-node-07'),  # (pdsh could not start the node: 'gpu-node-07: ssh: connect to host gpu-node-07 port 22: Con)
    "e25_etcd_v2_rendezvous_refused": (Category.NETWORK, 'etcd-0.etcd.svc:2379'),  # (The etcd-v2 rendezvous backend cannot reach etcd: 'Failed to get list of machines from htt)
    "e25_gcs_ckpt_upload_reset_by_peer": (Category.UNDETERMINED, ''),  # (The checkpoint upload to GCS dies with only 'requests.exceptions.ConnectionError: ('Connec)
    "e25_gcs_oauth_token_unreachable": (Category.NETWORK, 'oauth2.googleapis.com'),  # (Both ranks fail alike listing the GCS bucket because the token endpoint is unreachable: go)
    "e25_gloo_closed_by_peer_node0_only": (Category.UNDETERMINED, ''),  # (Only node 0's log: both local ranks get 'Connection closed by peer [10.0.3.7]:45706 ... ty)
    "e25_hub_mirror_unreachable_all_ranks": (Category.NETWORK, 'hf-mirror.corp.internal:8080'),  # (Both ranks retry '[Errno -2] Name or service not known' thrown while requesting HEAD http:)
    "e25_hub_tls_selfsigned_chain": (Category.NETWORK, 'huggingface.co'),  # (Both ranks fail alike: TLS to huggingface.co fails 'CERTIFICATE_VERIFY_FAILED ... self-sig)
    "e25_irsa_sts_endpoint_unreachable": (Category.NETWORK, 'sts.us-east-1.amazonaws.com'),  # (Credential refresh via AssumeRoleWithWebIdentity cannot reach STS: '[Errno 101] Network is)
    "e25_kafka_nobrokers_ranker_service": (Category.NETWORK, 'kafka-0.events.svc'),  # (The serving app's Kafka producer is refused: 'Connect attempt to <BrokerConnection node_id)
    "e25_master_waits_worker_typo_host": (Category.NETWORK, 'train-master-O:29700'),  # (node1 cannot resolve its --master-addr: 'The IPv6 network addresses of (train-master-O, 29)
    "e25_mlflow_https_cert_expired": (Category.NETWORK, 'mlflow.corp.example'),  # (The Trainer's MLflow callback cannot talk to the tracking server: 'HTTPSConnectionPool(hos)
    "e25_nccl_bootstrap_no_route_node1": (Category.NETWORK, '10.42.1.17'),  # (All four ranks on gpu-a018 fail alike in NCCL bootstrap: 'socketStartConnect: Connect to 1)
    "e25_nccl_recv_reset_by_peer": (Category.UNDETERMINED, ''),  # (Ranks 16/17/20 fail alike with ncclRemoteError '... remote process exited or there was a n)
    "e25_ray_gcs_unreachable_vllm": (Category.NETWORK, '10.8.0.11:6379'),  # (The worker node's 'ray start' fails: 'Failed to connect to GCS at address 10.8.0.11:6379 w)
    "e25_redis_queue_dns_embed_worker": (Category.NETWORK, 'redis-master.infra.svc:6379'),  # (The embedding worker cannot reach its queue: 'redis.exceptions.ConnectionError: Error -2 c)
    "e25_sglang_tp_pollconnect_no_route": (Category.NETWORK, '10.60.2.4'),  # (On node 1, TP12/TP14/TP15 fail alike: 'socketPollConnect: Connect to 10.60.2.4<56849> retu)
    "e25_triton_grpc_refused": (Category.NETWORK, '10.31.4.20:8001'),  # (The benchmark client cannot reach Triton: 'failed to connect to all addresses; last error:)
    "e25_vllm_hub_connect_timeout_no_cache": (Category.NETWORK, 'huggingface.co'),  # (vLLM's HEAD requests for config.json time out ('Connection to huggingface.co timed out. (c)
    "e25_wandb_selfhosted_dns": (Category.NETWORK, 'wandb.mlplatform.internal:8080'),  # (wandb.init fails: CommError 'Timed out while retrying: Post 'http://wandb.mlplatform.inter)
})
HEALTHY += ("e25_c10d_refused_warnings_then_training", "e25_datasets_offline_cached_c4",
            "e25_mlflow_retry_then_ok", "e25_nccl_connect_refused_retry_then_init_ok",
            "e25_nfs_not_responding_then_ok", "e25_vllm_hub_retry_then_serving",
            "e25_wandb_network_error_resolved",)
HEALTHY += ("u24_ok_lightning_callback_traceback_finished", "e25_hub_cached_commit_fallback",
            "e25_restart_after_pushgateway_refused")
CAUSES.update({
    # the Xid's bus is rank 6's in NCCL's init lines of the one node
    "j23_dgx_b07_xid": (Category.GPU_CUDA, "rank 6"),
})
CAUSES.update({
    # the review of the pod, shell-status, Events, set-up and endpoint rules: each stays in its
    # case (a pipeline's status, a table's rows, one node cordoned, the same host's port)
    "rv26_tee_status": (Category.OOM, "rank 1"),
    "rv26_events_hide_oom": (Category.OOM, "pid 51873"),
    "rv26_events_run_into_next_command": (Category.OOM, "pid 51873"),
    "rv26_dmesg_local_tz": (Category.OOM, "pid 25714"),
    "rv26_tail_two_workers": (Category.NETWORK, ""),
    "rv26_later_client_port_wins": (Category.NETWORK, "ml-datasets.s3.us-west-2.amazonaws.com"),
    "rv26_hub_download_then_other_failure": (Category.NETWORK, ""),
    "rv26_drain_two_nodes": (Category.INFRASTRUCTURE, ""),
    "rv26_cordon_then_drain": (Category.INFRASTRUCTURE, ""),
})
CAUSES.update({
    "p26_ompi_horovod_rank6_sigkill_oom": (Category.OOM, 'rank 6'),  # (mpirun: 'process rank 6 with PID 48213 on node cn-07 exited on signal 9 (Killed)'; cn-07 d)
    "p26_ompi_segv_rank5_no_cause": (Category.UNDETERMINED, 'rank 5'),  # ('[gpu-node-2:31877] Signal: Segmentation fault (11)' and 'mpirun noticed that process rank)
    "p26_ompi_orte_lost_daemon_node_failure": (Category.INFRASTRUCTURE, 'node1017'),  # ('ORTE has lost communication with a remote daemon ... Remote daemon: [[16919,0],4] on node)
    "p26_intelmpi_rank6_cgroup_oom": (Category.OOM, 'rank 6'),  # (Hydra: 'RANK 6 PID 90211 RUNNING AT c112 / KILLED BY SIGNAL: 9 (Killed)'; c112 journal: 'M)
    "p26_cray_srun_task13_oom": (Category.OOM, 'task 13'),  # ('slurmstepd: error: Detected 1 oom_kill event in StepId=8538204.0' and 'srun: error: nid00)
    "p26_srun_task5_ecc_xid48": (Category.GPU_CUDA, 'rank 5'),  # (Task/rank 5 fails first with 'CUDA error: uncorrectable ECC error encountered'; gpu-a-014 )
    "p26_ray_core_memory_monitor_kill": (Category.OOM, '11362'),  # ('ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory ..)
    "p26_ddp_dataloader_worker_oom_rank5": (Category.OOM, 'rank 5'),  # ([rank5]: 'DataLoader worker (pid 71234) is killed by signal: Killed.'; gpu-a-01 dmesg: 'Ou)
    "p26_dataloader_worker_killed_single_proc": (Category.UNDETERMINED, '1692'),  # ('RuntimeError: DataLoader worker (pid 1692) is killed by signal: Killed.' with no memory o)
    "p26_ddp_dataloader_corrupt_image_rank6": (Category.DATA, 'rank 6'),  # ([rank6]: 'Caught UnidentifiedImageError in DataLoader worker process 3' / 'cannot identify)
    "p26_ddp_dataloader_worker_segv_rank2": (Category.UNDETERMINED, 'rank 2'),  # ('ERROR: Unexpected segmentation fault encountered in worker.' then [rank2] 'DataLoader wor)
    "p26_torchrun_2node_rank10_sigkill_oom": (Category.OOM, 'rank 10'),  # (h100-b: 'Out of memory: Killed process 52212 (python)' at 07:39:36 and launcher root cause)
    "p26_torchrun_rank1_sigkill_unexplained": (Category.UNDETERMINED, 'rank 1'),  # (Launcher: 'failed (exitcode: -9) local_rank: 1 (pid: 1424)' / 'Signal 9 (SIGKILL) received)
    "p26_coredump_rank3_sigsegv": (Category.UNDETERMINED, 'rank 3'),  # (Launcher root cause 'rank : 3 ... exitcode : -11 (pid: 48213)' and systemd-coredump 'Proce)
    "p26_srun_task6_segfault_in_libcuda": (Category.UNDETERMINED, 'rank 6'),  # ('srun: error: gpu-b-03: task 6: Segmentation fault (core dumped)'; kernel 'python[91822]: )
    "p26_xid31_rank3_illegal_address": (Category.GPU_CUDA, 'rank 3'),  # ([rank3] 'CUDA error: an illegal memory access was encountered' and dmesg 'Xid (PCI:0000:4c)
    "p26_k8s_worker_pod_oomkilled": (Category.OOM, 'llama-ft-worker-0'),  # (kubectl describe: llama-ft-worker-0 'State: Terminated / Reason: OOMKilled / Exit Code: 13)
    "p26_k8s_pod_evicted_ephemeral_storage": (Category.INFRASTRUCTURE, 'sd-finetune-6f7d9c8b5-q2kxp'),  # (Pod sd-finetune-6f7d9c8b5-q2kxp 'Reason: Evicted' — 'The node was low on resource: ephemer)
    "p26_dask_worker_memory_killedworker": (Category.OOM, '10.0.3.17:39513'),  # ('Worker tcp://10.0.3.17:39513 (pid=5512) exceeded 95% memory budget. Restarting...' then K)
    "p26_torchrun_store_connect_timeout": (Category.NETWORK, '10.4.0.11:29500'),  # ('[c10d] TCP client failed to connect/validate to host 10.4.0.11:29500 ... The client socke)
    "p26_watchdog_all_ranks_same_seq": (Category.UNDETERMINED, ''),  # (All 8 ranks report the same 'WorkNCCL(SeqNum=7731, OpType=ALLREDUCE ...)' timeout with 'la)
})
HEALTHY += ("p26_ok_torchrun_restart_then_finished", "p26_ok_ray_data_oom_task_retried",
            "p26_ok_spark_executor_lost_task_retried", "p26_ok_coredump_unrelated_node_process",
            "p26_ok_vllm_serving_with_warnings", "p26_ok_mpirun_openib_warning_finished",
            "p26_ok_k8s_pod_oomkilled_restarted_succeeded",
            "p26_ok_pyspy_during_slow_ckpt_then_finished",)
CAUSES.update({
    "t28_tf_mwms_oom_worker1": (Category.OOM, '/job:worker/replica:0/task:1'),  # (worker1.log: 'OOM when allocating tensor with shape[256,2048,7,7] ... on /job:worker/repli)
    "t28_tf_mwms_socket_closed_only": (Category.UNDETERMINED, ''),  # (Only worker0.log is given; its one error is 'UNAVAILABLE: Socket closed' / 'Collective ops)
    "t28_tf_ps_ps0_oomkilled": (Category.OOM, 'tfjob-ctr-ps-0'),  # (kubectl describe of tfjob-ctr-ps-0 shows 'Last State: Terminated / Reason: OOMKilled / Exi)
    "t28_hvd_gloo_tf_gpu_oom": (Category.OOM, 'rank 1'),  # ('[1]<stderr>: ... ResourceExhaustedError: OOM when allocating tensor with shape[98304,8192)
    "t28_hvd_mismatched_broadcast_shapes": (Category.COLLECTIVE_DESYNC, ''),  # (All four ranks raise the same coordinator verdict 'Mismatched BROADCAST tensor shapes: One)
    "t28_hvd_nccl_ib_completion_error": (Category.NETWORK, ''),  # (Ranks on both nodes log 'NCCL WARN NET/IB : Got completion from peer ... with error 12 ...)
    "t28_hvd_mpirun_sigkill_dmesg_oom": (Category.OOM, 'rank 7'),  # (mpirun: 'process rank 7 with PID 41873 on node trn-node-2 exited on signal 9 (Killed)'; dm)
    "t28_jax_heartbeat_task3_silent": (Category.UNDETERMINED, '/job:jax_worker/replica:0/task:3'),  # (host3.log simply stops after step 3100 with no error; the coordinator reports 'Task /job:j)
    "t28_jax_coordinator_conn_refused": (Category.NETWORK, '10.128.0.4:8476'),  # (Both workers fail in jax.distributed.initialize with 'failed to connect to all addresses; )
    "t28_paddle_legacy_rank2_typeerror": (Category.SOFTWARE, 'rank 2'),  # (Single node (ips: 127.0.0.1). log/workerlog.2 ends in 'TypeError: forward() got an unexpec)
    "t28_ray_xgb_actor_oom_killed": (Category.OOM, '10.0.5.23'),  # (Ray's memory monitor kills the XGBoost actor: 'Worker exit detail: Task was killed due to )
    "t28_torch_launch_legacy_rank1_keyerror": (Category.SOFTWARE, 'rank 1'),  # (Single node. '[rank1]: KeyError: 'lr_schedule'' in train_legacy.py comes first; rank 0's g)
    "t28_mp_spawn_store_wait_timeout": (Category.INIT_TIMEOUT, ''),  # (Process 0 created the TCPStore and waited: 'torch.distributed.DistStoreError: Timed out af)
})
HEALTHY += ("t28_tf_mwms_autoshard_warnings_ok", "t28_jax_rendezvous_false_positive_ok",
            "t28_paddle_launch_retry_connect_ok", "t28_mindspore_msrun_finalize_warnings_ok",
            "t28_byteps_mxnet_ok", "t28_ray_xgb_actor_restart_ok", "t28_spark_prep_task_retry_ok",
            "t28_lgbm_dask_warnings_ok", "t28_torch_launch_legacy_warnings_ok",
            "t28_mp_spawn_numpy_warning_ok",)
CAUSES.update({
    # the second review: a later run's steps or epochs are no restart of the failed one
    "rv27_two_stage_pipeline": (Category.SOFTWARE, "rank 1"),
    "rv27_lightning_two_scripts": (Category.DATA, ""),
    "rv27_interleaved_url": (Category.NETWORK, ""),
})
HEALTHY += ("rv27_lightning_ckpt_verbose",)
# (their rank is tested below: the Xid there names no rank of the job's; a day-old Xid, or
# one on a host the job did not run on, is not the job's failure: rank 3's own OOM is)
NOT.update({"rv27_single_process_dataparallel": Category.NONE})
CAUSES.update({"rv27_stale_xid_same_host": (Category.OOM, "rank 3"),
               "rv27_xid_other_host_oom": (Category.OOM, "rank 3"),
               # the whole world ran on dgx-b07; rank 6 never reported at the collective the
               # others timed out in (the launcher's table lists it, as it lists every rank)
               "rv27_xid_other_host": (Category.UNDETERMINED, "rank 6 (did not report")})
# the third review, of the rules that say a job did not fail: each of these failed and did not
# recover (a traceback at the script's top level, its steps flushed after it; a listing's
# other job that succeeded; a viewer's exit status; another node's failed workers with the
# same pids; the job script's next step loading the checkpoint)
NOT.update({"rv28_buffered_stdout": Category.NONE, "rv28_kubectl_get_rows": Category.NONE,
            "rv28_echo_status_of_viewer": Category.NONE, "rv28_ds_pdsh_pids": Category.NONE,
            "rv28_eval_after_crash": Category.NONE})
CAUSES.update({
    # the fourth review, of the rules that name a rank: the earlier exit of two nodes' tables
    "rv29_two_tables_exit1_then_sigkill": (Category.UNDETERMINED, "rank 9"),
    # the rank the barrier names said it reached it and waited on its coordinator
    "rv29_mbarrier_root_late": (Category.COLLECTIVE_DESYNC, ""),
    # a subgroup's collective: the rank behind in the default group waits in its own group,
    # and the world's other ranks are not in the subgroup's hang at all
    "rv29_tp_subgroup_waiter_b": (Category.COLLECTIVE_DESYNC, ""),
    "rv29_subgroup_hang_absent_nonmember": (Category.UNDETERMINED, ""),
    # the host:pid of another process's line in the rank's file: the table's pid is the rank's
    "rv29_placed_wrong_pid": (Category.SOFTWARE, "rank 9 (local_rank 1, pid 77101, host gpu-c02)"),
})
CAUSES.update({
    # the fifth review, of the rules that decide a category: a teardown or a relay after the
    # job's own failure is not its cause (the CUDA runtime unloading after a rank's own
    # exception; a sweep driver's CalledProcessError of the torchrun it ran; a DataLoader
    # worker ended by the launcher's closing SIGTERM)
    "rv30_driver_shutting_down_after_valueerror": (Category.SOFTWARE, "rank 2"),
    "rv30_wrapper_calledprocesserror_after_sigkill": (Category.UNDETERMINED, "rank 3"),
    "rv30_dl_worker_terminated_by_torchrun_after_rank_error": (Category.SOFTWARE, "rank 2"),
    # a peer that died first, its links breaking after it: a segfault its launcher reported
    # before the IB errors, a rank's own exception on an earlier line of srun's console, the
    # store's host that died at import before the connects to it were refused
    "rv30_segv_rank_then_ib_retry_exceeded": (Category.UNDETERMINED, "rank 9"),
    "rv30_segv_rank_then_ib_wr_flushed": (Category.UNDETERMINED, "rank 9"),
    "rv30_srun_ib_after_rank_exception": (Category.SOFTWARE, "rank 5"),
    "rv30_k8s_master_importerror_worker_store_timeout": (Category.SOFTWARE, ""),
    # refused connects at start-up, then the store counted 3 of 4 clients: a client never came
    "rv30_refused_at_start_then_store_wait_timeout": (Category.INIT_TIMEOUT, ""),
    # a kernel line before the job began that names another program: an Xid of a pid none of
    # the job's ranks had, another user's jupyter-lab killed by its cgroup's OOM killer
    "rv30_old_xid43_other_pid_then_valueerror": (Category.SOFTWARE, "rank 0"),
    "rv30_stale_oom_kill_other_process": (Category.SOFTWARE, "rank 2"),
    # a sidecar's OOMKilled past beside the container that failed for a reason of its own; a
    # GPU the job script's nvidia-smi could not reach, which the job then trained past
    "rv30_sidecar_oomkilled_main_software": (Category.SOFTWARE, "rank 1"),
    "rv30_nvsmi_dead_gpu_at_start_then_keyerror": (Category.SOFTWARE, "rank 2"),
    # a directory two ranks both created is the job's race, not the disk's; a traceback under
    # Python's `--- Logging error ---` is the logging module's, which went on
    "rv30_makedirs_race_fileexists": (Category.SOFTWARE, "rank 1"),
    "rv30_logging_error_quota_then_assert": (Category.SOFTWARE, ""),
    # a script the job ran that is not executable: its own setup, not the file system
    "rv30_permission_denied_exec_script": (Category.SOFTWARE, ""),
    # a node whose launch the shell could not run (exit code 127), the others waiting at the
    # rendezvous for it; a Ray Data task the memory monitor killed and Ray retried, training
    # going on, before the trainer's own error
    "rv30_torchrun_not_found_node1_rdzv_timeout": (Category.SOFTWARE, "node-g12"),
    "rv30_ray_data_task_oom_retried_then_typeerror": (Category.SOFTWARE, "pid 41388"),
})
CAUSES.update({
    # upstream wordings, each built from the format string of the named source: an MPI
    # code's own error naming its process (LAMMPS's error.cpp `ERROR on proc %d: %s`), then
    # that rank's MPI_Abort
    "uw39_mpi_code_error_on_proc_then_abort": (Category.SOFTWARE, "rank 13"),
    # gRPC's subchannel `Connect failed: {… "target_address":"ipv4:%s"}` (logged at INFO, as
    # it tries again) until the log ends, no training anywhere: the endpoint never reached
    "uw39_grpc_connect_refused_retrying_to_the_end": (Category.NETWORK, "10.8.0.22:2222"),
    # Intel Fortran's runtime `forrtl: severe (38): error during write, unit %d, file %s` on
    # one MPI rank, then mpirun's report of its exit
    "uw39_fortran_error_during_write_rank5": (Category.STORAGE_IO, "rank 5"),
})
CUDA_UW39 = {
    # the kernel's PCIe AER lines in its 5.x and 6.x words (`Uncorrected (Non-Fatal) error
    # received: %s`, `Uncorrectable (Fatal) error message received from %s`): the device behind
    # the port, the rank NCCL's init put on its bus or the one rank whose CUDA call failed
    "uw39_aer_uncorrectable_6x_wording_rank": (Category.GPU_CUDA, "rank 5"),
    "uw39_aer_nonfatal_5x_wording_rank": (Category.GPU_CUDA, "rank 1"),
    # nvidia-smi's `Unable to determine the device handle for GPU%s: GPU is lost`
    "uw39_nvidia_smi_gpu_is_lost": (Category.GPU_CUDA, "rank 3"),
}
CUDA_UW39.update({
    # ROCm's queue callback on a kernel's fault (rocdevice.cpp `Callback: Queue %p aborting with
    # error : HSA_STATUS_ERROR_…`); an Xid 31 whose pid torchrun's table gives a rank; Slurm
    # before 23.02 (`Detected %lu oom-kill event(s) in %ps cgroup`, then `task 5: Killed`)
    "uw39_rocm_hsa_aperture_violation": (Category.GPU_CUDA, "rank 6"),
    "uw39_rocm_hsa_hardware_exception": (Category.GPU_CUDA, "rank 1"),
    "uw39_xid31_mmu_fault_table_only": (Category.GPU_CUDA, "rank 3"),
    "uw39_slurm_cgroup_oom_kill_events_2011": (Category.OOM, "task 5"),
})
CAUSES.update(CUDA_UW39)
# a training operator's v1 word that the job succeeded after a preemption (`PyTorchJob %s/%s
# successfully completed.`); another user's process the OOM killer ended, and an Xid of another
# program hours before, in runs torchrun's agent says SUCCEEDED
HEALTHY += ("uw39_healthy_k8s_preempted_then_succeeded",
            "uw39_healthy_oom_killed_other_users_process", "uw39_healthy_old_xid13_other_program")
CAUSES.update({
    # the network's wordings across versions: aws-ofi-nccl's completion errors since 1.17
    # (`Request %p seq %d …`, 1.19's `Flags: %ld`, 1.21's `(%s) completed with error: err: …
    # prov_errno: …`, `Remote write completed with error`); gloo's `timed out connecting:
    # SO_ERROR: …, remote=[%s]:%d` and its pair's `Connect timeout [%s]:%d`; NCCL 2.27's
    # `Call to ibv_modify_qp failed with %d %s, on dev %s:%d, …, remote GID %s`; torch 1.x's
    # `connect() timed out.` to the store its init_method names
    "uw39_net_o03_ofi117_seq_unresponsive_established": (Category.NETWORK, "i-0f9e8d7c6b5a49382"),
    "uw39_net_o08_ofi121_base_unresponsive_remote": (Category.NETWORK, "i-0f9e8d7c6b5a49382"),
    "uw39_net_o09_ofi119_rdma_seq_flags": (Category.NETWORK, "i-0f9e8d7c6b5a49382"),
    "uw39_net_o10_ofi_remote_write_completed_with_error": (Category.NETWORK,
                                                           "i-0f9e8d7c6b5a49382"),
    "uw39_net_g04_gloo_timed_out_connecting_new": (Category.NETWORK, "10.4.1.22"),
    "uw39_net_g06_gloo_connect_timeout": (Category.NETWORK, "10.4.1.23"),
    "uw39_net_n20_nccl227_ibv_modify_qp_timed_out": (Category.NETWORK, "10.20.3.18"),
    "uw39_net_s05_store_torch1_connect_timed_out": (Category.NETWORK, "10.10.0.3"),
    # a reset by the remote peer alone (EFA's status 8, UCX's tcp transport): the peer's story
    "uw39_net_o06_ofi_efa_reset_by_remote_alone": (Category.UNDETERMINED, ""),
    "uw39_net_u03_ucx_tcp_reset_by_remote_alone": (Category.UNDETERMINED, ""),
})
CAUSES.update({
    # storage and data in their libraries' words: Rust's io::Error under safetensors (`Os {
    # code: 30, kind: ReadOnlyFilesystem …}`), HDF5 on a mount without locks (errno 37), pickle,
    # numpy, zipfile, tarfile, Pillow and Arrow on a file cut short or broken, s3fs's errors
    # raised from botocore's, gcsfs's 503, a Lustre client that lost its server
    "uw39_st_s10_safetensors_readonly": (Category.STORAGE_IO, "rank 0"),
    "uw39_st_s17_h5py_lock_enolck_nfs": (Category.STORAGE_IO, "rank 2"),
    "uw39_st_s22_pickle_ran_out_of_input": (Category.DATA, "rank 0"),
    "uw39_st_s23_dl_worker_ran_out_of_input": (Category.DATA, "rank 3"),
    "uw39_st_s24_numpy_not_fully_written": (Category.DATA, "rank 2"),
    "uw39_st_s25_numpy_no_data_left": (Category.DATA, "rank 0"),
    "uw39_st_s26_npz_bad_zip": (Category.DATA, "rank 1"),
    "uw39_st_s28_tar_bad_checksum": (Category.DATA, "rank 0"),
    "uw39_st_s32_pil_broken_data_stream": (Category.DATA, "rank 1"),
    "uw39_st_s33_pil_truncated_png": (Category.DATA, "rank 3"),
    "uw39_st_s35_arrow_parquet_size_zero": (Category.DATA, "rank 0"),
    "uw39_st_s42_s3fs_access_denied": (Category.STORAGE_IO, "rank 0"),
    "uw39_st_s43_s3fs_nosuchkey_filenotfound": (Category.STORAGE_IO, "rank 2"),
    "uw39_st_s46_gcsfs_http_503": (Category.STORAGE_IO, "rank 1"),
    "uw39_st_s48_lustre_lost_hung_task": (Category.STORAGE_IO, "gpu-node-14"),
})
# a full disk's write its rank retried and trained past; a Lustre failover restored
HEALTHY += ("uw39_st_n01_enospc_retry_succeeded", "uw39_st_n05_lustre_failover_restored")
# c10d's store-based barrier, its wait logged, then its own `Completed store-based barrier for
# key:%s with %d nodes.` and training
HEALTHY += ("uw39_rdzv_r21_store_based_barrier_completed_healthy",)
# SkyPilot's controller on a managed job it recovered that then finished (`Managed job %d (task:
# %d) SUCCEEDED.`); HTCondor's event log after a shadow exception (`(1) Normal termination
# (return value 0)`)
HEALTHY += ("uw39_sc_skypilot_preempted_recovered_healthy",
            "uw39_sc_condor_shadow_exception_then_done")
CAUSES.update({
    # a review of this round's own rules at their edges: each case is a look-alike a new
    # reading must not fire on, or a neighbour in another shape it must still read
    "rv40_accelerate_batch_size_zero": (Category.OOM, ""),
    "rv40_aer6_fatal_one_node": (Category.GPU_CUDA, "rank 4"),
    "rv40_botocore_closed_alone": (Category.UNDETERMINED, ""),
    "rv40_c10d_ipv6_then_ipv4_lookup_fails": (Category.NETWORK, "gpu-node-3"),
    "rv40_c10d_ipv6_then_own_bug": (Category.SOFTWARE, "rank 0"),
    "rv40_deepspeed_rank_log_files": (Category.SOFTWARE, "rank 5"),
    "rv40_gcsfs_http_503": (Category.STORAGE_IO, "rank 0"),
    "rv40_gromacs_realloc_oom": (Category.OOM, ""),
    "rv40_grpc_connect_failed_tf_worker": (Category.NETWORK, "10.0.1.4:2222"),
    "rv40_hdf5_no_locks": (Category.STORAGE_IO, "rank 0"),
    "rv40_horovod_stall_shutdown_rank": (Category.SOFTWARE, "rank 3"),
    "rv40_monitored_barrier_after_own_error": (Category.SOFTWARE, "rank 2"),
    "rv40_mpi_lammps_error_on_proc": (Category.SOFTWARE, "rank 13"),
    "rv40_mpi_lammps_error_on_proc_oom_tagged": (Category.OOM, "rank 6"),
    "rv40_mpi_unlabelled_qe_error_block": (Category.SOFTWARE, "rank 9"),
    "rv40_openib_flushed_after_oom": (Category.OOM, "rank 3"),
    "rv40_openib_retry_exceeded": (Category.NETWORK, ""),
    "rv40_operator_v1_other_job_succeeded": (Category.OOM, "rank 1"),
    "rv40_pickle_ran_out_of_input_cache": (Category.DATA, "rank 0"),
    "rv40_pickle_ran_out_spawn_child": (Category.UNDETERMINED, ""),
    "rv40_pillow_broken_stream_worker": (Category.DATA, ""),
    "rv40_reset_by_remote_peer_alone": (Category.UNDETERMINED, ""),
    "rv40_rocm_hsa_aperture_rankprefix": (Category.GPU_CUDA, "rank 3"),
    "rv40_rust_os_code_28_safetensors": (Category.STORAGE_IO, "rank 3"),
    "rv40_s3fs_permission_from_clienterror": (Category.STORAGE_IO, "rank 0"),
    "rv40_slurm_oomkill_one_task": (Category.OOM, "task 5"),
    "rv40_storage_quota_exceeded_write": (Category.STORAGE_IO, "rank 2"),
    "rv40_tgi_shard_failed_to_start_oom": (Category.OOM, "rank 1"),
    "rv40_torchrun_succeeded_other_node_failed_before": (Category.STORAGE_IO, "rank 7"),
    "rv40_watchdog_exception_cuda_error": (Category.GPU_CUDA, "rank 2"),
    "rv40_xid31_pid_from_torchrun_table": (Category.GPU_CUDA, "rank 10"),
    # TGI's launcher stopping on a SIGTERM (`Received SIGTERM, terminating`), its shard then
    # reported crashed
    "rv40_tgi_shard_crashed_after_sigterm": (Category.INFRASTRUCTURE, ""),
})
HEALTHY += ("rv40_aer6_correctable_healthy", "rv40_botocore_closed_retried", "rv40_c10d_ipv6_warning_healthy", "rv40_forrtl_warning_went_past", "rv40_gloo_willretry_healthy", "rv40_grpc_connect_failed_then_served", "rv40_horovod_stall_warning_healthy", "rv40_lustre_lost_restored_healthy", "rv40_numpy_no_data_left_info", "rv40_operator_v1_success", "rv40_storage_cant_open_for_writing_benign", "rv40_storage_quota_soft_warning", "rv40_storage_write_error_retried", "rv40_torchrun_succeeded_after_restart", "rv40_ucx_warn_healthy", "uw39_hl_nccl_p2p_probe_cuda_failure_ok", "uw39_hl_dmesg_perf_peermem_edac_ok",)
CAUSES.update({
    # Ray Train's worker's own word of its rank as it joins (`(RayTrainWorker pid=%d, ip=%s)
    # Setting up process group for: env:// [rank=%d, world_size=%d]`): the rank of the worker
    # that raised, died or was killed for memory
    "uw39_tb_y01_ray_actordied_unexpected_exit": (Category.UNDETERMINED, "rank 1"),
    "uw39_tb_y02_ray_oom_killed_worker": (Category.OOM, "rank 3"),
    "uw39_tb_y03_ray_train_worker_exception": (Category.SOFTWARE, "rank 2"),
})
CAUSES.update({
    # the frameworks' own words: DeepSpeed's per-rank log files (`%Y%m%d%H%M%S_rank%d.log`, by
    # global rank), Horovod's stall inspector marking a rank that shut down (`3!: […]`), vLLM's
    # `Executor failed.` after its worker died, TGI's launcher on its shard (`Shard %d failed to
    # start`, `Shard %d crashed`), accelerate's batch-size finder giving up on memory
    "uw39_fw_ds_each_rank_log_rank6_valueerror": (Category.SOFTWARE, "rank 6"),
    "uw39_fw_hvd_stall_rank3_shut_down": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "uw39_fw_vllm_worker_proc_died_no_cause": (Category.UNDETERMINED, ""),
    "uw39_fw_tgi_shard1_oom_failed_to_start": (Category.OOM, "rank 1"),
    "uw39_fw_tgi_shard0_signal9_crashed": (Category.UNDETERMINED, "rank 0"),
    "uw39_fw_acc_no_executable_batch_size": (Category.OOM, ""),
})
CAUSES.update({
    # MPI codes' own fatal errors just above the one MPI_Abort of a file with no rank labels
    # (GROMACS's `Fatal error:` block, Quantum ESPRESSO's `Error in routine`, OpenFOAM's
    # `--> FOAM FATAL ERROR`, VASP's banner): that rank's own failure; GROMACS's `Not enough
    # memory. Failed to realloc %d bytes` is its memory
    "uw39_mpi_o16_ompi4_gromacs_fatal_oom_rank3": (Category.OOM, "rank 3"),
    "uw39_mpi_o17_ompi4_qe_error_in_routine_rank2": (Category.SOFTWARE, "rank 2"),
    "uw39_mpi_o18_ompi4_openfoam_fatal_error_rank3": (Category.SOFTWARE, "rank 3"),
    "uw39_mpi_v01_impi_vasp_zhegv_abort": (Category.SOFTWARE, "rank 0"),
    # MPICH 3's ch3 client on its own abort (`[cli_4]: aborting job:`) above MPI's error stack
    # for an argument it passed wrong (`Fatal error in PMPI_Bcast: Invalid root`)
    "uw39_mpi_m05_mpich3_invalid_root_cli": (Category.SOFTWARE, "rank 4"),
    # LSF's job report: its verdict (`TERM_MEMLIMIT`, `TERM_PREEMPT`) above `The output (if any)
    # follows:` and the job's own steps under it, which ran before the verdict
    "uw39_sc_lsf_term_memlimit": (Category.OOM, ""),
    "uw39_sc_lsf_term_preempt": (Category.INFRASTRUCTURE, ""),
    # TensorFlow's GPU device that could not bring up CUDA (gpu_device.cc `CUDA runtime
    # implicit initialization on GPU:%d failed. Status: %s`); Paddle's `CUDA error(700), …` in
    # the worker log of the rank its launcher names aborted
    "uw39_xla_tf_cuda_implicit_init_busy": (Category.GPU_CUDA, ""),
    "uw39_xla_paddle_cuda700_workerlog2": (Category.GPU_CUDA, "rank 2"),
    # one rank's CUDA error, then its peers' NCCL `message truncated` as it went away mid-transfer
    # (net_socket.cc): its loss, not a desync
    "uw39_xla_jax_illegal_address_then_nccl_relays": (Category.GPU_CUDA, "rank 0"),
    # c10d's socket on a store host name that does not resolve (socket.cpp `The client socket
    # cannot be initialized to connect to [%s]:%d (errno: -2 - Name or service not known)`)
    "uw39_rdzv_r42_static_rdzv_master_name_unresolvable": (Category.NETWORK, "trainer-master.svc"),
    # gfortran's own last words (`Fortran runtime error: Index … above upper bound`) above
    # Open MPI's first process to exit with a status, in a file with no rank labels
    "uw39_mpi_o25_ompi4_gfortran_bounds_check": (Category.SOFTWARE, "rank 6"),
})
CAUSES.update({
    # PyTorch distributed's own words: gloo's line on rank 0 (`Rank 2 failed to pass
    # monitoredBarrier in %d ms`, no error word in it) beside the DETAIL wrapper's exception;
    # the flight-recorder analyser around torch 2.4 (`Missing ranks are {3}`); the heartbeat
    # monitor ending every rank alike (`Heartbeat monitor timed out! … watchdog got stuck`)
    "uw39_torch_wrapper_monitored_barrier_rank2_missing": (Category.COLLECTIVE_DESYNC, "rank 2"),
    "uw39_torch_fr_trace_v24_missing_ranks_are_3": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "uw39_torch_heartbeat_v25_all_ranks": (Category.UNDETERMINED, ""),
})
# torchrun's agent's keep-alive to the rendezvous that failed once, then its worker group
# SUCCEEDED
HEALTHY += ("uw39_torch_none_rdzv_keepalive_failed_once",)
# ... and their look-alikes: gloo's debug logger's `willRetry=1`, UCX's own WARN column, c10d's
# retried client connect with the backtrace it prints under its warning, NCCL's proxy at
# teardown
HEALTHY += ("uw39_net_g05_gloo_connect_retry_healthy", "uw39_net_u06_ucx_fork_warn_healthy",
            "uw39_net_s12_store_tcp_client_retry_healthy",
            "uw39_net_n24_nccl219_proxy_teardown_warn_healthy")
# ... and its 6.x word for a corrected error (`AER: Correctable error message received`)
HEALTHY += ("uw39_healthy_aer_correctable_6x",)
# NCCL's proxy thread at a job's end (proxy.cc `Failed to execute operation Close from rank %d`)
# after the run finished and its agent said SUCCEEDED
HEALTHY += ("hy_nccl_teardown_warnings_exit0",)
# a Lustre server's failover the client rode out (`Connection to %s (at %s) was lost`, then
# `Connection restored to`), training going on
HEALTHY += ("sx_lustre_reconnect_recovered",)
# c10d's warning that a host name has no IPv6 address (socket.cpp `The IPv6 network addresses
# of (%s, %d) cannot be retrieved`): it goes on to the IPv4 one
HEALTHY += ("uw39_c10d_ipv6_lookup_warning_alone",)
CAUSES.update({
    # the ninth review, of this round's own rules: a NIC flap the job trained past; a
    # stage's word that it finished, then the next stage failing; a rank's own assertion under
    # UCX's warning it survived; connects that failed hours before a stall; a VM's CD-ROM and a
    # disk the job never read; one worker's exception its driver re-raised; an eviction the
    # operator restarted the pod after
    "rv38_nic_flap_trained_past_then_all_ranks_timeout": (Category.UNDETERMINED, ""),
    "rv38_stage1_training_finished_then_stage2_refused_no_fatal_line": (Category.NETWORK,
                                                                        "10.55.4.2"),
    "rv38_ucx_retry_error_survived_then_own_assert_abort": (Category.SOFTWARE, "rank 12"),
    "rv38_horovod_stall_hours_after_startup_connect_failures": (Category.COLLECTIVE_DESYNC, ""),
    "rv38_dmesg_sr0_virtual_media_io_errors_then_rank3_typeerror": (Category.SOFTWARE, "rank 3"),
    "rv38_medium_error_on_unused_disk_hours_before_rank5_assert": (Category.SOFTWARE, "rank 5"),
    "rv38_vllm_driver_relays_one_worker_valueerror": (Category.SOFTWARE, "4513"),
    "rv38_k8s_worker_evicted_earlier_restarted_then_valueerror": (Category.SOFTWARE,
                                                                  "bert-ft-worker-1"),
    "rv38_pid_bracket_logger_cuda_error_not_mpiexec_rank_labels": (Category.GPU_CUDA, ""),
})
CAUSES.update({
    # a review of culprits' names, and one of causes the lines do not show: a node's local
    # ranks (torchrun's `[default1]:` tag, its agent's `local_rank: 0`) are the global ranks
    # that node's agent said at its rendezvous (`global_ranks=[8, 9, …]`)
    "rv37_torchrun_rendezvous_maps_default1_to_rank9": (Category.SOFTWARE, "rank 9"),
    "rv37_pod_files_rendezvous_maps_default3_to_rank11": (Category.SOFTWARE, "rank 11"),
    "rv36_agent_failed_local0_mapped_to_rank4": (Category.UNDETERMINED, "rank 4"),
    # the kernel's block layer in its words since 4.18 (`critical medium error, dev sdb`),
    # then every rank's read failing alike: the disk, no rank
    "rv37_medium_error_sdb_then_every_rank_eio": (Category.STORAGE_IO, "sdb"),
    # an Xid in one node's journal: its PCI address repeats on every node, the host does not
    "rv37_xid79_in_one_nodes_journal_then_timeouts": (Category.GPU_CUDA, "on gpu-node-07"),
    # Ray's memory monitor killing a Ray Train worker: its rank in the trainer's worker table
    "rv37_ray_memory_monitor_kills_world_rank3": (Category.OOM, "rank 3"),
    # MPICH's `mpiexec -l` tags each line with its rank (`[3] Traceback …`)
    "rv37_mpiexec_l_rank3_zerodivision": (Category.SOFTWARE, "rank 3"),
    # one `kubectl logs -l … --prefix` command's output: each line names its pod
    "rv37_kubectl_logs_selector_prefix_worker1_valueerror": (Category.SOFTWARE,
                                                             "bert-ft-worker-1"),
    # every rank timed out in one collective, then one rank's CUDA call failed while its
    # watchdog took the process down: the teardown, not the cause
    "rv36_illegal_access_after_own_watchdog_timeout": (Category.UNDETERMINED, ""),
    "rv36_illegal_access_main_thread_after_own_timeout": (Category.UNDETERMINED, ""),
    # a rank its node's agent reports killed (SIGKILL, no memory line), then the other node's
    # ranks' links to it failing: its loss, not the network
    "rv36_rank5_sigkill_then_peers_ib_errors": (Category.UNDETERMINED, "rank 5"),
    # a Ray Train worker that died with no cause shown: its rank in the trainer's table
    "rv36_ray_train_worker_died_table_rank1": (Category.UNDETERMINED, "rank 1"),
})
CAUSES.update({
    # a review of the network's failures and look-alikes: Open MPI's connects to a peer that
    # failed on every rank Horovod then found missing; UCX's retries that ran out, then its
    # abort; Horovod's task that reached none of its driver's addresses
    "rv35_horovod_stall_after_btl_tcp_no_route": (Category.NETWORK, "192.168.50.12"),
    "rv35_ucx_retry_exceeded_then_abort": (Category.NETWORK, "gpu-d11"),
    "rv35_horovod_task_cannot_reach_driver": (Category.NETWORK, "10.20.0.4"),
})
# ... and a coordinator's refusal logged as a warning after the run said it had finished
HEALTHY += ("rv35_jax_finished_then_coordinator_refused_warning",)
CAUSES.update({
    # a review of software faults, outside stops and storage: a save in the preemption's
    # signal handler that failed after the stop; ranks that aborted on their links after a
    # plain scancel; every rank's shard write failing alike
    "rv34_preemption_then_emergency_save_failed": (Category.INFRASTRUCTURE, ""),
    "rv34_scancel_then_ranks_abort_on_ib_errors": (Category.INFRASTRUCTURE, ""),
    "rv34_every_rank_zero_shard_write_failed": (Category.STORAGE_IO, ""),
    # vLLM's driver and each worker process raising one KeyError while loading the model
    "rv34_vllm_driver_and_every_worker_keyerror": (Category.SOFTWARE, ""),
    # a Ray Train worker's error, its rank in the table of the workers the trainer started
    "rv34_ray_train_worker_table_rank2_valueerror": (Category.SOFTWARE, "rank 2"),
})
CAUSES.update({
    # the eighth review, of this round's own rules: another program's error beside the job
    # is not a peer's death; a step that could not run after the wait is not why it waited;
    # a client refused to the end never joined; two ranks renaming one directory race
    "rv33_sidecar_eval_exception_then_worker_no_route_to_store": (Category.NETWORK,
                                                                  "bert-pt-master-0"),
    "rv33_slurm_store_wait_timeout_then_later_step_127": (Category.INIT_TIMEOUT, ""),
    "rv33_store_3of4_client_refused_wrong_port_never_joined": (Category.NETWORK,
                                                               "resnet-ddp-master-0"),
    "rv33_hf_trainer_rename_race_fileexists_arrow": (Category.SOFTWARE, "rank 1"),
})
CAUSES.update({
    # the seventh review, of culprits the lines show but triage did not name: a labelled
    # rank's own exception above NCCL's unlabelled network lines; a desync report's lagging
    # rank that raised its own error first; Azure ML's and DeepSpeed's per-process log files;
    # Open MPI's first process to exit with a status, over an unlabelled traceback;
    # Composer's captured output of a crashed rank
    "rv32_console_logger_exception_rank3_then_ib_errors": (Category.SOFTWARE, "rank 3"),
    "rv32_desync_report_after_rank3_own_nameerror": (Category.SOFTWARE, "rank 3"),
    "rv32_azureml_std_log_process_06_typeerror": (Category.SOFTWARE, "rank 6"),
    "rv32_deepspeed_each_rank_log_localrank1": (Category.STORAGE_IO, "rank 1"),
    "rv32_mpirun_untagged_nameerror_then_first_process_rank2": (Category.SOFTWARE, "rank 2"),
    "rv32_mpirun_untagged_oom_then_first_process_rank2": (Category.OOM, "rank 2"),
    "rv32_composer_rank3_stderr_block": (Category.SOFTWARE, "rank 3"),
    # logs saved one file per process (per pod, `worker-3.log`): the file names the process
    "rv32_tfjob_pod_files_worker2_typeerror": (Category.SOFTWARE, "tfjob-bert-worker-2"),
    "rv32_worker_n_log_files_worker3_typeerror": (Category.SOFTWARE, "worker-3.log"),
    # a structured logger's records: their rank, their time and their traceback field read
    "rv32_json_lines_rank_field_rank2_indexerror": (Category.SOFTWARE, "rank 2"),
    # Open MPI's --timestamp-output glues its time to the tag that names the rank
    "rv32_ompi_timestamp_glued_tag_rank1": (Category.SOFTWARE, "rank 1"),
    # MVAPICH2's spawner names the MPI rank it lost and its signal
    "rv32_mvapich_sighandler_mpi_rank_3_segv": (Category.UNDETERMINED, "rank 3"),
    # a traceback a logger printed under its own stamped ERROR record takes the record's time,
    # which puts rank 3's own error before its peers' IB errors
    "rv32_rank3_zerodiv_then_ib_completion_on_peers_files": (Category.SOFTWARE, "rank 3"),
    # Ray Train's report of a worker's error: its rank, not the controller that relayed it
    "rv32_raytrain_v2_worker_group_error_rank3": (Category.SOFTWARE, "rank 3"),
})
CAUSES.update({
    # the sixth review, of the culprits that are no rank: the kernel's record of a training
    # process's segfault names its pid; a container Docker lists as ended by a signal, and
    # compose's word that one exited, name the container
    "rv31_kernel_segfault_line": (Category.UNDETERMINED, "901244"),
    "rv31_docker_ps_exited": (Category.UNDETERMINED, "trainer"),
    "rv31_compose_exit137": (Category.UNDETERMINED, "trainer-1"),
    # srun's Out Of Memory line names the node, not the cancel's first node; gloo's refused
    # pair connect names its peer, not the store after c10d's routine IPv6 try; Open MPI's
    # disconnected peer's host, not the rank that noticed first; the Ray worker that ran out,
    # not the trainer that re-raised it
    "rv31_srun_task_oom_torchrun_per_node": (Category.OOM, "gpu-h-104"),
    "rv31_gloo_connect_refused": (Category.NETWORK, "127.0.1.1:8603"),
    "rv31_ompi_peer_host": (Category.UNDETERMINED, "node-gpu-06"),
    "rv31_ray_train_cuda_oom_worker": (Category.OOM, "pid 7712 on 10.10.4.22"),
    # a client's own words for the endpoint it could not reach: redis-py's, aiohttp's
    "rv31_redis_refused": (Category.NETWORK, "redis-master.rl.svc:6379"),
    "rv31_asyncio_connect_call_failed": (Category.NETWORK, "localhost:8000"),
    # several containers' output interleaved behind compose's or kubectl's prefix: each line
    # is its writer's, not the file's one rank
    "rv31_compose_traceback": (Category.GPU_CUDA, "trainer-1"),
    "rv31_kubectl_prefix_pod": (Category.SOFTWARE, "llama-ft-worker-1"),
    # the process named where a line of its own names it: the bus error banner's worker by its
    # report below, a serving engine's worker by its prefix, the kernel's Xid 31 by its pid
    "rv31_dl_worker_bus_error": (Category.INFRASTRUCTURE, "DataLoader worker pid 77412"),
    "rv31_vllm_rayworkerwrapper": (Category.GPU_CUDA, "192.168.10.12:12455"),
    "rv31_xid31_pid": (Category.GPU_CUDA, "pid 3312907"),
    # srun's own word of the node that failed, printed after the cancel; the pod a `kubectl
    # describe pod` is about, not its address
    "rv31_node_failure_cancel_first": (Category.INFRASTRUCTURE, "node gpu-a-011"),
    "rv31_k8s_describe_exit139": (Category.UNDETERMINED, "pod llm-sft-worker-2"),
    # the node of a kernel OOM kill Kubernetes reports: its event's node object, the node a
    # `kubectl describe node` is about
    "rv31_k8s_event_oomkilling_node": (Category.OOM, "on node gke-a100-pool-2f6c-q7vd"),
    "rv31_kubelet_system_oom": (Category.OOM, "pid 1193322 (python) killed by the kernel OOM "
                                              "killer on node gpu-node-14"),
})

CAUSES.update({
    # this round's sweeps of upstream wordings (launchers and MPI codes, platforms and nodes,
    # fault-tolerance restarts, start-up errors, numerics and input data, relays): each case
    # the round's fixes read right, built from the named source's format strings
    "uw41_leftmpi_a07_legacy_launch_cmdline_one_node_sigkill": (Category.UNDETERMINED, ""),
    "uw41_leftmpi_b02_elastic_glog_mapping_sigkill_nodmesg": (Category.UNDETERMINED, "rank 6"),
    "uw41_leftmpi_b03_elastic_glog_mapping_sigkill_dmesg_oom": (Category.OOM, "rank 6"),
    "uw41_leftmpi_b04_elastic_glog_mapping_exit1_no_output": (Category.UNDETERMINED, "rank 11"),
    "uw41_leftmpi_b08_elastic_old_mapping_sigkill_dmesg_oom": (Category.OOM, "rank 6"),
    "uw41_leftmpi_d01_gfortran_cannot_open_mpirun_nonzero": (Category.SOFTWARE, "rank 3"),
    "uw41_leftmpi_d02_gfortran_bounds_tag_output": (Category.SOFTWARE, "rank 2"),
    "uw41_leftmpi_d03_gfortran_allocate_oom": (Category.OOM, "rank 5"),
    "uw41_leftmpi_d09_gfortran_stop_code_mpi_abort_rank": (Category.SOFTWARE, "rank 3"),
    "uw41_leftplat_condor_reconnect_failed": (Category.INFRASTRUCTURE, "node17"),
    "uw41_leftplat_flux_lost_contact_old": (Category.INFRASTRUCTURE, "corona212"),
    "uw41_leftplat_flux_node_failure": (Category.INFRASTRUCTURE, "tioga17"),
    "uw41_leftplat_kern_dmesg_node03_aer_fatal": (Category.GPU_CUDA, "node03"),
    "uw41_leftplat_kern_dmesg_node17_xid79_only": (Category.GPU_CUDA, "node17"),
    "uw41_leftplat_xid119_gsp_timeout": (Category.GPU_CUDA, "node30"),
    "uw41_leftplat_xid64_remap_failure": (Category.GPU_CUDA, "gpu-node-12"),
    "uw41_leftplat_xid74_nvlink_node05": (Category.GPU_CUDA, "node05"),
    # another program's own fault (Xid 43 for a jupyter-kernel's pid) after the job's rank 1
    # raised its own error
    "uw41_leftplat_xid43_foreign_pid_software": (Category.SOFTWARE, "rank 1"),
    "uw41_numdata_decord_open_error": (Category.DATA, "rank 2"),
    "uw41_numdata_hf_nonmatching_splits": (Category.DATA, "rank 0"),
    "uw41_numdata_megatron_indexed_bin_corrupt": (Category.DATA, "rank 1"),
    "uw41_numdata_megatron_rerun_loss_nan_reproducible": (Category.SOFTWARE, "rank 21"),
    "uw41_numdata_npy_truncated_reshape": (Category.DATA, "rank 3"),
    "uw41_numdata_pandas_csv_parser_error": (Category.DATA, ""),
    "uw41_numdata_pickle_truncated_worker": (Category.DATA, "rank 0"),
    "uw41_numdata_pyav_invalid_data": (Category.DATA, "rank 1"),
    "uw41_numdata_soundfile_format_not_recognised": (Category.DATA, "rank 2"),
    "uw41_numdata_torchvision_decode_jpeg": (Category.DATA, "rank 7"),
    "uw41_numdata_webdataset_duplicate_key": (Category.DATA, "rank 2"),
    "uw41_relays_r_cuda_ima_after_nccl_abort": (Category.UNDETERMINED, ""),
    "uw41_relays_r_horovod_shutdown_all": (Category.UNDETERMINED, ""),
    "uw41_relays_t_elastic_agent_sigterm_timelimit": (Category.INFRASTRUCTURE, "gpu-st-p5-17"),
    "uw41_resil_lightning_requeue_stop": (Category.INFRASTRUCTURE, "node-c-114"),
    "uw41_resil_lightning_sigterm_preempted": (Category.INFRASTRUCTURE, "node-c-115"),
    "uw41_resil_megatron_sigterm_time_limit": (Category.INFRASTRUCTURE, "gpu-a045"),
    "uw41_resil_nvrx_launcher_time_limit": (Category.INFRASTRUCTURE, "dgx-b200-017"),
    "uw41_resil_slurm_preempted": (Category.INFRASTRUCTURE, "gpu-a17"),
    # PETSc's own rank prefix on its error report, its trailer below the error
    "uw41_whofailed_c06_petsc_caught_sigsegv_rank3": (Category.UNDETERMINED, "rank 3"),
    "uw41_whofailed_c07_petsc_out_of_memory_rank2": (Category.OOM, "rank 2"),
    # DeepSpeed's launcher on one node: the pid it spawned with --local_rank=2, which the
    # kernel's memory cgroup then killed
    "uw41_relays_t_deepspeed_rc_minus9_cgroup_oom": (Category.OOM, "rank 2"),
    # Ray Train's controller quoting rank 2's error under `[Rank 2 Error Snippet]:`
    "uw41_resil_ray_train_raise_oom": (Category.OOM, "rank 2"),
    "uw41_resil_torchft_lighthouse_refused": (Category.NETWORK, "lighthouse-0.torchft.svc:29510"),
    "uw41_resil_torchft_should_commit_exhausted": (Category.UNDETERMINED, ""),
    "uw41_startup_cublas_alloc_failed": (Category.OOM, "rank 1"),
    "uw41_startup_cudnn_alloc_failed": (Category.OOM, "rank 1"),
})
HEALTHY += ("uw41_numdata_decord_skip_healthy", "uw41_resil_inproc_restart_recovered", "uw41_resil_kubeflow_restart_recovered",)


CAUSES.update({
    # the same round's second and third waves of sweeps (who failed, Ray-based RL trainers,
    # set-up mistakes, managed services, hangs told by stack dumps, inference servers,
    # collective mismatches): each case the fixes read right
    "uw41_cloud_az_v2_usererror_rank3_cuda_oom_in_message": (Category.OOM, "rank 3"),
    "uw41_cloud_db_cluster_spot_termination": (Category.INFRASTRUCTURE, ""),
    "uw41_cloud_db_driver_stopped_restarting": (Category.UNDETERMINED, ""),
    "uw41_cloud_kf_active_deadline": (Category.INFRASTRUCTURE, ""),
    "uw41_cloud_sm_spot_interrupted_stopped": (Category.INFRASTRUCTURE, ""),
    "uw41_cloud_vx_internal_error_current_attempt": (Category.INFRASTRUCTURE, ""),
    "uw41_cloud_vx_resources_insufficient_region_new": (Category.INFRASTRUCTURE, ""),
    "uw41_desync_gloo_preamble_all": (Category.COLLECTIVE_DESYNC, ""),
    "uw41_desync_gloo_preamble_rank1": (Category.COLLECTIVE_DESYNC, ""),
    "uw41_desync_nccl_socket_truncated": (Category.COLLECTIVE_DESYNC, ""),
    "uw41_desync_pgw_old_inconsistent_rank3": (Category.COLLECTIVE_DESYNC, "rank 3"),
    "uw41_hangs_deepspeed_save_hang_rank0_faulthandler": (Category.COLLECTIVE_DESYNC, "rank 0"),
    "uw41_hangs_fh_dump_later_rank2_dataloader": (Category.DATALOADER_STALL, "rank 2"),
    "uw41_hangs_pyspy_rank3_waits_dataloader": (Category.DATALOADER_STALL, "rank 3"),
    "uw41_hangs_pyspy_subprocess_worker_in_s3_read_rank0": (Category.DATALOADER_STALL, "rank 0"),
    "uw41_rlray_a_nemorl_prefix_rank_ima": (Category.GPU_CUDA, "rank 3"),
    "uw41_rlray_a_ray_object_store_full": (Category.OOM, ""),
    "uw41_rlray_a_trl_vllm_server_unreachable": (Category.NETWORK, "10.0.0.5:8000"),
    "uw41_rlray_a_verl_watchdog_ima_under_ray_prefix": (Category.GPU_CUDA, "rank 5"),
    "uw41_serving_sglang_dp_attention_ecc_error": (Category.GPU_CUDA, "TP3"),
    "uw41_serving_sglang_old_modeltpserver_device_assert": (Category.GPU_CUDA, "TP5"),
    "uw41_serving_trtllm_rank1_illegal_memory_access": (Category.GPU_CUDA, "rank 1"),
    "uw41_serving_vllm_v1_pp_tp_worker_prefix_oom": (Category.OOM, "5204"),
    "uw41_setup_eaddrinuse_second_llm_instance": (Category.SOFTWARE, "rank 0"),
    "uw41_setup_eaddrinuse_two_torchruns_one_script": (Category.SOFTWARE, ""),
    "uw41_setup_libuv_windows_built_new_wording": (Category.SOFTWARE, ""),
    "uw41_setup_nccl_comm_id_no_usable_interface": (Category.NETWORK, ""),
    "uw41_setup_nccl_no_usable_interface_last_error_only": (Category.NETWORK, ""),
    "uw41_whofailed_a16_torchrun_slurm_time_limit": (Category.INFRASTRUCTURE, "gpu-node-07"),
    "uw41_whofailed_d06_srun_time_limit": (Category.INFRASTRUCTURE, "node16"),
    "uw41_whofailed_e02_deepspeed_minus9_dmesg_oom": (Category.OOM, "rank 1"),
})
HEALTHY += ("uw41_cloud_vx_replica_restarted_then_succeeded", "uw41_rlray_n_ray_oom_kill_retried_then_finished", "uw41_rlray_n_ray_task_worker_died_retried_then_finished", "uw41_rlray_n_verl_http_port_retry_then_ok", "uw41_serving_tgi_healthy_graceful_shutdown", "uw41_serving_triton_healthy_ctrl_c",)


CAUSES.update({
    # a review's attacks on this round's own new rules (RAS replies, pasted stack dumps, the
    # Slurm stop's node, the rank maps, the other program's Xid, the new words) that they hold
    "rv42_ds02_spawn_map_one_node_killed_nonworker": (Category.OOM, "rank 1"),
    "rv42_lex02_vertex_success_word_of_subjob": (Category.OOM, "rank 1"),
    "rv42_lex04_resiliency_restart_then_same_fault": (Category.GPU_CUDA, "rank 3"),
    "rv42_name03_node_ends_sentence_multi": (Category.INFRASTRUCTURE, "gpu-e07"),
    "rv42_nemorl01_relay_on_other_rank": (Category.OOM, "rank 2"),
    "rv42_ras06_dead_rank_agrees_with_oom": (Category.OOM, "rank 5"),
    "rv42_ras07_dead_process_other_job_same_logs_failed_undetermined": (Category.UNDETERMINED, ""),
    "rv42_ray01_snippet_relay_first": (Category.OOM, "rank 3"),
    "rv42_slm01_node_failure_names_failed_node": (Category.INFRASTRUCTURE, "gpu-b17"),
    "rv42_slm02_time_limit_several_nodes": (Category.INFRASTRUCTURE, ""),
    "rv42_slm03_preempt_then_rank_error_after": (Category.INFRASTRUCTURE, ""),
    "rv42_slm04_node_fail_flux_and_banner_other_host": (Category.INFRASTRUCTURE, "gpu-d09"),
    "rv42_stk06_pyspy_other_process_in_rank_file": (Category.DATALOADER_STALL, "rank 1"),
    "rv42_xid01_other_program_xid43_job_oom": (Category.OOM, "rank 3"),
    "rv42_xid02_job_process_xid31": (Category.GPU_CUDA, "rank 1"),
})
HEALTHY += ("rv42_cuda01_cudaerror_warning_went_on", "rv42_hip01_autotune_oom_skipped", "rv42_lex01_insufficient_disk_space_warning", "rv42_lex03_sagemaker_spot_interrupted_resumed", "rv42_lex05_torchft_retry_recovered", "rv42_lex06_not_a_jpeg_skipped", "rv42_name01_bracketed_endpoint_retry_then_ok", "rv42_ras01_healthy_single_reply_skew", "rv42_ras02_healthy_skew_after_recovered_store_timeout", "rv42_ras03_two_jobs_replies", "rv42_ras04_reply_from_finished_job", "rv42_ras05_dead_after_clean_end_single", "rv42_stk01_pyspy_healthy_on_purpose", "rv42_stk02_pyspy_input_bound", "rv42_stk03_pyspy_checkpoint_phase", "rv42_stk05_faulthandler_watchdog_fired_went_on",)


def _triage(name: str) -> Diagnosis:
    return triage_probe(name)


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
NO_RANK = ("rv40_accelerate_batch_size_zero", "rv40_botocore_closed_alone", "rv40_c10d_ipv6_then_ipv4_lookup_fails", "rv40_gromacs_realloc_oom", "rv40_grpc_connect_failed_tf_worker", "rv40_openib_retry_exceeded", "rv40_pickle_ran_out_spawn_child", "rv40_pillow_broken_stream_worker", "rv40_reset_by_remote_peer_alone", "uw39_torch_heartbeat_v25_all_ranks", "uw39_fw_vllm_worker_proc_died_no_cause", "hg_02_nccl111_blocking_wait_python_raise", "hg_20_nccl110_aborted_comm_key_observer",
           "hg_23_nccl24_init_store_connection_closed", "hg_27_gloo_real_rank1_late_2r",
           "hg_41_ddp_real_unused_all_ranks", "hg_43_ddp_real_unused_debug_info",
           "hg_44_ddp_real_param_count_2r", "fw_34_hvd_shutdown_message_only",
           "sv_05_vllm_all_workers_same_load_assertion", "sv_44_mii_server_crashed_no_cause",
           "r46_43_same_exc_all_ranks", "r46_44_same_exc_numbers_differ",
           "r46_64_torchrun_gloo_recv_timeout", "r46_66_torchrun_monitored_barrier_peer",
           "rv34_every_rank_zero_shard_write_failed", "rv34_vllm_driver_and_every_worker_keyerror",
           "rv36_illegal_access_after_own_watchdog_timeout",
           "rv36_illegal_access_main_thread_after_own_timeout",
           "rv37_medium_error_sdb_then_every_rank_eio")

# (this round's sweep cases that name no rank: a node, an endpoint, a relay)
NO_RANK += (
    "uw41_leftmpi_a07_legacy_launch_cmdline_one_node_sigkill",
    "uw41_leftplat_condor_reconnect_failed",
    "uw41_leftplat_flux_lost_contact_old",
    "uw41_leftplat_flux_node_failure",
    "uw41_leftplat_kern_dmesg_node03_aer_fatal",
    "uw41_leftplat_kern_dmesg_node17_xid79_only",
    "uw41_leftplat_xid119_gsp_timeout",
    "uw41_leftplat_xid64_remap_failure",
    "uw41_leftplat_xid74_nvlink_node05",
    "uw41_numdata_pandas_csv_parser_error",
    "uw41_relays_r_cuda_ima_after_nccl_abort",
    "uw41_relays_r_horovod_shutdown_all",
    "uw41_relays_t_elastic_agent_sigterm_timelimit",
    "uw41_resil_lightning_requeue_stop",
    "uw41_resil_lightning_sigterm_preempted",
    "uw41_resil_megatron_sigterm_time_limit",
    "uw41_resil_nvrx_launcher_time_limit",
    "uw41_resil_slurm_preempted",
    "uw41_resil_torchft_lighthouse_refused",
    "uw41_resil_torchft_should_commit_exhausted",
)

NO_RANK += (
    "uw41_cloud_db_cluster_spot_termination",
    "uw41_cloud_db_driver_stopped_restarting",
    "uw41_cloud_kf_active_deadline",
    "uw41_cloud_sm_spot_interrupted_stopped",
    "uw41_cloud_vx_internal_error_current_attempt",
    "uw41_cloud_vx_resources_insufficient_region_new",
    "uw41_desync_gloo_preamble_all",
    "uw41_desync_gloo_preamble_rank1",
    "uw41_desync_nccl_socket_truncated",
    "uw41_rlray_a_ray_object_store_full",
    "uw41_rlray_a_trl_vllm_server_unreachable",
    "uw41_serving_sglang_dp_attention_ecc_error",
    "uw41_serving_sglang_old_modeltpserver_device_assert",
    "uw41_serving_vllm_v1_pp_tp_worker_prefix_oom",
    "uw41_setup_eaddrinuse_two_torchruns_one_script",
    "uw41_setup_libuv_windows_built_new_wording",
    "uw41_setup_nccl_comm_id_no_usable_interface",
    "uw41_setup_nccl_no_usable_interface_last_error_only",
    "uw41_whofailed_a16_torchrun_slurm_time_limit",
    "uw41_whofailed_d06_srun_time_limit",
)

NO_RANK += (
    "rv42_name03_node_ends_sentence_multi",
    "rv42_ras07_dead_process_other_job_same_logs_failed_undetermined",
    "rv42_slm01_node_failure_names_failed_node",
    "rv42_slm02_time_limit_several_nodes",
    "rv42_slm03_preempt_then_rank_error_after",
    "rv42_slm04_node_fail_flux_and_banner_other_host",
)


@pytest.mark.parametrize("name", NO_RANK)
def test_a_failure_no_one_rank_is_to_blame_for_names_no_rank(name: str) -> None:
    diagnosis = _triage(name)
    assert diagnosis.culprit_ranks == (), diagnosis.summary
    assert diagnosis.category is CAUSES[name][0], diagnosis.summary


@pytest.mark.parametrize(("name", "wrong"), [
    ("rv26_drain_two_nodes", "gpu-node-c03"),  # two nodes cordoned: which one's pod, unsaid
    ("rv26_cordon_then_drain", "gpu-node-c03"),
    ("rv26_hub_download_then_other_failure", "download.pytorch.org"),  # a finished download
    ("rv26_later_client_port_wins", "mlflow"),  # a later exception's endpoint
    ("rv27_interleaved_url", "storage.googleapis.com"),  # another rank's line in the traceback
    # an Xid of a process not the job's, of another host, or of one process driving every GPU
    ("rv27_stale_xid_same_host", "rank 6"),
    ("rv27_xid_other_host_oom", "rank 6"),
    ("rv27_single_process_dataparallel", "rank 6"),
    ("rv29_two_tables_exit1_then_sigkill", "rank 3"),
    ("rv31_srun_task_oom_torchrun_per_node", "gpu-h-101"),
    ("rv31_compose_traceback", "rank 0"),
    ("rv31_node_failure_cancel_first", "gpu-a-003"),
    ("rv32_raytrain_v2_worker_group_error_rank3", "88214"),
    ("rv31_k8s_event_oomkilling_node", "x1k9"),
    ("rv31_k8s_describe_exit139", "10.244.7.31"),
    ("rv31_kubectl_prefix_pod", "worker-0"),
    ("rv31_gloo_connect_refused", "cpu-node-1"),
    ("rv31_ompi_peer_host", "node-gpu-01"),
    ("rv31_ray_train_cuda_oom_worker", "9121"),
    ("rv29_mbarrier_root_late", "rank 1"),
    ("rv29_tp_subgroup_waiter_b", "rank 3"),
    ("rv29_subgroup_hang_absent_nonmember", "rank 1"),
    ("rv29_placed_wrong_pid", "77100"),
    ("rv38_pid_bracket_logger_cuda_error_not_mpiexec_rank_labels", "rank 4514"),  # a pid
    ("rv40_tgi_shard_crashed_after_sigterm", "rank 0"),  # a shard the launcher's stop ended
])
def test_a_reviewed_case_names_no_wrong_culprit(name: str, wrong: str) -> None:
    assert not any(wrong in c for c in _triage(name).culprits)
